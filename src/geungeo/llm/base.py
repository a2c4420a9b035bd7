"""The chat-model contract (langchain-core ``BaseChatModel``) and the helpers every graph node calls.

Nodes never call a model directly: :func:`invoke_json`, :func:`invoke_text`, :func:`stream_text` (and, for
tool-calling turns, :func:`invoke_message`) bound each attempt by a deadline, retry failures with exponential
backoff and, after the last one, hand back the caller's fallback instead of raising. Each reports what
happened in a :class:`CallInfo`.

A prompt's system message carries the prompt's name (:func:`geungeo.prompts.system_message`), read back by
:func:`node_of`, so logs, call records and the scripted test model can tell which prompt a call is.
"""

from __future__ import annotations

import contextvars
import functools
import json
import queue
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ValidationError

from geungeo.errors import ProviderError

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_END = object()


def node_of(messages: Sequence[BaseMessage]) -> str:
    """The prompt a call is, read from its system message's ``name`` ('' if it has none)."""
    for message in messages:
        if isinstance(message, SystemMessage):
            return message.name or ""
    return ""


class LLMError(ProviderError):
    """A chat-model failure whose ``kind`` the retry policy reads: timeout, rate_limit, server, connection, rejected."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class DeadlineExceeded(TimeoutError):
    """The caller's overall deadline passed: no further attempt starts."""

    def __init__(self) -> None:
        super().__init__("the answer deadline passed")


class _BadOutput(Exception):
    """The model answered, but not with what was asked for (kind: empty, invalid_json, validation)."""

    def __init__(self, kind: str, detail: str, raw: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.raw = raw


@dataclass
class CallInfo:
    """What one helper call did: attempts, the kind of each failure, time spent, whether it fell back."""

    node: str = ""
    attempts: int = 0
    errors: list[str] = field(default_factory=list)
    last_error: str = ""
    last_message: str = ""  # the last error's message alone
    seconds: float = 0.0
    fell_back: bool = False
    truncated: bool = False  # a stream failed after it had yielded text
    model_failed: bool = False  # the last failure was the model's (error, timeout, deadline), not a bad reply

    @property
    def ok(self) -> bool:
        return not (self.fell_back or self.truncated)

    @property
    def failure(self) -> str:
        """Why the call failed, for a person: the last error's message (keys redacted by the provider), else the kinds."""
        return self.last_message or ", ".join(self.errors) or "no reply"

    @property
    def unavailable(self) -> bool:
        """Every attempt failed and the last one because the model could not be reached or did not reply."""
        return self.fell_back and self.model_failed

    def _record(self, exc: Exception) -> str:
        self.model_failed = not isinstance(exc, _BadOutput)
        kind = error_kind(exc)
        self.errors.append(kind)
        self.last_error = f"{type(exc).__name__}: {exc}"[:300]
        self.last_message = (str(exc) or type(exc).__name__)[:300]
        return kind


def error_kind(exc: BaseException) -> str:
    """Classify a failure: timeout, rate_limit, server, connection, rejected, provider, invalid_json, ... or error."""
    if isinstance(exc, LLMError | _BadOutput):
        return exc.kind
    if isinstance(exc, DeadlineExceeded):
        return "deadline"
    if isinstance(exc, TimeoutError):
        return "timeout"
    text = str(exc).lower()
    if "429" in text or "rate limit" in text:
        return "rate_limit"
    if "timed out" in text or "timeout" in text:
        return "timeout"
    return "provider" if isinstance(exc, ProviderError) else "error"


def extract_json(text: str) -> Any:
    """The first JSON object in a reply: bare, inside a ```json fence, or after leading prose."""
    decoder = json.JSONDecoder()
    for candidate in [*(m.group(1) for m in _FENCE.finditer(text)), text]:
        for brace in re.finditer(r"\{", candidate):
            try:
                return decoder.raw_decode(candidate, brace.start())[0]
            except json.JSONDecodeError:
                continue
    raise ValueError("the reply holds no JSON object")


def parse_json(text: str, schema: type[T]) -> T:
    """Extract and validate a reply; raises ``_BadOutput`` (kind invalid_json or validation)."""
    try:
        obj = extract_json(text)
    except ValueError as exc:
        raise _BadOutput("invalid_json", str(exc), text) from None
    try:
        return schema.model_validate(obj)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in exc.errors()[:3])
        raise _BadOutput("validation", problems, text) from None


def invoke_json(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    schema: type[T],
    *,
    fallback: T,
    retries: int = 2,
    timeout_s: float | None = None,
    backoff_s: float = 0.5,
    deadline: float | None = None,
) -> tuple[T, CallInfo]:
    """Ask for one JSON object matching ``schema``; after an unusable reply the model is told what was wrong."""
    fields = ", ".join(schema.model_fields)

    def correct(bad: _BadOutput) -> list[BaseMessage]:
        note = (
            f"Your previous reply could not be used ({bad.kind}: {bad}). Reply again with only one JSON object "
            f"with the fields {fields} — no prose and no code fence."
        )
        return [*messages, AIMessage(content=bad.raw[:2000]), HumanMessage(content=note)]

    value, info = _attempts(
        model, messages, lambda m: parse_json(m.text, schema), correct, retries, timeout_s, backoff_s, deadline
    )
    return (fallback if value is None else value), info


def invoke_text(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    fallback: str = "",
    retries: int = 2,
    timeout_s: float | None = None,
    backoff_s: float = 0.5,
    deadline: float | None = None,
) -> tuple[str, CallInfo]:
    """Ask for plain text; an empty reply counts as a failure."""
    value, info = _attempts(model, messages, lambda m: _non_empty(m.text), None, retries, timeout_s, backoff_s, deadline)
    return (fallback if value is None else value), info


def invoke_message(
    model: Runnable[Any, BaseMessage],
    messages: Sequence[BaseMessage],
    *,
    retries: int = 2,
    timeout_s: float | None = None,
    backoff_s: float = 0.5,
    deadline: float | None = None,
) -> tuple[AIMessage | None, CallInfo]:
    """One whole reply (text and/or tool calls), e.g. of a model with tools bound; None when every attempt failed.

    A reply with neither text nor tool calls counts as a failure (kind ``empty``).
    """
    return _attempts(model, messages, _usable_message, None, retries, timeout_s, backoff_s, deadline)


def stream_text(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    fallback: str = "",
    retries: int = 2,
    timeout_s: float | None = None,
    backoff_s: float = 0.5,
    deadline: float | None = None,
) -> tuple[Iterator[str], CallInfo]:
    """Stream the reply as text pieces via ``model.stream``; ``info`` is complete once the iterator is exhausted.

    A failure before the first piece is retried; one after it ends the stream with ``info.truncated``.
    When every attempt fails, the fallback (if any) is yielded as one piece. ``timeout_s`` bounds the wait
    for each piece.
    """
    info = CallInfo(node=node_of(messages))
    return _stream(model, list(messages), info, fallback, retries, timeout_s, backoff_s, deadline), info


def _non_empty(text: str) -> str:
    if not text.strip():
        raise _BadOutput("empty", "the reply was empty", text)
    return text


def _usable_message(message: BaseMessage) -> AIMessage:
    if not isinstance(message, AIMessage):
        raise _BadOutput("empty", f"the reply was a {type(message).__name__}", message.text)
    if not (message.text.strip() or message.tool_calls or message.invalid_tool_calls):
        raise _BadOutput("empty", "the reply was empty", message.text)
    return message


def _attempts(
    model: Runnable[Any, BaseMessage],
    messages: Sequence[BaseMessage],
    parse: Callable[[BaseMessage], R],
    correct: Callable[[_BadOutput], list[BaseMessage]] | None,
    retries: int,
    timeout_s: float | None,
    backoff_s: float,
    deadline: float | None = None,
) -> tuple[R | None, CallInfo]:
    info = CallInfo(node=node_of(messages))
    start = time.perf_counter()
    convo = list(messages)
    try:
        for attempt in range(retries + 1):
            wait = _remaining(timeout_s, deadline)
            if wait is not None and wait <= 0:
                info._record(DeadlineExceeded())
                break
            info.attempts += 1
            try:
                reply = _with_deadline(functools.partial(model.invoke, convo), wait)
                return parse(reply), info
            except Exception as exc:
                kind = info._record(exc)
                if isinstance(exc, _BadOutput) and correct is not None:
                    convo = correct(exc)
                if kind in ("rejected", "deadline") or attempt == retries:
                    break
                _backoff(exc, attempt, backoff_s, deadline)
        info.fell_back = True
        return None, info
    finally:
        info.seconds = time.perf_counter() - start


def _stream(
    model: BaseChatModel,
    messages: list[BaseMessage],
    info: CallInfo,
    fallback: str,
    retries: int,
    timeout_s: float | None,
    backoff_s: float,
    deadline: float | None = None,
) -> Iterator[str]:
    start = time.perf_counter()
    try:
        for attempt in range(retries + 1):
            if deadline is not None and time.monotonic() >= deadline:
                info._record(DeadlineExceeded())
                break
            info.attempts += 1
            got = False
            try:
                for piece in _pump(model, messages, timeout_s, deadline):
                    got = True
                    yield piece
                if got:
                    return
                raise _BadOutput("empty", "the stream was empty", "")
            except Exception as exc:
                kind = info._record(exc)
                if got:
                    info.truncated = True
                    return
                if kind in ("rejected", "deadline") or attempt == retries:
                    break
                _backoff(exc, attempt, backoff_s, deadline)
        info.fell_back = True
        if fallback:
            yield fallback
    finally:
        info.seconds = time.perf_counter() - start


def _remaining(timeout_s: float | None, deadline: float | None) -> float | None:
    """How long the next wait may last: the per-call timeout, cut at the deadline (None: unbounded)."""
    if deadline is None:
        return timeout_s
    left = deadline - time.monotonic()
    return left if timeout_s is None else min(timeout_s, left)


def _backoff(exc: Exception, attempt: int, backoff_s: float, deadline: float | None = None) -> None:
    """Wait before the next attempt (never past the deadline); a bad reply from a working model is asked again at once."""
    if not isinstance(exc, _BadOutput):
        wait = min(8.0, backoff_s * 2**attempt)
        if deadline is not None:
            wait = max(0.0, min(wait, deadline - time.monotonic()))
        time.sleep(wait)


def _with_deadline(fn: Callable[[], R], timeout_s: float | None) -> R:
    """Run ``fn``; with a deadline it runs in a daemon thread that is abandoned (not killed) on timeout."""
    if timeout_s is None:
        return fn()
    future: Future[R] = Future()
    ctx = contextvars.copy_context()

    def run() -> None:
        try:
            future.set_result(ctx.run(fn))
        except Exception as exc:
            future.set_exception(exc)

    threading.Thread(target=run, daemon=True, name="geungeo-llm").start()
    return future.result(timeout=timeout_s)


def _pump(
    model: BaseChatModel, messages: list[BaseMessage], timeout_s: float | None, deadline: float | None = None
) -> Iterator[str]:
    """Non-empty text pieces of ``model.stream``, read in a daemon thread so each wait can time out."""
    pieces: queue.Queue[object] = queue.Queue()
    stop = threading.Event()
    ctx = contextvars.copy_context()

    def produce() -> None:
        try:
            for chunk in model.stream(messages):
                if stop.is_set():
                    return  # dropping the generator closes the model's stream
                if chunk.text:
                    pieces.put(chunk.text)
            pieces.put(_END)
        except Exception as exc:
            pieces.put(exc)

    threading.Thread(target=ctx.run, args=(produce,), daemon=True, name="geungeo-llm-stream").start()
    try:
        while True:
            wait = _remaining(timeout_s, deadline)
            if wait is not None and wait <= 0:
                raise DeadlineExceeded()
            try:
                item = pieces.get(timeout=wait)
            except queue.Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise DeadlineExceeded() from None
                raise TimeoutError(f"no streamed text within {timeout_s:g}s") from None
            if item is _END:
                return
            if isinstance(item, Exception):
                raise item
            yield str(item)
    finally:
        stop.set()
