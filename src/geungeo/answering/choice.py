"""Which clause answers and which support it: among the clauses that bear on the question, the provision retrieval
ranks first, inside it the clause closest in meaning, a list of conditions or kinds when those are asked for, then
supporting clauses of other provisions that add a word of the question (:func:`~geungeo.answering.extractive.extract`
scores the clauses and adds what the answer is read with)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from geungeo.answering.cases import whole_list
from geungeo.answering.details import COUNT, Detail, states
from geungeo.answering.models import EvidenceItem
from geungeo.answering.sentences import Sentence, Similarity, overlaps
from geungeo.text.kiwi import is_predicate
from geungeo.text.structure import CONDITION_LIST, KINDS_LIST


def holds(s: Sentence, others: list[Sentence]) -> bool:
    """Whether ``s`` quotes one of ``others`` within it (a list's lead sentence with its items holds each item)."""
    return any(o.item is s.item and o.text != s.text and o.text in s.text for o in others)


def closeness_of(question: str, bearing: list[Sentence], similarity: Similarity | None) -> dict[str, float]:
    """The similarity to ``question`` of the ``bearing`` clauses of each provision that has several (none without
    ``similarity``, or when it gives none)."""
    if similarity is None:
        return {}
    per_label = Counter(s.item.label for s in bearing)
    several = list({s.text: s for s in bearing if per_label[s.item.label] > 1}.values())
    values = list(similarity(question, [_in_short(s) for s in several])) if several else []
    if len(values) != len(several):  # none (the embedder failed): by coverage
        return {}
    return {s.text: float(x) for s, x in zip(several, values, strict=True)}


def _in_short(s: Sentence) -> str:
    """A clause as its meaning is compared: under its document's name, which picked the provision and is said of
    every clause alike ("소프트웨어교육원 원장 임기" is not answered by ④ "교육원에는 소프트웨어 관련 …" for sharing the
    name's words), and a list item under its lead sentence, without the items it is quoted with (its 호 above a 목,
    its 목 below a 호), so that all the items of a list compete alike."""
    text = f"{s.lead}\n{s.words}" if s.is_item else s.text
    return f"{s.item.doc}\n{text}" if s.item.doc else text


def by_rank(scored: list[Sentence], rank: dict[int, int], closeness: dict[str, float] | None = None) -> list[Sentence]:
    """``scored`` by the retrieval rank of their provision, then by ``closeness`` in meaning to the question (when
    known), then by coverage; a provision split over several passages (an article's 항, a long table's rows) ranks
    as its best passage."""
    label_rank: dict[str, int] = {}
    for s in scored:
        r = rank.get(s.item.n, len(rank))
        label_rank[s.item.label] = min(r, label_rank.get(s.item.label, r))
    close = closeness or {}
    return sorted(scored, key=lambda s: (label_rank[s.item.label], -close.get(s.text, -2.0), -s.coverage))


def same_rule(s: Sentence, first: Sentence, floor: float) -> bool:
    """Whether ``s`` answers together with ``first``, whatever the words it shares with the question: any clause of the
    same article (its 항 state one rule), but on a page or in a section of a report, which gathers unrelated notes
    ("구글은 2023년 2월 앤스로픽에 …" beside "2024년 제미니를 출시할 계획"), only one covering ``floor`` of the question."""
    return s.item.label == first.item.label and (first.item.article is not None or s.coverage >= floor)


def answering_clause(
    bearing: list[Sentence],
    best: Sentence,
    asked: Sequence[Detail],
    floor: float,
    cases: bool = False,
    sanctions: bool = True,
    kinds: bool = False,
) -> Sentence:
    """The answering clause: the first of ``bearing``, the clauses that bear on the question (in the best passages,
    covering the floor or, in the first provision, stating a word of it; by retrieval rank of their provision, then
    closeness in meaning), and of its provision's clauses one stating every figure ``asked`` for when there is one (on
    a page, one covering ``floor``: :func:`same_rule`); ``best``, the best-covering clause, when none bears.
    Retrieval ranks whole passages better than word coverage does, so the provision is the one retrieval trusts most
    among those that bear on the question. A question asking for the ``cases`` (and no figure) is answered by the
    highest-ranked bearing clause that lists conditions or is of an article titled by them ("제2조(자격)"), when one is;
    one asking for the ``kinds`` of a thing (and no figure but how many), by the highest-ranked bearing clause naming
    kinds ("징계는 파면, 해임, … 견책으로 한다"), when one is.
    A penalty's figures state an asked figure only when the question asks about ``sanctions``."""
    if kinds and all(d.name == COUNT.name for d in asked):
        listing = [s for s in bearing if KINDS_LIST.search(s.text.split("\n", 1)[0])]
    elif cases and not asked:
        listing = [s for s in bearing if CONDITION_LIST.search(s.text.split("\n", 1)[0]) or _of_conditions(s.item)]
    else:
        listing = []
    first = listing[0] if listing else bearing[0] if bearing else best
    if asked:
        first = next(
            (
                s
                for s in bearing
                if same_rule(s, first, floor) and all(states(d, s.text, sanctions=sanctions) for d in asked)
            ),
            first,
        )
    return first


# An article titled by the conditions it sets: "제2조(자격)", "제40조(구직급여의 수급 요건)", "제9조(휴직사유)".
_CONDITIONS_TITLE = re.compile(r"(자격|요건|조건|사유)$")


def _of_conditions(item: EvidenceItem) -> bool:
    """Whether ``item`` is of an article titled by the conditions it sets (it answers a question asking for them)."""
    return item.article_title is not None and _CONDITIONS_TITLE.search(item.article_title) is not None


def choose_supporting(
    first: Sentence, ranked: list[Sentence], stating: Iterable[Sentence], k: int, passages: set[int], floor: float
) -> list[Sentence]:
    """The answering clause ``first``, a clause stating an asked figure that it does not state, then supporting
    clauses in retrieval order (``ranked``), one per other provision, up to ``k`` provisions: each from
    ``passages``, covering at least ``floor`` and stating a word of the question that the clauses before it do not,
    other than a verb or adjective (a clause that adds nothing asked about is left out, and so is one sharing only
    "쓰다" of "사직서를 쓰라고" in "임금대장은 마지막으로 써 넣은 날"). A supporting item of a list is quoted as the
    answering one is (:func:`~geungeo.answering.cases.whole_list`): one 호 of another statute's list of cases alone
    reads as the only case."""
    bearing = [s for s in ranked if s.item.n in passages and s.coverage >= floor and s.coverage > 0]
    chosen = [first]
    for s in stating:
        if s not in chosen and not overlaps(s, chosen):
            chosen.append(s)
    labels = {s.item.label for s in chosen}
    said = set().union(*(s.covers for s in chosen))
    for s in bearing:
        if len(labels) > k:
            break
        if s.item.label in labels or all(is_predicate(w) for w in s.covers - said) or overlaps(s, chosen):
            continue
        labels.add(s.item.label)
        said |= s.covers
        chosen.append(whole_list(s, ranked))
    keep = list(dict.fromkeys(s.item.label for s in chosen))[: k + 1]
    return [s for s in chosen if s.item.label in keep]
