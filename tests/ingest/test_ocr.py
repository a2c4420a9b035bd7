"""OCR fallback: generated Korean fixtures (PNG, TIFF, image-only PDF), the garbage detector, the cache."""

from __future__ import annotations

import logging
from pathlib import Path

import pypdfium2
import pytest
from PIL import Image, ImageDraw, ImageFont

from geungeo.errors import LoaderError
from geungeo.ingest import load_file, ocr
from geungeo.text.normalize import squash
from tests.conftest import CORPUS, need_shared

FONT = Path("/usr/share/fonts/truetype/nanum/NanumGothic.ttf")
LINES = ["대한민국 헌법 제1조 대한민국은 민주공화국이다.", "모든 권력은 국민으로부터 나온다.", "Article 2 applies in 2024."]
WORDS = ["대한민국", "민주공화국이다", "국민으로부터", "Article"]

needs_tesseract = pytest.mark.skipif(
    ocr.unavailable_reason() is not None, reason=f"OCR tests need Tesseract: {ocr.unavailable_reason()}"
)


def _render(lines: list[str] = LINES) -> Image.Image:
    if not FONT.is_file():
        pytest.skip("a Korean font (fonts-nanum) is needed to render the fixture")
    font = ImageFont.truetype(str(FONT), 40)
    image = Image.new("L", (1400, 120 + 70 * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((60, 60 + 70 * i), line, font=font, fill=0)
    return image


def _image_pdf(path: Path, images: list[Image.Image]) -> Path:
    images[0].save(path, format="PDF", resolution=200.0, save_all=True, append_images=images[1:])
    return path


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path) -> None:
    ocr.configure_cache(tmp_path / "data")


def test_detector_keeps_real_text_and_flags_garbage() -> None:
    assert ocr.implausible_text("제1조(목적) 이 법은 근로조건의 기준을 정한다. AI 2023년 12월 ※ 출처: SPRI") is None
    assert ocr.implausible_text("Large language models (LLMs) are evaluated on 12 benchmarks.") is None
    assert ocr.implausible_text("\ue000\ue013\ue0a2 \ue044\ue101 제1조 \ue0ff\ue0aa\ue0ab") is not None  # private use
    assert ocr.implausible_text("豈更車 賈滑串 句龜龜契") is not None  # CJK compatibility ideographs
    mojibake = "대한민국은 민주공화국이다 모든 권력은 국민으로부터".encode("cp949").decode("latin-1")
    assert ocr.implausible_text(mojibake) is not None  # cp949 read as Latin-1: the language check
    assert ocr.needs_ocr("  ", has_image=True) == "no text layer"
    assert ocr.needs_ocr("", has_image=False) is None  # a blank page is not a scan


def test_real_pdf_is_never_ocrd(monkeypatch: pytest.MonkeyPatch) -> None:
    need_shared()

    def forbidden(*_: object, **__: object) -> ocr.OcrResult:
        raise AssertionError("a page with a good text layer was OCR'd")

    monkeypatch.setattr(ocr, "ocr_image", forbidden)
    doc = load_file(CORPUS / "pdf" / "SPRI_AI_Brief_2023년12월호_F.pdf")[0]
    assert all(e.ocr_confidence is None for e in doc.elements)


@needs_tesseract
def test_png_is_read_by_ocr(tmp_path: Path) -> None:
    path = tmp_path / "헌법.png"
    _render().save(path)
    doc = load_file(path)[0]
    text = squash(" ".join(e.text for e in doc.elements))
    assert doc.kind == "image" and doc.meta["pages"] == 1
    assert all(squash(w) in text for w in WORDS), text
    assert all(e.page == 1 and e.ocr_confidence is not None and e.ocr_confidence > 0.6 for e in doc.elements)


@needs_tesseract
def test_multipage_tiff_pages(tmp_path: Path) -> None:
    path = tmp_path / "scan.tiff"
    first, second = _render(LINES[:1]), _render(LINES[1:2])
    first.save(path, save_all=True, append_images=[second])
    doc = load_file(path)[0]
    assert doc.meta["pages"] == 2
    by_page = {p: squash(" ".join(e.text for e in doc.elements if e.page == p)) for p in (1, 2)}
    assert squash("민주공화국이다") in by_page[1] and squash("국민으로부터") in by_page[2]


@needs_tesseract
def test_image_only_pdf_is_ocrd_and_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _image_pdf(tmp_path / "scan.pdf", [_render()])
    doc = load_file(path)[0]
    assert squash("민주공화국이다") in squash(" ".join(e.text for e in doc.elements))
    assert doc.elements and all(e.ocr_confidence is not None for e in doc.elements)
    assert list((tmp_path / "data" / "cache" / "ocr").rglob("*.json"))

    calls = []
    monkeypatch.setattr(ocr, "_read", lambda image: calls.append(image) or ocr.OcrResult([], 0.0))
    again = load_file(path)[0]
    assert calls == [] and [e.text for e in again.elements] == [e.text for e in doc.elements]


@needs_tesseract
def test_broken_font_page_is_ocrd(tmp_path: Path) -> None:
    fitz = pytest.importorskip("pymupdf", reason="pymupdf (dev extra) writes the broken text layer")
    scan = _image_pdf(tmp_path / "scan.pdf", [_render()])
    with fitz.open(scan) as pdf:
        garbage = "대한민국은 민주공화국이다 모든 권력은".encode("cp949").decode("latin-1")
        pdf[0].insert_text((20, 20), garbage, fontsize=8, render_mode=3)  # invisible, extracts as mojibake
        pdf.save(tmp_path / "broken.pdf")
    with pypdfium2.PdfDocument(tmp_path / "broken.pdf") as check:
        assert ocr.implausible_text(check[0].get_textpage().get_text_range()) is not None
    doc = load_file(tmp_path / "broken.pdf")[0]
    text = squash(" ".join(e.text for e in doc.elements))
    assert squash("민주공화국이다") in text and "Ã" not in text


def test_without_tesseract_pages_are_named_and_the_rest_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fitz = pytest.importorskip("pymupdf", reason="pymupdf (dev extra) builds the mixed PDF")
    monkeypatch.setattr(ocr, "unavailable_reason", lambda: "Tesseract is not installed")
    scan = _image_pdf(tmp_path / "scan.pdf", [_render()])
    with pytest.raises(LoaderError, match=r"page\(s\) 1 need OCR but Tesseract is not installed"):
        load_file(scan)
    with fitz.open() as pdf:
        pdf.new_page().insert_text((72, 72), "Text layer page one with enough words.")
        pdf.insert_pdf(fitz.open(scan))
        pdf.save(tmp_path / "mixed.pdf")
    with caplog.at_level(logging.WARNING):
        doc = load_file(tmp_path / "mixed.pdf")[0]
    assert [e.page for e in doc.elements] == [1] and doc.meta["unread_pages"] == "2"
    assert "page(s) 2 need OCR but Tesseract is not installed" in caplog.text
    png = tmp_path / "a.png"
    _render().save(png)
    with pytest.raises(LoaderError, match="an image needs OCR but Tesseract is not installed"):
        load_file(png)


def test_answer_citing_an_ocr_page_warns(tmp_path: Path) -> None:
    from geungeo.answering.models import Answer, Citation, EvidenceItem
    from geungeo.answering.synthesis import synthesize
    from geungeo.chunking.base import chunk_document
    from geungeo.types import Document, Element

    def evidence(doc: Document) -> EvidenceItem:
        return EvidenceItem.from_chunk(1, chunk_document(doc)[0])

    scanned = Document("scan.pdf", "scan", "pdf", [Element("대한민국은 민주공화국이다.", page=2, ocr_confidence=0.91)])
    typed = Document("typed.pdf", "typed", "pdf", [Element("대한민국은 민주공화국이다.", page=2)])
    for doc, warned in ((scanned, True), (typed, False)):
        item = evidence(doc)
        answer = Answer(
            question="대한민국은?",
            answer="민주공화국이다.",
            citations=[Citation(label=item.label, doc=item.doc, page=2, chunk_id=item.chunk_id)],
            evidence=[item],
        )
        warnings = synthesize(answer, tmp_path).warnings
        assert any("OCR" in w and item.label in w for w in warnings) is warned, warnings


def test_the_hangul_script_data_is_read_in_preference_and_kor_eng_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    for installed, expected in (
        ({"eng", "kor", "osd", "Hangul"}, "Hangul"),
        ({"eng", "kor", "osd"}, "kor+eng"),
    ):
        monkeypatch.setattr(ocr, "_tesseract_languages", lambda installed=installed: frozenset(installed))
        assert ocr.languages() == expected
    monkeypatch.setattr(ocr, "_tesseract_languages", lambda: frozenset({"eng", "osd"}))
    if ocr.shutil.which("tesseract") is not None:
        assert "tesseract-ocr-script-hang" in (ocr.unavailable_reason() or "")


def _page(size: int, lines: int = 8) -> Image.Image:
    """A page of Korean text lines in a ``size``-pixel font (a scan's resolution is its text size)."""
    if not FONT.is_file():
        pytest.skip("a Korean font (fonts-nanum) is needed to render the fixture")
    font = ImageFont.truetype(str(FONT), size)
    text = [LINES[i % 2] for i in range(lines)]
    image = Image.new("L", (size * 30, size * (2 * lines + 4)), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(text):
        draw.text((size * 2, size * (2 + 2 * i)), line, font=font, fill=0)
    return image


def test_prepare_turns_a_skewed_page_upright() -> None:
    page = _page(32)
    assert abs(ocr.skew_angle(page)) < 0.3
    skewed = page.rotate(2.0, resample=Image.Resampling.BICUBIC, fillcolor=255)  # counter-clockwise
    assert ocr.skew_angle(skewed) == pytest.approx(-2.0, abs=0.3)
    upright = ocr.prepare(skewed)
    assert upright.size == skewed.size and abs(ocr.skew_angle(upright)) < 0.3
    slight = page.rotate(0.3, resample=Image.Resampling.BICUBIC, fillcolor=255)
    assert abs(ocr.skew_angle(slight)) < 0.5 and ocr.prepare(slight) is slight  # under 0.5° read as it is
    assert ocr.prepare(skewed.convert("RGB")).getpixel((0, 0)) == (255, 255, 255)  # white corners
    blank = Image.new("L", (800, 600), 255)
    assert ocr.skew_angle(blank) == 0 and ocr.prepare(blank) is blank
