"""DOCX (python-docx) and PPTX (python-pptx) loaders.

DOCX: body paragraphs and tables in document order; heading styles (``Heading 1``, ``제목 1``,
``Title``) become headings and set the path, numbered or ``List`` paragraphs become list items.
PPTX: one run of elements per slide with ``page`` = slide number; the slide title is a heading
and the path of everything on its slide. Tables of both come out as table entities (merged
cells resolved; in DOCX a caption paragraph right above a table is its caption).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import docx
import pptx
from docx.table import Table as DocxTable
from docx.text.paragraph import Paragraph
from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.shapes.autoshape import Shape
from pptx.shapes.base import BaseShape
from pptx.shapes.graphfrm import GraphicFrame
from pptx.shapes.group import GroupShape
from pptx.slide import Slide
from pptx.table import Table as PptxTable

from geungeo.ingest.base import Loader, loader, source_name
from geungeo.ingest.tables import Cell, build_table, caption_text, grid_rows, table_element
from geungeo.text.normalize import clean_text
from geungeo.types import Document, Element, MetaValue

_HEADING_STYLE = re.compile(r"^(?:heading|제목)\s*(\d)$", re.I)
_TITLE_PLACEHOLDERS = (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE)


def _heading_level(p: Paragraph) -> int | None:
    name = p.style.name if p.style is not None else ""
    if name.lower() == "title":
        return 1
    m = _HEADING_STYLE.match(name or "")
    return int(m.group(1)) if m else None


def _is_list(p: Paragraph) -> bool:
    ppr = p._p.pPr
    name = p.style.name if p.style is not None else ""
    return (ppr is not None and ppr.numPr is not None) or "list" in (name or "").lower()


def _is_caption_style(p: Paragraph) -> bool:
    name = (p.style.name if p.style is not None else "") or ""
    return name.lower() in {"caption", "캡션"}


def _docx_rows(table: DocxTable) -> list[list[str]]:
    """Cell texts per row: a vertically merged cell repeats in each row, a horizontally merged one counts once."""
    rows = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:  # one per grid column; merged cells share their <w:tc>
            if cell._tc is not previous:
                cells.append(cell.text)
            previous = cell._tc
        rows.append(cells)
    return rows


def docx_elements(document: docx.document.Document) -> list[Element]:
    """Paragraphs, list items, headings and tables in body order with heading paths."""
    elements: list[Element] = []
    path: tuple[str, ...] = ()
    captions: set[int] = set()  # ids of the paragraphs styled Caption
    for block in document.iter_inner_content():
        if isinstance(block, DocxTable):
            before = elements[-1] if elements else None
            caption = None
            if before is not None and before.category == "paragraph":
                caption = before.text if id(before) in captions else caption_text(before.text)
            if (table := build_table(_docx_rows(block), caption)) is not None:
                if caption:
                    elements.pop()
                elements.append(table_element(table, path=path))
            continue
        text = clean_text(block.text)
        if not text:
            continue
        level = _heading_level(block)
        if level is not None:
            path = (*path[: level - 1], text)
            elements.append(Element(text, "heading", path=path))
        else:
            elements.append(Element(text, "list" if _is_list(block) else "paragraph", path=path))
            if _is_caption_style(block):
                captions.add(id(elements[-1]))
    return elements


def load_docx(path: Path) -> list[Document]:
    """One document; the title is the first heading, else the core title, else the file name."""
    name = source_name(path)
    document = docx.Document(str(path))
    elements = docx_elements(document)
    first_heading = next((e.text for e in elements if e.category == "heading"), "")
    title = first_heading or clean_text(document.core_properties.title or "") or name
    return [Document(source=name, title=title, kind="docx", elements=elements, meta={"file_name": name})]


def _shapes(shapes: list[BaseShape]) -> Iterator[BaseShape]:
    """Shapes top-to-bottom, left-to-right, with group shapes opened."""
    for shape in sorted(shapes, key=lambda s: (s.top or 0, s.left or 0)):
        if isinstance(shape, GroupShape):
            yield from _shapes(list(shape.shapes))
        else:
            yield shape


def _slide_title(slide: Slide) -> tuple[int | None, str]:
    """Shape id and text of the slide's title placeholder."""
    for shape in slide.placeholders:
        if shape.placeholder_format.type in _TITLE_PLACEHOLDERS:
            return shape.shape_id, clean_text(shape.text_frame.text)
    return None, ""


def _pptx_rows(table: PptxTable) -> list[list[str]]:
    """Cell texts per row, merged cells resolved from their origin cell's spans."""
    cells = [
        Cell(r, c, cell.text, cell.span_height, cell.span_width) if cell.is_merge_origin else Cell(r, c, cell.text)
        for r, row in enumerate(table.rows)
        for c, cell in enumerate(row.cells)
        if not cell.is_spanned
    ]
    return grid_rows(cells)


def _shape_element(shape: BaseShape, number: int, path: tuple[str, ...]) -> Element | None:
    """A table shape as a table entity, a text frame as a paragraph; None for anything else."""
    if isinstance(shape, GraphicFrame) and shape.has_table:
        table = build_table(_pptx_rows(shape.table))
        return table_element(table, page=number, path=path) if table else None
    if isinstance(shape, Shape) and shape.has_text_frame:
        text = clean_text(shape.text_frame.text)
        return Element(text, "paragraph", page=number, path=path) if text else None
    return None


def slide_elements(slide: Slide, number: int) -> list[Element]:
    """The slide's title (as heading), then its text frames and tables in reading order."""
    title_id, title = _slide_title(slide)
    path = (title,) if title else ()
    elements = [Element(title, "heading", page=number, path=path)] if title else []
    for shape in _shapes(list(slide.shapes)):
        if shape.shape_id == title_id:
            continue
        if (element := _shape_element(shape, number, path)) is not None:
            elements.append(element)
    return elements


def load_pptx(path: Path) -> list[Document]:
    """One document; ``page`` is the slide number; the title is the first slide's title."""
    name = source_name(path)
    deck = pptx.Presentation(str(path))
    elements = [e for number, slide in enumerate(deck.slides, start=1) for e in slide_elements(slide, number)]
    first = elements[0] if elements else None
    title = first.text if first and first.category == "heading" and first.page == 1 else ""
    title = title or clean_text(deck.core_properties.title or "") or name
    meta: dict[str, MetaValue] = {"file_name": name, "slides": len(deck.slides)}
    return [Document(source=name, title=title, kind="pptx", elements=elements, meta=meta)]


@loader(".docx")
def _docx_factory() -> Loader:
    return load_docx


@loader(".pptx")
def _pptx_factory() -> Loader:
    return load_pptx
