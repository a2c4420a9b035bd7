"""The quotable clauses of a passage: sentences of a 항 or paragraph (a proviso kept with its sentence), a list's
lead with its 호, each 호 under its lead, and table rows, with the heading above each as its context."""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from geungeo.text.structure import (
    AMENDMENT,
    ARTICLE_PREFIX,
    ARTICLE_START,
    ATTACHMENT_HEAD,
    BARE_HEADING,
    CIRCLED,
    LIST_ITEM,
    LIST_LEAD,
    RUN_IN_PARAGRAPH,
    SOURCE_LINE,
)

SENTENCE_END = re.compile(r"(?<=[다요음함됨임]\.)\s+|(?<=[.?!])\s+(?=[A-Z가-힣①-⑳(])|\n+")

_SENTENCE_CLOSE = set("다요음함됨임")
_OPEN, _CLOSE = "(「『[", ")」』]"
MAX_LIST_ITEMS = 20

_TABLE_SEPARATOR = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")


def _cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]


def table_row_sentences(lines: list[str]) -> list[str]:
    """Body rows of a Markdown table as ``header: cell`` sentences, so a quoted row says what each cell is.

    A header of several rows (its corner cell spans them all, so each further row opens with the same label and
    names more columns) names each column by its cells in every header row: a label spanning columns is written in
    its first column with the others left empty, so it names every column up to the next label ("TOEFL" over CBT
    and IBT: "TOEFL IBT: 60"; "학년별 수료학점" over 1, 2, 3: "학년별 수료학점 1: 35")."""
    rows = [_cells(line) for line in lines if not _TABLE_SEPARATOR.match(line)]
    top = 1
    while top + 1 < len(rows) and rows[0][0] and rows[top][0] == rows[0][0] and _named(rows[top]) > _named(rows[top - 1]):
        top += 1
    header, body = _column_names(rows[:top]), rows[top:]
    out = []
    for cells in body:
        named = [f"{h}: {c}" if h and h != c else c for h, c in zip(header, cells, strict=False) if c]
        out.append(", ".join(named + [c for c in cells[len(header) :] if c]))
    return out


def _named(cells: list[str]) -> int:
    return sum(map(bool, cells))


def _column_names(header: list[list[str]]) -> list[str]:
    """Each column's name from the header rows above it, top down: a cell equal to the one below spans down and is
    named once; an empty cell right of a label that does not span down lies under that label (in the last row an
    empty cell is just empty)."""
    width = max(len(row) for row in header)
    names: list[list[str]] = [[] for _ in range(width)]
    for k, row in enumerate(header):
        label = ""
        for i in range(width):
            cell = row[i] if i < len(row) else ""
            if cell:
                below = header[k + 1][i] if k + 1 < len(header) and i < len(header[k + 1]) else cell
                label = "" if below == cell else cell
            part = cell or label
            if part and (not names[i] or names[i][-1] != part):
                names[i].append(part)
    return [" ".join(parts) for parts in names]


def _is_table_line(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) > 1 and stripped.startswith("|") and stripped.endswith("|")


def sentence_split(text: str) -> list[str]:
    """The sentences of one line: cut after a sentence end ("…한다.", "?", "!") outside parentheses and quotes, so
    "최저임금액(…을 말한다. 이하 같다)" stays one sentence."""
    out: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0 and ch in ".?!" and (i + 1 == len(text) or text[i + 1].isspace()) and _ends(text, i):
            out.append(text[start : i + 1].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [s for s in out if s]


def _ends(text: str, i: int) -> bool:
    """Whether the mark at ``i`` ends a sentence: "?" and "!", or a period after 다/요/음… or after a non-Hangul
    character (a Korean word ending otherwise is an abbreviation such as "등.")."""
    before = text[i - 1] if i > 0 else ""
    return text[i] != "." or before in _SENTENCE_CLOSE or not ("가" <= before <= "힣")


@dataclass
class _Block:
    """A 항 or paragraph and the 호/목 lines under it."""

    head: str
    items: list[str]


def _blocks(lines: list[str]) -> list[_Block]:
    """The 항 and paragraphs of ``lines``, each with its items. An item that is only a title ("1. 석사학위과정") keeps
    the plain line after it as its body: the 규정집 prints such a 호's text on the next line."""
    blocks: list[_Block] = []
    for raw in lines:
        for line in RUN_IN_PARAGRAPH.split(raw):
            line = AMENDMENT.sub("", line).strip()
            if not line:
                continue
            if blocks and LIST_ITEM.match(line):
                blocks[-1].items.append(line)
            elif blocks and blocks[-1].items and _is_body_of(blocks[-1].items[-1], line):
                blocks[-1].items[-1] += f"\n{line}"
            else:
                blocks.append(_Block(line, []))
    return blocks


# What ends an item that says something itself: a sentence end, a colon, a closing note.
_ITEM_END = re.compile(r"[.다:：>\]]\)?$")
# What never continues an item: a 항, a note ("<…>", "[…]"), a numbered 부칙 point ("(97) …"); and (below) an
# article's or a heading's first line.
_NOT_ITEM_BODY = re.compile(rf"^([{CIRCLED}<\[［]|\(\d+\))")


def _is_body_of(item: str, line: str) -> bool:
    return (
        "\n" not in item
        and not _ITEM_END.search(item)
        and not any(p.match(line) for p in (_NOT_ITEM_BODY, ARTICLE_START, BARE_HEADING))
    )


@dataclass(frozen=True)
class Clause:
    """A quotable clause: its ``text`` as quoted, the ``words`` it is scored on as its own and the ``context`` whose
    words count half (the ``heading`` above it, the lead sentence of a 호); a table row has the number of its ``table``
    in the passage."""

    text: str
    words: str
    context: str = ""
    table: int | None = None
    heading: str = ""


def clauses(text: str, headings: Collection[str] = ()) -> list[Clause]:
    """The quotable clauses of a passage, in order.

    A clause is a sentence of a 항 or paragraph (never two 항: a 항 starts at its circled number), a sentence that
    leads a list ("다음 각 호 …") quoted with its 호 lines but scored on its own words, each 호 quoted under its
    lead sentence (whose words count half), or a table row. The passage's ``headings`` (lines its loader found to
    be headings: a PDF page's headline, a section title) are not quoted; the words of the last one above a clause
    count half for it. Bare headings, source lines ("☞ 출처: …") and short fragments are left out."""
    heads = {h.strip() for h in headings}
    out: list[Clause] = []
    heading, section = "", []
    for line in [*text.split("\n"), None]:
        if line is not None and line.strip() not in heads:
            section.append(line)
            continue
        for c in _section_clauses(section):
            out.append(replace(c, context="\n".join(x for x in (heading, c.context) if x), heading=heading) if heading else c)
        heading, section = (line.strip() if line is not None else heading), []
    return [c for c in out if len(c.text) >= 8 and not BARE_HEADING.match(c.text) and not SOURCE_LINE.match(c.text)]


def _section_clauses(lines: list[str]) -> list[Clause]:
    """The clauses of consecutive lines without a heading among them (see :func:`clauses`). A sentence that points
    to what follows ("… 산출 방법은 다음과 같다.") with no list of its own brings the rows of the next table below
    it: the 규정집 prints an article's tables after its last 항; so does an attachment's title line ("[별표 2] …")."""
    groups = [(is_table, list(group)) for is_table, group in itertools.groupby(lines, key=_is_table_line)]
    tables = {g: table_row_sentences(rows) for g, (is_table, rows) in enumerate(groups) if is_table}
    pointed: set[int] = set()  # the tables a sentence took
    out: list[Clause] = []
    for g, (is_table, rows) in enumerate(groups):
        if is_table:
            out.extend(Clause(row, row, table=g) for row in tables[g])
            continue
        for block in _blocks(rows):
            sentences = _sentences(block.head)
            lead = _list_lead(sentences) if block.items else None
            for x in sentences:
                if x == lead:
                    out.append(Clause("\n".join([lead, *block.items[:MAX_LIST_ITEMS]]), lead))
                    out.extend(_item_clauses(lead, block.items))
                elif not block.items and _NAMES_BELOW.search(x) and (table := _next_table(tables, g, pointed)):
                    out.append(Clause("\n".join([x, *table[:MAX_LIST_ITEMS]]), x))
                else:
                    out.append(Clause(x, x))
            if lead is None:
                out.extend(Clause(item, item) for item in block.items if len(item) >= 8 and not BARE_HEADING.match(item))
    return out


def _sentences(head: str) -> list[str]:
    """The sentences of a 항 or paragraph as they are quoted: its article heading cut, each proviso joined to its
    sentence; a passage that opens mid-list has its first item as one sentence ("11." is none of its own)."""
    head = head if BARE_HEADING.match(head) else ARTICLE_PREFIX.sub("", head)
    split = [head] if LIST_ITEM.match(head) else sentence_split(head)
    return _with_provisos([s for s in split if len(s) >= 8 and not BARE_HEADING.match(s)])


def _list_lead(sentences: list[str]) -> str | None:
    """The sentence a list belongs to: the last that leads one ("다음 각 호 …"; a proviso "다만, …" may follow it)."""
    return next((x for x in reversed(sentences) if LIST_LEAD.search(x)), None)


# A sentence pointing to what follows it ("… 다음과 같다.", "아래와 같이 …"), or an attachment's title line naming the
# table below it ("[별표 2] 외국인 유학생 한국어 강좌 고급 과정").
_NAMES_BELOW = re.compile(rf"(다음|아래)(과|와)\s*같|{ATTACHMENT_HEAD.pattern}")


def _next_table(tables: dict[int, list[str]], group: int, pointed: set[int]) -> list[str]:
    """The rows of the first table after ``group`` that no earlier sentence took (it is taken now)."""
    after = min((g for g in tables if g > group and g not in pointed), default=None)
    if after is None:
        return []
    pointed.add(after)
    return tables[after]


# The levels of a list's items: 호 ("1.", "2의2."), 목 ("가."), then "1)" and "가)".
_LEVELS = (re.compile(r"^\d+(의\d+)?\."), re.compile(r"^[가-하]\."), re.compile(r"^\d+\)"), re.compile(r"^[가-하]\)"))


def _level(item: str) -> int:
    return next((n for n, pattern in enumerate(_LEVELS) if pattern.match(item)), len(_LEVELS))


def _item_clauses(lead: str, items: list[str]) -> list[Clause]:
    """Each item of a list under its lead sentence, scored on its own words: a 목 is quoted under its 호 (whose words
    count half, as the lead's do), and a 호 brings its 목 ("… 다음 각 목의 어느 하나에 해당하는 사람", "1. 석사학위과정")."""
    out: list[Clause] = []
    levels = [_level(item) for item in items]
    for i, item in enumerate(items):
        if len(item) < 8:
            continue
        above: list[str] = []
        for j in range(i - 1, -1, -1):  # the nearest item of each higher level: its 호 for a 목
            if levels[j] < (_level(above[0]) if above else levels[i]):
                above.insert(0, items[j])
        below: list[str] = []
        for j in range(i + 1, len(items)):  # its own items: the 목 of a 호
            if levels[j] <= levels[i]:
                break
            below.append(items[j])
        text = "\n".join([lead, *above, item, *below[:MAX_LIST_ITEMS]])
        out.append(Clause(text, item, "\n".join([lead, *above])))
    return out


# A proviso or a rider ("다만, …", "단, …", "이 경우 …") qualifies the sentence before it (본문 and 단서 of one 항), and a
# sentence opening with a connective ("또한, …", "그러나 …", "이때 …") goes on from it.
_PROVISO = re.compile(r"^(다만|단)\s*,|^이\s*(경우|때)|^(또한|그러나|그리고|따라서|이때)(\s|,)")


def _with_provisos(sentences: list[str]) -> list[str]:
    """``sentences`` with each proviso joined to the sentence it qualifies."""
    out: list[str] = []
    for s in sentences:
        if out and _PROVISO.match(s):
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
    return out


def carried_lead(text: str, before: Sequence[str]) -> str:
    """The lead sentence a passage's list goes on under when the passage opens mid-list (a long article cut into
    parts: "11. 제44조제1항을 위반하여 …" continues "다음 각 호의 어느 하나에 해당하는 사람은 … 벌금 … 에 처한다"): the
    last sentence leading a list in the nearest of the article's earlier parts ``before`` (nearest last) that has
    one; "" when the passage does not open with a list item or no earlier part is at hand."""
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    if not LIST_ITEM.match(first):
        return ""
    for part in reversed(before):
        for block in reversed(_blocks(part.split("\n"))):
            if not LIST_ITEM.match(block.head) and (lead := _list_lead(_sentences(block.head))):
                return lead
    return ""


def split_sentences(text: str) -> list[str]:
    """The clauses of a passage as text (see :func:`clauses`), in order."""
    return [c.text for c in clauses(text)]
