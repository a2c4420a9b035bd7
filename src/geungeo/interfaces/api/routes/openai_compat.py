"""OpenAI-compatible ``POST /v1/chat/completions``, ``GET /v1/models`` and ``GET /v1/models/{id}`` (model ``geungeo``).

The last user message is the question; it is answered by the same service as ``/v1/ask``. Earlier turns
continue a conversation: the ``user`` field names it, or else the conversation is the one whose transcript
(system, user and assistant messages) ends where this request's history ends; when none does, the
messages themselves are the history (a transcript the client assembled is a conversation).

Conventions: errors are ``{"error": {"message", "type", "param", "code"}}``; ``usage`` is filled with token
counts estimated by :mod:`geungeo.services.usage` (Kiwi morphemes), in the last stream chunk too when
``stream_options.include_usage`` is set; parameters geungeo cannot honour (``n`` > 1, ``tools``,
``functions``, ``logprobs``, a ``response_format`` other than text, audio, ``stop``) are refused with a 400
naming the parameter. Sampling settings (``temperature``, ``top_p``, ``max_tokens``, ``seed``…) are accepted
and ignored: answers are grounded, not sampled. Content is the answer followed by its sources;
``citations`` carries them as data.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse

from geungeo.answering.models import Answer
from geungeo.interfaces.api.errors import OpenAIError
from geungeo.interfaces.api.routes.ask import ERRORS, answer_events, check, error_text
from geungeo.interfaces.api.schemas import ChatMessage, ChatRequest
from geungeo.interfaces.api.sse import sse, sse_response
from geungeo.interfaces.api.state import ApiState, api_state
from geungeo.services import Question, Turn
from geungeo.services.usage import usage

router = APIRouter(tags=["openai"])
State = Annotated[ApiState, Depends(api_state)]
MODEL = "geungeo"
_MODEL_CARD = {"id": MODEL, "object": "model", "created": 0, "owned_by": "geungeo"}
_REMEMBERED = 10_000
_TRANSCRIPT_ROLES = ("system", "developer", "user", "assistant")


@router.get("/v1/models", responses=ERRORS, summary="Models (OpenAI-compatible)")
async def models() -> dict[str, Any]:
    return {"object": "list", "data": [_MODEL_CARD]}


@router.get("/v1/models/{model_id}", responses={**ERRORS, 404: ERRORS[400]}, summary="One model (OpenAI-compatible)")
async def model(model_id: str) -> dict[str, Any]:
    if model_id != MODEL:
        raise OpenAIError(404, f"model '{model_id}' not found: use '{MODEL}' / 모델을 찾을 수 없습니다",
                          "model_not_found", "model")
    return _MODEL_CARD


def unsupported(request: ChatRequest) -> tuple[str, str] | None:
    """The first parameter geungeo cannot honour, and why; None when there is none."""
    extra = request.model_extra or {}
    response_format = extra.get("response_format")
    modalities = extra.get("modalities")
    checks: list[tuple[str, bool, str]] = [
        ("n", (extra.get("n") or 1) != 1, "only one choice per request (n=1)"),
        ("tools", bool(extra.get("tools")), "tool calling is not supported: geungeo answers from its documents"),
        ("functions", bool(extra.get("functions")), "function calling is not supported"),
        ("tool_choice", extra.get("tool_choice") not in (None, "none", "auto"), "tool calling is not supported"),
        ("function_call", extra.get("function_call") not in (None, "none", "auto"), "function calling is not supported"),
        ("logprobs", bool(extra.get("logprobs")) or bool(extra.get("top_logprobs")), "log probabilities are not available"),
        ("response_format", isinstance(response_format, dict) and response_format.get("type", "text") != "text",
         "only text responses (response_format type 'text')"),
        ("audio", extra.get("audio") is not None, "audio output is not supported"),
        ("modalities", bool(modalities) and set(modalities or []) != {"text"}, "only the text modality"),
        ("stop", bool(extra.get("stop")), "stop sequences are not supported: answers are not sampled"),
    ]
    return next(((name, why) for name, bad, why in checks if bad), None)


def transcript_key(messages: Sequence[ChatMessage]) -> str:
    turns = [(m.role, m.text().strip()) for m in messages if m.role in _TRANSCRIPT_ROLES]
    return hashlib.sha256(json.dumps(turns, ensure_ascii=False, default=str).encode("utf-8", "replace")).hexdigest()


def split(request: ChatRequest) -> tuple[str, list[ChatMessage]]:
    """The question (last user message) and the messages before it; a 4xx for what cannot be answered."""
    if request.model != MODEL:
        raise OpenAIError(404, f"model '{request.model}' not found: use '{MODEL}' / 모델을 찾을 수 없습니다",
                          "model_not_found", "model")
    if problem := unsupported(request):
        name, why = problem
        raise OpenAIError(400, f"unsupported parameter '{name}': {why} / 지원하지 않는 매개변수입니다",
                          "unsupported_parameter", name)
    last = max((i for i, m in enumerate(request.messages) if m.role == "user"), default=None)
    if last is None:
        raise OpenAIError(400, "no user message / 사용자 메시지가 없습니다", "missing_user_message", "messages")
    return request.messages[last].text(), request.messages[:last]


def _turns(prior: Sequence[ChatMessage]) -> list[Turn]:
    return [Turn("user" if m.role == "user" else "assistant", m.text()) for m in prior if m.role in ("user", "assistant")]


def conversation_for(state: ApiState, request: ChatRequest, prior: Sequence[ChatMessage]) -> str:
    """The conversation to continue: named by ``user``, found by the transcript so far, or (when the transcript
    matches none) a conversation started from the transcript itself; a new one without earlier turns."""
    turns = _turns(prior)
    if request.user:
        conversation_id = "oai-user-" + hashlib.sha256(request.user.encode("utf-8", "replace")).hexdigest()[:24]
    elif not turns:
        return "oai-" + uuid.uuid4().hex
    else:
        key = transcript_key(prior)
        if known := state.threads.get(key):
            return known
        conversation_id = "oai-" + key[:24]
    answers = state.services.answers
    if turns and not answers.has_conversation(conversation_id):
        answers.seed_conversation(conversation_id, turns)
    return conversation_id


def remember(state: ApiState, prior: Sequence[ChatMessage], question: str, content: str, conversation_id: str) -> None:
    """Map the transcript after this turn to its conversation, for the next request to find."""
    turn = [*prior, ChatMessage(role="user", content=question), ChatMessage(role="assistant", content=content)]
    state.threads[transcript_key(turn)] = conversation_id
    while len(state.threads) > _REMEMBERED:
        state.threads.popitem(last=False)


def content_of(answer: Answer) -> str:
    """The answer text and, when it cites anything, the list of sources."""
    if not answer.citations:
        return answer.answer
    return answer.answer + "\n\n근거 / Sources:\n" + "\n".join(f"- [{c.label}]" for c in answer.citations)


def _extension(answer: Answer, conversation_id: str) -> dict[str, Any]:
    return {
        "citations": [c.model_dump() for c in answer.citations],
        "conversation_id": conversation_id,
        "refused": answer.refused,
    }


def _prompt_texts(request: ChatRequest) -> list[str]:
    return [m.text() for m in request.messages]


def _rest(full: str, streamed: str) -> str:
    """What still has to be sent after the streamed tokens for the client to hold the final content."""
    if full.startswith(streamed):
        return full[len(streamed) :]
    if full.startswith(streamed.rstrip()):
        return full[len(streamed.rstrip()) :]
    if not streamed.strip():
        return full
    return "\n\n[최종 답변 / final answer]\n" + full  # the graph revised the streamed draft


async def _chunks(state: ApiState, request: ChatRequest, question: Question, text: str, prior: list[ChatMessage],
                  conversation_id: str) -> AsyncIterator[str]:
    base = {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion.chunk", "created": int(time.time()), "model": MODEL}
    options = (request.model_extra or {}).get("stream_options") or {}
    with_usage = isinstance(options, dict) and bool(options.get("include_usage"))

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        return sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})

    yield chunk({"role": "assistant", "content": ""})
    streamed: list[str] = []
    answer: Answer | None = None
    try:
        async for event in answer_events(state, question, conversation_id):
            if event["type"] == "token":
                streamed.append(event["text"])
                yield chunk({"content": event["text"]})
            elif event["type"] == "answer":
                answer = event["answer"]
    except Exception as exc:  # the stream has started: report in band, as OpenAI does
        yield sse({"error": {"message": error_text(state, exc), "type": "server_error", "param": None,
                             "code": type(exc).__name__}})
        yield "data: [DONE]\n\n"
        return
    assert answer is not None
    content = content_of(answer)
    if rest := _rest(content, "".join(streamed)):
        yield chunk({"content": rest})
    remember(state, prior, text, content, conversation_id)
    yield chunk({}, "stop", **_extension(answer, conversation_id))
    if with_usage:
        yield sse({**base, "choices": [], "usage": usage(_prompt_texts(request), content)})
    yield "data: [DONE]\n\n"


@router.post(
    "/v1/chat/completions",
    responses={200: {"content": {"text/event-stream": {}}, "description": "chat.completion, or chunks when stream"}, **ERRORS},
    summary="Chat completions (OpenAI-compatible)",
    response_model=None,
)
async def chat_completions(body: ChatRequest, state: State) -> dict[str, Any] | StreamingResponse:
    """Answer the last user message; ``stream: true`` sends ``chat.completion.chunk`` events and ``data: [DONE]``."""
    text, prior = split(body)
    question = await check(state, text)
    conversation_id = await state.call(conversation_for, state, body, prior)
    if body.stream:
        return sse_response(_chunks(state, body, question, text, prior, conversation_id))
    answer = await state.call(state.services.answers.ask, question, conversation_id)
    content = content_of(answer)
    remember(state, prior, text, content, conversation_id)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": usage(_prompt_texts(body), content),
        **_extension(answer, conversation_id),
    }
