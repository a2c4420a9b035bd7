"""Tables as entities, shared by every loader: merged cells resolved to rows, captions, the Table.

Each loader reads its format's cells (HWPX ``<hp:tc>``, HWP list headers, DOCX/PPTX/HTML cells)
into rows of texts; :func:`build_table` turns them into a :class:`~geungeo.types.Table`, and
:func:`table_element` into the ``table`` element whose text is the table's Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from geungeo.text.normalize import clean_text
from geungeo.types import Element, Table

# <표 1>, [표 2-1], 표 3., [별표 2] 제목, <그림 1>: a caption by its label.
_CAPTION_LABEL = re.compile(r"^[<\[［【〈《(]?\s*(?:별표|표|그림|도표|table|fig(?:ure)?)\s*\.?\s*\d", re.I)
# 제3조 …, 1. …, 가. …, ①, ○, -, ※ …: an article, item or bullet line, not a title.
_NOT_TITLE = re.compile(r"^(?:제\s*\d+\s*조|\(?\d+[.)]|\(?[가-하][.)]|[\u2460-\u2473]|[○●◦ㅇ\-–—*※·•▶►☞⇒→]|\(\d+\))")
# Columns a table may have; cells beyond are dropped (real tables have a few dozen at most).
MAX_COLUMNS = 256
_SENTENCE_END = (".", "다", ":", "：", ",", "?", "!", "。")
_TITLE_MAX_CHARS = 40
_LABELLED_MAX_CHARS = 80
# A cell written letter-spaced to fill its width, as 규정집 tables often are ("구 분", "일 수", "평 가 기 준"): one word.
_LETTER_SPACED = re.compile(r"(?:[가-힣] ){1,9}[가-힣]")


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell at its grid address (0-based) with the rows and columns it spans."""

    row: int
    col: int
    text: str
    rows: int = 1
    cols: int = 1


def grid_rows(cells: Iterable[Cell]) -> list[list[str]]:
    """Rows of cell texts, each cell under its own columns.

    A cell spanning rows repeats in each row. A cell spanning columns is written in its first column and leaves the
    others empty, so the cells after it keep their columns ("TOEFL" over CBT and IBT puts TEPS under TEPS's scores);
    a row that is one cell across the whole table (a section label, "합계") stays one cell. A column a row has no
    cell in is empty. Addresses and spans are kept inside the table: at most ``MAX_COLUMNS`` columns, no row past
    the last one a cell starts in.
    """
    cells = [c for c in cells if 0 <= c.col < MAX_COLUMNS and c.row >= 0]
    last_row = max((c.row for c in cells), default=0)
    texts: list[str] = []
    grid: dict[int, dict[int, int]] = {}
    for cell in cells:
        texts.append(cell.text)
        # a span past the table's last row or its column limit covers nothing more (a hostile file's 10⁹)
        for r in range(cell.row, min(cell.row + max(cell.rows, 1), last_row + 1)):
            for c in range(cell.col, min(cell.col + max(cell.cols, 1), MAX_COLUMNS)):
                grid.setdefault(r, {})[c] = len(texts) - 1
    width = max((max(row) + 1 for row in grid.values()), default=0)
    rows = []
    for r in sorted(grid):
        ids = [grid[r].get(c, -1) for c in range(width)]
        if len(set(ids)) == 1:
            rows.append([texts[ids[0]]])
        else:
            rows.append([texts[i] if i >= 0 and (c == 0 or i != ids[c - 1]) else "" for c, i in enumerate(ids)])
    return rows


def place_cells(rows: Sequence[Sequence[tuple[str, int, int]]]) -> list[Cell]:
    """Grid addresses for cells given row by row as (text, rowspan, colspan), as HTML lays them out."""
    taken: set[tuple[int, int]] = set()
    cells = []
    for r, row in enumerate(rows):
        c = 0
        for text, rowspan, colspan in row:
            while (r, c) in taken:
                c += 1
            rowspan, colspan = max(rowspan, 1), max(colspan, 1)
            cells.append(Cell(r, c, text, rowspan, colspan))
            taken.update((r + i, c + j) for i in range(rowspan) for j in range(colspan))
            c += colspan
    return cells


def caption_text(text: str) -> str | None:
    """``text`` on one line when it reads as a table caption, else None.

    A caption is a labelled line (``<표 1> 현황``, ``[별표 2] 수당 기준``, ``<별표 2>``) or a short
    title line: no article head, item number or bullet, not a sentence.
    """
    if "\n" in text.strip():
        return None
    line = " ".join(clean_text(text).split())
    if not line or not re.search(r"[^\W\d_]", line):
        return None
    if _CAPTION_LABEL.match(line):
        return line if len(line) <= _LABELLED_MAX_CHARS else None
    if len(line) > _TITLE_MAX_CHARS or _NOT_TITLE.match(line) or line.endswith(_SENTENCE_END):
        return None
    return line


def build_table(rows: Sequence[Sequence[str]], caption: str | None = None) -> Table | None:
    """A :class:`Table` from rows of cell texts (cells cleaned, a letter-spaced word joined, empty rows dropped).

    A first row that is one cell over a wider table is the table's title: it joins the caption.
    """
    cleaned = [[_unspaced(clean_text(c)) for c in row] for row in rows]
    cleaned = [row for row in cleaned if any(row)]
    if len(cleaned) > 2 and len(cleaned[0]) == 1 and max(len(r) for r in cleaned[1:]) > 1:
        caption = f"{caption} {cleaned[0][0]}" if caption else cleaned[0][0]
        cleaned = cleaned[1:]
    caption = " ".join(caption.split()) if caption else None
    return Table.from_rows(cleaned, caption=caption)


def _unspaced(cell: str) -> str:
    """A cell holding one word written letter-spaced ("일 수") as that word ("일수"); any other cell as it is."""
    return cell.replace(" ", "") if _LETTER_SPACED.fullmatch(cell) else cell


def table_element(
    table: Table,
    *,
    page: int | None = None,
    path: tuple[str, ...] = (),
    article: str | None = None,
    attachment: str | None = None,
) -> Element:
    """The ``table`` element of ``table``: its Markdown as text, the Table itself in ``table``."""
    return Element(table.markdown(), "table", page=page, path=path, article=article, attachment=attachment, table=table)
