"""What every node needs (engine, chat model, settings, cache …) and the node wrapper.

The wrapper times each node, counts its LLM calls and appends a step to the flow log, so
that nodes themselves only do their work.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.config import get_stream_writer
from pydantic import BaseModel

from geungeo.answering.generation import word_tokens
from geungeo.answering.models import FlowStep
from geungeo.engine import Engine
from geungeo.graph.cache import AnswerCache, answer_writer
from geungeo.graph.corrections import Corrections
from geungeo.graph.state import GraphState
from geungeo.llm.base import CallInfo, invoke_json, invoke_text
from geungeo.prompts import render, system_message
from geungeo.retrieval.expansion import Lexicon
from geungeo.retrieval.structural import StructuralLookup
from geungeo.settings import Settings

M = TypeVar("M", bound=BaseModel)
Update = GraphState  # a node returns the keys it changes


@dataclass
class Tracker:
    """LLM calls and notes of one node run, with the question's deadline and whether its chat model failed."""

    calls: int = 0
    notes: list[str] = field(default_factory=list)
    deadline: float | None = None  # time.monotonic() after which no LLM call starts
    llm_failure: str = ""  # why the chat model failed in this question ('' while it works)

    def child(self) -> Tracker:
        """A tracker for work run beside this one (same deadline and failure), merged back by :meth:`merge`."""
        return Tracker(deadline=self.deadline, llm_failure=self.llm_failure)

    def merge(self, other: Tracker) -> None:
        self.calls += other.calls
        self.notes.extend(other.notes)
        self.llm_failure = self.llm_failure or other.llm_failure

    def llm_usable(self) -> bool:
        """May a chat-model call start (the model has not failed and the deadline has not passed)?"""
        if self.llm_failure:
            return False
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.llm_failure = "the answer deadline passed"
            return False
        return True


@dataclass
class GraphContext:
    """Shared, read-only collaborators of the nodes."""

    engine: Engine
    settings: Settings
    llm: BaseChatModel | None
    lexicon: Lexicon
    structural: StructuralLookup
    cache: AnswerCache | None = None
    corrections: Corrections | None = None

    @property
    def extractive(self) -> bool:
        return self.llm is None

    @functools.cached_property
    def answer_writer(self) -> str:
        """What writes this context's answers (the answer cache's scope): version, settings, lexicon."""
        return answer_writer(self.settings, self.lexicon)

    def messages(self, prompt: str, user: str, **values: object) -> list[BaseMessage]:
        """Prompt ``prompt`` (:mod:`geungeo.prompts`, its placeholders filled from ``values``) and the user's text."""
        return [system_message(prompt, render(prompt, **values)), HumanMessage(user)]

    def ask_json(
        self, tracker: Tracker, prompt: str, user: str, schema: type[M], fallback: M, **values: object
    ) -> tuple[M, bool]:
        """A validated structured reply to prompt ``prompt``, or ``fallback`` (and False) when the model cannot give one."""
        assert self.llm is not None
        if not tracker.llm_usable():
            tracker.notes.append(f"skipped: {tracker.llm_failure}")
            return fallback, False
        result, info = invoke_json(
            self.llm,
            self.messages(prompt, user, **values),
            schema,
            retries=self.settings.llm_max_retries,
            timeout_s=self.settings.llm_timeout_s,
            fallback=fallback,
            deadline=tracker.deadline,
        )
        _account(tracker, info)
        return result, not info.fell_back

    def ask_text(self, tracker: Tracker, prompt: str, user: str, fallback: str = "", **values: object) -> str:
        """The model's text reply to prompt ``prompt``, or ``fallback``."""
        assert self.llm is not None
        if not tracker.llm_usable():
            tracker.notes.append(f"skipped: {tracker.llm_failure}")
            return fallback
        text, info = invoke_text(
            self.llm,
            self.messages(prompt, user, **values),
            retries=self.settings.llm_max_retries,
            timeout_s=self.settings.llm_timeout_s,
            fallback=fallback,
            deadline=tracker.deadline,
        )
        _account(tracker, info)
        return text


def _account(tracker: Tracker, info: CallInfo) -> None:
    """Count a call's attempts and note a fallback."""
    tracker.calls += info.attempts
    if info.fell_back:
        tracker.notes.append(f"fallback: {', '.join(info.errors) or 'no usable reply'}")
    if info.unavailable and not tracker.llm_failure:
        tracker.llm_failure = info.failure


def emit(pieces: Iterable[str]) -> None:
    """Stream answer text pieces as token events."""
    writer = get_stream_writer()
    for piece in pieces:
        writer({"type": "token", "text": piece})


def emit_tokens(text: str) -> None:
    """Stream a text produced all at once (extractive, structural, canned) as word tokens."""
    emit(word_tokens(text))


NodeFn = Callable[[GraphState, GraphContext, Tracker], Update]


def as_node(name: str, fn: NodeFn, ctx: GraphContext) -> Callable[[GraphState], Update]:
    """A LangGraph node: runs ``fn`` (the store read as one version, :meth:`~geungeo.stores.base.ChunkStore.one_read`)
    and appends its flow step (seconds, LLM calls, notes)."""

    def run(state: GraphState) -> Update:
        tracker = Tracker(deadline=state.get("deadline"), llm_failure=state.get("llm_failure", ""))
        started = time.perf_counter()
        with ctx.engine.store.one_read():
            update = fn(state, ctx, tracker)
        if tracker.llm_failure and tracker.llm_failure != state.get("llm_failure", ""):
            update["llm_failure"] = tracker.llm_failure
        step = FlowStep(
            node=name,
            seconds=round(time.perf_counter() - started, 4),
            llm_calls=tracker.calls,
            note="; ".join(tracker.notes),
        )
        update["flow_log"] = [*state.get("flow_log", []), step]
        return update

    run.__name__ = name
    return run
