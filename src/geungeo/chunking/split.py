"""Size limits: split a unit's text at the most structural boundary that fits.

Order of preference: 항 (①…) boundaries, then line boundaries, then sentence ends, and only
as a last resort a hard cut with overlap. A 항 is never cut in the middle unless it alone is
longer than the limit. Tables split between rows, each part under its caption and header again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from geungeo.text.structure import PARAGRAPH_MARK
from geungeo.types import Element, Table

_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|(?<=다\.)\s*|(?<=[요음임함됨])\.\s+")


def _pack(pieces: list[str], size: int, sep: str) -> list[str]:
    """Greedily join consecutive pieces into blocks of at most ``size`` characters."""
    blocks: list[str] = []
    current = ""
    for piece in pieces:
        candidate = f"{current}{sep}{piece}" if current else piece
        if current and len(candidate) > size:
            blocks.append(current)
            current = piece
        else:
            current = candidate
    if current:
        blocks.append(current)
    return blocks


def _paragraph_groups(text: str) -> list[str]:
    """Lines grouped so each group starts at a 항 mark (the head line stays with ①)."""
    groups: list[list[str]] = []
    for line in text.split("\n"):
        if not groups or (PARAGRAPH_MARK.match(line) and len(groups[-1]) and not _only_head(groups[-1])):
            groups.append([line])
        else:
            groups[-1].append(line)
    return ["\n".join(g) for g in groups]


def _only_head(group: list[str]) -> bool:
    """True while a group holds only an article head line (``제8조(휴직)``) awaiting its ①."""
    return len(group) == 1 and group[0].startswith("제") and len(group[0]) < 60 and not PARAGRAPH_MARK.search(group[0])


def _hard_cut(text: str, size: int, overlap: int) -> list[str]:
    step = max(size - overlap, 1)
    return [text[i : i + size] for i in range(0, max(len(text) - overlap, 1), step)]


def split_text(text: str, size: int, overlap: int) -> list[str]:
    """Split ``text`` into blocks of at most ``size`` characters at structural boundaries."""
    if len(text) <= size:
        return [text]
    blocks: list[str] = []
    for group in _pack(_paragraph_groups(text), size, "\n"):
        if len(group) <= size:
            blocks.append(group)
            continue
        for lines in _pack(group.split("\n"), size, "\n"):
            if len(lines) <= size:
                blocks.append(lines)
                continue
            for sentences in _pack([s for s in _SENTENCE_END.split(lines) if s], size, " "):
                blocks.extend([sentences] if len(sentences) <= size else _hard_cut(sentences, size, overlap))
    return blocks


@dataclass(frozen=True, slots=True)
class Piece:
    """One chunk's text and, when it holds (part of) a table, that part: caption, header and its rows."""

    text: str
    table: Table | None = None

    @property
    def only_table(self) -> bool:
        """True when the chunk holds its table part and nothing else."""
        return self.table is not None and self.text == self.table.markdown()


def _segments(elements: Sequence[Element]) -> list[str | Table]:
    """Runs of text (consecutive non-table elements joined by lines) and tables, in order."""
    segments: list[str | Table] = []
    lines: list[str] = []
    for e in elements:
        if e.table is not None:
            if lines:
                segments.append("\n".join(lines))
                lines = []
            segments.append(e.table)
        elif e.text.strip():
            lines.append(e.text)
    if lines:
        segments.append("\n".join(lines))
    return segments


def split_elements(elements: Sequence[Element], size: int, overlap: int) -> list[Piece]:
    """Split a unit's elements into chunk texts of at most ``size`` characters.

    Text runs split as :func:`split_text` does. A table (an element with a :class:`Table`) splits
    between rows, never inside one, and every part starts with the caption and header row again;
    a chunk holds at most one table's part, beside the text that fits with it. A row longer than
    ``size`` stays whole.
    """
    if not any(e.table is not None for e in elements):
        text = "\n".join(e.text for e in elements if e.text.strip())
        return [Piece(block) for block in split_text(text, size, overlap)]
    pieces: list[Piece] = []
    text, part = "", None

    def emit() -> None:
        nonlocal text, part
        if text:
            pieces.append(Piece(text, part))
        text, part = "", None

    for segment in _segments(elements):
        if isinstance(segment, str):
            for i, block in enumerate(split_text(segment, size, overlap)):
                if text and (i or len(text) + 1 + len(block) > size):  # blocks of one run stay apart
                    emit()
                text = f"{text}\n{block}" if text else block
            continue
        if part is not None:
            emit()
        head = segment.markdown(rows=())
        lines = [segment.markdown(rows=(row,))[len(head) + 1 :] for row in segment.rows]
        start = 0
        while True:
            need = len(head) + (1 + len(lines[start]) if start < len(lines) else 0)
            if text and len(text) + 1 + need > size:
                emit()
            used = len(text) + 1 + len(head) if text else len(head)
            end = start
            while end < len(lines) and (used + 1 + len(lines[end]) <= size or end == start):
                used += 1 + len(lines[end])
                end += 1
            part = Table(segment.header, segment.rows[start:end], segment.caption)
            text = f"{text}\n{part.markdown()}" if text else part.markdown()
            start = end
            if start >= len(lines):
                break
            emit()
    emit()
    return pieces
