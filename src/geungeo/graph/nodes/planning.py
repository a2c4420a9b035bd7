"""Planner: the question's normalised form, intent, style, sub-queries and their variations; HyDE."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel, Field

from geungeo.answering.models import Intent, QueryPlan, Style, SubQuery
from geungeo.answering.planning import rules_plan
from geungeo.graph.context import GraphContext, Tracker, Update
from geungeo.graph.state import GraphState

__all__ = ["planner", "rules_plan"]

_VAGUE = re.compile(r"^[^?？]{0,20}$")


class _LLMPlan(BaseModel):
    normalized_query: str
    intent: Intent = "explain"
    answer_style: Style = "normal"
    constraints: list[str] = []
    sub_queries: list[SubQuery]


class _SubQueryWithVariations(SubQuery):
    variations: list[str] = Field(default_factory=list)


class _LLMPlanWithVariations(_LLMPlan):
    sub_queries: list[_SubQueryWithVariations]  # type: ignore[assignment]


def planner(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """The LLM's plan (falling back to the rules' plan); for a vague question a HyDE passage is
    written at the same time, in its own call, and searched as one more rewrite."""
    question = state.get("standalone") or state["question"]
    s = ctx.settings
    fallback = rules_plan(question, ctx.lexicon, s.max_sub_queries)
    if ctx.extractive:
        return {"plan": fallback}
    empty = _LLMPlanWithVariations(normalized_query=question, sub_queries=[])
    hyde_tracker = tracker.child()
    with ThreadPoolExecutor(max_workers=1) as pool:
        hyde = (
            pool.submit(ctx.ask_text, hyde_tracker, "hyde", question)
            if s.enable_hyde and _VAGUE.match(question)
            else None
        )
        reply, ok = ctx.ask_json(
            tracker, "planner", question, _LLMPlanWithVariations, empty, n=s.query_variations, m=s.max_sub_queries
        )
        passage = hyde.result() if hyde is not None else ""
    tracker.merge(hyde_tracker)
    tracker.notes.extend(["hyde"] if passage else [])
    plan = fallback
    if ok and reply.sub_queries:
        subs = sorted(reply.sub_queries, key=lambda sq: sq.priority)[: s.max_sub_queries]
        plan = QueryPlan(
            normalized_query=reply.normalized_query or question,
            intent=reply.intent,
            answer_style=reply.answer_style,
            constraints=reply.constraints,
            sub_queries=[SubQuery(text=sq.text, priority=sq.priority) for sq in subs],
            rewrites=[v for sq in subs for v in sq.variations[: s.query_variations]] + fallback.rewrites,
            audience=fallback.audience,
            planned_by="llm",
        )
    if passage:
        plan.rewrites.append(passage)
    return {"plan": plan}
