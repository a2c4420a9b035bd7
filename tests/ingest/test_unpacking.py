"""Decompression bombs: refused with a clear error, in bounded memory, and the rest of the ingest goes on."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import docx
import pytest

from geungeo.engine import build_engine
from geungeo.errors import LoaderError
from geungeo.ingest.base import load_file
from geungeo.ingest.unpacking import UNPACKED_LIMIT, inflate
from geungeo.settings import Settings

_GIB = 1 << 30


def _bomb(path: Path, member: str, size: int = 2 * _GIB) -> Path:
    """A small zip whose one XML part inflates to ``size`` bytes of zeros."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as package:
        package.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        with package.open(member, "w", force_zip64=True) as part:
            block = bytes(16 << 20)
            for _ in range(size // len(block)):
                part.write(block)
    return path


@pytest.fixture(scope="module")
def docx_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _bomb(tmp_path_factory.mktemp("bombs") / "bomb.docx", "word/document.xml")


# The peak is VmHWM, this process's own high-water mark: ru_maxrss is kept across exec on Linux, so it would report
# the forking test process's size (gigabytes once the embedder tests have run), not the loader's.
_MEASURE = """
import json, re, sys
from pathlib import Path
from geungeo.errors import LoaderError
from geungeo.ingest.base import load_file
try:
    load_file(Path(sys.argv[1]))
    error = None
except LoaderError as exc:
    error = exc.reason
peak_kb = int(re.search(r"VmHWM:\\s*(\\d+)", Path("/proc/self/status").read_text()).group(1))
print(json.dumps({"error": error, "peak_mb": peak_kb / 1024}))
"""


def test_a_docx_bomb_is_refused_in_bounded_memory(docx_bomb: Path) -> None:
    assert docx_bomb.stat().st_size < 16 << 20  # a small file …
    run = subprocess.run([sys.executable, "-c", _MEASURE, str(docx_bomb)], capture_output=True, text=True, timeout=300)
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["error"] and "GEUNGEO_MAX_UNPACKED_MB" in result["error"] and "word/document.xml" in result["error"]
    assert result["peak_mb"] < 1536, result  # … that no longer drives the process to gigabytes


def test_an_hwpx_bomb_is_refused(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.hwpx", "META-INF/manifest.xml", size=64 << 20)
    with pytest.raises(LoaderError, match="GEUNGEO_MAX_UNPACKED_MB"):
        load_file(bomb, max_unpacked_bytes=32 << 20)


def test_a_file_within_the_limit_loads(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("연차 유급휴가는 15일로 한다.")
    path = tmp_path / "ok.docx"
    document.save(str(path))
    assert "15일" in load_file(path, max_unpacked_bytes=1 << 20)[0].elements[0].text
    with pytest.raises(LoaderError, match="unpacks to more than"):
        load_file(path, max_unpacked_bytes=1 << 10)


def test_a_compressed_stream_is_inflated_with_a_bound() -> None:
    packer = zlib.compressobj(1, zlib.DEFLATED, -15)
    raw = packer.compress(bytes(64 << 20)) + packer.flush()
    token = UNPACKED_LIMIT.set(16 << 20)
    try:
        with pytest.raises(LoaderError, match="GEUNGEO_MAX_UNPACKED_MB"):
            inflate(raw, "plan.hwp")
    finally:
        UNPACKED_LIMIT.reset(token)
    assert len(inflate(raw, "plan.hwp")) == 64 << 20  # the default bound (512 MB) lets it through


def test_the_ingest_reports_the_bomb_and_goes_on(tmp_path: Path, docx_bomb: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bomb.docx").symlink_to(docx_bomb)
    (docs / "휴가법.md").write_text("# 휴가법\n\n##### 제1조 (휴가)\n\n연차 유급휴가는 15일로 한다.\n", "utf-8")
    engine = build_engine(Settings(data_dir=tmp_path / "data", embed_provider="fake", max_unpacked_mb=64))
    try:
        report = engine.ingest([docs])
        failed = [f for f in report.files if f.error]
        assert len(failed) == 1 and "GEUNGEO_MAX_UNPACKED_MB" in (failed[0].error or "")
        assert engine.search("연차 유급휴가", k=1)[0].chunk.meta["doc"] == "휴가법"
    finally:
        engine.close()
