"""The LangGraph state of one question (and, through the checkpointer, of a conversation)."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import BaseMessage
from langgraph.graph.message import add_messages


class GraphState(TypedDict, total=False):
    """Everything the nodes read and write. Per-turn keys are reset by the runner at each turn."""

    # conversation (kept across turns by the checkpointer)
    history: Annotated[list[BaseMessage], add_messages]
    # this turn's input
    question: str
    filters: str | None
    # routing and planning
    route: str
    standalone: str
    plan: dict[str, Any]
    structural: dict[str, Any] | None  # the structural lookup the router found
    # retrieval loop
    iteration: int
    queries_done: list[str]
    candidates: list[dict[str, Any]]  # EvidenceItem dicts, accumulated without duplicates
    evidence: list[dict[str, Any]]  # reranked, what generation may cite
    sufficiency: dict[str, Any]
    extract: dict[str, Any] | None  # extractive mode: the judge's chosen sentences, reused by generation
    # answer
    answer: str
    refused: bool
    mode: str
    citations: list[dict[str, Any]]
    removed_citations: int
    groundedness: dict[str, Any]
    grade: dict[str, Any]
    regenerations: int
    improved: bool
    suggestions: list[str]
    warnings: list[str]
    cache_hit: bool
    cached_answer: dict[str, Any] | None
    flow_log: list[dict[str, Any]]
