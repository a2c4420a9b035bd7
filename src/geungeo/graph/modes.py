"""How the runner answers in a mode other than the answer graph: an :class:`AnswerMode` registered by name.

The graph does not know who answers in another mode: the composition code above it (the interfaces, or
whoever builds a :class:`~geungeo.graph.runner.QueryRunner`) registers the implementation, e.g. the
tool-calling agent (:mod:`geungeo.agent` registers ``agent`` when imported).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from geungeo.answering.events import StreamEvent
from geungeo.errors import ConfigError
from geungeo.graph.context import GraphContext


class GraphStream(Protocol):
    """The answer graph's own run of the question (a mode falls back to it), told why the chat model failed, if it
    did, and the question's deadline, so that it does not ask a failed model again or start the clock anew."""

    def __call__(self, *, llm_failure: str = "", deadline: float | None = None) -> Iterator[StreamEvent]: ...


@dataclass
class Memory:
    """A conversation's turns, kept in the answer graph's checkpointer so every mode's turns share one history."""

    graph: Any
    thread_id: str | None

    @property
    def _config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.thread_id}}

    def history(self) -> list[BaseMessage]:
        if not self.thread_id:
            return []
        return list(self.graph.get_state(self._config).values.get("history", []))

    def record(self, question: str, answer: str) -> None:
        if self.thread_id:
            turn = {"history": [HumanMessage(question), AIMessage(answer)]}
            self.graph.update_state(self._config, turn, as_node="remember")


class AnswerMode(Protocol):
    """Answers one question: node and token events, then the answer event (``fallback`` runs the graph instead)."""

    def __call__(
        self, ctx: GraphContext, question: str, *, fallback: GraphStream, filters: str | None, memory: Memory
    ) -> Iterator[StreamEvent]: ...


_MODES: dict[str, AnswerMode] = {}


def register_mode(name: str, mode: AnswerMode) -> None:
    """Make ``GEUNGEO_MODE=<name>`` answer with ``mode``."""
    _MODES[name] = mode


def answer_mode(name: str) -> AnswerMode:
    """The mode registered as ``name``."""
    mode = _MODES.get(name)
    if mode is None:
        raise ConfigError(f"answer mode '{name}' is not available (registered: {', '.join(sorted(_MODES)) or 'none'})")
    return mode
