"""Extractive answering: the best-supported sentences of the evidence, each with its citation.

This is the answer when no LLM is configured. It also supplies the evidence score behind
"근거 부족": how much of the question's content the best sentences cover, whether the
retrievers backed the passage, and whether a figure the question asks for (나이, 몇 %,
얼마, 며칠 …) is stated by a sentence of the best passages that bears on the question
(:mod:`geungeo.answering.details`). Passages are cut into clauses by :mod:`geungeo.answering.clauses`.

This module scores the clauses and adds what the answer is read with; :mod:`~geungeo.answering.choice` chooses the one
that answers and those supporting it, :mod:`~geungeo.answering.sentences` holds what is chosen and renders it,
:mod:`~geungeo.answering.cases` reads tables and lists by their rows and items, :mod:`~geungeo.answering.lines` the
figures a question sets its case by, and :mod:`~geungeo.answering.linked` the provisions answering together with the
answering one (its 시행령, the documents it names, the penalty for breaking it).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from geungeo.answering.cases import by_figure, by_key, general_item, looked_up, parallel_cases, whole_list
from geungeo.answering.choice import answering_clause, by_rank, choose_supporting, closeness_of, holds, same_rule
from geungeo.answering.clauses import carried_lead, clauses
from geungeo.answering.definitions import asked_term, defines
from geungeo.answering.details import Detail, asked_details, asks_cases, asks_kinds, states
from geungeo.answering.lines import drawing_the_line, other_side, setting_figures, unbounded
from geungeo.answering.linked import (
    deferred_to,
    linked_references,
    linked_references_of,
    named_by,
    of_named,
    punishing_clause,
    same_family,
)
from geungeo.answering.models import EvidenceItem
from geungeo.answering.quantities import quantities
from geungeo.answering.sentences import Extract, Sentence, Similarity, overlaps
from geungeo.retrieval.expansion import QUERY_STOP_TERMS, Lexicon, query_terms
from geungeo.text.kiwi import bm25_terms, is_predicate, words_of
from geungeo.text.normalize import squash
from geungeo.text.references import sibling_paragraphs
from geungeo.text.structure import (
    ASKS_SANCTION,
    CIRCLED,
    DELEGATION,
    named_sanction,
    normalize_article_refs,
    other_sanction,
)

GENERIC_WEIGHT = 0.1


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

    An article the question names ("형법 제347조 처벌은?"), when among the best ``passages``, is the provision that
    answers, whatever words its clauses state; asked what a term is ("평균임금이란?"), the clause of the best
    ``passages`` defining it answers, alone, supported only by its definitions in other provisions.

    Word coverage finds the provisions; inside one, the clause quoted is the bearing clause closest in meaning to
    the question by ``similarity`` when given (a question says "부모와 같이", its clause "친권자등을 동반"), else the
    best-covering one; when another of its clauses states more of the question's words, that one is quoted too. A
    quoted item of a list stating an asked figure brings the first item of its list that states one (a list states the
    general case before the special ones).

    A clause stating none of the question's words, chosen for those of the heading above it (a slide's title over
    its one line), is quoted under that heading.

    A follow-up is answered only by clauses stating a word of its ``topic`` (the words carried from the turns
    before, part of ``question``) or all of its own words (a new subject: "그럼 육아휴직은?"): after "주휴수당은 누가
    받나요?", "일주일에 10시간 일하면요?" is not answered by a clause that only shares "일주일". One naming a new
    ``subject`` in place of the earlier one ("연차휴가는 며칠?" then "그럼 육아휴직은요?") is answered only by clauses
    stating it: the earlier subject's clauses state the carried words too, and answer the question before."""
    evidence = of_named(question, evidence)
    # Coverage counts the question's words; BM25's joined compounds would count a compound word twice.
    question_words = query_terms(question, compounds=False)
    own = {t for t in question_words if not (t.isdigit() and len(t) == 1)}
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
        if (kind is None or not other_sanction(c.text, kind)) and squash(c.text) != squash(item.doc)
    ]  # (a document's title line, "디지털 정부혁신 추진계획", names it and says nothing)
    if not own or not candidates:
        return Extract([], 0.0, [d.name for d in asked])
    headers = {
        item.n: set(terms)
        for item, terms in zip(evidence, words_of(i.header for i in evidence), strict=True)
    }
    # Kiwi may split a word in the question and keep it whole in a passage ("조교수" → 조 + 교수 in a question, one word
    # in a table cell): a passage stating the whole word states its parts.
    parts = {c: {w for w in own if w in c} for c in set(query_terms(question)) - set(question_words)}
    # and the other way round: a word whole in the question ("부정행위하면") split in a passage ("부정" + "행위" of
    # "부정행위에 대한") is stated by it
    clause_terms = [
        _with_parts(set(terms), parts) | _joined(own, terms, c.words)
        for (_, c), terms in zip(candidates, words_of(c.words for _, c in candidates), strict=True)
    ]
    # a clause's context is the heading above it and, for a list item, its lead sentence; the heading alone counts too
    contexts = {x for _, c in candidates for x in (c.context, c.heading) if x}
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
    # whether a clause states a word of the question other than a verb: one sharing only "쓰다" of "안 쓰면 돈으로 받을
    # 수 있어?" ("외국의 성을 쓰는 국적취득자") says nothing of what it asks about
    shares_a_noun = False
    under_heading: dict[int, str] = {}  # a clause stating no word of the question, under a heading stating some
    every: list[Sentence] = []  # the follow-up's off-topic clauses too: a penalty names its provision, not the topic
    for (item, clause), present in zip(candidates, clause_terms, strict=True):
        half = (headers.get(item.n, set()) | context_terms.get(clause.context, set())) - present
        hit = len(own & present) + 0.5 * len(own & half) + 0.5 * len(expanded & present) + 0.25 * len(expanded & half)
        hit += GENERIC_WEIGHT * len(generic & present)
        every.append(Sentence(item, clause.text, hit / weight, frozenset(own & present), clause.words, clause.table))
        if clause.heading and clause.heading not in clause.text and not own & present and own & context_terms[clause.heading]:
            under_heading[id(every[-1])] = clause.heading
        stated = present | half
        on_topic = (
            _states_words(subject_words, stated)  # a new subject: the clauses stating it
            if subject_words
            else not about or bool(about & stated) or turn <= stated
        )
        if on_topic:
            scored.append(every[-1])
            shares_a_noun = shares_a_noun or any(not is_predicate(w) for w in (own | expanded) & stated)
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
    # An article the question names ("형법 제347조 처벌은?") is the one it asks about: it leads, and each of its clauses
    # is admitted, whether or not it states a word of the question (제347조 states its penalty, not "처벌").
    named_articles = set(normalize_article_refs(question))
    cited = next((i.label for i in evidence[:passages] if i.article in named_articles), None)
    lead = cited or (by_rank(bearing, rank)[0].item.label if bearing else None)
    bearing += [
        s
        for s in scored
        if s.item.label == lead
        and s.item.n in best_passages
        and (s.covers or cited)
        and s not in bearing
        and not holds(s, bearing)
    ]
    closeness = closeness_of(question, bearing, similarity)
    ranked = by_rank(scored, rank, closeness)
    sanctions = ASKS_SANCTION.search(question) is not None
    admitted = {id(s) for s in bearing}
    # Asked what a term is ("평균임금이란?"), the clause of the best passages that defines it answers, alone (the other
    # terms of its 정의 list are not asked about).
    term = asked_term(question)
    defining = next((s for s in ranked if s.item.n in best_passages and defines(s.words, term)), None) if term else None
    first = defining or answering_clause(
        [s for s in ranked if id(s) in admitted], scored[0], asked, floor, asks_cases(question), sanctions,
        asks_kinds(question),
    )
    # The clause of the answering provision that states most of the question's words (``first`` is the closest in
    # meaning): it may delegate the asked figure, and when it differs from ``first`` it is quoted too.
    own_best = max((s for s in scored if s.item.label == first.item.label), key=lambda s: s.coverage, default=first)
    linked = linked_references(first, evidence)
    implementing = {n for n, item in linked.items() if same_family(item.doc, first.item.doc) and item.doc != first.item.doc}
    # only an asked figure looks in the documents the answering one names
    named = named_by(first.item.doc, evidence) | deferred_to(first.item, evidence) if asked else set()
    stating = _stating(asked, scored, best_passages, detail_coverage * best, (first, own_best), sanctions, implementing, named)
    # breaking the answering provision, or the one stating the figure asked ("불복 기한" of 제44조 when 제43조 answers),
    # each punished by a passage retrieval kept or by a reference linked to that provision
    breakable = [first, *(s for s in stating.values() if s.item.label != first.item.label)] if sanctions else []
    if kind is not None:  # the kind named may punish another provision bearing on the question (계약직: 기간제법 제17조)
        breaking = {b.item.label for b in breakable}
        breakable += [s for s in ranked if id(s) in admitted and s.item.label not in breaking]
    penalties = (punishing_clause(s, every, evidence, set(linked_references_of(s, first, linked, evidence))) for s in breakable)
    penalty = next((p for p in penalties if p is not None), None)
    if penalty is not None:  # a question about sanctions asks the sanction's figures ("벌금은 얼마예요?")
        stating |= {d.name: penalty for d in asked if states(d, penalty.text, weakly=False)}
    missing = [d.name for d in asked if d.name not in stating]
    quoted = first if defining else whole_list(first, scored)
    supporting = [*stating.values(), *([penalty] if penalty is not None and penalty not in stating.values() else [])]
    # a term is supported only by its definitions in other provisions, not by the other terms of their lists
    pool = [s for s in ranked if defines(s.words, term)] if defining and term else ranked
    chosen = choose_supporting(quoted, pool, supporting, max_supporting, best_passages, floor)
    # Meaning and words disagree on the provision's clause: both are quoted, the words' choice after the answer.
    if own_best.coverage > first.coverage and not overlaps(own_best, chosen):
        chosen.insert(1, own_best)
    cases = parallel_cases(every)  # the rows of each table and the items of each list of the evidence
    # a table is read by the row the question names ("알파고" in the row "4단계: 거장 … | 딥블루, 알파고")
    chosen[1:1] = looked_up(chosen, cases, scored, headers, max_supporting)
    chosen = by_key(chosen, cases, headers)
    # a list item giving the asked figure is read with the list's first item that gives it (the general case)
    chosen = _each_after(chosen, lambda s: general_item(s, scored, asked, sanctions))
    # a quoted clause building on another 항 of its article for the figure asked, or departing from it, brings it
    chosen = _each_after(chosen, lambda s: _rule_of(s, scored, asked, sanctions))
    # a table or list quoted is read by the case whose range holds the question's figure ("60명이면": "50명 이상 75명 미만")
    chosen = by_figure(chosen, cases, quantities(question))
    # (a clause leaving the figure to another instrument reads first, the instrument's figure after it)
    states_asked = any(states(d, first.text, sanctions=sanctions, weakly=False) for d in asked)
    if asked and not DELEGATION.search(first.text) and not states_asked:
        leading = [s for s in chosen if any(s is t for t in stating.values())]
        chosen = leading + [s for s in chosen if not any(s is t for t in leading)]
    if penalty is not None and penalty in chosen:  # asked what breaking it costs: the sanction is the answer
        chosen = [penalty, *(s for s in chosen if s is not penalty)]
    # a figure the question sets its case by that the quoted provisions draw no line on ("직원이 4명뿐인 가게"): the
    # clause of the best passages that does ("상시 5인 이상의 근로자를 사용하는") answers first
    figures = setting_figures(question)
    left = unbounded(figures, chosen)
    lines = drawing_the_line(figures, left, ranked, best_passages, floor) if left else None
    if lines is not None:
        chosen = [lines, *chosen]
        left = unbounded(figures, chosen)
    # a later 항 drawing its line on a figure the question sets its case by ("② 상시 4인 이하의 …" for "직원이 4명뿐인")
    # is read after the earlier 항 drawing the other side of that line ("① 이 법은 상시 5인 이상의 … 적용한다")
    chosen = _each_after(chosen, lambda s: other_side(s, every, figures))
    # what such a clause answers is said by its heading: it is quoted under it ("랭체인 한국어 튜토리얼" above "- 테디노트 -")
    chosen = [replace(s, text=f"{under_heading[id(s)]}\n{s.text}") if id(s) in under_heading else s for s in chosen]
    score = min(1.0, 0.75 * best + 0.25 * agreement)
    return Extract(chosen, round(score, 4), missing, left, shares_a_noun)


def _with_parts(terms: set[str], parts: dict[str, set[str]]) -> set[str]:
    """``terms`` with the parts of each compound of ``parts`` they hold whole."""
    return terms.union(*(words for compound, words in parts.items() if compound in terms))


def _joined(words: set[str], terms: list[str], text: str) -> set[str]:
    """The ``words`` that two successive ``terms`` of ``text`` spell, written together there ("부정" + "행위" of
    "부정행위에 대한": 부정행위)."""
    return {a + b for a, b in itertools.pairwise(terms) if a + b in words and a + b in text}


def _each_after(chosen: list[Sentence], read_with: Callable[[Sentence], Sentence | None]) -> list[Sentence]:
    """``chosen`` with, before each of its clauses, the clause ``read_with`` says it is read with, unless that one
    repeats a clause already quoted."""
    out = list(chosen)
    for s in chosen:
        before = read_with(s)
        if before is not None and not overlaps(before, out):
            out.insert(out.index(s), before)
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


def _with_carried_lead(item: EvidenceItem, evidence: Sequence[EvidenceItem]) -> str:
    """A passage's text, with the lead sentence its list goes on under put first when it opens mid-list and an
    earlier part of its article is in the evidence (chunk ids run in document order)."""
    before = sorted((e for e in evidence if e.label == item.label and e.chunk_id < item.chunk_id), key=lambda e: e.chunk_id)
    lead = carried_lead(item.text, [e.text for e in before])
    return f"{lead}\n{item.text}" if lead else item.text


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
            if same_rule(s, first, floor)
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
