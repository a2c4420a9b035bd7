"""OCR of page images with Tesseract 5 (Hangul script data, else Korean + English), and the test that says a page
needs it.

A PDF page is OCR'd when it has no text layer but shows an image, or when its text layer is
implausible (:func:`implausible_text`): broken CID fonts extract as private-use, replacement or
CJK-compatibility characters, or as mojibake letters (cp949 bytes read as Latin-1) instead of
Hangul. Tesseract is called through ``pytesseract`` (Apache-2.0; it runs the ``tesseract`` binary,
Debian's ``tesseract-ocr`` with ``tesseract-ocr-script-hang`` or ``tesseract-ocr-kor``), which gives every word's block,
paragraph, line and confidence (page segmentation mode 4: on the SPRI brief it read in order where
mode 3 shuffled blocks, CER 0.11 against 0.29 on page 9): text comes back in Tesseract's block order, a paragraph per
Tesseract paragraph, its lines kept as lines (a table on a scan is read as text rows, no
structure is claimed). Before Tesseract a page image that leans by 0.5° or more is turned upright (:func:`prepare`,
projection profile): on the SPRI brief's copy scanned with a 1° skew CER 0.181 became 0.174, pages that do not lean
are read as they are (``benchmarks/reports/ocr.md``, which also gives the upscaling and blurring that were measured and
not kept). Results are cached under ``<data_dir>/cache/ocr`` by the hash of the
page image, so a re-ingest never OCRs a page twice. Progress is logged per page.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import logging
import os
import shutil
import subprocess
import time
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from geungeo.text.normalize import clean_text, nfc

log = logging.getLogger(__name__)

HANGUL = "Hangul"  # Debian's tesseract-ocr-script-hang: Hangul with Latin, CER 0.164 against kor+eng's 0.192
FALLBACK = "kor+eng"  # Debian's tesseract-ocr-kor (and eng): English words in a Korean page
DPI = 300  # PDF pages are rendered at this resolution for OCR
_CONFIG = "--oem 1 --psm 4"  # one column of varying sizes: psm 3 dropped lines of short pages
_MIN_SKEW = 0.5  # degrees: a page leaning less is read as it is (Tesseract copes; a turn only resamples it)
_MAX_SKEW = 5.0  # degrees searched either way
_PREPARE = f"deskew{_MIN_SKEW}"  # the preparation in the cache key: change it when prepare() reads differently
_MIN_LETTERS = 10  # the language check needs this many letters
_MAX_GARBAGE = 0.05  # share of private-use / replacement / compatibility / control characters
_MIN_KNOWN_LETTERS = 0.5  # share of letters that are Hangul or ASCII Latin (the language check)

_cache_dir: Path | None = None


class OcrUnavailable(RuntimeError):
    """Tesseract (or its Korean data) is not installed."""


@dataclass(frozen=True, slots=True)
class OcrResult:
    """A page's OCR text as paragraphs (lines joined by newlines) and the mean word confidence (0–1)."""

    paragraphs: list[str]
    confidence: float


def configure_cache(data_dir: Path) -> None:
    """Cache OCR results under ``data_dir/cache/ocr`` (the ingestion pipeline calls this)."""
    global _cache_dir
    _cache_dir = data_dir / "cache" / "ocr"


def _cache_root() -> Path:
    if _cache_dir is not None:
        return _cache_dir
    from geungeo.settings import Settings

    return Settings().data_dir / "cache" / "ocr"


def _garbage(ch: str) -> bool:
    code = ord(ch)
    return (
        0xE000 <= code <= 0xF8FF  # private use
        or code >= 0xF0000
        or code == 0xFFFD  # replacement
        or 0xF900 <= code <= 0xFAFF  # CJK compatibility ideographs
        or 0x3300 <= code <= 0x33FF  # CJK compatibility squares
        or unicodedata.category(ch) in {"Cc", "Cs", "Co", "Cn"}
    )


def implausible_text(text: str) -> str | None:
    """Why ``text`` does not read as Korean/English (a reason), or None when it is plausible.

    Garbage characters (private use, U+FFFD, CJK compatibility, control) over 5% of the
    non-space characters fail it, and so do letters that are mostly neither Hangul nor ASCII
    Latin (the language check: mapped CID fonts come out as Latin-1 or random Han letters).
    """
    chars = [ch for ch in text if not ch.isspace()]
    if not chars:
        return "no text"
    garbage = sum(_garbage(ch) for ch in chars) / len(chars)
    if garbage > _MAX_GARBAGE:
        return f"{garbage:.0%} unmapped characters"
    letters = [ch for ch in chars if unicodedata.category(ch).startswith("L")]
    if len(letters) >= _MIN_LETTERS:
        known = sum(0xAC00 <= ord(ch) <= 0xD7A3 or ch.isascii() for ch in letters) / len(letters)
        if known < _MIN_KNOWN_LETTERS:
            return f"only {known:.0%} of letters Hangul or Latin"
    return None


def needs_ocr(text: str, has_image: bool) -> str | None:
    """Why a page with this text layer should be OCR'd, or None to keep its text."""
    if not text.strip():  # a few plausible characters on an image (a cover's date) are kept
        return "no text layer" if has_image else None
    return implausible_text(text)


@functools.cache
def _tesseract_languages() -> frozenset[str]:
    """The language and script data Tesseract has (``tesseract --list-langs``; pytesseract's own list drops the
    capitalised script names such as ``Hangul``)."""
    tesseract = shutil.which("tesseract")
    if tesseract is None:
        return frozenset()
    try:
        listed = subprocess.run([tesseract, "--list-langs"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(line.strip() for line in listed.stdout.splitlines()[1:] if line.strip())


def languages() -> str:
    """The Tesseract data pages are read with: the Hangul script data where installed (on the SPRI brief's 23 pages
    CER 0.164 at 300 dpi and 0.159 at 150 dpi, against 0.192 and 0.194 for kor+eng in the same run:
    ``benchmarks/reports/ocr.md``), else kor+eng."""
    return HANGUL if HANGUL in _tesseract_languages() else FALLBACK


def unavailable_reason() -> str | None:
    """Why OCR cannot run here (a one-line reason), or None when Tesseract with Korean is installed."""
    try:
        import pytesseract  # noqa: F401
    except ImportError:
        return "pytesseract is not installed"
    if shutil.which("tesseract") is None:
        return "Tesseract is not installed (Debian: apt-get install tesseract-ocr tesseract-ocr-kor)"
    missing = set(languages().split("+")) - _tesseract_languages()
    if missing:
        return (
            f"Tesseract lacks language data {', '.join(sorted(missing))} "
            "(Debian: tesseract-ocr-script-hang, or tesseract-ocr-kor)"
        )
    return None


@functools.cache
def _version() -> str:
    import pytesseract

    return str(pytesseract.get_tesseract_version())


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _ink(gray: np.ndarray) -> np.ndarray:
    """Dark pixels (Otsu's threshold) of a greyscale array; none when it has a single grey level (a blank page)."""
    if gray.size == 0 or gray.min() == gray.max():
        return np.zeros(gray.shape, dtype=bool)
    hist = np.bincount(gray.ravel(), minlength=256).astype(np.float64)
    weight = np.cumsum(hist)
    total = weight[-1]
    mass = np.cumsum(hist * np.arange(256))
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mass[-1] * weight - mass * total) ** 2 / (weight * (total - weight))
    return gray <= int(np.nanargmax(between))


def skew_angle(image: Image.Image) -> float:
    """The turn (degrees, counter-clockwise, for :meth:`PIL.Image.Image.rotate`) that makes text lines horizontal:
    the angle within ±5° whose row profile of dark pixels is sharpest (coarse 0.25° steps, then 0.05°), on a copy
    reduced to about 640 pixels wide."""
    gray = image.convert("L")
    small = gray.reduce(max(1, gray.width // 640))
    dark = _ink(np.asarray(small))
    if not dark.any():
        return 0.0
    ink = Image.fromarray((dark * 255).astype(np.uint8))

    def sharpness(angle: float) -> float:
        turned = np.asarray(ink.rotate(angle, resample=Image.Resampling.NEAREST, fillcolor=0), dtype=np.float64)
        return float(np.sum(np.diff(turned.sum(axis=1)) ** 2))

    best = max(np.arange(-_MAX_SKEW, _MAX_SKEW + 1e-9, 0.25), key=lambda a: sharpness(float(a)))
    fine = max(np.arange(best - 0.25, best + 0.25 + 1e-9, 0.05), key=lambda a: sharpness(float(a)))
    return round(float(fine), 2)


def prepare(image: Image.Image) -> Image.Image:
    """The page image as Tesseract reads it: turned upright (bicubic, white corners) when it leans 0.5° or more, else
    unchanged (a smaller turn only resamples a page Tesseract reads as well)."""
    angle = skew_angle(image)
    if abs(angle) < _MIN_SKEW:
        return image
    fill = 255 if image.mode == "L" else (255, 255, 255)
    return image.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=fill)


def _read(image: Image.Image) -> OcrResult:
    """Words grouped by Tesseract's blocks, paragraphs and lines, in its reading order."""
    import pytesseract

    data = pytesseract.image_to_data(
        prepare(image), lang=languages(), config=_CONFIG, output_type=pytesseract.Output.DICT
    )
    paragraphs: dict[tuple[int, int], dict[int, list[str]]] = {}
    weighted = total = 0.0
    for i, word in enumerate(data["text"]):
        word = nfc(word).strip()
        conf = float(data["conf"][i])
        if not word or conf < 0:
            continue
        key = (int(data["block_num"][i]), int(data["par_num"][i]))
        paragraphs.setdefault(key, {}).setdefault(int(data["line_num"][i]), []).append(word)
        weighted += conf * len(word)
        total += len(word)
    texts = []
    for key in sorted(paragraphs):
        lines = [clean_text(" ".join(words)) for _, words in sorted(paragraphs[key].items())]
        text = "\n".join(line for line in lines if line)
        if text:
            texts.append(text)
    return OcrResult(texts, round(weighted / total / 100, 3) if total else 0.0)


def ocr_image(image: Image.Image, *, label: str = "") -> OcrResult:
    """OCR one page image (cached by the hash of its PNG, the languages, the preparation and Tesseract's version).

    Raises :class:`OcrUnavailable` when Tesseract or its Korean data is missing.
    """
    reason = unavailable_reason()
    if reason is not None:
        raise OcrUnavailable(reason)
    image = image.convert("L") if image.mode not in {"L", "RGB"} else image
    key = f"|{languages()}|{_CONFIG}|{_PREPARE}|{_version()}"
    digest = hashlib.sha256(_png(image) + key.encode()).hexdigest()
    cached = _cache_root() / digest[:2] / f"{digest}.json"
    if cached.is_file():
        data = json.loads(cached.read_text(encoding="utf-8"))
        log.info("OCR %s: cached", label)
        return OcrResult(list(data["paragraphs"]), float(data["confidence"]))
    started = time.perf_counter()
    result = _read(image)
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(asdict(result), ensure_ascii=False), encoding="utf-8")
    tmp.replace(cached)
    log.info("OCR %s: %.1f s, confidence %.2f", label, time.perf_counter() - started, result.confidence)
    return result
