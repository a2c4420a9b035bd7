"""One scripted chat model shared by every test of the answer graph.

The node a call belongs to is read from the ``[node:<name>]`` tag that opens the prompt's system
message (see :func:`geungeo.llm.base.node_tag`); the script says what each node replies::

    model = ScriptedChatModel({
        "router": {"route": "search"},                        # dict: sent as JSON
        "judge": [Garbage, {"ok": True}],                     # list: in order, the last one repeats
        "generate": lambda msgs: "연차는 15일입니다 [1]",       # callable: computed from the messages
        "rewrite": TimeoutError(),                            # exception: raised
    })
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from enum import Enum
from typing import Any, Literal

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field, PrivateAttr

from geungeo.llm.base import node_of


class _Marker(Enum):
    GARBAGE = "garbage"


Garbage = _Marker.GARBAGE
"""A scripted reply of broken (truncated) JSON."""

GARBAGE_TEXT = '{"answer": "근거에 따르면 연차는'

Response = str | dict[str, Any] | BaseException | Literal[_Marker.GARBAGE]
Script = Response | list[Response] | Callable[[list[BaseMessage]], Response]


class ScriptedChatModel(BaseChatModel):
    """A real ``BaseChatModel`` that replies from a per-node script and records every call."""

    script: dict[str, Any] = Field(default_factory=dict)
    default: Any = ""
    delay_s: float = Field(0.0, description="Seconds each call sleeps before replying.")
    chunk_chars: int = Field(3, description="Characters per streamed chunk.")
    _calls: list[tuple[str, list[BaseMessage]]] = PrivateAttr(default_factory=list)
    _cursor: dict[str, int] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, script: Mapping[str, Script] | None = None, default: Script = "", **kwargs: Any) -> None:
        super().__init__(script=dict(script or {}), default=default, **kwargs)

    @property
    def calls(self) -> list[tuple[str, list[BaseMessage]]]:
        """Every call so far as ``(node, messages)``, in order."""
        return self._calls

    def count(self, node: str) -> int:
        """How many calls ``node`` made."""
        return sum(1 for name, _ in self._calls if name == node)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def reply(self, messages: list[BaseMessage]) -> str:
        """Record the call and return the scripted text (raising a scripted exception)."""
        node = node_of(messages)
        with self._lock:
            self._calls.append((node, list(messages)))
            entry = self.script.get(node, self.default)
            if isinstance(entry, list):
                step = self._cursor.get(node, 0)
                self._cursor[node] = step + 1
                entry = entry[min(step, len(entry) - 1)]
        if self.delay_s:
            time.sleep(self.delay_s)
        if callable(entry):
            entry = entry(list(messages))
        if isinstance(entry, BaseException):
            raise entry
        if entry is Garbage:
            return GARBAGE_TEXT
        return json.dumps(entry, ensure_ascii=False) if isinstance(entry, dict) else str(entry)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply(messages)))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text = self.reply(messages)
        for start in range(0, len(text), self.chunk_chars):
            piece = text[start : start + self.chunk_chars]
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
