"""PDF loader on pypdfium2 (Apache-2.0/BSD): paragraph, table and figure elements with ``page``.

pypdfium2 was chosen by ``benchmarks/pdf_extractors.py``: on the shared SPRI brief it finds the
same gold evidence and has the same spacing as pypdf at ~20x the speed, and keeps the spaces
that pymupdf (AGPL) loses after bullets. Running headers and footers (lines repeated at the top
or bottom of many pages, page numbers included) are dropped. Lines are joined into paragraphs:
a line ending in a space was wrapped, a bullet starts a new paragraph.

A line set in larger type than the page's body text (a headline, a section title) is a ``heading`` element, and so is a
contents entry naming one ("▹ 미국 법원, … 소송 기각 4").

Tables come from pdfplumber's ruled-grid finder (MIT) with the cell text read by pypdfium2
(:mod:`geungeo.ingest.pdf_tables`): ``benchmarks/pdf_tables.py`` measured it against pymupdf's
``find_tables`` (AGPL) on the SPRI brief — same two tables and grids, but clean cell text
(pymupdf moves commas out of their words) — at ~0.12 s a page. A table is one ``table``
element (Markdown text, structured :class:`Table`, caption when one is next to it) in place of
its text; captioned images become ``figure`` elements (:mod:`geungeo.ingest.pdf_layout`).
A page without a text layer (a scan) or with an implausible one (a broken font mapping) is
rendered and OCR'd instead (:mod:`geungeo.ingest.ocr`); without Tesseract such pages are named in
a warning (and the document's ``unread_pages``) and the others load.
Tables are not looked for on rotated pages (pdfplumber turns their coordinates), in a file or
page pdfplumber cannot read, or without pdfplumber installed; the text loads all the same.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pypdfium2
import pypdfium2.raw as pdfium_c

from geungeo.errors import LoaderError
from geungeo.ingest import ocr
from geungeo.ingest.base import Loader, loader, source_name
from geungeo.ingest.pdf_layout import PageChars, PageLayout, figure_candidates, heading_lines
from geungeo.ingest.pdf_tables import Grid, find_grids, is_data_table, resolve, table_rows
from geungeo.ingest.tables import table_element
from geungeo.text.normalize import clean_text, nfc
from geungeo.text.structure import BULLET, CONTENTS_ENTRY
from geungeo.types import Document, Element, MetaValue, Table

if TYPE_CHECKING:
    import pdfplumber
    import pdfplumber.page

log = logging.getLogger(__name__)

_EDGE_LINES = 3  # lines at the top and at the bottom of a page that may be running furniture
_MIN_FURNITURE_PAGES = 3
_DIGITS = re.compile(r"\d+")
_LEADER_DOTS = re.compile(r"\s*[·.․‥…]{4,}\s*")
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
        if current and BULLET.match(line.lstrip()):
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


PageItems = list[str | Element]
"""A page's text lines in reading order with its table and figure elements in place."""


def _grids(plumbed: pdfplumber.page.Page | None, number: int) -> list[Grid]:
    """The page's ruled grids; none when pdfplumber is unavailable or fails on the page."""
    if plumbed is None:
        return []
    try:
        return find_grids(plumbed)
    except Exception as exc:  # pdfminer raises many types; the page's text does not need it
        log.warning("page %d: no table detection (%s)", number, exc)
        return []
    finally:
        plumbed.close()


def _page_items(
    page: pypdfium2.PdfPage, textpage: pypdfium2.PdfTextPage, plumbed: pdfplumber.page.Page | None, number: int
) -> PageItems:
    """The page's items, its lines set in larger type as heading elements."""
    chars = PageChars.read(textpage)  # read once: for the headings and, where the page has any, its tables and figures
    headings = heading_lines(textpage, chars)
    return [
        Element(clean_text(item), "heading", page=number) if isinstance(item, str) and clean_text(item) in headings else item
        for item in _page_layout(page, textpage, chars, plumbed, number)
    ]


def _page_layout(
    page: pypdfium2.PdfPage,
    textpage: pypdfium2.PdfTextPage,
    chars: PageChars,
    plumbed: pdfplumber.page.Page | None,
    number: int,
) -> PageItems:
    layout = PageLayout(chars)  # also on a page of text only: its wrapped lines join as on any other
    grids = _grids(plumbed, number)
    images = figure_candidates(page)
    for grid in grids:
        rows = resolve(grid, layout.chars.read_rect)
        if not is_data_table(rows):
            continue
        table = Table.from_rows(table_rows(rows), layout.take_caption(grid.bbox, "table"))
        if table is not None:
            layout.add_table(grid.bbox, table_element(table, page=number))
    for rect in images:
        if layout.in_table(rect):
            continue
        text = [t for t in (layout.take_caption(rect, "figure"), layout.source_line(rect)) if t]
        if text:
            layout.add_figure(rect, Element("\n".join(text), "figure", page=number))
    return layout.items()


@contextlib.contextmanager
def _plumber_pages(path: Path) -> Iterator[list[pdfplumber.page.Page] | None]:
    """pdfplumber's view of the file for table finding, or None when it cannot read it."""
    plumber: pdfplumber.PDF | None = None
    pages: list[pdfplumber.page.Page] | None = None
    try:
        import pdfplumber  # a dependency; without it PDFs load without tables

        plumber = pdfplumber.open(path)
        pages = list(plumber.pages)
    except Exception as exc:  # ImportError, or one of pdfminer's many types; the text does not need it
        log.warning("%s: no table detection (%s)", path.name, exc)
    try:
        yield pages
    finally:
        if plumber is not None:
            plumber.close()


def _has_image(page: pypdfium2.PdfPage) -> bool:
    return next(iter(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE])), None) is not None


def _ocr_page(page: pypdfium2.PdfPage, number: int, label: str) -> PageItems:
    """The page rendered at :data:`ocr.DPI` and read by Tesseract: one paragraph element per OCR paragraph."""
    image = page.render(scale=ocr.DPI / 72, grayscale=True).to_pil()
    result = ocr.ocr_image(image, label=label)
    return [Element(text, "paragraph", page=number, ocr_confidence=result.confidence) for text in result.paragraphs]


def _all_page_items(pdf: pypdfium2.PdfDocument, path: Path) -> tuple[list[PageItems], list[int]]:
    """Every page's items, OCR'd where its text layer is missing or garbage; and the pages that
    needed OCR but could not have it (no Tesseract)."""
    pages: list[PageItems] = []
    unread: list[int] = []
    with _plumber_pages(path) as plumbed:
        for index in range(len(pdf)):
            number = index + 1
            other = plumbed[index] if plumbed is not None and index < len(plumbed) else None
            page = pdf[index]
            textpage = page.get_textpage()
            reason = ocr.needs_ocr(textpage.get_text_range(), _has_image(page))
            if reason is None:
                pages.append(_page_items(page, textpage, other, number))
                continue
            if other is not None:
                other.close()
            try:
                log.info("%s p.%d: OCR (%s)", path.name, number, reason)
                pages.append(_ocr_page(page, number, f"{path.name} p.{number}"))
            except ocr.OcrUnavailable:
                unread.append(number)
                pages.append([])
    return pages, unread


def _page_list(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def _contents_entries(pages: list[PageItems]) -> list[PageItems]:
    """``pages`` with each contents entry ("▹ 미국 법원, … 소송 기각 4") made a heading: a line naming a heading of
    another page, followed by a page number, points to that heading and states nothing itself."""
    titles = {
        (number, e.text)
        for number, items in enumerate(pages, start=1)
        for e in items
        if isinstance(e, Element) and e.category == "heading"
    }
    out: list[PageItems] = []
    for number, items in enumerate(pages, start=1):
        elsewhere = {text for page, text in titles if page != number}
        out.append(
            [
                Element(clean_text(_LEADER_DOTS.sub(" ", item)), "heading", page=number)
                if isinstance(item, str) and (entry := CONTENTS_ENTRY.match(clean_text(item))) and entry["title"] in elsewhere
                else item
                for item in items
            ]
        )
    return out


def _line(item: str | Element) -> str | None:
    """The text of a line of the page (a heading is one too), None for a table or figure."""
    return item if isinstance(item, str) else item.text if item.category == "heading" else None


def _elements(pages: list[PageItems]) -> list[Element]:
    """Paragraphs and headings of each page without running furniture, tables and figures in between."""
    furniture = running_furniture([[line for i in items if (line := _line(i)) is not None] for items in pages])
    elements: list[Element] = []
    for number, items in enumerate(pages, start=1):
        lines: list[str] = []
        for item in [*items, None]:
            line = _line(item) if item is not None else None
            if line is not None and _furniture_key(line) in furniture:
                continue
            if isinstance(item, str):
                lines.append(item)
                continue
            elements += [Element(text, "paragraph", page=number) for text in paragraphs(lines)]
            lines = []
            if item is not None:
                elements.append(item)
    return elements


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
    """One document per PDF: paragraph, table and figure elements of every page, in reading order."""
    name = source_name(path)
    pdf = _open(path)
    try:
        title = _title(pdf, name)
        pages, unread = _all_page_items(pdf, path)
    finally:
        pdf.close()
    elements = _elements(_contents_entries(pages))
    meta: dict[str, MetaValue] = {"file_name": name, "pages": len(pages)}
    if unread:
        why = f"page(s) {_page_list(unread)} need OCR but {ocr.unavailable_reason()}"
        if not elements:
            raise LoaderError(nfc(str(path)), why)
        log.warning("%s: %s; ingesting the other pages", name, why)
        meta["unread_pages"] = _page_list(unread)
    return [Document(source=name, title=title, kind="pdf", elements=elements, meta=meta)]


@loader(".pdf")
def _factory() -> Loader:
    return load_pdf
