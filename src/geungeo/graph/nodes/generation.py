"""The generate node: the answer written by :func:`geungeo.answering.generation.compose_answer` over the evidence."""

from __future__ import annotations

from collections.abc import Generator

from geungeo.answering.generation import Composed, Request, compose_answer, refusal_text, validate_citations
from geungeo.answering.sentences import Extract
from geungeo.graph.context import GraphContext, Tracker, Update, emit
from geungeo.graph.state import GraphState, evidence_items

__all__ = ["generate", "refusal_text", "validate_citations"]


def generate(state: GraphState, ctx: GraphContext, tracker: Tracker, *, strict: bool = False, feedback: str = "") -> Update:
    """Write the answer (streamed as tokens) from the evidence; an LLM that fails leaves the extractive answer."""
    items = evidence_items(state)
    question = state.get("standalone") or state["question"]
    done = state.get("extract")  # the judge's extraction over this same evidence
    plan = state.get("plan")
    request = Request.over(
        ctx.engine,
        items,
        style=plan.answer_style if plan else "normal",
        strict=strict,
        feedback=feedback,
        extracted=Extract.from_state(done, items) if done else None,
        deadline=tracker.deadline,
        llm_failure="" if ctx.extractive or tracker.llm_usable() else tracker.llm_failure,
        topic=state.get("topic", ""),
        subject=state.get("subject", ""),
    )
    composing = compose_answer(question, items, ctx.llm if not ctx.extractive else None, ctx.settings, ctx.lexicon, request)
    composed = _stream(composing)
    tracker.calls += composed.llm_calls
    if composed.note and (composed.mode == "llm" or composed.llm_failure):
        tracker.notes.append(composed.note)
    if composed.removed:
        tracker.notes.append(f"{composed.removed} citation(s) to nothing removed")
    update: Update = {
        "answer": composed.answer,
        "refused": composed.refused,
        "citations": composed.citations,
        "removed_citations": composed.removed + (state.get("removed_citations", 0) if composed.mode == "llm" else 0),
        "mode": composed.mode,
    }
    if composed.llm_failure:
        tracker.llm_failure = tracker.llm_failure or composed.llm_failure
        update["warnings"] = [*state.get("warnings", []), *composed.warnings]
    return update


def _stream(composing: Generator[str, None, Composed]) -> Composed:
    """Emit a composition's pieces as token events as they come; its result."""
    while True:
        try:
            piece = next(composing)
        except StopIteration as stop:
            result: Composed = stop.value
            return result
        emit((piece,))
