"""A conversation's turns, kept in the answer graph's checkpointer so every mode's turns share one history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage


@dataclass
class Memory:
    """The history of conversation ``thread_id`` in ``graph``'s checkpointer (none for a one-off question)."""

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
