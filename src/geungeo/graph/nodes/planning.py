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


PLANNER_PROMPT = (
    "당신은 한국어 법령·규정 검색 플래너입니다. 질문을 분석해 JSON으로만 답하세요: "
    '{"normalized_query": 맞춤법과 구어를 고친 질문, "intent": explain|howto|troubleshoot|compare|lookup, '
    '"answer_style": short|normal|detailed, "constraints": [조건], '
    '"sub_queries": [{"text": 검색 질의, "priority": 1-5, "variations": [법령 용어로 바꾼 질의 {n}개]}] (1-{m}개)}. '
    "영어 질문이면 질의와 variations를 한국어 법령 용어로 쓰세요."
)


class _SubQueryWithVariations(SubQuery):
    variations: list[str] = Field(default_factory=list)


class _LLMPlanWithVariations(_LLMPlan):
    sub_queries: list[_SubQueryWithVariations]  # type: ignore[assignment]


HYDE_PROMPT = "질문에 답하는 법령 조문처럼 보이는 짧은 한국어 단락을 쓰세요. 설명 없이 단락만."


def planner(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """The LLM's plan (falling back to the rules' plan); for a vague question a HyDE passage is
    written at the same time, in its own call, and searched as one more rewrite."""
    question = state.get("standalone") or state["question"]
    s = ctx.settings
    fallback = rules_plan(question, ctx.lexicon, s.max_sub_queries)
    if ctx.extractive:
        return {"plan": fallback.model_dump()}
    prompt = PLANNER_PROMPT.replace("{n}", str(s.query_variations)).replace("{m}", str(s.max_sub_queries))
    empty = _LLMPlanWithVariations(normalized_query=question, sub_queries=[])
    hyde_tracker = tracker.child()
    with ThreadPoolExecutor(max_workers=1) as pool:
        hyde = (
            pool.submit(ctx.ask_text, hyde_tracker, "hyde", HYDE_PROMPT, question)
            if s.enable_hyde and _VAGUE.match(question)
            else None
        )
        reply, ok = ctx.ask_json(tracker, "planner", prompt, question, _LLMPlanWithVariations, empty)
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
    return {"plan": plan.model_dump()}
