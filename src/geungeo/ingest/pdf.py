"""PDF loader on pypdfium2 (Apache-2.0/BSD): one element per paragraph, ``page`` = PDF page index.

pypdfium2 was chosen by ``benchmarks/pdf_extractors.py``: on the shared SPRI brief it finds the
same gold evidence and has the same spacing as pypdf at ~20x the speed, and keeps the spaces
that pymupdf (AGPL) loses after bullets. Running headers and footers (lines repeated at the top
or bottom of many pages, page numbers included) are dropped. Lines are joined into paragraphs:
a line ending in a space was wrapped, a bullet starts a new paragraph.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c

from geungeo.errors import LoaderError
from geungeo.ingest.base import Loader, loader, source_name
from geungeo.text.normalize import clean_text, nfc
from geungeo.types import Document, Element, MetaValue

_EDGE_LINES = 3  # lines at the top and at the bottom of a page that may be running furniture
_MIN_FURNITURE_PAGES = 3
_DIGITS = re.compile(r"\d+")
_LEADER_DOTS = re.compile(r"\s*[·.․‥…]{4,}\s*")
# Bullets and list marks that open a paragraph ("n" and "£" are symbol-font bullets as extracted).
_BULLET = re.compile(r"^(?:[∙•·▪◦‣○●□■◇◆▶▷▹►※☞*\-–<]|[n£]\s|\d+\.\s)")
_INLINE_BULLET = re.compile(r"\s(?=[∙•]\s)")  # a bullet the extractor left on the previous line
_UNTITLED = re.compile(r"^(?:untitled|제목\s*없음|microsoft\s+\w+\s*-)|\.\w{2,4}$", re.I)


def _furniture_key(line: str) -> str:
    """Lines equal up to spacing and numbers count as one running header or footer."""
    return _DIGITS.sub("#", " ".join(line.split()))


def running_furniture(pages: list[list[str]]) -> set[str]:
    """Keys of lines found at a page edge on at least a quarter of the pages (and 3 of them)."""
    counts: Counter[str] = Counter()
    for lines in pages:
        edges = {_furniture_key(line) for line in lines[:_EDGE_LINES] + lines[-_EDGE_LINES:]}
        counts.update(k for k in edges if k)
    needed = max(_MIN_FURNITURE_PAGES, len(pages) // 4)
    return {key for key, n in counts.items() if n >= needed}


def paragraphs(lines: list[str]) -> list[str]:
    """Join wrapped lines: a paragraph ends after a line without a trailing space or before a bullet."""
    out: list[str] = []
    current: list[str] = []
    for raw in lines:
        line = _LEADER_DOTS.sub(" ", raw)
        if current and _BULLET.match(line.lstrip()):
            out.append(" ".join(current))
            current = []
        if line.strip():
            current.append(line.strip())
        if current and not line.endswith((" ", "\t")):
            out.append(" ".join(current))
            current = []
    if current:
        out.append(" ".join(current))
    return [p for p in (clean_text(p) for p in out) if p]


def _page_lines(pdf: pypdfium2.PdfDocument) -> list[list[str]]:
    pages = []
    for index in range(len(pdf)):
        text = pdf[index].get_textpage().get_text_range()
        lines = (part for line in nfc(text).split("\n") for part in _INLINE_BULLET.split(line.rstrip("\r")))
        pages.append([line for line in lines if line.strip()])
    return pages


def _open(path: Path) -> pypdfium2.PdfDocument:
    try:
        return pypdfium2.PdfDocument(path)
    except pypdfium2.PdfiumError as exc:
        if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
            raise LoaderError(nfc(str(path)), "encrypted PDF (password required)") from exc
        raise LoaderError(nfc(str(path)), f"not a readable PDF ({exc})") from exc


def _title(pdf: pypdfium2.PdfDocument, fallback: str) -> str:
    """Metadata title unless empty, a file name or a word-processor placeholder."""
    title = clean_text(pdf.get_metadata_dict().get("Title", ""))
    return title if len(title) >= 3 and not _UNTITLED.search(title) else fallback


def load_pdf(path: Path) -> list[Document]:
    """One document per PDF with paragraph elements per page."""
    name = source_name(path)
    pdf = _open(path)
    try:
        title = _title(pdf, name)
        pages = _page_lines(pdf)
    finally:
        pdf.close()
    furniture = running_furniture(pages)
    elements = [
        Element(text, "paragraph", page=number)
        for number, lines in enumerate(pages, start=1)
        for text in paragraphs([line for line in lines if _furniture_key(line) not in furniture])
    ]
    meta: dict[str, MetaValue] = {"file_name": name, "pages": len(pages)}
    return [Document(source=name, title=title, kind="pdf", elements=elements, meta=meta)]


@loader(".pdf")
def _factory() -> Loader:
    return load_pdf
