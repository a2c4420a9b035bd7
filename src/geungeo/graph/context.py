"""What every node needs (engine, chat model, settings, cache …) and the node wrapper.

The wrapper times each node, counts its LLM calls and appends a step to the flow log, so
that nodes themselves only do their work.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.config import get_stream_writer
from pydantic import BaseModel

from geungeo.engine import Engine
from geungeo.graph.cache import SemanticCache
from geungeo.graph.corrections import Corrections
from geungeo.graph.state import GraphState
from geungeo.llm.base import CallInfo, invoke_json, invoke_text, node_tag, stream_text
from geungeo.retrieval.expansion import Lexicon
from geungeo.retrieval.structural import StructuralLookup
from geungeo.settings import Settings

M = TypeVar("M", bound=BaseModel)
Update = dict[str, Any]


@dataclass
class Tracker:
    """LLM calls and notes of one node run."""

    calls: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass
class GraphContext:
    """Shared, read-only collaborators of the nodes."""

    engine: Engine
    settings: Settings
    llm: BaseChatModel | None
    lexicon: Lexicon
    structural: StructuralLookup
    cache: SemanticCache | None = None
    corrections: Corrections | None = None

    @property
    def extractive(self) -> bool:
        return self.llm is None

    def messages(self, node: str, system: str, user: str) -> list[BaseMessage]:
        return [SystemMessage(f"{node_tag(node)}\n{system}"), HumanMessage(user)]

    def ask_json(self, tracker: Tracker, node: str, system: str, user: str, schema: type[M], fallback: M) -> tuple[M, bool]:
        """A validated structured reply, or ``fallback`` (and False) when the model cannot give one."""
        assert self.llm is not None
        result, info = invoke_json(
            self.llm,
            self.messages(node, system, user),
            schema,
            retries=self.settings.llm_max_retries,
            timeout_s=self.settings.llm_timeout_s,
            fallback=fallback,
        )
        _account(tracker, info)
        return result, not info.fell_back

    def ask_text(self, tracker: Tracker, node: str, system: str, user: str, fallback: str = "") -> str:
        assert self.llm is not None
        text, info = invoke_text(
            self.llm,
            self.messages(node, system, user),
            retries=self.settings.llm_max_retries,
            timeout_s=self.settings.llm_timeout_s,
            fallback=fallback,
        )
        _account(tracker, info)
        return text

    def stream(self, tracker: Tracker, node: str, system: str, user: str) -> Iterator[str]:
        assert self.llm is not None
        pieces, info = stream_text(
            self.llm,
            self.messages(node, system, user),
            retries=self.settings.llm_max_retries,
            timeout_s=self.settings.llm_timeout_s,
        )
        yield from pieces
        tracker.calls += info.attempts
        if info.fell_back or info.truncated:
            tracker.notes.append(f"stream {'cut short' if info.truncated else 'failed'}: {', '.join(info.errors)}")


def _account(tracker: Tracker, info: CallInfo) -> None:
    """Count a call's attempts and note a fallback."""
    tracker.calls += info.attempts
    if info.fell_back:
        tracker.notes.append(f"fallback: {', '.join(info.errors) or 'no usable reply'}")


def emit_tokens(text: str) -> None:
    """Stream a text produced all at once (extractive, structural, canned) as word tokens."""
    writer = get_stream_writer()
    for piece in re.findall(r"\S+\s*", text):
        writer({"type": "token", "text": piece})


NodeFn = Callable[[GraphState, GraphContext, Tracker], Update]


def as_node(name: str, fn: NodeFn, ctx: GraphContext) -> Callable[[GraphState], Update]:
    """A LangGraph node: runs ``fn`` and appends its flow step (seconds, LLM calls, notes)."""

    def run(state: GraphState) -> Update:
        tracker = Tracker()
        started = time.perf_counter()
        update = fn(state, ctx, tracker)
        step = {
            "node": name,
            "seconds": round(time.perf_counter() - started, 4),
            "llm_calls": tracker.calls,
            "note": "; ".join(tracker.notes),
        }
        update["flow_log"] = [*state.get("flow_log", []), step]
        return update

    run.__name__ = name
    return run
