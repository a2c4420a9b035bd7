"""Extractive answering: the best-supported sentences of the evidence, each with its citation.

This is the answer when no LLM is configured. It also supplies the evidence score behind
"근거 부족": how much of the question's content the best sentences cover, whether the
retrievers backed the passage, and whether a figure the question asks for (나이, 몇 %,
얼마, 며칠 …) is stated by a sentence of the best passages that bears on the question.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from geungeo.answering.models import EvidenceItem
from geungeo.retrieval.expansion import Lexicon, query_terms
from geungeo.text.kiwi import bm25_terms, bm25_terms_many

SENTENCE_END = re.compile(r"(?<=[다요음함됨임]\.)\s+|(?<=[.?!])\s+(?=[A-Z가-힣①-⑳(])|\n+")

# Amounts written in Korean numerals ("일만원", "오천 원"), as regulations often do.
_HANGUL_AMOUNT = r"[일이삼사오육칠팔구십백천만억]+\s*원"


@dataclass(frozen=True)
class Detail:
    """A kind of figure a question may ask for, and how a passage that states it reads.

    A question asking for a figure the evidence never states ("만 몇 세", "몇 %") is the typical
    near miss: the article exists but delegates or omits the detail. A question asks with a phrase
    (몇/얼마/며칠, ``asks``) or with a noun among its Kiwi terms (나이, 기한, ``nouns``; so that
    "아기한테" does not ask for a 기한); ``unless`` marks a phrase that asks for another kind
    ("기간이 최대 얼마" is a period, not an amount); "몇 달째" and "몇 번이나" tell a story instead.
    A passage states the figure with a number ("15일", "100분의 50", "30만원", "일만원"); the bare
    word ("금액", "연령", "기간") names the detail without stating it. A deadline may also be
    "지체 없이" or "즉시", a cost "실비".
    """

    name: str
    asks: re.Pattern[str]
    states: re.Pattern[str]
    nouns: frozenset[str] = frozenset()
    unless: re.Pattern[str] | None = None

    def asked(self, question: str, terms: set[str]) -> bool:
        """Whether ``question`` (with its Kiwi ``terms``) asks for this kind of figure."""
        if self.unless is not None and self.unless.search(question):
            return False
        return bool(self.asks.search(question) or self.nouns & terms)


def _detail(name: str, asks: str, states: str, nouns: str = "", unless: str = "") -> Detail:
    return Detail(
        name,
        re.compile(asks, re.IGNORECASE),
        re.compile(states),
        frozenset(nouns.split()),
        re.compile(unless) if unless else None,
    )


# "기간이 최대 얼마예요", "얼마 동안": a period asked with 얼마.
_PERIOD_HOW_MUCH = r"(기간|동안|일수)[^?.!,]{0,12}얼마|얼마\s*(나|안에|동안|지나|만에|후)"
DETAILS: tuple[Detail, ...] = (
    _detail("나이 / age", r"몇\s*세|몇\s*살|how old", r"\d+\s*세", nouns="나이 연령"),
    _detail(
        "비율 / rate",
        r"몇\s*(%|퍼센트|프로)|percent",
        r"\d+(\.\d+)?\s*(퍼센트|%|퍼밀)|분의\s*\d|\d+\s*분의|\d+\s*할",
        nouns="비율",
    ),
    _detail(  # "얼마예요", "얼마까지"; a time or a quantity asked with 얼마 is another kind (below)
        "금액 / amount",
        r"얼마|몇\s*원|how much",
        rf"\d[\d,]*\s*(만|천|억)?\s*원|{_HANGUL_AMOUNT}|실비|\d+\s*배|분의\s*\d|\d+\s*분의|\d+(\.\d+)?\s*(퍼센트|%)",
        unless=_PERIOD_HOW_MUCH,
    ),
    _detail("수량 / quantity", _PERIOD_HOW_MUCH, r"\d|지체\s*없이|즉시"),
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
    _detail("기간 / period", r"몇\s*(년|개월|달|주)(?!\s*째)|how long", r"\d+\s*(년|개월|월|주|일|학기)"),
    _detail(  # statutes write months the old way: "3월 이내"
        "기한 / deadline",
        r"언제까지|deadline",
        r"\d+\s*(일|개월|월|년|주)\s*(이내|전|까지|후|안)|지체\s*없이|즉시|까지",
        nouns="기한 마감 마감일",
    ),
)


def asked_details(question: str) -> list[Detail]:
    """The kinds of figure ``question`` asks for."""
    terms = set(bm25_terms(question, compounds=False))
    return [d for d in DETAILS if d.asked(question, terms)]


@dataclass(frozen=True)
class Sentence:
    item: EvidenceItem
    text: str
    coverage: float


@dataclass(frozen=True)
class Extract:
    """Chosen sentences, the evidence score in [0, 1] and the asked-for details no passage states."""

    sentences: list[Sentence]
    score: float
    missing: list[str]

    def answers(self, min_score: float) -> bool:
        """Whether the evidence supports an extractive answer (else 근거 부족): a sentence shares a word with the
        question, the score reaches ``min_score`` and every asked figure is stated."""
        covered = any(s.coverage > 0 for s in self.sentences)
        return covered and self.score >= min_score and not self.missing

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
        """The answer text: sentences grouped by evidence item, each group followed by its citation."""
        parts: list[str] = [lead] if lead else []
        by_item: dict[int, list[str]] = {}
        for s in self.sentences:
            by_item.setdefault(s.item.n, []).append(s.text)
        labels = {s.item.n: s.item.label for s in self.sentences}
        for n, texts in by_item.items():
            parts.append(f"- {' '.join(texts)} [{labels[n]}]")
        return "\n".join(parts)


# Bare headings and titles: 부칙 lines, 편/장/절/관 headings, an article's number and title on its own line
# ("제3조(출산휴가)"), bracketed titles and table or figure captions.
_HEADING = re.compile(
    r"^(부칙\s*<[^>]*>|제\d+(편|장|절|관)\b.*|제\d+조(의\d+)?\s*\([^)]*\)|\[[^\]]*\]|[<‹〈《][^>›〉》]*[>›〉》])$"
)


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


def split_sentences(text: str) -> list[str]:
    """Sentences and 항/호 lines of a passage, and its table rows, in order (short fragments and bare headings dropped)."""
    parts: list[str] = []
    for is_table, group in itertools.groupby(text.split("\n"), key=_is_table_line):
        lines = list(group)
        if is_table:
            parts.extend(table_row_sentences(lines))
        else:
            parts.extend(s.strip() for s in SENTENCE_END.split("\n".join(lines)))
    return [s for s in parts if len(s) >= 8 and not _HEADING.match(s)]


def extract(
    question: str,
    evidence: Sequence[EvidenceItem],
    lexicon: Lexicon | None,
    *,
    max_sentences: int = 5,
    agreement: float = 0.0,
    passages: int = 5,
    quote_coverage: float = 0.35,
    detail_coverage: float = 0.6,
) -> Extract:
    """The sentences of ``evidence`` that best cover ``question``, how well they support it, and the figures
    it asks for that are not stated.

    The answer quotes the best sentence of each of up to ``max_sentences`` passages: of the best
    ``passages`` when it covers the question at least ``quote_coverage`` times as well as the best
    sentence does (the answer cites what retrieval found), of the others at half. A figure counts as
    stated by a sentence of the best ``passages`` covering the question at least ``detail_coverage``
    times as well; that sentence is quoted too."""
    # Coverage counts the question's words; BM25's joined compounds would count a compound word twice.
    own = {t for t in query_terms(question, compounds=False) if not (t.isdigit() and len(t) == 1)}
    expanded = set(query_terms(question, lexicon, compounds=False)) - own
    asked = asked_details(question)
    candidates = [(item, s) for item in evidence for s in split_sentences(item.text)]
    if not own or not candidates:
        return Extract([], 0.0, [d.name for d in asked])
    headers = {
        item.n: set(terms)
        for item, terms in zip(evidence, bm25_terms_many((i.header for i in evidence), compounds=False), strict=True)
    }
    sentence_terms = [set(terms) for terms in bm25_terms_many((t for _, t in candidates), compounds=False)]
    translated = (
        {t for phrase in lexicon.translations(question) for t in query_terms(phrase, compounds=False)} if lexicon else set()
    )
    if translated:  # an English question: its Korean terms are what the passages can state
        used = set().union(*sentence_terms, *headers.values())
        own, expanded = translated | (own & used), expanded - translated
    weight = len(own) + 0.5 * len(expanded)
    scored: list[Sentence] = []
    for (item, text), present in zip(candidates, sentence_terms, strict=True):
        header_only = headers.get(item.n, set()) - present  # the article title counts half
        hit = (
            len(own & present) + 0.5 * len(own & header_only) + 0.5 * len(expanded & present) + 0.25 * len(expanded & header_only)
        )
        scored.append(Sentence(item, text, hit / weight))
    rank_bonus = {item.n: 0.05 / (i + 1) for i, item in enumerate(evidence)}
    scored.sort(key=lambda s: s.coverage + rank_bonus.get(s.item.n, 0.0), reverse=True)
    best_passages = {item.n for item in evidence[:passages]}
    chosen = _diverse(scored, max_sentences, best_passages, quote_coverage)
    best = chosen[0].coverage if chosen else 0.0
    stating = _stating(asked, scored, best_passages, detail_coverage * best)
    missing = [d.name for d in asked if d.name not in stating]
    for sentence in stating.values():  # the answer quotes the figure
        if sentence not in chosen:
            chosen.append(sentence)
    score = min(1.0, 0.75 * best + 0.25 * agreement)
    order = {item.n: i for i, item in enumerate(evidence)}
    chosen.sort(key=lambda s: (order.get(s.item.n, 99), s.item.text.find(s.text)))
    return Extract(chosen, round(score, 4), missing)


def _stating(asked: list[Detail], scored: list[Sentence], passages: set[int], floor: float) -> dict[str, Sentence]:
    """For each asked kind of figure, the best sentence that states one: in one of ``passages`` and
    covering the question at least ``floor`` (a number in a sentence about something else does not
    answer it)."""
    out: dict[str, Sentence] = {}
    for detail in asked:
        found = next((s for s in scored if s.item.n in passages and s.coverage >= floor and detail.states.search(s.text)), None)
        if found is not None:
            out[detail.name] = found
    return out


def _diverse(scored: list[Sentence], k: int, best_passages: set[int], floor: float) -> list[Sentence]:
    """The best sentence of each of up to ``k`` passages, then a second sentence of the best passage.

    A sentence of one of ``best_passages`` needs ``floor`` times the best sentence's coverage, one of
    another passage half of it; weak and duplicate sentences are left out."""
    out: list[Sentence] = []
    seen: set[int] = set()
    for s in scored:
        if out and s.coverage < (floor if s.item.n in best_passages else 0.5) * out[0].coverage:
            continue
        if s.item.n not in seen and len(seen) < k and not any(s.text in o.text or o.text in s.text for o in out):
            seen.add(s.item.n)
            out.append(s)
    second = next(
        (s for s in scored if out and s.item.n == out[0].item.n and s not in out and s.coverage >= 0.5 * out[0].coverage), None
    )
    return [*out, second] if second is not None else out
