"""``run_query`` and ``stream_query``: the answer graph behind one small API.

Every interface (CLI, HTTP, UI, MCP, agent) calls these; conversations persist in a
LangGraph SQLite checkpointer under the data directory, keyed by conversation id. A question
asked outside a conversation runs on the same graph compiled without one: nothing of it is kept.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
import time
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from geungeo.answering.events import StreamEvent
from geungeo.answering.generation import LLM_UNAVAILABLE
from geungeo.answering.models import Answer, FlowStep
from geungeo.answering.synthesis import synthesize
from geungeo.engine import Engine, build_engine
from geungeo.graph.build import build_graph
from geungeo.graph.cache import AnswerCache
from geungeo.graph.context import GraphContext
from geungeo.graph.corrections import Correction, Corrections
from geungeo.graph.memory import Memory
from geungeo.graph.modes import answer_mode
from geungeo.graph.nodes.grading import answer_from_state
from geungeo.graph.state import STATE_MODELS, GraphState, turn_reset
from geungeo.llm import get_chat_model
from geungeo.retrieval.expansion import settings_lexicon
from geungeo.retrieval.hybrid import check_query
from geungeo.settings import Settings
from geungeo.sqlite import use_wal

__all__ = ["QueryRunner", "StreamEvent", "default_runner", "run_query", "stream_query"]

_COMPILED_GRAPHS = 8  # graphs kept for per-call settings (a benchmark's cache_enabled=False, an API option)


class QueryRunner:
    """Holds the engine, the chat model, the cache and the compiled graph."""

    def __init__(self, engine: Engine | None = None, *, llm: BaseChatModel | str | None = "auto") -> None:
        self.engine = engine or build_engine()
        self.settings = self.engine.settings
        self.llm = get_chat_model(self.settings) if llm == "auto" else llm
        data = self.settings.data_dir
        self._conn = sqlite3.connect(data / "conversations.sqlite", check_same_thread=False)
        use_wal(self._conn)  # every graph step writes a checkpoint: an answer must not wait for the disk
        allowed = [(m.__module__, m.__name__) for m in STATE_MODELS]
        self.checkpointer = SqliteSaver(self._conn, serde=JsonPlusSerializer(allowed_msgpack_modules=allowed))
        self.cache = AnswerCache(
            data / "cache" / "answers.sqlite", self.engine.embedder, self.engine.store, self.settings.cache_threshold
        )
        self.corrections = Corrections(
            data / "corrections.sqlite", self.engine.embedder, self.settings.correction_threshold
        )
        self.graph = build_graph(self._context(self.settings), self.checkpointer)
        self._one_off = build_graph(self._context(self.settings))
        # graphs compiled for per-call settings, by (remembered, overrides): compiling one takes ~40 ms
        self._graphs: dict[tuple[bool, str], Any] = {}
        self._graphs_lock = threading.Lock()

    def _context(self, settings: Settings) -> GraphContext:
        return GraphContext(
            engine=self.engine,
            settings=settings,
            llm=self.llm if not isinstance(self.llm, str) else None,
            lexicon=settings_lexicon(settings),
            structural=self.engine.structural,
            cache=self.cache if settings.cache_enabled else None,
            corrections=self.corrections if settings.corrections_enabled else None,
        )

    def _graph_for(self, overrides: dict[str, Any], *, remembered: bool) -> Any:
        """The graph to run: with the checkpointer for a conversation's turn, without one for a one-off question
        (nothing of it is kept, so writing each step's state to disk would be wasted)."""
        if not overrides:
            return self.graph if remembered else self._one_off
        key = (remembered, repr(sorted(overrides.items())))
        with self._graphs_lock:
            graph = self._graphs.get(key)
            if graph is None:
                if len(self._graphs) >= _COMPILED_GRAPHS:
                    self._graphs.pop(next(iter(self._graphs)))  # the oldest
                settings = self.settings.model_copy(update=overrides)
                graph = self._graphs[key] = build_graph(self._context(settings), self.checkpointer if remembered else None)
        return graph

    def _input(
        self, question: str, filters: str | None, settings: Settings, llm_failure: str, deadline: float | None
    ) -> dict[str, Any]:
        q = check_query(question, settings.max_query_chars)
        return {
            **turn_reset(),
            "question": q,
            "filters": filters,
            "history": [HumanMessage(q)],
            "deadline": deadline if deadline is not None else time.monotonic() + settings.answer_deadline_s,
            "llm_failure": llm_failure,
        }

    def stream(
        self, question: str, *, conversation_id: str | None = None, filters: str | None = None, **overrides: Any
    ) -> Iterator[StreamEvent]:
        """Node events and answer tokens as they happen, then ``{"type": "answer", "answer": Answer}``.

        The ``mode`` setting (or override) picks the answer graph or a registered :class:`AnswerMode`
        (``agent``: the tool-calling agent, which falls back to the graph when its model cannot call tools).
        """
        settings = self.settings.model_copy(update=overrides) if overrides else self.settings
        if settings.mode == "graph":
            yield from self._graph_stream(question, conversation_id=conversation_id, filters=filters, **overrides)
            return
        mode = answer_mode(settings.mode)
        q = check_query(question, settings.max_query_chars)
        graph_overrides = {k: v for k, v in overrides.items() if k not in ("mode", "agent_max_steps")}
        fallback = functools.partial(self._graph_stream, q, conversation_id=conversation_id, filters=filters, **graph_overrides)
        memory = Memory(self.graph, conversation_id)
        for event in mode(self._context(settings), q, fallback=fallback, filters=filters, memory=memory):
            if event["type"] == "answer":
                event["answer"].conversation_id = conversation_id
                event["answer"].structured = synthesize(event["answer"], self.settings.data_dir)
                _flag_llm_failure(event["answer"])
            yield event

    def _graph_stream(
        self,
        question: str,
        *,
        conversation_id: str | None = None,
        filters: str | None = None,
        llm_failure: str = "",
        deadline: float | None = None,
        **overrides: Any,
    ) -> Iterator[StreamEvent]:
        """The answer graph's events for one question (``llm_failure``, ``deadline``: carried over from a mode
        that falls back to the graph, so that a failed model is not asked again and the deadline stays)."""
        graph = self._graph_for(overrides, remembered=bool(conversation_id))
        settings = self.settings.model_copy(update=overrides) if overrides else self.settings
        # a conversation's turn is written once, when the graph ends: no run resumes from a step's checkpoint
        kept = {"config": {"configurable": {"thread_id": conversation_id}}, "durability": "exit"} if conversation_id else {}
        turn = self._input(question, filters, settings, llm_failure, deadline)
        state: GraphState = {}
        for mode, chunk in graph.stream(turn, stream_mode=["updates", "custom", "values"], **kept):
            if mode == "values":
                state = chunk
            elif mode == "custom":
                yield chunk
            else:
                for node, update in chunk.items():
                    steps = (update or {}).get("flow_log") or [FlowStep(node=node, seconds=0.0)]
                    step = steps[-1]
                    yield {"type": "node", "node": node, "seconds": step.seconds, "llm_calls": step.llm_calls, "note": step.note}
        answer = answer_from_state(state)
        answer.flow_log = list(state.get("flow_log", []))
        answer.llm_calls = sum(s.llm_calls for s in answer.flow_log)
        answer.conversation_id = conversation_id
        answer.structured = synthesize(answer, self.settings.data_dir)
        _flag_llm_failure(answer)
        yield {"type": "answer", "answer": answer}

    def run(self, question: str, *, conversation_id: str | None = None, filters: str | None = None, **overrides: Any) -> Answer:
        """The whole graph for one question; the Answer contract."""
        final: Answer | None = None
        for event in self.stream(question, conversation_id=conversation_id, filters=filters, **overrides):
            if event["type"] == "answer":
                final = event["answer"]
        assert final is not None
        return final

    def review_correction(self, correction_id: int, accept: bool, *, by: str) -> Correction:
        """Accept (or reject) a proposed correction; an accepted one clears the answer cache, since any cached
        answer may be the one it corrects."""
        reviewed = self.corrections.review(correction_id, "accepted" if accept else "rejected", by=by)
        if accept:
            self.cache.clear()
        return reviewed

    def close(self) -> None:
        self.corrections.close()
        self.cache.close()
        self._conn.close()
        self.engine.close()


def _flag_llm_failure(answer: Answer) -> None:
    """An answer written without the chat model that failed says so in its structured warnings too."""
    failed = [w for w in answer.warnings if w.startswith(LLM_UNAVAILABLE)]
    if failed:
        answer.structured.warnings = [*failed, *answer.structured.warnings]


_default: QueryRunner | None = None
_default_lock = threading.Lock()


def default_runner() -> QueryRunner:
    """The process-wide runner over the configured settings (built on first use)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = QueryRunner()
        return _default


def run_query(question: str, *, conversation_id: str | None = None, filters: str | None = None, **overrides: Any) -> Answer:
    """Answer ``question`` with citations (see :class:`~geungeo.answering.models.Answer`)."""
    return default_runner().run(question, conversation_id=conversation_id, filters=filters, **overrides)


def stream_query(
    question: str, *, conversation_id: str | None = None, filters: str | None = None, **overrides: Any
) -> Iterator[StreamEvent]:
    """Stream node events and answer tokens, ending with the Answer."""
    return default_runner().stream(question, conversation_id=conversation_id, filters=filters, **overrides)
