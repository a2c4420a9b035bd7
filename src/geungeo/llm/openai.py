"""Any OpenAI-compatible ``/chat/completions`` server: OpenAI, vLLM, Ollama, llama.cpp server.

Tool calling: :meth:`OpenAIChat.bind_tools` sends OpenAI ``tools`` (and ``tool_choice``); the reply's
``tool_calls`` become ``AIMessage.tool_calls`` (arguments that are not a JSON object become
``invalid_tool_calls``), and tool calls and ``ToolMessage`` results go back on the wire in OpenAI's shape.

No retries here: the helpers in :mod:`geungeo.llm.base` own the retry policy. Failures surface as
:class:`~geungeo.llm.base.LLMError` with a kind (timeout, rate_limit, server, connection, rejected)
and a message that never contains the API key.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ChatMessage, ToolMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import InvalidToolCall, ToolCall, invalid_tool_call, tool_call, tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr, SecretStr

from geungeo.llm.base import LLMError

_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


class OpenAIChat(BaseChatModel):
    """Chat completions over httpx; ``_stream`` parses the server-sent events of ``stream: true``."""

    model: str
    base_url: str = "https://api.openai.com/v1"
    api_key: SecretStr = SecretStr("")
    temperature: float = 0.1
    max_tokens: int = 1024
    timeout_s: float = 60.0
    _client: httpx.Client = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        key = self.api_key.get_secret_value()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(headers=headers, timeout=self.timeout_s)

    @property
    def _llm_type(self) -> str:
        return "openai-compatible"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model, "base_url": self.base_url, "temperature": self.temperature, "max_tokens": self.max_tokens}

    @property
    def url(self) -> str:
        return f"{self.base_url.rstrip('/')}/chat/completions"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """This model sending OpenAI ``tools`` (and ``tool_choice``: auto, none, required/any, a tool's name) on every call."""
        kwargs["tools"] = [convert_to_openai_tool(t) for t in tools]
        if tool_choice:
            choice = "required" if tool_choice == "any" else tool_choice
            kwargs["tool_choice"] = (
                choice if choice in ("auto", "none", "required") else {"type": "function", "function": {"name": choice}}
            )
        return self.bind(**kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._mapped_errors():
            resp = self._client.post(self.url, json=self._payload(messages, stop, stream=False, **kwargs))
        if resp.status_code != 200:
            raise self._status_error(resp)
        try:
            data = resp.json()
            choice = data["choices"][0]
            content = choice["message"].get("content") or ""
            calls, invalid = _tool_calls(choice["message"].get("tool_calls") or [])
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise LLMError(f"LLM server {self.url} returned an unexpected body ({type(exc).__name__})", "server") from None
        meta = {"finish_reason": choice.get("finish_reason"), "model_name": data.get("model", self.model)}
        message = AIMessage(
            content=content,
            tool_calls=calls,
            invalid_tool_calls=invalid,
            response_metadata=meta,
            usage_metadata=_usage(data.get("usage")),
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        payload = self._payload(messages, stop, stream=True, **kwargs)
        with self._mapped_errors(), self._client.stream("POST", self.url, json=payload) as resp:
            if resp.status_code != 200:
                resp.read()
                raise self._status_error(resp)
            for line in resp.iter_lines():
                if not line.startswith("data:"):
                    continue  # blank separators, ": keep-alive" comments, event names
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                chunk = self._event_chunk(data)
                if chunk is not None:
                    if run_manager:
                        run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                    yield chunk

    def _event_chunk(self, data: str) -> ChatGenerationChunk | None:
        try:
            event = json.loads(data)
        except ValueError:
            raise LLMError(f"LLM server {self.url} sent a malformed stream event", "server") from None
        if "error" in event:
            raise LLMError(f"LLM server {self.url} failed mid-stream: {self._redact(_detail(event))}", "server")
        choices = event.get("choices") or [{}]
        delta = choices[0].get("delta") or {}
        text = delta.get("content") or ""
        tools = [
            tool_call_chunk(
                name=(tc.get("function") or {}).get("name"),
                args=(tc.get("function") or {}).get("arguments"),
                id=tc.get("id"),
                index=tc.get("index"),
            )
            for tc in delta.get("tool_calls") or []
        ]
        finish = choices[0].get("finish_reason")
        if not text and not finish and not tools:
            return None
        meta = {"finish_reason": finish, "model_name": event.get("model", self.model)} if finish else {}
        return ChatGenerationChunk(message=AIMessageChunk(content=text, tool_call_chunks=tools, response_metadata=meta))

    def _payload(self, messages: list[BaseMessage], stop: list[str] | None, *, stream: bool, **kwargs: Any) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [wire_message(m) for m in messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stream": stream,
        }
        if stop:
            payload["stop"] = stop
        return payload | kwargs

    @contextmanager
    def _mapped_errors(self) -> Iterator[None]:
        try:
            yield
        except httpx.TimeoutException:
            raise LLMError(f"LLM server {self.url} timed out after {self.timeout_s:g}s", "timeout") from None
        except httpx.HTTPError as exc:
            raise LLMError(f"cannot reach LLM server {self.url} ({type(exc).__name__})", "connection") from None

    def _status_error(self, resp: httpx.Response) -> LLMError:
        status = resp.status_code
        if status == 429:
            kind, what = "rate_limit", "is rate limiting"
        elif status == 408:
            kind, what = "timeout", "timed out"
        elif status >= 500 or status == 409:
            kind, what = "server", "failed"
        else:
            kind, what = "rejected", "rejected the request"
        try:
            detail = _detail(resp.json())
        except ValueError:
            detail = resp.text[:200]
        suffix = f": {self._redact(detail)}" if detail.strip() else ""
        return LLMError(f"LLM server {self.url} {what} (HTTP {status}){suffix}", kind)

    def _redact(self, text: str) -> str:
        key = self.api_key.get_secret_value()
        return text.replace(key, "***") if key else text


def wire_message(message: BaseMessage) -> dict[str, Any]:
    """A message as a chat-completions entry: ``{role, content}``, plus ``tool_calls`` or ``tool_call_id``."""
    if isinstance(message, ToolMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.text}
    if isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
        calls = [(c["id"], c["name"], json.dumps(c["args"], ensure_ascii=False)) for c in message.tool_calls]
        calls += [(c["id"], c["name"] or "", c["args"] or "") for c in message.invalid_tool_calls]  # answered too
        wired = [{"id": i, "type": "function", "function": {"name": name, "arguments": args}} for i, name, args in calls]
        return {"role": "assistant", "content": message.text or None, "tool_calls": wired}
    role = message.role if isinstance(message, ChatMessage) else _ROLES.get(message.type)
    if role is None:
        raise ValueError(f"unsupported message type for chat completions: {message.type}")
    return {"role": role, "content": message.text}


def _tool_calls(raw: list[dict[str, Any]]) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """OpenAI ``tool_calls`` as tool calls; arguments that are not a JSON object make an invalid call."""
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for entry in raw:
        fn = entry.get("function") or {}
        name, arguments, call_id = str(fn.get("name") or ""), fn.get("arguments"), entry.get("id")
        try:
            args = json.loads(arguments) if arguments else {}
        except (TypeError, ValueError):
            args = None
        if isinstance(args, dict) and name:
            calls.append(tool_call(name=name, args=args, id=call_id))
        else:
            text = arguments if isinstance(arguments, str) else json.dumps(arguments)
            invalid.append(invalid_tool_call(name=name, args=text, id=call_id, error="arguments are not a JSON object"))
    return calls, invalid


def _detail(body: Any) -> str:
    """The server's own error message, cut short."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    return str(error if error is not None else body)[:200]


def _usage(usage: Any) -> UsageMetadata | None:
    if not isinstance(usage, dict):
        return None
    prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    return UsageMetadata(
        input_tokens=prompt, output_tokens=completion, total_tokens=int(usage.get("total_tokens") or prompt + completion)
    )
