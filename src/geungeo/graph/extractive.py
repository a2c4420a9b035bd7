"""Extractive answering: the best-supported sentences of the evidence, each with its citation.

This is the answer when no LLM is configured. It also supplies the evidence score behind
"근거 부족": how much of the question's content the best sentences cover, whether a
question that asks for a number (며칠, 얼마, 언제까지 …) finds one there, and whether the
sparse and dense retrievers agreed on the passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from geungeo.graph.models import EvidenceItem
from geungeo.retrieval.expansion import Lexicon, query_terms
from geungeo.text.kiwi import bm25_terms_many

_SENTENCE_END = re.compile(r"(?<=[다요음함됨임]\.)\s+|(?<=[.?!])\s+(?=[A-Z가-힣①-⑳(])|\n+")
_ASKS_QUANTITY = re.compile(
    r"며칠|몇|얼마|언제까지|기한|기간|이내|퍼센트|%|비율|금액|최소|최대|상한|하한|한도"
    r"|how (many|much|long)|when|what date|percent",
    re.IGNORECASE,
)
_QUANTITY = re.compile(
    r"\d|[일이삼사오육칠팔구십백천만]+\s*(일|개월|년|시간|주|분의|퍼센트|배|명|원|회|학점|학기)|분의\s*[일이삼사오육칠팔구]"
)


@dataclass(frozen=True)
class Sentence:
    item: EvidenceItem
    text: str
    coverage: float
    has_quantity: bool


@dataclass(frozen=True)
class Extract:
    """Chosen sentences and the evidence score in [0, 1]."""

    sentences: list[Sentence]
    score: float
    asks_quantity: bool

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


_HEADING = re.compile(r"^(부칙\s*<[^>]*>|제\d+(편|장|절|관)\b.*|\[[^\]]*\])$")


def split_sentences(text: str) -> list[str]:
    """Sentences and 항/호 lines of a passage (short fragments and bare headings dropped)."""
    parts = (s.strip() for s in _SENTENCE_END.split(text))
    return [s for s in parts if len(s) >= 8 and not _HEADING.match(s)]


def extract(
    question: str,
    evidence: Sequence[EvidenceItem],
    lexicon: Lexicon | None,
    *,
    max_sentences: int = 3,
    agreement: float = 0.0,
) -> Extract:
    """The sentences of ``evidence`` that best cover ``question`` and how well they support it."""
    own = {t for t in query_terms(question) if not (t.isdigit() and len(t) == 1)}
    expanded = set(query_terms(question, lexicon)) - own
    asks_quantity = bool(_ASKS_QUANTITY.search(question))
    candidates = [(item, s) for item in evidence for s in split_sentences(item.text)]
    if not own or not candidates:
        return Extract([], 0.0, asks_quantity)
    headers = {item.n: set(terms) for item, terms in zip(evidence, bm25_terms_many(i.header for i in evidence), strict=True)}
    weight = len(own) + 0.5 * len(expanded)
    scored: list[Sentence] = []
    for (item, text), terms in zip(candidates, bm25_terms_many(t for _, t in candidates), strict=True):
        present = set(terms)
        header_only = headers.get(item.n, set()) - present  # the article title counts half
        hit = (
            len(own & present) + 0.5 * len(own & header_only) + 0.5 * len(expanded & present) + 0.25 * len(expanded & header_only)
        )
        scored.append(Sentence(item, text, hit / weight, bool(_QUANTITY.search(text))))
    rank_bonus = {item.n: 0.05 / (i + 1) for i, item in enumerate(evidence)}
    scored.sort(
        key=lambda s: s.coverage + rank_bonus.get(s.item.n, 0.0) + (0.1 if asks_quantity and s.has_quantity else 0.0),
        reverse=True,
    )
    chosen = _diverse(scored, max_sentences)
    best = chosen[0].coverage if chosen else 0.0
    quantity_ok = not asks_quantity or any(s.has_quantity for s in chosen)
    score = min(1.0, 0.75 * best + 0.25 * agreement) * (1.0 if quantity_ok else 0.6)
    order = {item.n: i for i, item in enumerate(evidence)}
    chosen.sort(key=lambda s: (order.get(s.item.n, 99), s.item.text.find(s.text)))
    return Extract(chosen, round(score, 4), asks_quantity)


def _diverse(scored: list[Sentence], k: int) -> list[Sentence]:
    """Top sentences, at most two from one evidence item, no near-duplicates."""
    out: list[Sentence] = []
    per_item: dict[int, int] = {}
    for s in scored:
        if len(out) >= k or (out and s.coverage < 0.5 * out[0].coverage):
            break
        if per_item.get(s.item.n, 0) >= 2 or any(s.text in o.text or o.text in s.text for o in out):
            continue
        per_item[s.item.n] = per_item.get(s.item.n, 0) + 1
        out.append(s)
    return out
