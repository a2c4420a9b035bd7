"""HWP 5 binary loader: a small reader of the OLE2 record streams (olefile + zlib).

An HWP 5 file is an OLE2 compound file. ``FileHeader`` holds the signature and flags
(compressed, password, distribution/DRM); each ``BodyText/SectionN`` stream is a sequence of
records, raw-deflate compressed when the compressed flag is set. A record header is one
uint32: tag (10 bits), level (10 bits), size (12 bits; 0xFFF means a uint32 size follows).

Records nest by level: a paragraph header owns its text and its controls; a table control owns
one list header per cell followed by the cell's paragraphs; text boxes own a list header and
their paragraphs further down. pyhwp (AGPL) reads this file too but drops every table, and
most of this plan's headings and figures sit in tables, hence this reader. Such layout boxes read
as text; real tables (cell addresses and spans in each cell's list header) become table entities.
"""

from __future__ import annotations

import re
import struct
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import olefile

from geungeo.errors import LoaderError
from geungeo.ingest.base import Loader, loader, source_name
from geungeo.ingest.tables import Cell, build_table, caption_text, grid_rows, table_element
from geungeo.ingest.unpacking import inflate
from geungeo.text.normalize import clean_text, nfc, squash
from geungeo.text.structure import CONTENTS_ENTRY, unwrap_line_breaks
from geungeo.types import Category, Document, Element

_SIGNATURE = b"HWP Document File"
_FLAG_COMPRESSED = 0x01
_FLAGS_ENCRYPTED = 0x02 | 0x04 | 0x10  # password, distribution document, DRM

TAG_PARA_HEADER = 66
TAG_PARA_TEXT = 67
TAG_CTRL_HEADER = 71
TAG_LIST_HEADER = 72
_CTRL_TABLE = b"tbl "

# Control characters of PARA_TEXT that occupy 8 UTF-16 units (extended and inline controls).
_WIDE_CONTROLS = frozenset({1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23})
_CONTROL_TEXT = {9: "\t", 10: "\n", 24: "-", 30: " ", 31: " "}

# Section markers of Korean government plans: "Ⅰ. 개 요" or "참고 1 …" then "□ 추진 배경".
# Lines ending in a page number are table-of-contents entries, not headings.
_TOP_HEADING = re.compile(r"^(?:[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ][.．]|참고\s*\d+|붙임)\s*\S")
_BOX_HEADING = re.compile(r"^□\s*\S")
_MAX_HEADING_CHARS = 60


@dataclass(slots=True)
class Record:
    """One HWP record and the records nested under it."""

    tag: int
    level: int
    payload: bytes
    children: list[Record] = field(default_factory=list)


def read_records(data: bytes) -> list[Record]:
    """Parse a record stream into a flat list of records, in file order."""
    records, pos = [], 0
    while pos + 4 <= len(data):
        (header,) = struct.unpack_from("<I", data, pos)
        pos += 4
        tag, level, size = header & 0x3FF, (header >> 10) & 0x3FF, header >> 20
        if size == 0xFFF:
            (size,) = struct.unpack_from("<I", data, pos)
            pos += 4
        records.append(Record(tag, level, data[pos : pos + size]))
        pos += size
    return records


def build_tree(records: list[Record]) -> list[Record]:
    """Nest records by level; returns the top-level records."""
    roots: list[Record] = []
    stack: list[Record] = []
    for rec in records:
        while stack and stack[-1].level >= rec.level:
            stack.pop()
        (stack[-1].children if stack else roots).append(rec)
        stack.append(rec)
    return roots


def decode_para_text(payload: bytes) -> str:
    """PARA_TEXT (UTF-16LE) to text: skip 8-unit controls, keep tabs, line breaks and spaces."""
    units = array("H")
    units.frombytes(payload[: len(payload) // 2 * 2])
    out: list[str] = []
    start = i = 0
    while i < len(units):
        code = units[i]
        if code >= 32:
            i += 1
            continue
        out.append(units[start:i].tobytes().decode("utf-16le", "replace"))
        out.append(_CONTROL_TEXT.get(code, ""))
        i += 8 if code in _WIDE_CONTROLS else 1
        start = i
    out.append(units[start:].tobytes().decode("utf-16le", "replace"))
    return "".join(out)


@dataclass(slots=True)
class _Block:
    """A piece of body text before headings are assigned: text, or a table's cells."""

    text: str = ""
    cells: list[Cell] = field(default_factory=list)

    @property
    def rows(self) -> list[list[str]]:
        """The table's rows, merged cells resolved (a row-spanning cell repeats in each row)."""
        return grid_rows(self.cells)

    @property
    def lines(self) -> list[list[str]]:
        """The table's filled cells by row, each cell once: how a layout box reads."""
        by_row: dict[int, list[str]] = {}
        for cell in self.cells:
            if cell.text:
                by_row.setdefault(cell.row, []).append(cell.text)
        return [by_row[r] for r in sorted(by_row)]


def _paragraph_text(para: Record) -> str:
    return unwrap_line_breaks("".join(decode_para_text(c.payload) for c in para.children if c.tag == TAG_PARA_TEXT))


def _cells(ctrl: Record) -> Iterator[tuple[tuple[int, int, int, int], list[Record]]]:
    """((column, row, column span, row span), paragraphs) of each table cell, in file order."""
    address: tuple[int, int, int, int] | None = None
    paras: list[Record] = []
    for child in ctrl.children:
        if child.tag == TAG_LIST_HEADER:
            if address is not None:
                yield address, paras
            payload = child.payload
            address = struct.unpack_from("<4H", payload, 8) if len(payload) >= 16 else (0, 0, 1, 1)
            paras = []
        elif child.tag == TAG_PARA_HEADER and address is not None:
            paras.append(child)
    if address is not None:
        yield address, paras


def _cell_text(paras: list[Record]) -> str:
    """A cell's text on one line (nested tables and boxes flattened into it)."""
    parts = [b.text or " ".join(" ".join(r) for r in b.rows) for p in paras for b in _paragraph_blocks(p)]
    return " ".join(clean_text(" ".join(parts)).split())


def _table_cells(ctrl: Record) -> list[Cell]:
    """The table's cells with their addresses and spans."""
    return [Cell(row, col, _cell_text(paras), rows, cols) for (col, row, cols, rows), paras in _cells(ctrl)]


def _nested_paragraphs(rec: Record) -> Iterator[Record]:
    """Paragraphs of a text box or other non-table control, at any depth below it."""
    for child in rec.children:
        if child.tag == TAG_PARA_HEADER:
            yield child
        else:
            yield from _nested_paragraphs(child)


def _paragraph_blocks(para: Record) -> Iterator[_Block]:
    """The paragraph's own text, then its tables and text boxes in order."""
    yield _Block(text=_paragraph_text(para))
    for ctrl in para.children:
        if ctrl.tag != TAG_CTRL_HEADER:
            continue
        if ctrl.payload[:4][::-1] == _CTRL_TABLE:
            yield _Block(cells=_table_cells(ctrl))
        else:
            for inner in _nested_paragraphs(ctrl):
                yield from _paragraph_blocks(inner)


def _heading_level(text: str) -> int | None:
    if len(text) > _MAX_HEADING_CHARS or "\n" in text or CONTENTS_ENTRY.match(text):
        return None
    if _TOP_HEADING.match(text):
        return 1
    return 2 if _BOX_HEADING.match(text) else None


def _is_box(lines: list[list[str]]) -> bool:
    """A layout box rather than a table: one row (a banner, a boxed heading), or a title row over
    rows of one filled cell each (``< 사례 >`` over its text)."""
    return len(lines) <= 1 or all(len(line) == 1 for line in lines[1:])


def _to_elements(blocks: list[_Block]) -> list[Element]:
    """Elements with heading paths; layout boxes read as text, tables become table entities.

    A table's caption is the short title paragraph right above it (``<표 1> …``), which it takes in.
    """
    elements: list[Element] = []
    path: tuple[str, ...] = ()
    for block in blocks:
        lines = block.lines
        if lines and not _is_box(lines):
            before = elements[-1] if elements else None
            caption = caption_text(before.text) if before and before.category == "paragraph" else None
            if (table := build_table(block.rows, caption)) is not None:
                if caption:
                    elements.pop()
                elements.append(table_element(table, path=path))
            continue
        text = "\n".join(" ".join(line) for line in lines) if block.cells else clean_text(block.text)
        if not text:
            continue
        level = _heading_level(text)
        category: Category = "paragraph"
        if level is not None:
            path = (*path[: level - 1], text)
            category = "heading"
        elements.append(Element(text, category, path=path))
    return _contents_entries(elements)


def _contents_entries(elements: list[Element]) -> list[Element]:
    """``elements`` with the lines of the plan's contents made headings that open no section: they point to its
    sections and state nothing themselves (quoted, "Ⅱ. 디지털 정부혁신 추진계획 2" answered "6대 과제는?"). The
    contents run from the first line naming a heading of the plan with a page number ("Ⅰ. 개요 1") to the first
    section; its lines without a page number (the tasks listed under "1. 우선 추진과제 2") stay text."""
    headings = {squash(e.text) for e in elements if e.category == "heading"}

    def entry(e: Element) -> re.Match[str] | None:
        return CONTENTS_ENTRY.match(e.text) if e.category == "paragraph" and "\n" not in e.text else None

    start = next((i for i, e in enumerate(elements) if (m := entry(e)) and squash(m["title"]) in headings), None)
    if start is None:
        return elements
    end = next((i for i, e in enumerate(elements) if i > start and e.category == "heading" and e.path), len(elements))
    return [replace(e, category="heading") if start <= i < end and entry(e) else e for i, e in enumerate(elements)]


def _file_flags(ole: olefile.OleFileIO, shown: str) -> int:
    if not ole.exists("FileHeader"):
        raise LoaderError(shown, "not an HWP 5 file (no FileHeader stream)")
    header = ole.openstream("FileHeader").read()
    if not header.startswith(_SIGNATURE) or len(header) < 40:
        raise LoaderError(shown, "not an HWP 5 file (bad FileHeader signature)")
    flags: int = struct.unpack_from("<I", header, 36)[0]
    if flags & _FLAGS_ENCRYPTED:
        raise LoaderError(shown, "encrypted HWP file")
    return flags


def _section_names(ole: olefile.OleFileIO) -> list[str]:
    names = ["/".join(e) for e in ole.listdir() if len(e) == 2 and e[0] == "BodyText" and e[1].startswith("Section")]
    return sorted(names, key=lambda n: int(n.removeprefix("BodyText/Section") or 0))


def read_hwp(path: Path) -> list[Element]:
    """Body elements of an HWP 5 file in reading order."""
    shown = nfc(str(path))
    if not olefile.isOleFile(str(path)):
        raise LoaderError(shown, "not an HWP 5 file (not an OLE2 compound file)")
    with olefile.OleFileIO(str(path)) as ole:
        compressed = _file_flags(ole, shown) & _FLAG_COMPRESSED
        blocks: list[_Block] = []
        for name in _section_names(ole):
            data = ole.openstream(name).read()
            tree = build_tree(read_records(inflate(data, shown) if compressed else data))
            blocks.extend(b for para in tree if para.tag == TAG_PARA_HEADER for b in _paragraph_blocks(para))
    return _to_elements(blocks)


def _with_title(elements: list[Element], fallback: str) -> tuple[str, list[Element]]:
    """The plan's title is its first paragraph when short (usually a cover text box)."""
    first = elements[0] if elements else None
    if first and first.category == "paragraph" and len(first.text) <= _MAX_HEADING_CHARS and "\n" not in first.text:
        return first.text, [Element(first.text, "title"), *elements[1:]]
    return fallback, elements


def load_hwp(path: Path) -> list[Document]:
    """One document per HWP file; the title is the cover title or the file name."""
    name = source_name(path)
    title, elements = _with_title(read_hwp(path), name)
    return [Document(source=name, title=title, kind="hwp", elements=elements, meta={"file_name": name})]


@loader(".hwp")
def _factory() -> Loader:
    return load_hwp
