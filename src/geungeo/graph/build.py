"""The answer graph: one LangGraph StateGraph.

cache ─hit─────────────────────────────────────────────────────────────┐
  └miss→ router ─simple→ simple_answer ───────────────────────────────┤
                ─structural→ structural ──────────────────────────────┤
                ─rag/history→ planner → retrieve → expand → rerank → judge
                     judge ─insufficient (rounds left)→ retrieve          │
                           ─weak and web search on→ web_search → generate │
                           ─else→ generate → grounding                     │
                     grounding (groundedness ∥ grade ∥ follow-up suggestions, one round)
                       ─failed (retries left)→ regenerate → grounding
                       ─failed→ flag ─┐
                       ─grounded──────┴─ grade below threshold→ improve → cache_store | cache_store
… → remember → END ◄──────────────────────────────────────────────────┘
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from geungeo.graph.context import GraphContext, as_node
from geungeo.graph.nodes import generation, grading, judging, planning, retrieval, routing
from geungeo.graph.state import GraphState


def build_graph(ctx: GraphContext, checkpointer: Any = None) -> Any:
    """Compile the graph over ``ctx`` (a checkpointer keeps conversations across calls)."""
    g = StateGraph(GraphState)
    nodes = {
        "cache_lookup": routing.cache_lookup,
        "router": routing.router,
        "simple_answer": routing.simple_answer,
        "structural": routing.structural,
        "planner": planning.planner,
        "retrieve": retrieval.retrieve,
        "expand": retrieval.expand,
        "rerank": retrieval.rerank,
        "judge": judging.judge,
        "web_search": judging.web_search,
        "generate": generation.generate,
        "grounding": grading.grounding,
        "regenerate": grading.regenerate,
        "flag": grading.flag,
        "improve": grading.improve,
        "cache_store": grading.cache_store,
        "remember": routing.remember,
    }
    for name, fn in nodes.items():
        g.add_node(name, as_node(name, fn, ctx))  # type: ignore[call-overload]
    g.add_edge(START, "cache_lookup")
    g.add_conditional_edges("cache_lookup", _after_cache)
    g.add_conditional_edges("router", _route)
    for a, b in [
        ("simple_answer", "remember"),
        ("structural", "remember"),
        ("planner", "retrieve"),
        ("retrieve", "expand"),
        ("expand", "rerank"),
        ("rerank", "judge"),
        ("web_search", "generate"),
        ("generate", "grounding"),
        ("regenerate", "grounding"),
        ("improve", "cache_store"),
        ("cache_store", "remember"),
        ("remember", END),
    ]:
        g.add_edge(a, b)
    g.add_conditional_edges("judge", partial(judging.after_judge, ctx=ctx))
    g.add_conditional_edges("grounding", partial(grading.after_grounding, ctx=ctx))
    g.add_conditional_edges("flag", partial(grading.after_review, ctx=ctx))
    return g.compile(checkpointer=checkpointer)


def _after_cache(state: GraphState) -> Literal["remember", "router"]:
    return "remember" if state.get("cache_hit") else "router"


def _route(state: GraphState) -> Literal["simple_answer", "structural", "planner"]:
    route = state.get("route", "")
    if route == "simple":
        return "simple_answer"
    if route == "structural":
        return "structural"
    return "planner"
