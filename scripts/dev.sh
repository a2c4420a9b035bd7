#!/usr/bin/env bash
# geungeo developer entry point: setup | demo | test | lock
#   setup  create .venv and install the locked dependencies and geungeo itself
#   demo   setup, ingest ../shared/corpus (or the bundled sample) and run a Korean search
#   test   setup (and chromium for the web UI's browser test), then ruff, mypy and pytest (what CI runs)
#   lock   regenerate requirements.lock from pyproject.toml in a scratch venv
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
VENV=".venv"

setup() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  "$VENV/bin/python" -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
  # The lock file pins every package, transitive ones included; geungeo itself without deps.
  "$VENV/bin/python" -m pip install --quiet -r requirements.lock 2>&1 | grep -v -E "^WARNING: (Location|The directory)" || true
  "$VENV/bin/python" -m pip install --quiet --no-deps -e . 2>&1 | grep -v -E "^WARNING|^ *$|corresp|!!" || true
  "$VENV/bin/python" -c "import geungeo, kiwipiepy, chromadb, bm25s" \
    || { echo "setup failed: dependencies missing" >&2; exit 1; }
}

demo() {
  setup
  ocr_deps
  local corpus="../shared/corpus"
  if [ ! -d "$corpus" ]; then
    corpus="$("$VENV/bin/python" -c 'import geungeo, pathlib; print(pathlib.Path(geungeo.__file__).parent / "data" / "sample")')"
    echo "../shared/corpus not found: using the bundled sample $corpus"
  fi
  "$VENV/bin/geungeo" ingest "$corpus"
  "$VENV/bin/geungeo" search "1년 일하면 유급휴가 며칠 받아요?" -k 5
  "$VENV/bin/geungeo" ask "1년 일하면 유급휴가 며칠 받아요?"
  "$VENV/bin/geungeo" ask "교원이 휴직할 수 있는 경우는?"
}

# Debian packages some features need, installed quietly when missing and this is root with apt-get; otherwise a
# note, never a failure. apt_install WHAT PACKAGE…
apt_install() {
  local what="$1"
  shift
  if [ "$#" -eq 0 ]; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing $* for $what (apt-get)"
    { apt-get update -q >/dev/null 2>&1 \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1; } \
      || echo "note: apt-get could not install $*: without them $what is skipped" >&2
  else
    echo "note: $* missing (apt-get needs root): without them $what is skipped" >&2
  fi
}

# The web UI's browser test drives Debian's chromium (headless); a Korean font makes its screenshot legible.
browser_deps() {
  local missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=ko 2>/dev/null)" ]; then missing+=(fonts-nanum); fi
  apt_install "the web UI browser test" "${missing[@]}"
}

# OCR of scanned PDF pages and image files uses Debian's Tesseract with its Hangul script data (else Korean + English;
# OCR tests are skipped without either).
ocr_deps() {
  local missing=()
  command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr)
  tesseract --list-langs 2>/dev/null | grep -qx kor || missing+=(tesseract-ocr-kor)
  apt_install "OCR of scanned pages and images" "${missing[@]}"
  # the Hangul script data reads better than kor+eng (benchmarks/reports/ocr.md); on its own, so kor stays if it fails
  tesseract --list-langs 2>/dev/null | grep -qx Hangul || apt_install "OCR with the Hangul script data" tesseract-ocr-script-hang
}

run_tests() {
  setup
  browser_deps
  ocr_deps
  "$VENV/bin/ruff" check src tests benchmarks
  "$VENV/bin/mypy"
  "$VENV/bin/pytest" "$@"
}

lock() {
  local tmp
  tmp="$(mktemp -d)"
  "$PY" -m venv "$tmp/venv"
  "$tmp/venv/bin/python" -m pip install --quiet --upgrade pip
  "$tmp/venv/bin/python" -m pip install --quiet ".[dev,postgres]"
  "$tmp/venv/bin/python" -m pip freeze --exclude-editable | grep -v -E "^geungeo" > requirements.lock
  rm -rf "$tmp"
  echo "requirements.lock: $(wc -l < requirements.lock) packages"
}

cmd="${1:-}"
shift || true
case "$cmd" in
  setup) setup ;;
  demo) demo ;;
  test) run_tests "$@" ;;
  lock) lock ;;
  *) echo "usage: scripts/dev.sh setup|demo|test|lock" >&2; exit 2 ;;
esac
