"""HWPX (OWPML) loader; a regulation book (규정집) comes out as one document per regulation.

An HWPX file is a zip of XML parts: ``Contents/sectionN.xml`` hold the body as ``<hp:p>``
paragraphs whose runs carry text (``<hp:t>``), tables (``<hp:tbl>`` of ``<hp:tc>`` cells, spans in
``<hp:cellSpan>``/``<hp:cellAddr>``) and controls. Running headers and footers are controls
(``<hp:ctrl><hp:header>``), so reading only runs' text drops that page furniture.

A regulation book starts with a contents list (``차례``: ``교원인사규정3-1-5`` lines, ``【폐지】``
for repealed ones). That list is the authority: each regulation begins at the paragraph that
repeats its title, and runs to the next title. Inside, the statute patterns of
:mod:`geungeo.text.structure` give 장/절 paths, 조 articles, 부칙 blocks and 별표/서식 attachments.
Tables come out as table entities (:mod:`geungeo.ingest.tables`): after the article or 부칙 they
sit in, or in reading order within a 별표, whose title lines become the table's caption.
A file without contents list loads as one document: structured by articles when it has them,
else as headings, paragraphs and tables.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from lxml import etree

from geungeo.errors import LoaderError
from geungeo.ingest.base import Loader, loader, source_name
from geungeo.ingest.tables import Cell, build_table, caption_text, grid_rows, table_element
from geungeo.ingest.unpacking import UNPACKED_LIMIT, contains
from geungeo.text.normalize import clean_text, nfc, squash
from geungeo.text.structure import (
    ADDENDUM,
    AMENDMENT_NOTE,
    ARTICLE_START,
    ATTACHMENT_HEAD,
    BRANCH_TYPO,
    LOOSE_ARTICLE,
    attachment_label,
    division_label,
    parse_article_head,
    unwrap_line_breaks,
)
from geungeo.types import Category, Document, Element, MetaValue

_HP = "{http://www.hancom.co.kr/hwpml/2011/paragraph}"
_HH = "{http://www.hancom.co.kr/hwpml/2011/head}"
_SECTION = re.compile(r"^Contents/section(\d+)\.xml$")
_HEADER_PART = "Contents/header.xml"
_MANIFEST = "META-INF/manifest.xml"

# Inline elements of <hp:t> that stand for characters.
_INLINE_TEXT = {"tab": "\t", "fwSpace": " ", "nbSpace": " ", "lineBreak": "\n"}
# Drawing objects whose text box (<hp:drawText>) holds paragraphs.
_DRAWINGS = frozenset({"rect", "ellipse", "arc", "polygon", "curve"})
# Overlapped-character numbers (<hp:compose>) draw digits with private-use glyphs: tens, then units.
_COMPOSE_DIGITS = {0xF0288 + i: str(i) for i in range(10)} | {0xF0292 + i: str(i) for i in range(10)}

_CONTENTS_HEAD = "차례"
_CONTENTS_LINE = re.compile(r"^(?P<title>.+?)\s*(?P<repealed>【폐지】)?\s*(?P<code>\d-\d{1,3}-\d{1,3})$")
_MIDDLE_DOTS = str.maketrans(dict.fromkeys("·․‧⋅•・･∙", "ㆍ"))
# 2019년 8월 1일자 폐지 → …, 2022년 3월 1일자 직제개편으로 인한 이동(…): what a placeholder says.
_DATED_NOTE = re.compile(r"\d{4}\s*년\s*\d+\s*월\s*\d+\s*일자")

_DIVISION_MAX_CHARS = 40


@dataclass(frozen=True, slots=True)
class ContentsEntry:
    """One line of the book's contents list: ``교원인사규정3-1-5`` (``【폐지】`` when repealed)."""

    code: str
    title: str
    repealed: bool
    part: str | None = None


@dataclass(slots=True)
class _Block:
    """A body paragraph's text (lines) or one table (rows of cells), in reading order."""

    text: str = ""
    rows: list[list[str]] | None = None
    style: str = ""


# --- reading the zip -------------------------------------------------------------------------


def _open_package(path: Path) -> tuple[zipfile.ZipFile, list[str]]:
    """The zip and its section part names in order; LoaderError for anything unreadable."""
    shown = nfc(str(path))
    try:
        package = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise LoaderError(shown, f"not an HWPX file (broken zip: {exc})") from exc
    names = package.namelist()
    sections = sorted((n for n in names if _SECTION.match(n)), key=lambda n: int(re.sub(r"\D", "", n)))
    encrypted = any(info.flag_bits & 0x1 for info in package.infolist())
    if _MANIFEST in names:
        with package.open(_MANIFEST) as manifest:
            encrypted = encrypted or contains(manifest, b"encryption-data", UNPACKED_LIMIT.get())
    if encrypted:
        package.close()
        raise LoaderError(shown, "encrypted (password-protected) HWPX file")
    if not sections:
        package.close()
        raise LoaderError(shown, "not an HWPX file (no Contents/section*.xml)")
    return package, sections


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _t_text(t: etree._Element) -> str:
    parts = [t.text or ""]
    for child in t:
        parts.append(_INLINE_TEXT.get(_local(child.tag), ""))
        parts.append(child.tail or "")
    return "".join(parts)


def _compose_text(compose: etree._Element) -> str:
    """A composed (circled) character: ① stays ①, glyph-drawn 53 becomes ``(53)``."""
    text = "".join(_COMPOSE_DIGITS.get(ord(ch), ch) for ch in compose.get("composeText", ""))
    return f"({text})" if len(text) > 1 and text.isdigit() else text


def _paragraph_blocks(p: etree._Element) -> list[_Block]:
    """The paragraph's text, with its tables and text boxes as blocks of their own, in order."""
    style = p.get("styleIDRef", "")
    blocks: list[_Block] = []
    parts: list[str] = []

    def flush() -> None:
        text = clean_text(unwrap_line_breaks("".join(parts)))
        parts.clear()
        if text:
            blocks.append(_Block(text=text, style=style))

    for run in p.iterchildren(f"{_HP}run"):
        for child in run:
            tag = _local(child.tag)
            if tag == "t":
                parts.append(_t_text(child))
            elif tag == "compose":
                parts.append(_compose_text(child))
            elif tag == "tbl":
                flush()
                blocks.append(_Block(rows=_table_rows(child)))
            elif tag in _DRAWINGS:
                flush()
                for inner in child.iterfind(f"{_HP}drawText/{_HP}subList/{_HP}p"):
                    blocks.extend(_paragraph_blocks(inner))
    flush()
    return blocks


def _cell_text(tc: etree._Element) -> str:
    """A cell's text on one line (nested tables flattened into it)."""
    parts = []
    for p in tc.iterfind(f"{_HP}subList/{_HP}p"):
        for block in _paragraph_blocks(p):
            parts.append(block.text if block.rows is None else " ".join(" ".join(r) for r in block.rows))
    return " ".join(" ".join(parts).split())


def _table_rows(tbl: etree._Element) -> list[list[str]]:
    """Rows of cell texts, merged cells resolved by their ``cellAddr``/``cellSpan``."""
    cells = []
    for row_index, tr in enumerate(tbl.iterfind(f"{_HP}tr")):
        for col_index, tc in enumerate(tr.iterfind(f"{_HP}tc")):
            addr, span = tc.find(f"{_HP}cellAddr"), tc.find(f"{_HP}cellSpan")
            row = int(addr.get("rowAddr", row_index)) if addr is not None else row_index
            col = int(addr.get("colAddr", col_index)) if addr is not None else col_index
            rows_spanned = int(span.get("rowSpan", 1)) if span is not None else 1
            cols_spanned = int(span.get("colSpan", 1)) if span is not None else 1
            cells.append(Cell(row, col, _cell_text(tc), rows_spanned, cols_spanned))
    return grid_rows(cells)


def _section_blocks(stream: IO[bytes]) -> Iterator[_Block]:
    """Blocks of one section part, streaming: each top-level paragraph is freed once read."""
    for _, p in etree.iterparse(stream, events=("end",), tag=f"{_HP}p", huge_tree=True):
        parent = p.getparent()
        if parent is None or _local(parent.tag) != "sec":
            continue
        yield from _paragraph_blocks(p)
        p.clear(keep_tail=True)
        while p.getprevious() is not None:
            del parent[0]


def _read_blocks(path: Path) -> tuple[list[_Block], dict[str, str]]:
    """All body blocks of an HWPX file in reading order, and its paragraph style names by id."""
    package, sections = _open_package(path)
    with package:
        blocks: list[_Block] = []
        for name in sections:
            with package.open(name) as stream:
                try:
                    blocks.extend(_section_blocks(stream))
                except etree.XMLSyntaxError as exc:
                    raise LoaderError(nfc(str(path)), f"broken {name} ({exc})") from exc
        styles = _style_names(package)
    return blocks, styles


def _style_names(package: zipfile.ZipFile) -> dict[str, str]:
    """Paragraph style id → ``name|engName`` from ``Contents/header.xml`` (empty when absent)."""
    if _HEADER_PART not in package.namelist():
        return {}
    with package.open(_HEADER_PART) as stream:
        return {
            el.get("id", ""): f"{el.get('name', '')}|{el.get('engName', '')}"
            for _, el in etree.iterparse(stream, events=("end",), tag=f"{_HH}style", huge_tree=True)
        }


# --- the contents list -----------------------------------------------------------------------


def _title_key(text: str) -> str:
    """Compare titles without spaces and with one kind of middle dot (․ · ⋅ → ㆍ)."""
    return squash(text).translate(_MIDDLE_DOTS)


def _spaced_title(title: str) -> str:
    """``학  칙`` → ``학칙``: join a title spread out one syllable at a time."""
    words = title.split()
    return "".join(words) if len(words) > 1 and all(len(w) == 1 for w in words) else " ".join(words)


def _division(line: str) -> tuple[str, str] | None:
    """(level, ``제2장 임용``) for a short 편/장/절/관 heading line."""
    if len(line) > _DIVISION_MAX_CHARS or line.endswith("."):
        return None
    found = division_label(line)
    if not found:
        return None
    level, label = found
    number, _, title = AMENDMENT_NOTE.sub("", label).rstrip().partition(" ")
    return level, f"{number} {_spaced_title(title)}".strip()


def _contents(blocks: list[_Block]) -> tuple[list[ContentsEntry], int]:
    """The contents list and the index of the block after it (0 when the file has none)."""
    start = next((i for i, b in enumerate(blocks) if b.rows is None and squash(b.text) == _CONTENTS_HEAD), None)
    if start is None:
        return [], 0
    entries: list[ContentsEntry] = []
    part: str | None = None
    end = start + 1
    while end < len(blocks):
        block = blocks[end]
        m = _CONTENTS_LINE.match(block.text) if block.rows is None else None
        if m:
            entries.append(ContentsEntry(m["code"], m["title"], bool(m["repealed"]), part))
        elif block.rows is None and (division := _division(block.text)):
            part = division[1] if division[0] == "편" else part
        else:
            break
        end += 1
    return entries, end


def read_contents(path: Path) -> list[ContentsEntry]:
    """The regulation book's contents list in book order (empty for other HWPX files)."""
    return _contents(_read_blocks(path)[0])[0]


# --- splitting the book into regulations ------------------------------------------------------


def _division_keys(blocks: list[_Block], contents_end: int) -> set[str]:
    """Keys of the book's 편/장 headings (``제3편 행정``), as its contents list prints them."""
    return {_title_key(b.text) for b in blocks[:contents_end] if b.rows is None and _division(b.text)}


def _is_furniture(block: _Block, divisions: set[str]) -> bool:
    """A line of a part's title page or contents list, printed between two regulations."""
    if block.rows is not None:  # the part title box: "제3편" over "행정"
        return _title_key(" ".join(" ".join(r) for r in block.rows)) in divisions
    return bool(_CONTENTS_LINE.match(block.text)) or _title_key(block.text) in divisions


def _trim_tail(segment: list[_Block], divisions: set[str]) -> list[_Block]:
    """Drop the part title page and per-part contents printed before the next regulation."""
    end = len(segment)
    while end and _is_furniture(segment[end - 1], divisions):
        end -= 1
    return segment[:end]


def _is_placeholder(segment: list[_Block]) -> bool:
    """A repealed or moved regulation's page: a dated note (``2019년 8월 1일자 폐지 → …``), no articles."""
    first = next((b.text for b in segment if b.rows is None), "")
    return bool(_DATED_NOTE.search(first)) and not _has_articles(segment)


def _split_regulations(
    blocks: list[_Block], entries: list[ContentsEntry], contents_end: int
) -> Iterator[tuple[ContentsEntry, list[_Block]]]:
    """(entry, body blocks) of each regulation in force, found by the title line that opens it.

    Every contents title opens a segment that runs to the next title. A placeholder segment
    (a repealed or moved regulation's note) yields nothing; a title line that opens no
    regulation in force (a repealed one printed in full) stays in the segment before it.
    """
    by_title: dict[str, list[ContentsEntry]] = {}
    for e in entries:
        by_title.setdefault(_title_key(e.title), []).append(e)
    starts = [
        i for i in range(contents_end, len(blocks)) if blocks[i].rows is None and _title_key(blocks[i].text) in by_title
    ]
    opened: list[tuple[int, ContentsEntry | None]] = []
    done: set[str] = set()
    for start, end in zip(starts, [*starts[1:], len(blocks)], strict=True):
        candidates = [e for e in by_title[_title_key(blocks[start].text)] if not e.repealed and e.code not in done]
        if _is_placeholder(blocks[start + 1 : end]):
            opened.append((start, None))
        elif candidates:
            done.add(candidates[0].code)
            opened.append((start, candidates[0]))
    divisions = _division_keys(blocks, contents_end)
    for (start, entry), (end, _) in zip(opened, [*opened[1:], (len(blocks), None)], strict=True):
        if entry is not None:
            yield entry, _trim_tail(blocks[start + 1 : end], divisions)


# --- one regulation's structure ---------------------------------------------------------------


def _attachment_label(line: str) -> str | None:
    """``[별지 제2호 서식]`` → ``별지 2``; ``<별표 2-1>`` → ``별표 2-1``; None if not a title line."""
    m = ATTACHMENT_HEAD.match(line)
    return attachment_label(m["kind"], m["num"]) if m else None


@dataclass
class _RegulationParser:
    """Walks a regulation's blocks and emits article/table/addendum/attachment/paragraph elements."""

    elements: list[Element] = field(default_factory=list)
    divisions: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    tables: list[Element] = field(default_factory=list)
    article: tuple[str, str | None] | None = None
    article_number: int = 0
    mode: Literal["body", "addendum", "attachment"] = "body"
    attachment: str | None = None

    def path(self) -> tuple[str, ...]:
        return tuple(self.divisions[level] for level in ("편", "장", "절", "관") if level in self.divisions)

    def flush(self) -> None:
        """Emit the open unit, then the tables that sat inside it."""
        text = "\n".join(self.lines)
        self.lines = []
        if text:
            self.elements.append(self._unit(text))
        self.elements.extend(self.tables)
        self.tables = []

    def _unit(self, text: str) -> Element:
        if self.mode == "addendum":
            return Element(text, "addendum", path=("부칙",))
        if self.mode == "attachment":
            return Element(text, "attachment", attachment=self.attachment)
        if self.article:
            number, title = self.article
            return Element(text, "article", path=self.path(), article=number, article_title=title)
        return Element(text, "paragraph", path=self.path())

    def _article_head(self, line: str) -> tuple[str, str | None, str] | None:
        line = BRANCH_TYPO.sub(r"제\1조의\2 ", line)
        loose = LOOSE_ARTICLE.match(line)
        if ARTICLE_START.match(line) or (loose and int(loose[1]) == self.article_number + 1):
            return parse_article_head(line)
        return None

    def line(self, line: str) -> None:
        label = _attachment_label(line)
        if label is not None:
            self.flush()
            self.mode, self.attachment, self.article = "attachment", label, None
        elif ADDENDUM.match(line):
            self.flush()
            self.mode, self.article = "addendum", None
        elif self.mode == "body" and (division := _division(line)):
            self.flush()
            level, text = division
            for deeper in ("편", "장", "절", "관")[("편", "장", "절", "관").index(level) :]:
                self.divisions.pop(deeper, None)
            self.divisions[level] = text
            self.article = None
            return
        elif self.mode == "body" and (head := self._article_head(line)):
            self.flush()
            number, title, rest = head
            self.article = (number, title)
            self.article_number = int(re.findall(r"\d+", number)[0])
            line = (f"{number}({title}) {rest}" if title else f"{number} {rest}").strip()
        self.lines.append(line)

    def _caption(self) -> str | None:
        """Take the caption lines right above a table out of the open unit.

        A 별표's title lines (``<별표 2>``, ``2026학년도 … 학위명``) are the caption of its table when
        nothing else precedes it; otherwise a caption-like last line is, never an article's or
        부칙's head line.
        """
        if self.mode == "attachment" and 0 < len(self.lines) <= 3 and all(map(caption_text, self.lines)):
            title = " ".join(self.lines)
            self.lines = []
            return title
        keep = 1 if self.mode != "body" or self.article else 0
        caption = caption_text(self.lines[-1]) if len(self.lines) > keep else None
        if caption:
            self.lines.pop()
        return caption

    def table(self, rows: list[list[str]]) -> None:
        """A table entity; in a 별표/서식 or 부칙 a one-row table (a form's box) reads as a line of text."""
        filled = [row for row in rows if any(row)]
        if not filled:
            return
        if self.mode != "body" and len(filled) == 1:
            self.lines.append(" ".join(cell for cell in filled[0] if cell))
            return
        table = build_table(filled, self._caption())
        if table is None:
            return
        if self.mode == "attachment":  # in reading order, in the 별표's unit
            self.flush()
            self.elements.append(table_element(table, attachment=self.attachment))
        elif self.mode == "addendum":
            self.tables.append(table_element(table, path=("부칙",)))
        else:
            article = self.article[0] if self.article else None
            self.tables.append(table_element(table, path=self.path(), article=article))

    def feed(self, blocks: Iterable[_Block]) -> list[Element]:
        for block in blocks:
            if block.rows is not None:
                self.table(block.rows)
            else:
                for line in block.text.split("\n"):
                    if line.strip():
                        self.line(line.strip())
        self.flush()
        return self.elements


def _has_articles(blocks: list[_Block]) -> bool:
    return any(b.rows is None and ARTICLE_START.match(b.text) and parse_article_head(b.text) for b in blocks)


# --- documents ---------------------------------------------------------------------------------


def _regulations(path: Path, blocks: list[_Block], entries: list[ContentsEntry], end: int) -> list[Document]:
    name = source_name(path)
    docs = []
    for entry, segment in _split_regulations(blocks, entries, end):
        meta: dict[str, MetaValue] = {"file_name": name, "book": name, "part": entry.part}
        elements = _RegulationParser().feed(segment)
        docs.append(
            Document(
                source=name,
                title=entry.title,
                kind="regulation",
                elements=elements,
                key=entry.code,
                code=entry.code,
                meta=meta,
            )
        )
    return docs


def _heading_level(style: str) -> int | None:
    """Outline level of a heading style (개요 2 / Outline 2 / 제목 / Heading 1), else None."""
    name, _, eng = style.partition("|")
    if not (name.startswith(("개요", "제목")) or eng.startswith(("Outline", "Heading", "Title"))):
        return None
    digits = re.search(r"\d+", name + eng)
    return int(digits[0]) if digits else 1


def _generic_elements(blocks: list[_Block], styles: dict[str, str]) -> list[Element]:
    elements: list[Element] = []
    heads: list[tuple[int, str]] = []
    for block in blocks:
        if block.rows is not None:
            before = elements[-1] if elements else None
            caption = caption_text(before.text) if before and before.category == "paragraph" else None
            if (table := build_table(block.rows, caption)) is not None:
                if caption:
                    elements.pop()
                elements.append(table_element(table, path=tuple(h for _, h in heads)))
            continue
        level = _heading_level(styles.get(block.style, ""))
        category: Category = "paragraph"
        if level is not None:
            heads = [h for h in heads if h[0] < level]
            category = "heading"
        elements.append(Element(block.text, category, path=tuple(h for _, h in heads)))
        if level is not None:
            heads.append((level, block.text))
    return elements


def _title_line(blocks: list[_Block], fallback: str) -> tuple[str, list[_Block]]:
    """A single regulation's title (its first line unless that is already structure) and its body."""
    first = next((i for i, b in enumerate(blocks) if b.rows is None), None)
    if first is None or ARTICLE_START.match(blocks[first].text) or _division(blocks[first].text):
        return fallback, blocks
    return blocks[first].text, blocks[:first] + blocks[first + 1 :]


def load_hwpx(path: Path) -> list[Document]:
    """Load an HWPX file: one document per regulation in force for a 규정집, else one document."""
    blocks, styles = _read_blocks(path)
    entries, end = _contents(blocks)
    if entries:
        return _regulations(path, blocks, entries, end)
    name = source_name(path)
    meta: dict[str, MetaValue] = {"file_name": name}
    if _has_articles(blocks):
        title, body = _title_line(blocks, nfc(path.stem))
        elements = _RegulationParser().feed(body)
        return [Document(source=name, title=title, kind="regulation", elements=elements, meta=meta)]
    elements = _generic_elements(blocks, styles)
    title = next((e.text for e in elements if e.category == "heading"), nfc(path.stem))
    return [Document(source=name, title=title, kind="hwpx", elements=elements, meta=meta)]


@loader(".hwpx")
def _factory() -> Loader:
    return load_hwpx
