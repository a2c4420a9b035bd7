"""One scripted chat model shared by every test of the answer graph.

A call is recognised by its prompt's file name (``prompts/<name>.md``), which its system message carries as
its ``name`` (see :func:`geungeo.prompts.system_message`); the script says what each prompt replies::

    model = ScriptedChatModel({
        "router": {"route": "search"},                        # dict: sent as JSON
        "judge": [Garbage, {"ok": True}],                     # list: in order, the last one repeats
        "generate": lambda msgs: "연차는 15일입니다 [1]",       # callable: computed from the messages
        "rewrite": TimeoutError(),                            # exception: raised
        "agent": [ToolCall("search_documents", {"query": "연차"}),  # a tool call (after ``bind_tools``)
                  tool_calls(ToolCall("get_article", {...}), ToolCall("answer", {...}))],  # several in one turn
    })

``supports_tools=False`` makes ``bind_tools`` raise ``NotImplementedError``, like a provider without tool calling.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import invalid_tool_call, tool_call, tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from geungeo.llm.base import node_of


class _Marker(Enum):
    GARBAGE = "garbage"


Garbage = _Marker.GARBAGE
"""A scripted reply of broken (truncated) JSON."""

GARBAGE_TEXT = '{"answer": "근거에 따르면 연차는'


@dataclass(frozen=True)
class ToolCall:
    """A scripted reply that calls tool ``name``; ``args`` that are not a dict (e.g. a broken JSON string)
    make an ``invalid_tool_calls`` entry, as a provider reports unparseable arguments."""

    name: str
    args: Any = field(default_factory=dict)
    id: str | None = None


def tool_calls(*calls: ToolCall, text: str = "") -> AIMessage:
    """One reply that makes several tool calls (optionally with some text)."""
    return _tool_message(list(calls), text, [f"call_{i}" for i in range(1, len(calls) + 1)])


def _tool_message(calls: list[ToolCall], text: str, ids: list[str]) -> AIMessage:
    valid, invalid = [], []
    for call, default_id in zip(calls, ids, strict=True):
        if isinstance(call.args, dict):
            valid.append(tool_call(name=call.name, args=call.args, id=call.id or default_id))
        else:
            raw = call.args if isinstance(call.args, str) else repr(call.args)
            invalid.append(invalid_tool_call(name=call.name, args=raw, id=call.id or default_id, error="not a JSON object"))
    return AIMessage(content=text, tool_calls=valid, invalid_tool_calls=invalid)


Response = str | dict[str, Any] | BaseException | Literal[_Marker.GARBAGE] | ToolCall | AIMessage
Script = Response | list[Response] | Callable[[list[BaseMessage]], Response]


class ScriptedChatModel(BaseChatModel):
    """A real ``BaseChatModel`` that replies from a per-node script and records every call."""

    script: dict[str, Any] = Field(default_factory=dict)
    default: Any = ""
    delay_s: float = Field(0.0, description="Seconds each call sleeps before replying.")
    chunk_chars: int = Field(3, description="Characters per streamed chunk.")
    supports_tools: bool = Field(True, description="False: bind_tools raises NotImplementedError.")
    _calls: list[tuple[str, list[BaseMessage]]] = PrivateAttr(default_factory=list)
    _cursor: dict[str, int] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _tool_ids: int = PrivateAttr(0)
    _bound: list[str] = PrivateAttr(default_factory=list)

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
    def bound_tools(self) -> list[str]:
        """Names of the tools the last ``bind_tools`` bound."""
        return self._bound

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """This model with ``tools`` bound (recorded in :attr:`bound_tools`); replies come from the script as usual."""
        if not self.supports_tools:
            raise NotImplementedError("this scripted model does not call tools")
        formatted = [convert_to_openai_tool(t) for t in tools]
        self._bound = [t["function"]["name"] for t in formatted]
        return self.bind(tools=formatted, **({"tool_choice": tool_choice} if tool_choice else {}), **kwargs)

    def reply(self, messages: list[BaseMessage]) -> str:
        """Record the call and return the scripted text (raising a scripted exception)."""
        return self.respond(messages).text

    def respond(self, messages: list[BaseMessage]) -> AIMessage:
        """Record the call and return the scripted reply as a message (raising a scripted exception)."""
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
        if isinstance(entry, AIMessage):
            return entry
        if isinstance(entry, ToolCall):
            with self._lock:
                self._tool_ids += 1
                ident = f"call_{self._tool_ids}"
            return _tool_message([entry], "", [ident])
        if entry is Garbage:
            return AIMessage(content=GARBAGE_TEXT)
        return AIMessage(content=json.dumps(entry, ensure_ascii=False) if isinstance(entry, dict) else str(entry))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.respond(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self.respond(messages)
        text = message.text
        for start in range(0, len(text), self.chunk_chars):
            piece = text[start : start + self.chunk_chars]
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        calls = [
            tool_call_chunk(name=c["name"], args=json.dumps(c["args"], ensure_ascii=False), id=c["id"], index=i)
            for i, c in enumerate(message.tool_calls)
        ]
        if calls:
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=calls))
