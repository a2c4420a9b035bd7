"""Answers: one question (or a conversation's next turn) through the runner, checked before it starts.

The runner (:class:`~geungeo.graph.runner.QueryRunner`) is called only through its public entry points,
``run`` and ``stream``; what the user sent is checked here first (valid Unicode, length, filter, a store
that holds something), so that a stream never starts for a question that cannot be answered.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from geungeo.answering.events import StreamEvent
from geungeo.answering.models import Answer
from geungeo.errors import EmptyStoreError
from geungeo.filters import check_documents, parse_filter
from geungeo.graph.runner import QueryRunner
from geungeo.services.inputs import user_query, valid_text

EMPTY_STORE = (
    "the store is empty: ingest documents first (geungeo ingest PATH, or upload them) / "
    "저장된 문서가 없습니다: 먼저 문서를 색인하세요"
)


@dataclass(frozen=True)
class Question:
    """A checked question: the text the user sent (NFC, trimmed) and its filter."""

    text: str
    filters: str | None = None


@dataclass(frozen=True)
class Turn:
    """One earlier turn of a transcript a client assembled itself."""

    role: Literal["user", "assistant"]
    text: str


class AnswerService:
    """Asks the runner, after checking what the user sent."""

    def __init__(self, runner: QueryRunner) -> None:
        self.runner = runner
        self.settings = runner.settings

    def check(self, question: str, filters: str | None = None) -> Question:
        """The question to run; QueryError (empty, too long, not Unicode, bad filter), EmptyStoreError."""
        text = user_query(question, self.settings.max_query_chars, what="question")
        wanted = valid_text(filters or "", what="filter").strip() or None
        if self.runner.engine.store.count() == 0:
            raise EmptyStoreError(EMPTY_STORE)
        if wanted:
            check_documents(parse_filter(wanted), self.runner.engine.store.documents())
        return Question(text, wanted)

    def ask(self, question: Question, conversation_id: str | None = None) -> Answer:
        """The whole answer (graph or agent, per ``GEUNGEO_MODE``)."""
        return self.runner.run(question.text, conversation_id=conversation_id, filters=question.filters)

    def stream(self, question: Question, conversation_id: str | None = None) -> Iterator[StreamEvent]:
        """``node`` and ``token`` events as they happen, then ``{"type": "answer", "answer": Answer}``."""
        yield from self.runner.stream(question.text, conversation_id=conversation_id, filters=question.filters)

    def has_conversation(self, conversation_id: str) -> bool:
        """Whether the conversation has any turn stored."""
        state = self.runner.graph.get_state({"configurable": {"thread_id": conversation_id}})
        return bool(state.values.get("history"))

    def seed_conversation(self, conversation_id: str, turns: Sequence[Turn]) -> None:
        """Start a conversation from a transcript (a client that keeps its own history): its turns become the
        conversation's history, so that a follow-up is read in their light."""
        messages: list[BaseMessage] = [
            HumanMessage(valid_text(t.text)) if t.role == "user" else AIMessage(valid_text(t.text))
            for t in turns if t.text.strip()
        ]
        if messages:
            config = {"configurable": {"thread_id": conversation_id}}
            self.runner.graph.update_state(config, {"history": messages}, as_node="remember")
