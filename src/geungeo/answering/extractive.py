"""Extractive answering: the best-supported sentences of the evidence, each with its citation.

This is the answer when no LLM is configured. It also supplies the evidence score behind
"근거 부족": how much of the question's content the best sentences cover, whether the
retrievers backed the passage, and whether a figure the question asks for (나이, 몇 %,
얼마, 며칠 …) is stated by a sentence of the best passages that bears on the question.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from geungeo.answering.models import EvidenceItem
from geungeo.retrieval.expansion import QUERY_STOP_TERMS, Lexicon, query_terms
from geungeo.text.kiwi import bm25_terms, bm25_terms_many
from geungeo.text.structure import (
    AMENDMENT,
    ARTICLE_PREFIX,
    ASKS_SANCTION,
    BARE_HEADING,
    BULLET,
    CONDITION_LIST,
    DELEGATION,
    LIST_ITEM,
    LIST_LEAD,
    RUN_IN_PARAGRAPH,
    SANCTION,
    SOURCE_LINE,
)

SENTENCE_END = re.compile(r"(?<=[다요음함됨임]\.)\s+|(?<=[.?!])\s+(?=[A-Z가-힣①-⑳(])|\n+")

# Korean numerals as a word of their own ("오천", "삼분의"), not a syllable inside one: "연구원" is not 9원 and
# "30일분의" not 1분의.
_HANGUL_NUMBER = r"(?<![가-힣\d])[일이삼사오육칠팔구십백천만억]+"
# Amounts written in Korean numerals ("일만원", "오천 원"), as regulations often do.
_HANGUL_AMOUNT = rf"{_HANGUL_NUMBER}\s*원"


@dataclass(frozen=True)
class Detail:
    """A kind of figure a question may ask for, and how a passage that states it reads.

    A question asking for a figure the evidence never states ("만 몇 세", "몇 %") is the typical
    near miss: the article exists but delegates or omits the detail. A question asks with a phrase
    (몇/얼마/며칠, ``asks``) or with a noun among its Kiwi terms (나이, 기한, ``nouns``; so that
    "아기한테" does not ask for a 기한); ``unless`` marks a phrase that asks for another kind
    ("기간이 최대 얼마" is a period, not an amount) unless ``despite`` says otherwise ("비용이 얼마나" is an amount);
    "몇 달째" and "몇 번이나" tell a story instead.
    A passage states the figure with a number ("15일", "100분의 50", "30만원", "일만원"); the bare
    word ("금액", "연령", "기간") names the detail without stating it. A deadline may also be
    "지체 없이" or "즉시", a cost "실비".
    """

    name: str
    asks: re.Pattern[str]
    states: re.Pattern[str]
    nouns: frozenset[str] = frozenset()
    unless: re.Pattern[str] | None = None
    despite: re.Pattern[str] | None = None  # asks for this kind even where ``unless`` matches

    def asked(self, question: str, terms: set[str]) -> bool:
        """Whether ``question`` (with its Kiwi ``terms``) asks for this kind of figure."""
        if (
            self.unless is not None
            and self.unless.search(question)
            and not (self.despite is not None and self.despite.search(question))
        ):
            return False
        return bool(self.asks.search(question) or self.nouns & terms)


def _detail(name: str, asks: str, states: str, nouns: str = "", unless: str = "", despite: str = "") -> Detail:
    return Detail(
        name,
        re.compile(asks, re.IGNORECASE),
        re.compile(states),
        frozenset(nouns.split()),
        re.compile(unless) if unless else None,
        re.compile(despite) if despite else None,
    )


# A share written as the documents write one: "1/3", "3분의 1", "100분의 50", "50%", "2할", "2배", "과반수".
_SHARE = (
    rf"\d+\s*/\s*\d+|분의\s*\d|\d+\s*분의|{_HANGUL_NUMBER}\s*분의|\d+(\.\d+)?\s*(퍼센트|%|퍼밀|할|배)"
    r"|과반수|반수|전원"
)
# "얼마" asks for an amount of money or a share of something ("한 학기에 최대 얼마" is answered by "수업시간의 1/3
# 이내"); an age, a period or a grade is another kind.
_AMOUNT = rf"\d[\d,]*\s*([만천억]\s*)*원|{_HANGUL_AMOUNT}|실비|{_SHARE}"
# "기간이 최대 얼마예요", "얼마 동안": a period asked with 얼마.
_PERIOD_HOW_MUCH = r"(기간|동안|일수)[^?.!,]{0,12}얼마|얼마\s*(나|안에|동안|지나|만에|후)"
# "비용이 얼마나 드나요", "등록금을 얼마나 내야": 얼마 right after a word for money asks an amount, 얼마나 included.
_MONEY_HOW_MUCH = (
    r"(비용|돈|금액|요금|수수료|가격|값|보험료|수업료|수강료|이용료|사용료|입학금|등록금|월급|임금|급여|보수|수당|연금|"
    r"보상금|배상금|벌금|과태료|위약금|보증금|장학금|이자|세금)\s*(은|는|이|가|을|를|도)?\s*(최대|최소|보통|대략|대충|총)?\s*얼마"
)
DETAILS: tuple[Detail, ...] = (
    _detail("나이 / age", r"몇\s*세|몇\s*살|how old", r"\d+\s*(세|살)", nouns="나이 연령"),
    _detail("비율 / rate", r"몇\s*(%|퍼센트|프로)|percent", _SHARE, nouns="비율"),
    _detail("금액 / amount", r"얼마|몇\s*원|how much", _AMOUNT, unless=_PERIOD_HOW_MUCH, despite=_MONEY_HOW_MUCH),
    _detail("수량 / quantity", _PERIOD_HOW_MUCH, rf"\d|지체\s*없이|즉시|{_SHARE}", unless=_MONEY_HOW_MUCH),
    _detail("일수 / days", r"며칠(?!\s*째)|몇\s*일(?!\s*째)|how many days", r"\d+\s*일|\d+\s*(개월|월|주|년)"),
    _detail("시간 / hours", r"몇\s*시간|how many hours", r"\d+\s*시간"),
    _detail("시각 / time of day", r"몇\s*시(?!간)|what time", r"\d+\s*시(?!간)|\d{1,2}:\d{2}"),
    _detail("점수 / score", r"몇\s*점|what score", r"\d+(\.\d+)?\s*점"),
    _detail("달 / month", r"몇\s*월|which month", r"\d+\s*월"),
    _detail("개수 / count", r"몇\s*(개|가지|종|건|곳)|how many (kinds|types|cases|items)", r"\d+\s*(개|가지|종|건|곳)"),
    _detail("거리 / distance", r"몇\s*(미터|m\b|킬로|km)|how far", r"\d+\s*(미터|m\b|킬로미터|km)"),
    _detail("인원 / headcount", r"몇\s*명", r"\d+\s*(명|인)"),
    _detail("학점 / credits", r"몇\s*학점", r"\d+\s*학점"),
    _detail("횟수 / times", r"몇\s*(번|회)(?!\s*이나)|how many times", r"\d+\s*(회|번|차|기)"),
    _detail("기간 / period", r"몇\s*(년|개월|달|주|학기)(?!\s*째)|how long", r"\d+\s*(년|개월|월|주|일|학기)"),
    _detail(  # statutes write months the old way: "3월 이내", "6월내"
        "기한 / deadline",
        r"언제까지|deadline",
        # "까지" after a date or a time word ("말일까지", "31일까지", "그 때까지"); not a range of provisions
        # ("제3항부터 제5항까지": the provisions are cut out before matching, the bare "까지" is left).
        r"\d+\s*(일|개월|월|년|주)\s*(이내|내|전|까지|후|안)|지체\s*없이|즉시|(날|일|때|월|년|시|말|기일)\s*까지",
        nouns="기한 마감 마감일",
    ),
)

# Numbers that are not figures: cross-references (제4조제1항제4호, 「법」), amendment notes (<개정 2012.2.1>),
# dates, 별표 numbers and list marks.
_NOT_A_FIGURE = re.compile(
    r"제\s*\d+\s*(편|장|절|관|조|항|호|목)(의\s*\d+)?|「[^」]*」|<[^>]*>|\[[^\]]*\]|\d{4}\s*[.년]\s*\d{1,2}\s*[.월]\s*\d{1,2}\s*[.일]?"
    r"|(별표|별지|서식)\s*\d+|(?m:^\s*\d+\.\s)|[①-⑳]"
)


def states(detail: Detail, text: str, *, sanctions: bool = True) -> bool:
    """Whether ``text`` states a figure of ``detail``'s kind (cross-references, dates and list marks do not count,
    nor, unless ``sanctions``, the figures of a penalty: "3천만원 이하의 벌금" does not answer what a meal may cost)."""
    text = _NOT_A_FIGURE.sub(" ", text)
    if not sanctions:
        text = SANCTION.sub(" ", text)
    return bool(detail.states.search(text))


# A question asking for the cases, grounds or conditions themselves: "휴직할 수 있는 경우는?", "어떤 경우에 …",
# "심사청구 자격", "허용 조건이 뭐예요?" (not "퇴사하는 경우 퇴직금은 …" or "그런 경우에는 어떻게 되나요?", where 경우
# sets the scene for what is asked).
_ASKS_CASES = re.compile(
    r"(어떤|무슨|어느)\s*(경우|사유|때|요건|조건)|(경우|사유|요건|조건|자격)\s*(는|은|가|이|를|을)?\s*(무엇|뭐|있|\?|$)"
)


def asks_cases(question: str) -> bool:
    """Whether ``question`` asks for the cases, grounds or conditions of something (a list of them answers it)."""
    return bool(_ASKS_CASES.search(question.strip()))


def asked_details(question: str) -> list[Detail]:
    """The kinds of figure ``question`` asks for."""
    terms = set(bm25_terms(question, compounds=False))
    return [d for d in DETAILS if d.asked(question, terms)]


@dataclass(frozen=True)
class Sentence:
    """A quoted clause: a sentence of a 항 or paragraph (with its 호 list when it leads one), a 호 under its lead
    sentence, or a table row; ``coverage`` is the share of the question it covers."""

    item: EvidenceItem
    text: str
    coverage: float
    covers: frozenset[str] = field(default=frozenset(), compare=False)  # the question's words it states itself


@dataclass(frozen=True)
class Extract:
    """Chosen clauses (the answering one first), the evidence score in [0, 1] and the asked-for figures no clause
    states."""

    sentences: list[Sentence]
    score: float
    missing: list[str]

    def answers(self, min_score: float) -> bool:
        """Whether the evidence supports an extractive answer (else 근거 부족): a clause shares a word with the
        question, the score reaches ``min_score`` and every asked figure is stated."""
        return self.covered and self.score >= min_score and not self.missing

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
            "sentences": [[s.item.n, s.text, s.coverage] for s in self.sentences],
        }

    @classmethod
    def from_state(cls, data: dict[str, Any], evidence: Sequence[EvidenceItem]) -> Extract:
        by_n = {item.n: item for item in evidence}
        sentences = [Sentence(by_n[n], text, coverage) for n, text, coverage in data["sentences"] if n in by_n]
        return cls(sentences, data["score"], list(data["missing"]))

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
            texts = [s.text for s in sorted(quoted, key=_place)]
            body = texts[0] + "".join(("\n" if BULLET.match(t) else " ") + t for t in texts[1:])
            indented = body.replace("\n", "\n  ")
            parts.append(f"- {indented} [{label}]")
        return "\n".join(parts)


def _place(s: Sentence) -> tuple[str, int]:
    """Where a quoted clause stands in its provision: its passage (chunk ids run in document order), then its place in
    the passage's text (a clause rewritten when quoted, a table row, goes after those found)."""
    found = s.item.text.find(s.text.split("\n", 1)[0][:40])
    return s.item.chunk_id, found if found >= 0 else len(s.item.text)


_SENTENCE_CLOSE = set("다요음함됨임")
_OPEN, _CLOSE = "(「『[", ")」』]"
MAX_LIST_ITEMS = 20
GENERIC_WEIGHT = 0.1

_TABLE_SEPARATOR = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")


def _cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]


def table_row_sentences(lines: list[str]) -> list[str]:
    """Body rows of a Markdown table as ``header: cell`` sentences, so a quoted row says what each cell is."""
    header = _cells(lines[0])
    out = []
    for line in lines[1:]:
        if _TABLE_SEPARATOR.match(line):
            continue
        cells = _cells(line)
        named = [f"{h}: {c}" if h and h != c else c for h, c in zip(header, cells, strict=False) if c]
        out.append(", ".join(named + [c for c in cells[len(header) :] if c]))
    return out


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
    blocks: list[_Block] = []
    for raw in lines:
        for line in RUN_IN_PARAGRAPH.split(raw):
            line = AMENDMENT.sub("", line).strip()
            if not line:
                continue
            if blocks and LIST_ITEM.match(line):
                blocks[-1].items.append(line)
            else:
                blocks.append(_Block(line, []))
    return blocks


@dataclass(frozen=True)
class Clause:
    """A quotable clause: its ``text`` as quoted, the ``words`` it is scored on as its own and the ``context`` whose
    words count half (the heading above it, the lead sentence of a 호)."""

    text: str
    words: str
    context: str = ""


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
            out.append(Clause(c.text, c.words, "\n".join(x for x in (heading, c.context) if x)) if heading else c)
        heading, section = (line.strip() if line is not None else heading), []
    return [c for c in out if len(c.text) >= 8 and not BARE_HEADING.match(c.text) and not SOURCE_LINE.match(c.text)]


def _section_clauses(lines: list[str]) -> list[Clause]:
    """The clauses of consecutive lines without a heading among them (see :func:`clauses`)."""
    out: list[Clause] = []
    for is_table, group in itertools.groupby(lines, key=_is_table_line):
        rows = list(group)
        if is_table:
            out.extend(Clause(row, row) for row in table_row_sentences(rows))
            continue
        for block in _blocks(rows):
            head = block.head if BARE_HEADING.match(block.head) else ARTICLE_PREFIX.sub("", block.head)
            sentences = _with_provisos([s for s in sentence_split(head) if len(s) >= 8 and not BARE_HEADING.match(s)])
            # The list belongs to the last sentence that leads one ("다음 각 호 …"; a proviso "다만, …" may follow it).
            lead = next((x for x in reversed(sentences) if LIST_LEAD.search(x)), None) if block.items else None
            for x in sentences:
                if x != lead:
                    out.append(Clause(x, x))
                    continue
                out.append(Clause("\n".join([lead, *block.items[:MAX_LIST_ITEMS]]), lead))
                out.extend(Clause(f"{lead}\n{item}", item, lead) for item in block.items if len(item) >= 8)
            if lead is None:
                out.extend(Clause(item, item) for item in block.items if len(item) >= 8 and not BARE_HEADING.match(item))
    return out


# A proviso or a rider ("다만, …", "단, …", "이 경우 …") qualifies the sentence before it (본문 and 단서 of one 항).
_PROVISO = re.compile(r"^(다만|단)\s*,|^이\s*경우")


def _with_provisos(sentences: list[str]) -> list[str]:
    """``sentences`` with each proviso joined to the sentence it qualifies."""
    out: list[str] = []
    for s in sentences:
        if out and _PROVISO.match(s):
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
    return out


def split_sentences(text: str) -> list[str]:
    """The clauses of a passage as text (see :func:`clauses`), in order."""
    return [c.text for c in clauses(text)]


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
) -> Extract:
    """The clause of ``evidence`` that answers ``question``, up to ``max_supporting`` clauses of other provisions
    that bear on it, how well they support it, and the figures it asks for that no clause states.

    A clause's coverage counts the question's words it states (the passage's title, the heading above the clause
    and a 호's lead sentence count half). The answering clause is the best clause of the highest-ranked of the best
    ``passages`` that covers the question at least ``quote_coverage`` times as well as the best clause; a supporting
    clause comes from another provision (another citation label) among them, with the same floor, and adds a word of
    the question.
    A figure the question asks for counts as stated by a clause of the best ``passages`` covering the question at
    least ``detail_coverage`` times as well; that clause is quoted too.

    Word coverage finds the provisions; inside one, the clause quoted is the bearing clause closest in meaning to
    the question by ``similarity`` when given (a question says "부모와 같이", its clause "친권자등을 동반"), else the
    best-covering one; when another of its clauses states more of the question's words, that one is quoted too."""
    # Coverage counts the question's words; BM25's joined compounds would count a compound word twice.
    own = {t for t in query_terms(question, compounds=False) if not (t.isdigit() and len(t) == 1)}
    # The question's generic nouns ("경우는?", "몇 가지", "정도") do not find passages but say what kind of clause
    # answers: they count a tenth of a word.
    generic = {t for t in bm25_terms(question, compounds=False) if t in QUERY_STOP_TERMS and not t.endswith("다")}
    expanded = set(query_terms(question, lexicon, compounds=False)) - own
    asked = asked_details(question)
    candidates = [(item, c) for item in evidence for c in clauses(item.text, item.headings)]
    if not own or not candidates:
        return Extract([], 0.0, [d.name for d in asked])
    headers = {
        item.n: set(terms)
        for item, terms in zip(evidence, bm25_terms_many((i.header for i in evidence), compounds=False), strict=True)
    }
    clause_terms = [set(terms) for terms in bm25_terms_many((c.words for _, c in candidates), compounds=False)]
    contexts = {c.context for _, c in candidates if c.context}
    context_terms = dict(zip(contexts, (set(t) for t in bm25_terms_many(contexts, compounds=False)), strict=True))
    translated = (
        {t for phrase in lexicon.translations(question) for t in query_terms(phrase, compounds=False)} if lexicon else set()
    )
    if translated:  # an English question: its Korean terms are what the passages can state
        used = set().union(*clause_terms, *headers.values())
        own, expanded = translated | (own & used), expanded - translated
    weight = len(own) + 0.5 * len(expanded) + GENERIC_WEIGHT * len(generic)
    scored: list[Sentence] = []
    for (item, clause), present in zip(candidates, clause_terms, strict=True):
        half = (headers.get(item.n, set()) | context_terms.get(clause.context, set())) - present
        hit = len(own & present) + 0.5 * len(own & half) + 0.5 * len(expanded & present) + 0.25 * len(expanded & half)
        hit += GENERIC_WEIGHT * len(generic & present)
        scored.append(Sentence(item, clause.text, hit / weight, frozenset(own & present)))
    rank_bonus = {item.n: 0.05 / (i + 1) for i, item in enumerate(evidence)}
    scored.sort(key=lambda s: (round(s.coverage + rank_bonus.get(s.item.n, 0.0), 6), -len(s.text)), reverse=True)
    best_passages = {item.n for item in evidence[:passages]}
    best = scored[0].coverage
    rank = {item.n: i for i, item in enumerate(evidence)}
    bearing = [s for s in scored if s.item.n in best_passages and s.coverage >= quote_coverage * best and s.coverage > 0]
    closeness = _closeness(question, bearing, similarity)
    ranked = by_rank(scored, rank, closeness)
    sanctions = ASKS_SANCTION.search(question) is not None
    first = _answering(ranked, scored[0], best_passages, quote_coverage * best, asked, asks_cases(question), sanctions)
    stating = _stating(asked, scored, best_passages, detail_coverage * best, first, sanctions)
    missing = [d.name for d in asked if d.name not in stating]
    quoted = _whole_list(first, scored)
    chosen = _choose(quoted, ranked, stating.values(), max_supporting, best_passages, quote_coverage * best)
    # Meaning and words disagree on the provision's clause: both are quoted, the words' choice after the answer.
    own_best = max((s for s in scored if s.item.label == first.item.label), key=lambda s: s.coverage, default=first)
    if own_best.coverage > first.coverage and not _overlaps(own_best, chosen):
        chosen.insert(1, own_best)
    score = min(1.0, 0.75 * best + 0.25 * agreement)
    return Extract(chosen, round(score, 4), missing)


def _whole_list(first: Sentence, scored: list[Sentence]) -> Sentence:
    """The answering clause, or when it is one 호 whose own words state at most one word of the question, its whole
    list under the lead: the 호 of a list differ in meaning more than in words ("물건이 안 와요" is 1호's "공급되지
    아니한 경우", not 2호's "할부계약이 취소된 경우" that shares "할부"), so a guess between them is left to the reader."""
    lead, _, item = first.text.partition("\n")
    if not item or "\n" in item or len(first.covers) > 1:
        return first
    whole = [s for s in scored if s.item is first.item and s.text.startswith(f"{lead}\n") and s.text.count("\n") > 1]
    return max(whole, key=lambda s: len(s.text), default=first)


def _same_family(s: Sentence, first: Sentence) -> bool:
    """Whether ``s`` is of the answering clause's document or of one delegating to or from it (법, 법 시행령)."""
    a, b = s.item.doc.replace(" ", ""), first.item.doc.replace(" ", "")
    return not a or not b or a.startswith(b) or b.startswith(a)


def _stating(
    asked: list[Detail], scored: list[Sentence], passages: set[int], floor: float, first: Sentence, sanctions: bool
) -> dict[str, Sentence]:
    """For each asked kind of figure, the best clause that states one: a clause of the answering ``provision``, or
    one in ``passages`` covering the question at least ``floor`` (a number in a clause about something else does
    not answer it; another 항 of the article that answers does). A penalty's figures count only when the question
    asks about ``sanctions``."""
    out: dict[str, Sentence] = {}
    provision = first.item.label
    # A provision that leaves a figure to another instrument ("대통령령으로 정한다") in its answering clause or in the
    # clause sharing most words with the question is answered by that instrument (the 시행령), not by a figure
    # another article of its own document states about something else.
    own = [first, max((s for s in scored if s.item.label == provision), key=lambda s: s.coverage, default=first)]
    delegates = any(DELEGATION.search(s.text) for s in own)
    for detail in asked:
        delegated = delegates and not any(states(detail, s.text, sanctions=sanctions) for s in own)
        found = next(
            (
                s
                for s in scored
                if (
                    s.item.label == provision
                    or (
                        s.item.n in passages
                        and s.coverage >= floor
                        and _same_family(s, first)
                        and not (delegated and s.item.doc == first.item.doc)
                    )
                )
                and states(detail, s.text, sanctions=sanctions)
            ),
            None,
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
    texts = list(dict.fromkeys(s.text for s in bearing if per_label[s.item.label] > 1))
    values = list(similarity(question, texts)) if texts else []
    if len(values) != len(texts):  # none (the embedder failed): by coverage
        return {}
    return dict(zip(texts, (float(x) for x in values), strict=True))


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


def _answering(
    ranked: list[Sentence],
    best: Sentence,
    passages: set[int],
    floor: float,
    asked: Sequence[Detail],
    cases: bool = False,
    sanctions: bool = True,
) -> Sentence:
    """The answering clause: the best clause of the highest-ranked provision (one citation label, its passages
    among ``passages``) whose best clause covers at least ``floor``, and of its clauses one stating every figure
    ``asked`` for when there is one (``ranked``: the clauses by retrieval rank; ``best``: the best-covering one,
    when none qualifies). Retrieval ranks whole passages better than word coverage does, so the provision is the
    one retrieval trusts most among those that bear on the question. A question asking for the ``cases`` (and no
    figure) is answered by the highest-ranked bearing clause that lists conditions, when one does. A penalty's
    figures state an asked figure only when the question asks about ``sanctions``."""
    bearing = [s for s in ranked if s.item.n in passages and s.coverage >= floor and s.coverage > 0]
    listing = [s for s in bearing if CONDITION_LIST.search(s.text.split("\n", 1)[0])] if cases and not asked else []
    first = listing[0] if listing else bearing[0] if bearing else best
    if asked:
        first = next(
            (
                s
                for s in bearing
                if s.item.label == first.item.label and all(states(d, s.text, sanctions=sanctions) for d in asked)
            ),
            first,
        )
    return first


def _choose(
    first: Sentence, ranked: list[Sentence], stating: Iterable[Sentence], k: int, passages: set[int], floor: float
) -> list[Sentence]:
    """The answering clause ``first``, a clause stating an asked figure that it does not state, then supporting
    clauses in retrieval order (``ranked``), one per other provision, up to ``k`` provisions: each from
    ``passages``, covering at least ``floor`` and stating a word of the question that the clauses before it do not
    (a clause that adds nothing asked about is left out)."""
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
        if s.item.label in labels or not s.covers - said or _overlaps(s, chosen):
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
