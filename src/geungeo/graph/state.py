"""The LangGraph state of one question (and, through the checkpointer, of a conversation).

Every key this turn's run starts afresh is declared ``Annotated[T, PerTurn(default)]``; the runner's
per-turn reset (:func:`turn_reset`) is read from these declarations, so a new key cannot be forgotten there.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypedDict, get_type_hints

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph.message import add_messages

from geungeo.answering.models import (
    CITATION_MARK,
    Answer,
    Citation,
    EvidenceItem,
    FlowStep,
    Grade,
    Groundedness,
    QueryPlan,
    Route,
    SubQuery,
    Sufficiency,
)

Mode = Literal["extractive", "llm"]


@dataclass(frozen=True)
class PerTurn:
    """Marks a state key reset to ``default`` (copied) at the start of each turn."""

    default: Any


class StructuralHit(TypedDict):
    """The structural lookup the router found (제N조, 제N장, 별표 …): its text and the chunks it stands on."""

    kind: str
    text: str  # the lookup's text, or why it found nothing
    found: bool
    chunk_ids: list[str]  # every chunk of it (the evidence)
    cited: list[str]  # the first chunk of each cited article


class GraphState(TypedDict, total=False):
    """Everything the nodes read and write."""

    # conversation (kept across turns by the checkpointer)
    history: Annotated[list[BaseMessage], add_messages]
    # this turn's input
    question: str
    filters: str | None
    deadline: Annotated[float | None, PerTurn(None)]  # time.monotonic() after which no LLM call starts
    # routing and planning
    route: Annotated[Route | Literal[""], PerTurn("")]
    standalone: Annotated[str, PerTurn("")]
    topic: Annotated[str, PerTurn("")]  # a follow-up read without an LLM: the earlier turns' words it leaves out
    subject: Annotated[str, PerTurn("")]  # what such a follow-up asks about instead ("그럼 육아휴직은요?"): its answer states it
    plan: Annotated[QueryPlan | None, PerTurn(None)]
    structural: Annotated[StructuralHit | None, PerTurn(None)]
    # retrieval loop
    iteration: Annotated[int, PerTurn(0)]
    queries_done: Annotated[list[str], PerTurn([])]
    candidates: Annotated[list[EvidenceItem], PerTurn([])]  # accumulated without duplicates
    leads: Annotated[list[str], PerTurn([])]  # chunk ids: the best passage of each part of the question
    evidence: Annotated[list[EvidenceItem], PerTurn([])]  # reranked and numbered: what generation may cite
    sufficiency: Annotated[Sufficiency | None, PerTurn(None)]
    extract: Annotated[dict[str, Any] | None, PerTurn(None)]  # extractive mode: the judge's chosen sentences
    # answer
    answer: Annotated[str, PerTurn("")]
    refused: Annotated[bool, PerTurn(False)]
    mode: Annotated[Mode, PerTurn("extractive")]
    citations: Annotated[list[Citation], PerTurn([])]
    removed_citations: Annotated[int, PerTurn(0)]
    groundedness: Annotated[Groundedness | None, PerTurn(None)]
    grade: Annotated[Grade | None, PerTurn(None)]
    regenerations: Annotated[int, PerTurn(0)]
    improved: Annotated[bool, PerTurn(False)]
    suggestions: Annotated[list[str], PerTurn([])]
    warnings: Annotated[list[str], PerTurn([])]
    llm_failure: Annotated[str, PerTurn("")]  # why the chat model failed in this turn ('' while it works)
    cache_hit: Annotated[bool, PerTurn(False)]
    cached_answer: Annotated[Answer | None, PerTurn(None)]
    flow_log: Annotated[list[FlowStep], PerTurn([])]


def turn_reset() -> dict[str, Any]:
    """Every per-turn key at its declared default (fresh copies)."""
    hints = get_type_hints(GraphState, include_extras=True)
    reset: dict[str, Any] = {}
    for key, hint in hints.items():
        marks = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, PerTurn)]
        if marks:
            reset[key] = copy.deepcopy(marks[0].default)
    return reset


STATE_MODELS: tuple[type, ...] = (
    Answer, Citation, EvidenceItem, FlowStep, Grade, Groundedness, QueryPlan, SubQuery, Sufficiency
)
"""The models the state holds (the checkpointer's serializer restores these, and only these, of ours)."""


def evidence_items(state: GraphState) -> list[EvidenceItem]:
    """The evidence generation may cite."""
    return list(state.get("evidence", []))


def earlier_questions(state: GraphState) -> list[str]:
    """The conversation's questions before this one (the runner has added this one to the history)."""
    history = state.get("history", [])
    return [str(m.content) for m in history[:-1] if isinstance(m, HumanMessage)]


def earlier_follow_ups(state: GraphState) -> list[bool]:
    """For each of :func:`earlier_questions`, whether its turn was read as a follow-up (its answer says so)."""
    history = state.get("history", [])[:-1]
    asked = [i for i, m in enumerate(history) if isinstance(m, HumanMessage)]
    ends = [*asked[1:], len(history)]
    return [
        any(isinstance(m, AIMessage) and m.additional_kwargs.get("follow_up") for m in history[start + 1 : end])
        for start, end in zip(asked, ends, strict=True)
    ]


def last_citations(state: GraphState) -> list[str]:
    """The citation labels of the conversation's last answer, in its order ("근로기준법 제60조"); none before one."""
    answers = [m for m in state.get("history", [])[:-1] if isinstance(m, AIMessage)]
    if not answers:
        return []
    cited = answers[-1].additional_kwargs.get("cited")  # a structural answer quotes its text without [labels]
    if isinstance(cited, list) and cited:
        return [str(label) for label in cited]
    return list(dict.fromkeys(CITATION_MARK.findall(str(answers[-1].content))))
