"""How the runner answers in a mode other than the answer graph: an :class:`AnswerMode` registered by name.

The graph does not know who answers in another mode: the composition code above it registers the
implementation, as an object or as ``"module:attribute"`` imported on first use (the interfaces register
``agent`` so, keeping start-up cheap; importing :mod:`geungeo.agent` registers it too).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from geungeo.errors import ConfigError

if TYPE_CHECKING:
    from geungeo.answering.events import StreamEvent
    from geungeo.graph.context import GraphContext
    from geungeo.graph.memory import Memory


class GraphStream(Protocol):
    """The answer graph's own run of the question (a mode falls back to it), told why the chat model failed, if it
    did, and the question's deadline, so that it does not ask a failed model again or start the clock anew."""

    def __call__(self, *, llm_failure: str = "", deadline: float | None = None) -> Iterator[StreamEvent]: ...


class AnswerMode(Protocol):
    """Answers one question: node and token events, then the answer event (``fallback`` runs the graph instead)."""

    def __call__(
        self, ctx: GraphContext, question: str, *, fallback: GraphStream, filters: str | None, memory: Memory
    ) -> Iterator[StreamEvent]: ...


_MODES: dict[str, AnswerMode | str] = {}


def register_mode(name: str, mode: AnswerMode | str) -> None:
    """Make ``GEUNGEO_MODE=<name>`` answer with ``mode`` (or the ``"module:attribute"`` it names)."""
    _MODES[name] = mode


def answer_mode(name: str) -> AnswerMode:
    """The mode registered as ``name``."""
    mode = _MODES.get(name)
    if mode is None:
        raise ConfigError(f"answer mode '{name}' is not available (registered: {', '.join(sorted(_MODES)) or 'none'})")
    if isinstance(mode, str):
        module, _, attribute = mode.partition(":")
        mode = _MODES[name] = getattr(importlib.import_module(module), attribute)
    return mode
