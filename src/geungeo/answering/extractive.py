"""Extractive answering: the best-supported sentences of the evidence, each with its citation.

This is the answer when no LLM is configured. It also supplies the evidence score behind
"근거 부족": how much of the question's content the best sentences cover, whether the
retrievers backed the passage, and whether a figure the question asks for (나이, 몇 %,
얼마, 며칠 …) is stated by a sentence of the best passages that bears on the question
(:mod:`geungeo.answering.details`). Passages are cut into clauses by :mod:`geungeo.answering.clauses`.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from geungeo.answering.clauses import carried_lead, clauses
from geungeo.answering.details import Detail, asked_details, asking_part, asks_cases, states
from geungeo.answering.models import EvidenceItem
from geungeo.answering.quantities import Quantity, quantities, ranges
from geungeo.retrieval.expansion import QUERY_STOP_TERMS, Lexicon, query_terms
from geungeo.retrieval.scope import DocumentScope
from geungeo.text.kiwi import bm25_terms, is_predicate, words_of
from geungeo.text.normalize import squash
from geungeo.text.references import passage_references, sibling_paragraphs
from geungeo.text.structure import (
    ASKS_SANCTION,
    BULLET,
    CIRCLED,
    CONDITION_LIST,
    DELEGATION,
    LIST_ITEM,
    SANCTION,
    named_sanction,
    other_sanction,
)

GENERIC_WEIGHT = 0.1


@dataclass(frozen=True)
class Sentence:
    """A quoted clause: a sentence of a 항 or paragraph (with its 호 list when it leads one), a 호 under its lead
    sentence, or a table row; ``coverage`` is the share of the question it covers."""

    item: EvidenceItem
    text: str
    coverage: float
    covers: frozenset[str] = field(default=frozenset(), compare=False)  # the question's words it states itself
    words: str = field(default="", compare=False)  # what it is scored on: a list item's own line(s), else its text
    table: int | None = field(default=None, compare=False)  # a table row: the number of its table in the passage

    @property
    def lead(self) -> str:
        """Its first line: the lead sentence when it is a list or an item of one."""
        return self.text.split("\n", 1)[0]

    @property
    def is_item(self) -> bool:
        """Whether it is one item of a list (a 호, a 목 under its 호) quoted under the list's lead."""
        return bool(self.words) and self.words not in (self.text, self.lead)


@dataclass(frozen=True)
class Extract:
    """Chosen clauses (the answering one first), the evidence score in [0, 1], the asked-for figures no clause
    states and the figures the question states whose measure no quoted provision bounds (:func:`unbounded`)."""

    sentences: list[Sentence]
    score: float
    missing: list[str]
    unbounded: list[str] = field(default_factory=list)

    def answers(self, min_score: float) -> bool:
        """Whether the evidence supports an extractive answer (else 근거 부족): a clause shares a word with the
        question, the score reaches ``min_score``, every asked figure is stated and every figure the question states
        falls under a rule the quoted provisions draw."""
        return self.covered and self.score >= min_score and not self.missing and not self.unbounded

    @property
    def covered(self) -> bool:
        """Whether any clause shares a word with the question."""
        return any(s.coverage > 0 for s in self.sentences)

    def related(self) -> list[str]:
        """The labels of the clauses that bear on the question, best first (what a refusal names)."""
        return list(dict.fromkeys(s.item.label for s in self.sentences if s.coverage > 0))

    def to_state(self) -> dict[str, Any]:
        """A plain form for the graph state (the judge extracts, generation renders)."""
        return {
            "score": self.score,
            "missing": self.missing,
            "unbounded": self.unbounded,
            "sentences": [[s.item.n, s.text, s.coverage, s.table] for s in self.sentences],
        }

    @classmethod
    def from_state(cls, data: dict[str, Any], evidence: Sequence[EvidenceItem]) -> Extract:
        by_n = {item.n: item for item in evidence}
        sentences = [
            Sentence(by_n[n], text, coverage, table=table[0] if table else None)
            for n, text, coverage, *table in data["sentences"]
            if n in by_n
        ]
        return cls(sentences, data["score"], list(data["missing"]), list(data.get("unbounded", [])))

    def render(self, lead: str = "") -> str:
        """The answer text: one bullet per cited provision (the answering one first), its clauses in the order the
        provision states them (① before ④, as a reader of the article meets them), then its citation; a 호 list goes
        on indented lines under its lead sentence, and so does a clause that opens with a bullet of its own (a
        report's "■ …", "∙ …" points are lines, not one run of text)."""
        parts: list[str] = [lead] if lead else []
        by_label: dict[str, list[Sentence]] = {}
        for s in self.sentences:
            by_label.setdefault(s.item.label, []).append(s)
        for label, quoted in by_label.items():
            texts = _one_lead_each([s.text for s in sorted(quoted, key=_place)], quoted[0].item.text)
            rows = {s.text for s in quoted if s.table is not None}  # a table row is a line of its own too
            body = texts[0] + "".join(
                ("\n" if _own_line(t, before) or t in rows else " ") + t for before, t in itertools.pairwise(texts)
            )
            indented = _OWN_DASH.sub("", body, count=1).replace("\n", "\n  ")  # one dash per bullet, not "- - …"
            parts.append(f"- {indented} [{label}]")
        return "\n".join(parts)


_OWN_DASH = re.compile(r"^-\s+")


def _own_line(text: str, before: str) -> bool:
    """Whether a quoted clause starts a line of its own in its provision's bullet: a point with its own bullet, a 항
    ("② …"), or any clause after a list (it would read as part of the list's last item)."""
    return bool(BULLET.match(text)) or text[:1] in CIRCLED or "\n" in before


def _one_lead_each(texts: list[str], provision: str) -> list[str]:
    """Quoted clauses of one provision with the items of one list under one copy of their lead sentence, in the
    order the provision states them: "④ … 다음 각 호에 따른다." with 2호 and 3호, not the lead twice."""
    items: dict[str, list[str]] = {}
    for text in texts:
        lead, *below = text.split("\n")
        if below:
            items.setdefault(lead, []).extend(_units(below))
    out: list[str] = []
    done: set[str] = set()
    for text in texts:
        lead = text.split("\n", 1)[0]
        if lead not in items:
            out.append(text)
        elif lead not in done:
            done.add(lead)
            ordered = sorted(dict.fromkeys(items[lead]), key=lambda unit: _found_at(provision, unit.split("\n", 1)[0]))
            out.append("\n".join([lead, *ordered]))
    return out


def _units(lines: list[str]) -> list[str]:
    """The items among ``lines``, each with the plain lines after it (a titled 호's body)."""
    units: list[str] = []
    for line in lines:
        if units and not LIST_ITEM.match(line):
            units[-1] += f"\n{line}"
        else:
            units.append(line)
    return units


def _found_at(text: str, line: str) -> int:
    """Where ``line`` stands in ``text``; after the end when it is not there."""
    at = text.find(line)
    return at if at >= 0 else len(text)


def _place(s: Sentence) -> tuple[str, int]:
    """Where a quoted clause stands in its provision: its passage (chunk ids run in document order), then its place in
    the passage's text (a clause rewritten when quoted, a table row, goes after those found)."""
    return s.item.chunk_id, _found_at(s.item.text, s.lead[:40])


# The extractive answer's thresholds (measured in benchmarks/reports/answers.md, not user settings):
ANSWER_PASSAGES = 5
"""The answer draws on this many best passages: its supporting clauses come from them, and a figure the question asks
for (몇 세, 얼마, 며칠, 몇 % …) must be stated in one of them, else 근거 부족."""
QUOTE_COVERAGE = 0.6
"""Share of the answering clause's coverage of the question that a clause of another provision needs to be quoted in
support of it."""
DETAIL_COVERAGE = 0.6
"""Share of the best clause's coverage that a clause stating the asked figure needs to count (higher refuses more near
misses and more answerable questions)."""


Similarity = Callable[[str, Sequence[str]], Sequence[float]]
"""How close in meaning each text is to the question (the embedder's cosine): ``similarity(question, texts)``."""


# A form attached to a regulation (별지 서식) and a question about one: its lines are blanks to fill in, quoted only
# when the question asks about the form itself.
_FORM = re.compile(r"별지|서식")  # at the start of a label's place: "연구노트작성․관리규정 별지 1"
_ASKS_FORM = re.compile(r"별지|서식|양식|신청서|서류|작성|기재|제출")


def extract(
    question: str,
    evidence: Sequence[EvidenceItem],
    lexicon: Lexicon | None,
    *,
    max_supporting: int = 2,
    agreement: float = 0.0,
    passages: int = ANSWER_PASSAGES,
    quote_coverage: float = QUOTE_COVERAGE,
    detail_coverage: float = DETAIL_COVERAGE,
    similarity: Similarity | None = None,
    topic: str = "",
    subject: str = "",
) -> Extract:
    """The clause of ``evidence`` that answers ``question``, up to ``max_supporting`` clauses of other provisions
    that bear on it, how well they support it, and the figures it asks for that no clause states.

    A clause's coverage counts the question's words it states (the passage's title, the heading above the clause
    and a 호's lead sentence count half). The answering clause is the best clause of the highest-ranked of the best
    ``passages`` that covers the question at least ``quote_coverage`` times as well as the best clause; a supporting
    clause comes from another provision (another citation label) among them, with the same floor, and adds a word of
    the question.
    A figure the question asks for counts as stated by a clause of the best ``passages`` covering the question at
    least ``detail_coverage`` times as well; that clause is quoted too, and first when the answering clause states
    none of the figures asked for and leaves none to another instrument.

    Word coverage finds the provisions; inside one, the clause quoted is the bearing clause closest in meaning to
    the question by ``similarity`` when given (a question says "부모와 같이", its clause "친권자등을 동반"), else the
    best-covering one; when another of its clauses states more of the question's words, that one is quoted too. A
    quoted item of a list stating an asked figure brings the first item of its list that states one (a list states the
    general case before the special ones).

    A follow-up is answered only by clauses stating a word of its ``topic`` (the words carried from the turns
    before, part of ``question``) or all of its own words (a new subject: "그럼 육아휴직은?"): after "주휴수당은 누가
    받나요?", "일주일에 10시간 일하면요?" is not answered by a clause that only shares "일주일". One naming a new
    ``subject`` in place of the earlier one ("연차휴가는 며칠?" then "그럼 육아휴직은요?") is answered only by clauses
    stating it: the earlier subject's clauses state the carried words too, and answer the question before."""
    evidence = _of_named(question, evidence)
    # Coverage counts the question's words; BM25's joined compounds would count a compound word twice.
    own = {t for t in query_terms(question, compounds=False) if not (t.isdigit() and len(t) == 1)}
    # The question's generic nouns ("경우는?", "몇 가지", "정도") do not find passages but say what kind of clause
    # answers: they count a tenth of a word.
    generic = {t for t in bm25_terms(question, compounds=False) if t in QUERY_STOP_TERMS and not is_predicate(t)}
    expanded = set(query_terms(question, lexicon, compounds=False)) - own
    asked = asked_details(question)
    # a blank form's lines ("신청일 : 20 년 월 일") state nothing unless the form is asked about
    forms_asked = _ASKS_FORM.search(question) is not None
    quotable = [item for item in evidence if forms_asked or not _FORM.match(item.label.removeprefix(item.doc).strip())]
    # a question naming the kind of sanction it asks about ("과태료 얼마까지 나오나요?") is not answered by another kind
    kind = named_sanction(question)
    candidates = [
        (item, c)
        for item in quotable
        for c in clauses(_with_carried_lead(item, evidence), item.headings)
        if kind is None or not other_sanction(c.text, kind)
    ]
    if not own or not candidates:
        return Extract([], 0.0, [d.name for d in asked])
    headers = {
        item.n: set(terms)
        for item, terms in zip(evidence, words_of(i.header for i in evidence), strict=True)
    }
    clause_terms = [set(terms) for terms in words_of(c.words for _, c in candidates)]
    contexts = {c.context for _, c in candidates if c.context}
    context_terms = dict(zip(contexts, (set(t) for t in words_of(contexts)), strict=True))
    translated = (
        {t for phrase in lexicon.translations(question) for t in query_terms(phrase, compounds=False)} if lexicon else set()
    )
    if translated:  # an English question: its Korean terms are what the passages can state
        used = set().union(*clause_terms, *headers.values())
        own, expanded = translated | (own & used), expanded - translated
    weight = len(own) + 0.5 * len(expanded) + GENERIC_WEIGHT * len(generic)
    about = own & set(query_terms(topic, compounds=False))
    turn = own - about  # the follow-up's own words: a new subject ("그럼 육아휴직은?") or a changed circumstance
    subject_words = set(query_terms(subject, compounds=False))
    scored: list[Sentence] = []
    every: list[Sentence] = []  # the follow-up's off-topic clauses too: a penalty names its provision, not the topic
    for (item, clause), present in zip(candidates, clause_terms, strict=True):
        half = (headers.get(item.n, set()) | context_terms.get(clause.context, set())) - present
        hit = len(own & present) + 0.5 * len(own & half) + 0.5 * len(expanded & present) + 0.25 * len(expanded & half)
        hit += GENERIC_WEIGHT * len(generic & present)
        every.append(Sentence(item, clause.text, hit / weight, frozenset(own & present), clause.words, clause.table))
        stated = present | half
        on_topic = (
            _states_words(subject_words, stated)  # a new subject: the clauses stating it
            if subject_words
            else not about or bool(about & stated) or turn <= stated
        )
        if on_topic:
            scored.append(every[-1])
    if not scored:
        return Extract([], 0.0, [d.name for d in asked])
    rank_bonus = {item.n: 0.05 / (i + 1) for i, item in enumerate(evidence)}

    def order(s: Sentence) -> tuple[float, int]:
        return round(s.coverage + rank_bonus.get(s.item.n, 0.0), 6), -len(s.text)

    scored.sort(key=order, reverse=True)
    every.sort(key=order, reverse=True)
    best_passages = {item.n for item in evidence[:passages]}
    best = scored[0].coverage
    floor = quote_coverage * best
    bearing = [s for s in scored if s.item.n in best_passages and s.coverage >= floor and s.coverage > 0]
    rank = {item.n: i for i, item in enumerate(evidence)}
    # Inside the provision retrieval ranks first, every clause stating a word of the question is compared by meaning
    # (one saying the asked thing in other words shares few of them: "월급이 깎이는" for 감봉).
    # A clause so admitted does not hold one the words admitted (a list's lead sentence holds its items).
    lead = by_rank(bearing, rank)[0].item.label if bearing else None
    bearing += [
        s
        for s in scored
        if s.item.label == lead and s.item.n in best_passages and s.covers and s not in bearing and not _holds(s, bearing)
    ]
    closeness = _closeness(question, bearing, similarity)
    ranked = by_rank(scored, rank, closeness)
    sanctions = ASKS_SANCTION.search(question) is not None
    admitted = {id(s) for s in bearing}
    first = _answering([s for s in ranked if id(s) in admitted], scored[0], asked, floor, asks_cases(question), sanctions)
    # The clause of the answering provision that states most of the question's words (``first`` is the closest in
    # meaning): it may delegate the asked figure, and when it differs from ``first`` it is quoted too.
    own_best = max((s for s in scored if s.item.label == first.item.label), key=lambda s: s.coverage, default=first)
    linked = _linked(first, evidence)
    implementing = {n for n, item in linked.items() if same_family(item.doc, first.item.doc) and item.doc != first.item.doc}
    # only an asked figure looks in the documents the answering one names
    named = _named_by(first.item.doc, evidence) | _deferred_to(first.item, evidence) if asked else set()
    stating = _stating(asked, scored, best_passages, detail_coverage * best, (first, own_best), sanctions, implementing, named)
    # breaking the answering provision, or the one stating the figure asked ("불복 기한" of 제44조 when 제43조 answers),
    # each punished by a passage retrieval kept or by a reference linked to that provision
    breakable = [first, *(s for s in stating.values() if s.item.label != first.item.label)] if sanctions else []
    if kind is not None:  # the kind named may punish another provision bearing on the question (계약직: 기간제법 제17조)
        breaking = {b.item.label for b in breakable}
        breakable += [s for s in ranked if id(s) in admitted and s.item.label not in breaking]
    penalty = next(
        (p for s in breakable if (p := _penalty(s, every, evidence, set(_linked_of(s, first, linked, evidence)))) is not None),
        None,
    )
    if penalty is not None:  # a question about sanctions asks the sanction's figures ("벌금은 얼마예요?")
        stating |= {d.name: penalty for d in asked if states(d, penalty.text, weakly=False)}
    missing = [d.name for d in asked if d.name not in stating]
    quoted = _whole_list(first, scored)
    supporting = [*stating.values(), *([penalty] if penalty is not None and penalty not in stating.values() else [])]
    chosen = _choose(quoted, ranked, supporting, max_supporting, best_passages, floor)
    # Meaning and words disagree on the provision's clause: both are quoted, the words' choice after the answer.
    if own_best.coverage > first.coverage and not _overlaps(own_best, chosen):
        chosen.insert(1, own_best)
    cases = _cases(every)  # the rows of each table and the items of each list of the evidence
    # a table is read by the row the question names ("알파고" in the row "4단계: 거장 … | 딥블루, 알파고")
    chosen[1:1] = _looked_up(chosen, cases, scored, headers, max_supporting)
    # a list item giving the asked figure is read with the list's first item that gives it (the general case)
    chosen = _each_after(chosen, lambda s: _general_item(s, scored, asked, sanctions))
    # a quoted clause building on another 항 of its article for the figure asked, or departing from it, brings it
    chosen = _each_after(chosen, lambda s: _rule_of(s, scored, asked, sanctions))
    # a table or list quoted is read by the case whose range holds the question's figure ("60명이면": "50명 이상 75명 미만")
    chosen = _by_figure(chosen, cases, quantities(question))
    # (a clause leaving the figure to another instrument reads first, the instrument's figure after it)
    states_asked = any(states(d, first.text, sanctions=sanctions, weakly=False) for d in asked)
    if asked and not DELEGATION.search(first.text) and not states_asked:
        leading = [s for s in chosen if any(s is t for t in stating.values())]
        chosen = leading + [s for s in chosen if not any(s is t for t in leading)]
    if penalty is not None and penalty in chosen:  # asked what breaking it costs: the sanction is the answer
        chosen = [penalty, *(s for s in chosen if s is not penalty)]
    # a figure the question sets its case by that the quoted provisions draw no line on ("직원이 4명뿐인 가게"): the
    # clause of the best passages that does ("상시 5인 이상의 근로자를 사용하는") answers first
    left = unbounded(question, chosen)
    lines = _drawing_the_line(question, left, ranked, best_passages, floor) if left else None
    if lines is not None:
        chosen = [lines, *chosen]
        left = unbounded(question, chosen)
    # a later 항 drawing its line on a figure the question sets its case by ("② 상시 4인 이하의 …" for "직원이 4명뿐인")
    # is read after the earlier 항 drawing the other side of that line ("① 이 법은 상시 5인 이상의 … 적용한다")
    figures = _setting_figures(question)
    chosen = _each_after(chosen, lambda s: _other_side(s, every, figures))
    score = min(1.0, 0.75 * best + 0.25 * agreement)
    return Extract(chosen, round(score, 4), missing, left)


# What a question's durations and dates measure: they tell its story ("배송일이 2주나 지났는데", "5년 동안",
# "1월 1일부터") more often than they set the case asked about.
_STORY_MEASURE = "days"


def _setting_figures(question: str) -> list[Quantity]:
    """The figures the asking part of ``question`` sets its case by (an age, a headcount, hours, an amount …; not a
    duration or a date, which tell the story)."""
    return [q for q in quantities(asking_part(question)) if q.measure != _STORY_MEASURE]


def _other_side(s: Sentence, every: list[Sentence], figures: Sequence[Quantity]) -> Sentence | None:
    """For a quoted later 항 whose range holds one of ``figures`` ("② 상시 4인 이하의 근로자를 사용하는 사업 … 일부
    규정을 적용할 수 있다" for "직원이 4명뿐인"), the earliest 항 of its article that bounds the same measure without
    holding the figure ("① 이 법은 상시 5인 이상의 근로자를 사용하는 모든 사업 … 적용한다"): the rule its special
    case departs from, without which the answer hides where the line falls. None for any other clause."""
    own = CIRCLED.find(s.text[:1]) if s.text else -1
    if own < 1 or s.item.article is None:
        return None
    bounds = ranges(s.text)
    held = {q.measure for q in figures if q.measure in bounds and bounds[q.measure].holds(q)}
    if not held:
        return None

    def other_side(t: Sentence) -> bool:
        if t.item.label != s.item.label or t.is_item or not 0 <= CIRCLED.find(t.text[:1]) < own:
            return False
        lines = ranges(t.text)
        return any(q.measure in lines and not lines[q.measure].holds(q) for q in figures if q.measure in held)

    return min((t for t in every if other_side(t)), key=lambda t: CIRCLED.find(t.text[:1]), default=None)


def unbounded(question: str, chosen: Sequence[Sentence]) -> list[str]:
    """The figures the asking part of ``question`` states (an age, hours, a headcount, an amount, a score …; not a
    duration or a date, which tell the story) whose measure no passage of the ``chosen`` clauses bounds: a question
    setting the case by a figure ("만 66세면 기초연금 받을 수 있나요?", "직원 4명인 가게도 연차휴가를 줘야 하나요?", "주
    14시간 일한 알바도 퇴직금 받나요?") is not answered by a provision drawing no line on what that figure measures,
    however many of its words it shares. A figure told in a sentence before the question ("…30만원을 먼저 내래요. 이런
    돈 받아도 되는 건가요?") sets nothing."""
    figures = _setting_figures(question)
    if not figures:
        return []
    passages = {text for s in chosen for text in (s.text, s.item.text)}
    bounded = {measure for text in passages for measure in ranges(text)}
    return list(dict.fromkeys(q.written for q in figures if q.measure not in bounded))


def _drawing_the_line(
    question: str, left: Sequence[str], ranked: list[Sentence], passages: set[int], floor: float
) -> Sentence | None:
    """The first of ``ranked`` in the best ``passages``, covering ``floor``, whose clause bounds every figure of the
    question the quoted clauses ``left`` unbounded (:func:`unbounded`); None when no such clause is there."""
    measures = {q.measure for q in quantities(asking_part(question)) if q.written in left}
    return next(
        (s for s in ranked if s.item.n in passages and s.coverage >= floor and measures <= set(ranges(s.text))), None
    )


def _each_after(chosen: list[Sentence], read_with: Callable[[Sentence], Sentence | None]) -> list[Sentence]:
    """``chosen`` with, before each of its clauses, the clause ``read_with`` says it is read with, unless that one
    repeats a clause already quoted."""
    out = list(chosen)
    for s in chosen:
        before = read_with(s)
        if before is not None and not _overlaps(before, out):
            out.insert(out.index(s), before)
    return out


Cases = dict[tuple[int, int | str], list[Sentence]]
"""The parallel cases of each table (its rows) and each list (its items under one lead), by passage and table number
or lead."""


def _cases(every: list[Sentence]) -> Cases:
    """The parallel cases of each table (its rows) and each list (its items under one lead) of the evidence, keyed
    by passage and table number or lead."""
    cases: Cases = {}
    for s in every:
        if s.table is not None or s.is_item:
            cases.setdefault((s.item.n, s.table if s.table is not None else s.lead), []).append(s)
    return cases


def _looked_up(
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
        stating = Counter(word for row in rows for word in row.covers)  # how many of the rows state each word
        for row in rows:
            key = {word for word in row.covers if stating[word] == 1} - said - headers.get(n, set())
            if len(found) < k and id(row) in on_topic and key and not _overlaps(row, chosen + found):
                found.append(row)
                said |= row.covers
    return found


def _by_figure(chosen: list[Sentence], cases: Cases, figures: Sequence[Quantity]) -> list[Sentence]:
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
                out = _read_by(out, holding[0], [case for case in bounded if case is not holding[0]])
    return out


def _read_by(chosen: list[Sentence], case: Sentence, others: list[Sentence]) -> list[Sentence]:
    """``chosen`` with ``case`` in place of each of ``others`` and of a clause quoting several of them (a list's or a
    table's lead with every case: its lead is kept above ``case``)."""
    out: list[Sentence] = []
    for s in chosen:
        other = any(s.item is o.item and s.text == o.text for o in others)
        whole = not other and sum(o.words in s.text for o in [case, *others] if o.text != s.text) > 1
        if whole and case.table is not None:  # a row under the sentence pointing to its table
            s = Sentence(s.item, f"{s.lead}\n{case.text}", s.coverage, s.covers, s.words)
        elif other or whole:
            s = case
        if not _overlaps(s, out):
            out.append(s)
    return out


def _states_words(words: set[str], present: set[str]) -> bool:
    """Whether a clause with the Kiwi words ``present`` states each of ``words``, a compound counting for the word it
    begins with or that begins it ("편입" in "편입학하는", "상가" for "상가건물")."""
    return all(w in present or any(t.startswith(w) or w.startswith(t) for t in present if len(t) > 1) for w in words)


def _rule_of(s: Sentence, scored: list[Sentence], asked: Sequence[Detail], sanctions: bool) -> Sentence | None:
    """The 항 of its article stating every figure ``asked`` for that ``s`` builds on without stating them itself
    ("④ 제1항에 따라 주민등록증을 발급받을 나이가 된 사람은 …": ①'s "17세 이상인 자"), or departs from ("④ 제1항에도
    불구하고 미성년자인 상속인이 … 3개월 내에": ①'s "3월내에", the rule its special case is read against)."""
    if not asked:
        return None
    stated = all(states(d, s.text, sanctions=sanctions, weakly=False) for d in asked)
    for n in sibling_paragraphs(s.text, departing=stated):
        rules = [
            t
            for t in scored
            if t.item.label == s.item.label
            and t.text.startswith(CIRCLED[n - 1])
            and all(states(d, t.text, sanctions=sanctions, weakly=False) for d in asked)
        ]
        if rules:  # the 항 whole (with its list) rather than one of its items
            return next((t for t in rules if not t.is_item), rules[0])
    return None


def _holds(s: Sentence, others: list[Sentence]) -> bool:
    """Whether ``s`` quotes one of ``others`` within it (a list's lead sentence with its items holds each item)."""
    return any(o.item is s.item and o.text != s.text and o.text in s.text for o in others)


def _with_carried_lead(item: EvidenceItem, evidence: Sequence[EvidenceItem]) -> str:
    """A passage's text, with the lead sentence its list goes on under put first when it opens mid-list and an
    earlier part of its article is in the evidence (chunk ids run in document order)."""
    before = sorted((e for e in evidence if e.label == item.label and e.chunk_id < item.chunk_id), key=lambda e: e.chunk_id)
    lead = carried_lead(item.text, [e.text for e in before])
    return f"{lead}\n{item.text}" if lead else item.text


def _whole_list(first: Sentence, scored: list[Sentence]) -> Sentence:
    """The answering clause, or when it is one item of a list (a 호, or a 목 under its 호) whose own words state at
    most one word of the question, the whole list under the lead: the items of a list differ in meaning more than in
    words ("물건이 안 와요" is 1호's "공급되지 아니한 경우", not 2호's "할부계약이 취소된 경우" that shares "할부"),
    so a guess between them is left to the reader."""
    if not first.is_item or len(first.covers) > 1:
        return first
    lead = first.lead
    whole = [s for s in scored if s.item is first.item and s.words == lead and s.text.startswith(f"{lead}\n")]
    return max(whole, key=lambda s: len(s.text), default=first)


def _general_item(quoted: Sentence, scored: list[Sentence], asked: Sequence[Detail], sanctions: bool) -> Sentence | None:
    """When a quoted clause is a later item of a list and states a figure ``asked`` for, the list's first item if it
    states such a figure too: a list states the general case first and the special ones after it ("1. 18세
    미만(원동기장치자전거의 경우에는 16세 미만)인 사람" before "6. 제1종 대형면허 … 19세 미만")."""
    kinds = [d for d in asked if states(d, quoted.words, sanctions=sanctions, weakly=False)]
    if not quoted.is_item or not kinds:
        return None

    def place(s: Sentence) -> int:
        return _found_at(s.item.text, s.words.split("\n", 1)[0][:40])

    first = min((s for s in scored if s.item is quoted.item and s.is_item and s.lead == quoted.lead), key=place)
    stated = any(states(d, first.words, sanctions=sanctions, weakly=False) for d in kinds)
    return first if stated and place(first) < place(quoted) else None


def _named_by(doc: str, evidence: Sequence[EvidenceItem]) -> set[int]:
    """The passages of other documents that a passage of ``doc`` names by document and article: "지급 금액은 본 대학교
    교원및직원의수당규정 제29조 기준을 따른다" names 교원및직원의수당규정 제29조, where the amounts are."""
    own = "".join(squash(item.text).replace("「", "").replace("」", "") for item in evidence if item.doc == doc)
    return {
        item.n
        for item in evidence
        if item.doc != doc
        and item.article
        and re.search(f"{re.escape(squash(item.doc) + squash(item.article))}(?!의\\d)", own)  # 제29조, not 제29조의2
    }


def _deferred_to(first: EvidenceItem, evidence: Sequence[EvidenceItem]) -> set[int]:
    """The passages of the documents the provision of ``first`` defers to as a whole, cited in 「」 with no article after
    it: "「강사료지급규정」에 의하여 강사료를 지급한다" is answered by that document's 별표, where the amounts are;
    "「남녀고용평등과 일ㆍ가정 양립 지원에 관한 법률」 제19조제1항에 따른 육아휴직" points at one article, not at the
    document's figures."""
    provision = [item.text for item in evidence if item.label == first.label]
    cited = {squash(name) for text in provision for name in _WHOLE_DOCUMENT.findall(text)}
    return {item.n for item in evidence if item.doc != first.doc and squash(item.doc) in cited}


# A document cited in 「」 as a whole: no article ("제19조") after it.
_WHOLE_DOCUMENT = re.compile(r"「([^」]+)」(?!\s*(?:제\s*\d|시행령|시행규칙))")


def _of_named(question: str, evidence: Sequence[EvidenceItem]) -> Sequence[EvidenceItem]:
    """The passages of the documents ``question`` names ("형법상 절도죄 형량은?": 형법, not 행정절차법's "형량하여야"),
    of their 법/시행령 family and of the articles they name elsewhere; all of ``evidence`` when it names none."""
    named = DocumentScope.of_titles({item.doc for item in evidence if item.doc}).named(question)
    if not named:
        return evidence
    family = {item.n for item in evidence if any(same_family(item.doc, doc) for doc in named)}
    cited = set().union(*(_named_by(doc, evidence) for doc in named))
    return [item for item in evidence if item.n in family | cited]


def same_family(doc: str, answering: str) -> bool:
    """Whether ``doc`` is the answering clause's document or one delegating to or from it (법, 법 시행령)."""
    a, b = doc.replace(" ", ""), answering.replace(" ", "")
    return not a or not b or a.startswith(b) or b.startswith(a)


def _linked_of(
    s: Sentence, first: Sentence, first_linked: dict[int, EvidenceItem], evidence: Sequence[EvidenceItem]
) -> dict[int, EvidenceItem]:
    """:func:`_linked` of ``s``, known already when it is ``first``."""
    return first_linked if s is first else _linked(s, evidence)


def _linked(first: Sentence, evidence: Sequence[EvidenceItem]) -> dict[int, EvidenceItem]:
    """The references linked to one of the answering provision's passages (it cites them, or they cite it): the
    instrument it delegates to (the 시행령 of its 법), the penalty for breaking it."""
    provision = {item.chunk_id for item in evidence if item.label == first.item.label}
    return {item.n: item for item in evidence if item.origin == "reference" and item.via in provision}


def _penalty(first: Sentence, scored: list[Sentence], evidence: Sequence[EvidenceItem], linked: set[int]) -> Sentence | None:
    """For a question about sanctions answered by a duty or a prohibition, the clause of its document that punishes
    breaking it: a clause stating a sanction ("500만원 이하의 과태료") and naming the answering article ("제10조제5항에
    따른 신고 … 를 하지 아니한 공직자등"), of a passage retrieval kept or of a reference ``linked`` to the provision
    (the 벌칙 and 과태료 articles cite the articles they enforce). None when the answering clause states a sanction
    itself or its provision has no article. A 시행령 article is enforced where the 법 article it implements is ("법
    제55조제1항에 따른 유급휴일": the 법's clause punishing breaches of 제55조)."""
    article = first.item.article
    if not article or SANCTION.search(first.text):
        return None
    usable = linked | {item.n for item in evidence if item.origin != "reference"}

    def naming(label: str) -> re.Pattern[str]:
        return re.compile(rf"{re.escape(label)}(?!\s*의\s*\d|\d)")

    # the articles the clause cites, by document: "법 제55조제1항에 따른" in a 시행령 names its 법's 제55조
    cited = [(squash(ref.doc), naming(ref.article)) for ref in passage_references(first.text, first.item.doc)]

    def punishes(s: Sentence) -> bool:
        if s.item.doc == first.item.doc:
            return s.item.label != first.item.label and bool(naming(article).search(s.text))
        doc = squash(s.item.doc)
        return same_family(s.item.doc, first.item.doc) and any(d == doc and n.search(s.text) for d, n in cited)

    return next((s for s in scored if s.item.n in usable and SANCTION.search(s.text) and punishes(s)), None)


def _stating(
    asked: list[Detail],
    scored: list[Sentence],
    passages: set[int],
    floor: float,
    own: tuple[Sentence, Sentence],
    sanctions: bool,
    implementing: Collection[int] = (),
    named: Collection[int] = (),
) -> dict[str, Sentence]:
    """For each asked kind of figure, the best clause that states one: a clause of the answering provision, or
    one in ``passages`` covering the question at least ``floor`` (a number in a clause about something else does
    not answer it; another 항 of the article that answers does). ``own``: the provision's answering clause and its
    clause stating most of the question's words. A penalty's figures count only when the question asks about
    ``sanctions``. When the provision leaves the matter to another instrument, a clause of the ``implementing``
    passages (that instrument's articles linked to it) stating the figure comes first: "대통령령으로 정하는 이율"
    is answered by the 시행령's "연 100분의 20", not by the cap the 법 sets around it."""
    out: dict[str, Sentence] = {}
    first = own[0]
    # A provision that leaves a figure to another instrument ("대통령령으로 정한다") in its answering clause or in the
    # clause sharing most words with the question is answered by that instrument (the 시행령), not by a figure
    # another article of its own document states about something else.
    delegates = any(DELEGATION.search(s.text) for s in own)
    for detail in asked:
        delegated = delegates and not any(states(detail, s.text, sanctions=sanctions) for s in own)
        implemented = (
            next((s for s in scored if s.item.n in implementing and states(detail, s.text, sanctions=sanctions)), None)
            if delegates
            else None
        )
        if implemented is not None:
            out[detail.name] = implemented
            continue
        usable = [
            s
            for s in scored
            if _same_rule(s, first, floor)
            or (
                s.item.n in passages
                and s.coverage >= floor
                and (same_family(s.item.doc, first.item.doc) or s.item.n in named)
                and not (delegated and s.item.doc == first.item.doc)
            )
        ]
        # the figure itself before an event named in its place ("3월내에" before "관리할 수 있을 때까지")
        found = next((s for s in usable if states(detail, s.text, sanctions=sanctions, weakly=False)), None) or next(
            (s for s in usable if states(detail, s.text, sanctions=sanctions)), None
        )
        if found is not None:
            out[detail.name] = found
    return out


def _closeness(question: str, bearing: list[Sentence], similarity: Similarity | None) -> dict[str, float]:
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


def _same_rule(s: Sentence, first: Sentence, floor: float) -> bool:
    """Whether ``s`` answers together with ``first``, whatever the words it shares with the question: any clause of the
    same article (its 항 state one rule), but on a page or in a section of a report, which gathers unrelated notes
    ("구글은 2023년 2월 앤스로픽에 …" beside "2024년 제미니를 출시할 계획"), only one covering ``floor`` of the question."""
    return s.item.label == first.item.label and (first.item.article is not None or s.coverage >= floor)


def _answering(
    bearing: list[Sentence],
    best: Sentence,
    asked: Sequence[Detail],
    floor: float,
    cases: bool = False,
    sanctions: bool = True,
) -> Sentence:
    """The answering clause: the first of ``bearing``, the clauses that bear on the question (in the best passages,
    covering the floor or, in the first provision, stating a word of it; by retrieval rank of their provision, then
    closeness in meaning), and of its provision's clauses one stating every figure ``asked`` for when there is one (on
    a page, one covering ``floor``: :func:`_same_rule`); ``best``, the best-covering clause, when none bears.
    Retrieval ranks whole passages better than word coverage does, so the provision is the one retrieval trusts most
    among those that bear on the question. A question asking for the ``cases`` (and no figure) is answered by the
    highest-ranked bearing clause that lists conditions, when one does.
    A penalty's figures state an asked figure only when the question asks about ``sanctions``."""
    listing = [s for s in bearing if CONDITION_LIST.search(s.text.split("\n", 1)[0])] if cases and not asked else []
    first = listing[0] if listing else bearing[0] if bearing else best
    if asked:
        first = next(
            (
                s
                for s in bearing
                if _same_rule(s, first, floor) and all(states(d, s.text, sanctions=sanctions) for d in asked)
            ),
            first,
        )
    return first


def _choose(
    first: Sentence, ranked: list[Sentence], stating: Iterable[Sentence], k: int, passages: set[int], floor: float
) -> list[Sentence]:
    """The answering clause ``first``, a clause stating an asked figure that it does not state, then supporting
    clauses in retrieval order (``ranked``), one per other provision, up to ``k`` provisions: each from
    ``passages``, covering at least ``floor`` and stating a word of the question that the clauses before it do not,
    other than a verb or adjective (a clause that adds nothing asked about is left out, and so is one sharing only
    "쓰다" of "사직서를 쓰라고" in "임금대장은 마지막으로 써 넣은 날")."""
    bearing = [s for s in ranked if s.item.n in passages and s.coverage >= floor and s.coverage > 0]
    chosen = [first]
    for s in stating:
        if s not in chosen and not _overlaps(s, chosen):
            chosen.append(s)
    labels = {s.item.label for s in chosen}
    said = set().union(*(s.covers for s in chosen))
    for s in bearing:
        if len(labels) > k:
            break
        if s.item.label in labels or all(is_predicate(w) for w in s.covers - said) or _overlaps(s, chosen):
            continue
        labels.add(s.item.label)
        said |= s.covers
        chosen.append(s)
    keep = list(dict.fromkeys(s.item.label for s in chosen))[: k + 1]
    return [s for s in chosen if s.item.label in keep]


def _overlaps(s: Sentence, chosen: list[Sentence]) -> bool:
    """Whether ``s`` repeats (or holds, or is held by) a clause already chosen: a 호 under its lead is held by its
    whole list."""
    lines = set(s.text.split("\n"))
    return any(s.text in o.text or o.text in s.text or lines <= set(o.text.split("\n")) for o in chosen)
