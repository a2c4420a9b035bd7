"""DOCX (python-docx) and PPTX (python-pptx) loaders.

DOCX: body paragraphs and tables in document order; heading styles (``Heading 1``, ``제목 1``,
``Title``) become headings and set the path, numbered or ``List`` paragraphs become list items.
PPTX: one run of elements per slide with ``page`` = slide number; the slide title is a heading
and the path of everything on its slide; tables come out row by row.
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

from geungeo.ingest.base import Loader, loader, source_name
from geungeo.text.normalize import clean_text
from geungeo.types import Category, Document, Element, MetaValue

_HEADING_STYLE = re.compile(r"^(?:heading|제목)\s*(\d)$", re.I)
_TITLE_PLACEHOLDERS = (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE)


def table_text(rows: list[list[str]]) -> str:
    """One line per row, cells joined with `` | ``; empty rows dropped."""
    lines = [" | ".join(" ".join(clean_text(c).split()) for c in row) for row in rows]
    return "\n".join(line for line in lines if line.strip(" |"))


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


def _docx_rows(table: DocxTable) -> list[list[str]]:
    """Cell texts per row; a merged cell counts once."""
    rows = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) not in seen:
                seen.add(id(cell._tc))
                cells.append(cell.text)
        rows.append(cells)
    return rows


def docx_elements(document: docx.document.Document) -> list[Element]:
    """Paragraphs, list items, headings and tables in body order with heading paths."""
    elements: list[Element] = []
    path: tuple[str, ...] = ()
    for block in document.iter_inner_content():
        if isinstance(block, DocxTable):
            text = table_text(_docx_rows(block))
            if text:
                elements.append(Element(text, "table", path=path))
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


def _shape_text(shape: BaseShape) -> tuple[str, Category]:
    if isinstance(shape, GraphicFrame) and shape.has_table:
        return table_text([[cell.text for cell in row.cells] for row in shape.table.rows]), "table"
    if isinstance(shape, Shape) and shape.has_text_frame:
        return clean_text(shape.text_frame.text), "paragraph"
    return "", "paragraph"


def slide_elements(slide: Slide, number: int) -> list[Element]:
    """The slide's title (as heading), then its text frames and tables in reading order."""
    title_id, title = _slide_title(slide)
    path = (title,) if title else ()
    elements = [Element(title, "heading", page=number, path=path)] if title else []
    for shape in _shapes(list(slide.shapes)):
        if shape.shape_id == title_id:
            continue
        text, category = _shape_text(shape)
        if text:
            elements.append(Element(text, category, page=number, path=path))
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
