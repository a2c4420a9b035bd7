"""The question's plan without an LLM: intent and answer style by cue words, one sub-query per asked question."""

from __future__ import annotations

import re

from geungeo.answering.models import Intent, QueryPlan, Style, SubQuery
from geungeo.retrieval.expansion import Lexicon, query_terms
from geungeo.text.normalize import nfc

_INTENTS: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    ("compare", re.compile(r"차이|비교|다른 점|vs|versus|difference|compare", re.I)),
    ("howto", re.compile(r"어떻게|방법|절차|신청하려면|하려면|how (do|can|to)", re.I)),
    ("troubleshoot", re.compile(r"안 돼|안돼|거부|못 받|문제|불이익|억울|what if|refuse", re.I)),
    ("lookup", re.compile(r"며칠|몇|얼마|언제|기한|기간|금액|how (many|much|long)|when", re.I)),
)
_SPLIT = re.compile(r"(?<=[?？])\s+|\s+(?:그리고|또한|아울러)\s+")


def rules_plan(question: str, lexicon: Lexicon, max_sub_queries: int) -> QueryPlan:
    """A plan without an LLM: intent and style by cue words, one sub-query per asked question."""
    q = nfc(question).strip()
    intent: Intent = next((name for name, pattern in _INTENTS if pattern.search(q)), "explain")
    style: Style = "short" if intent == "lookup" else ("detailed" if len(q) > 120 else "normal")
    # A part without a search term of its own ("얼마까지 받을 수 있어요?") follows up the part before it: searched
    # alone it would match anything, so only the whole question carries it.
    parts = [p.strip() for p in _SPLIT.split(q) if len(p.strip()) >= 6 and query_terms(p, compounds=False)]
    parts = parts[:max_sub_queries] or [q]
    subs = [SubQuery(text=q, priority=1)] + [SubQuery(text=p, priority=2) for p in parts if p != q and len(parts) > 1]
    expansions = lexicon.expansions(q)
    rewrites = [f"{q} {' '.join(expansions)}"] if expansions else []
    return QueryPlan(
        normalized_query=q,
        intent=intent,
        answer_style=style,
        sub_queries=subs[:max_sub_queries],
        rewrites=rewrites,
        audience=lexicon.audience(q),
        planned_by="rules",
    )
