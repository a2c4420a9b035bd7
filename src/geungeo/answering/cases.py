"""Parallel cases in the evidence: the rows of a table and the items of a list. An answer quotes the row the question
names, the item whose range holds its figure, a list whole when its items differ in meaning more than in words, and
the general case before a special one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from geungeo.answering.details import Detail, states
from geungeo.answering.quantities import Quantity, ranges
from geungeo.answering.sentences import Sentence, found_at, overlaps
from geungeo.text.structure import CIRCLED

Cases = dict[tuple[int, int | str], list[Sentence]]
"""The parallel cases of each table (its rows) and each list (its items under one lead), by passage and table number
or lead."""


def parallel_cases(every: list[Sentence]) -> Cases:
    """The parallel cases of each table (its rows) and each list (its items under one lead) of the evidence, keyed
    by passage and table number or lead."""
    cases: Cases = {}
    for s in every:
        if s.table is not None or s.is_item:
            cases.setdefault((s.item.n, s.table if s.table is not None else s.lead), []).append(s)
    return cases


def looked_up(
    chosen: list[Sentence], cases: Cases, scored: list[Sentence], headers: dict[int, set[str]], k: int
) -> list[Sentence]:
    """Up to ``k`` rows the question names of the tables of the answering provision (``chosen[0]``'s) that no quoted
    clause is a row of: a row that alone among its table's rows states a word of the question that no quoted clause
    and not its passage's title (``headers``) states (its key: "알파고" of "4단계: 거장(숙련된 인간의 99% 이상) |
    딥블루, 알파고 | 미달성" for "알파고는 몇 단계에 들어가 있고"). The words every row states ("단계") say nothing of
    which row is meant, nor do those naming the document ("계획" of "추진계획")."""
    label = chosen[0].item.label
    quoted = {(s.item.n, s.table) for s in chosen}
    on_topic = {id(s) for s in scored}
    said = set().union(*(s.covers for s in chosen))
    found: list[Sentence] = []
    for (n, table), rows in cases.items():
        if rows[0].table is None or rows[0].item.label != label or (n, table) in quoted:
            continue
        for row, key in zip(rows, _keys(rows, headers.get(n, set())), strict=True):
            key -= said
            if len(found) < k and id(row) in on_topic and key and not overlaps(row, chosen + found):
                found.append(row)
                said |= row.covers
    return found


def by_key(chosen: list[Sentence], cases: Cases, headers: dict[int, set[str]]) -> list[Sentence]:
    """``chosen`` with each table it quotes by rows read by the rows the question names (:func:`_named_rows`), in
    place of the quoted rows that are not among them ("알파고는 몇 단계야?": the row "4단계: 거장 … 딥블루, 알파고",
    not "5단계: 초인간 … 알파폴드, 알파제로" quoted before it for the "단계" every row states). A table quoted whole
    under its caption is read by those rows under the caption ("조부모가 돌아가시면 경조사 휴가 며칠?": the row
    "사망, 대상: 본인 및 배우자의 조부모ㆍ외조부모, 일수: 3" of the 휴가일수표)."""
    out = list(chosen)
    for (n, _), rows in cases.items():
        quoted = [row for row in rows if any(s.item is row.item and row.words in s.text for s in out)]
        if rows[0].table is None or not quoted:  # a list, or a table the answer does not quote
            continue
        named = _named_rows(rows, headers.get(n, set()))
        others = [row for row in quoted if all(row is not m for m in named)]
        if named and others:
            out = _read_by(out, named, others)
    return out


def _named_rows(rows: list[Sentence], title: set[str]) -> list[Sentence]:
    """The rows of a table the question names: those stating most of its words that not every row states, nor the
    ``title`` of the passage ("결혼하면 휴가 며칠?": the two 결혼 rows of the 휴가일수표; "본인 결혼": the one stating
    both); none when no such word is stated."""
    stating = Counter(word for row in rows for word in row.covers)
    keys = [len({word for word in row.covers if stating[word] < len(rows)} - title) for row in rows]
    most = max(keys, default=0)
    return [row for row, key in zip(rows, keys, strict=True) if key == most] if most else []


def _keys(rows: list[Sentence], title: set[str]) -> list[set[str]]:
    """Each row's key: the words of the question it states that no other row of its table states, nor the ``title``
    of its passage."""
    stating = Counter(word for row in rows for word in row.covers)  # how many of the rows state each word
    return [{word for word in row.covers if stating[word] == 1} - title for row in rows]


def by_figure(chosen: list[Sentence], cases: Cases, figures: Sequence[Quantity]) -> list[Sentence]:
    """``chosen`` with the tables and lists it quotes read by the row or item whose range holds one of the ``figures``
    the question states, when exactly one of its bounded cases does ("수강인원이 60명이면": the row "50명 이상 75명
    미만", not "75명 이상"; "8주 지나서": "30일이 지난 날부터 60일 까지"). A case whose range does not hold the figure
    gives way to that one, and a clause quoting the whole table or list quotes its lead with that case alone."""
    out = list(chosen)
    for parallel in cases.values() if figures else ():
        bounds = [(case, ranges(case.words)) for case in parallel]
        for figure in figures:
            bounded = [case for case, bound in bounds if figure.measure in bound]
            holding = [case for case, bound in bounds if figure.measure in bound and bound[figure.measure].holds(figure)]
            if len(bounded) > 1 and len(holding) == 1:
                out = _read_by(out, holding, [case for case in bounded if case is not holding[0]])
    return out


def _read_by(chosen: list[Sentence], cases: list[Sentence], others: list[Sentence]) -> list[Sentence]:
    """``chosen`` with ``cases`` in place of each of ``others`` and of a clause quoting several of them (a list's or a
    table's lead with every case: its lead is kept above ``cases``)."""
    out: list[Sentence] = []
    for s in chosen:
        other = any(s.item is o.item and s.text == o.text for o in others)
        whole = not other and sum(o.words in s.text for o in [*cases, *others] if o.text != s.text) > 1
        if whole and cases[0].table is not None:  # the rows under the sentence pointing to their table
            rows = "\n".join(case.text for case in cases)
            read = [Sentence(s.item, f"{s.lead}\n{rows}", s.coverage, s.covers, s.words)]
        else:
            read = cases if other or whole else [s]
        out += [r for r in read if not overlaps(r, out)]
    return out


def whole_list(first: Sentence, scored: list[Sentence]) -> Sentence:
    """The answering clause, or when it is one item of a list (a 호, or a 목 under its 호) whose own words state at
    most one word of the question, the whole list under the lead: the items of a list differ in meaning more than in
    words ("물건이 안 와요" is 1호's "공급되지 아니한 경우", not 2호's "할부계약이 취소된 경우" that shares "할부"),
    so a guess between them is left to the reader."""
    if not first.is_item or len(first.covers) > 1:
        return first
    lead = first.lead
    whole = [s for s in scored if s.item is first.item and s.words == lead and s.text.startswith(f"{lead}\n")]
    return max(whole, key=lambda s: len(s.text), default=first)


def general_item(quoted: Sentence, scored: list[Sentence], asked: Sequence[Detail], sanctions: bool) -> Sentence | None:
    """When a quoted clause is a later item of a list, or a later 항 of an article, and states a figure ``asked`` for,
    the list's first item or the article's first 항 if it states such a figure too: a list or an article states the
    general case first and the special ones after it ("1. 18세 미만(원동기장치자전거의 경우에는 16세 미만)인 사람"
    before "6. 제1종 대형면허 … 19세 미만"; "① 일반 휴학자의 휴학기간은 1년을 원칙으로 한다." before "④ 창업휴학자의
    휴학은 … 최대 2년까지")."""
    kinds = [d for d in asked if states(d, quoted.words, sanctions=sanctions, weakly=False)]
    if not kinds:
        return None
    if quoted.is_item:
        first = _first_item(quoted, scored)
    elif quoted.text[:1] in CIRCLED[1:]:
        first = _first_paragraph(quoted, scored, kinds, sanctions)
    else:
        return None
    stated = first is not None and any(states(d, first.words or first.text, sanctions=sanctions, weakly=False) for d in kinds)
    return first if stated else None


def _first_item(quoted: Sentence, scored: list[Sentence]) -> Sentence | None:
    """The first item of the list ``quoted`` is an item of, when it comes before it."""

    def place(s: Sentence) -> int:
        return found_at(s.item.text, s.words.split("\n", 1)[0][:40])

    first = min((s for s in scored if s.item is quoted.item and s.is_item and s.lead == quoted.lead), key=place)
    return first if place(first) < place(quoted) else None


def _first_paragraph(quoted: Sentence, scored: list[Sentence], kinds: list[Detail], sanctions: bool) -> Sentence | None:
    """The first 항 of the article of ``quoted`` (a later 항), unless ``quoted`` states a word of the question that no
    other 항 stating a figure of ``kinds`` states: then it is the case asked about."""
    paragraphs = [s for s in scored if s.item.label == quoted.item.label and s.text[:1] in CIRCLED and not s.is_item]
    stating = [
        s
        for s in paragraphs
        if s.text != quoted.text and any(states(d, s.text, sanctions=sanctions, weakly=False) for d in kinds)
    ]
    if not quoted.covers <= set().union(*(s.covers for s in stating)):
        return None
    return next((s for s in paragraphs if s.text.startswith(CIRCLED[0])), None)
