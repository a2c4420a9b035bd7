"""Size limits: split a unit's text at the most structural boundary that fits.

Order of preference: 항 (①…) boundaries, then line boundaries, then sentence ends, and only
as a last resort a hard cut with overlap. A 항 is never cut in the middle unless it alone is
longer than the limit.
"""

from __future__ import annotations

import re

from geungeo.text.structure import PARAGRAPH_MARK

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
