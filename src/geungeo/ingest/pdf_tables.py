"""Ruled tables of a PDF page: pdfplumber (MIT) finds the cell grid, the caller reads the cells.

pdfplumber was chosen over pymupdf's ``find_tables`` (AGPL) by ``benchmarks/pdf_tables.py``:
both find the same two tables of the shared SPRI brief with the same grid, but pymupdf moves
commas and periods out of their words (``딥블루 알파고\\n,``) while the cell text here comes
from pypdfium2, as the rest of the page does. pdfplumber also takes navigation bars, title
boxes and a ruled contents page for tables: :func:`is_data_table` drops grids that do not
hold at least two rows of two filled cells.

Merged cells are resolved the way a reader reads them: a cell merged down repeats its value in
every row it spans, a cell merged across leaves the covered columns empty. A table whose rows
come in groups under a vertically merged label, each group repeating one sub-header row
(``기간 | 장소 | 홈페이지``) with its values underneath, is folded into one row per group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import pdfplumber.page

Rect = tuple[float, float, float, float]
"""(left, bottom, right, top) in PDF user space, as pypdfium2 reports boxes."""

_SNAP = 1.0  # points of slack when comparing cell edges


@dataclass(frozen=True, slots=True)
class Grid:
    """A table's outline and its cells, rows × columns; None where a merged cell covers the slot."""

    bbox: Rect
    cells: tuple[tuple[Rect | None, ...], ...]


@dataclass(frozen=True, slots=True)
class Cell:
    """A resolved cell: its text and whether it is a cell of its own or covered by a merged one."""

    text: str
    kind: Literal["own", "down", "across"] = "own"


def find_grids(page: pdfplumber.page.Page) -> list[Grid]:
    """Ruled tables pdfplumber finds on an unrotated page, in PDF coordinates."""
    if page.rotation:
        return []
    height = float(page.height)

    def rect(box: tuple[float, float, float, float]) -> Rect:
        x0, top, x1, bottom = (float(v) for v in box)
        return (x0, height - bottom, x1, height - top)

    grids = []
    for table in page.find_tables():
        cells = tuple(tuple(rect(c) if c else None for c in row.cells) for row in table.rows)
        grids.append(Grid(rect(table.bbox), cells))
    return grids


def resolve(grid: Grid, read: Callable[[Rect], str]) -> list[list[Cell]]:
    """Cell texts with merged slots filled: down-merges repeat the value, across-merges stay empty."""
    starts = _column_starts(grid)
    rows: list[list[Cell]] = []
    for r, row in enumerate(grid.cells):
        out: list[Cell] = []
        for c, box in enumerate(row):
            left = next((b for b in reversed(row[:c]) if b is not None), None)
            if box is not None:
                out.append(Cell(read(box)))
            elif left is not None and left[2] > starts[c] + _SNAP:
                out.append(Cell("", "across"))
            else:
                out.append(Cell(rows[r - 1][c].text if r else "", "down"))
        rows.append(out)
    return rows


def _column_starts(grid: Grid) -> list[float]:
    """The left edge of every column (pdfplumber lays rows out on the table's distinct cell lefts)."""
    width = max(len(row) for row in grid.cells)
    starts = []
    for c in range(width):
        lefts = [box[0] for row in grid.cells for box in row[c : c + 1] if box is not None]
        starts.append(min(lefts) if lefts else grid.bbox[2])
    return starts


def is_data_table(rows: list[list[Cell]]) -> bool:
    """At least two rows with two or more filled cells (not a box, a bar or a one-column list)."""
    filled = [sum(1 for cell in row if cell.kind == "own" and cell.text) for row in rows]
    return sum(1 for n in filled if n >= 2) >= 2


def table_rows(rows: list[list[Cell]]) -> list[list[str]]:
    """Rows of text for :meth:`Table.from_rows`: folded record groups when the table has them."""
    folded = fold_groups(rows)
    if folded is not None:
        return folded
    return [[cell.text if cell.kind != "across" else "" for cell in row] for row in rows]


def fold_groups(rows: list[list[Cell]]) -> list[list[str]] | None:
    """One row per group of rows under a vertically merged first cell, when every group is
    ``main row`` + pairs of (sub-header row, value row) with the same sub-headers; else None."""
    if len(rows) < 3 or not rows[0]:
        return None
    header, groups = rows[0], _groups(rows[1:])
    if len(groups) < 2 or any(len(g) < 3 or len(g) % 2 == 0 for g in groups):
        return None
    labels = [_own(groups[0][i]) for i in range(1, len(groups[0]), 2)]
    if any(not cols for cols in labels):
        return None
    for group in groups:
        if len(group) != len(groups[0]) or [_own(group[i]) for i in range(1, len(group), 2)] != labels:
            return None
    main_cols = [c for c in range(len(header)) if any(g[0][c].kind == "own" and g[0][c].text for g in groups)]
    names = [_header_text(header, c) for c in main_cols] + [text for cols in labels for _, text in cols]
    out = [names]
    for group in groups:
        record = [group[0][c].text for c in main_cols]
        for pair, cols in enumerate(labels):
            values = group[2 + 2 * pair]
            record += [values[c].text for c, _ in cols]
        out.append(record)
    return out


def _groups(body: list[list[Cell]]) -> list[list[list[Cell]]]:
    """Consecutive rows whose first cell continues (merged down from) the group's first row."""
    groups: list[list[list[Cell]]] = []
    for row in body:
        if groups and row and row[0].kind == "down":
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def _own(row: list[Cell]) -> list[tuple[int, str]]:
    """(column, text) of the row's own filled cells after the first column."""
    return [(c, cell.text) for c, cell in enumerate(row) if c and cell.kind == "own" and cell.text]


def _header_text(header: list[Cell], col: int) -> str:
    """A header slot covered from the left takes the text of the merged cell that covers it."""
    while col > 0 and header[col].kind == "across":
        col -= 1
    return header[col].text
