"""OpenAI-compatible ``POST /v1/chat/completions`` and ``GET /v1/models`` (model ``geungeo``).

The last user message is the question; it is answered by the same runner as ``/v1/ask``. Earlier
turns continue a conversation: the ``user`` field names it, or else the conversation is the one
whose transcript (system, user and assistant messages) ends where this request's history ends.
Content is the answer followed by its sources; ``citations`` carries them as data.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import StreamingResponse

from geungeo.answering.models import Answer
from geungeo.errors import GeungeoError
from geungeo.interfaces.api.routes.ask import ERRORS, answer_events, timeout_message, validate
from geungeo.interfaces.api.schemas import AskRequest, ChatMessage, ChatRequest
from geungeo.interfaces.api.sse import sse, sse_response
from geungeo.interfaces.api.state import ApiState, ApiTimeout, api_state

log = logging.getLogger(__name__)
router = APIRouter(tags=["openai"])
State = Annotated[ApiState, Depends(api_state)]
MODEL = "geungeo"
_REMEMBERED = 10_000
_TRANSCRIPT_ROLES = ("system", "developer", "user", "assistant")


@router.get("/v1/models", responses=ERRORS, summary="Models (OpenAI-compatible)")
async def models() -> dict[str, Any]:
    return {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "geungeo"}]}


def transcript_key(messages: Sequence[ChatMessage]) -> str:
    turns = [(m.role, m.text().strip()) for m in messages if m.role in _TRANSCRIPT_ROLES]
    return hashlib.sha256(json.dumps(turns, ensure_ascii=False).encode()).hexdigest()


def split(request: ChatRequest) -> tuple[str, list[ChatMessage]]:
    """The question (last user message) and the messages before it."""
    last = max((i for i, m in enumerate(request.messages) if m.role == "user"), default=None)
    if request.model != MODEL:
        raise HTTPException(404, f"model '{request.model}' not found: use '{MODEL}' / 모델을 찾을 수 없습니다")
    if last is None:
        raise HTTPException(400, "no user message / 사용자 메시지가 없습니다")
    return request.messages[last].text(), request.messages[:last]


def conversation_for(state: ApiState, request: ChatRequest, prior: Sequence[ChatMessage]) -> str:
    """The conversation to continue: named by ``user``, found by the transcript so far, or a new one."""
    if request.user:
        return "oai-user-" + hashlib.sha256(request.user.encode()).hexdigest()[:24]
    if not any(m.role in ("user", "assistant") for m in prior):
        return "oai-" + uuid.uuid4().hex
    key = transcript_key(prior)
    return state.threads.get(key) or "oai-" + key[:24]


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


def _rest(full: str, streamed: str) -> str:
    """What still has to be sent after the streamed tokens for the client to hold the final content."""
    if full.startswith(streamed):
        return full[len(streamed) :]
    if full.startswith(streamed.rstrip()):
        return full[len(streamed.rstrip()) :]
    if not streamed.strip():
        return full
    return "\n\n[최종 답변 / final answer]\n" + full  # the graph revised the streamed draft


async def _chunks(state: ApiState, question: str, prior: list[ChatMessage], conversation_id: str) -> AsyncIterator[str]:
    base = {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion.chunk", "created": int(time.time()), "model": MODEL}

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        return sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})

    yield chunk({"role": "assistant", "content": ""})
    streamed: list[str] = []
    answer: Answer | None = None
    try:
        async for event in answer_events(state, AskRequest(question=question, conversation_id=conversation_id)):
            if event["type"] == "token":
                streamed.append(event["text"])
                yield chunk({"content": event["text"]})
            elif event["type"] == "answer":
                answer = event["answer"]
    except Exception as exc:  # the stream has started: report in band, as OpenAI does
        if not isinstance(exc, ApiTimeout | GeungeoError):
            log.exception("chat completion stream failed")
        message = timeout_message(state) if isinstance(exc, ApiTimeout) else str(exc) or type(exc).__name__
        yield sse({"error": {"message": message, "type": type(exc).__name__, "code": None}})
        yield "data: [DONE]\n\n"
        return
    assert answer is not None
    content = content_of(answer)
    if rest := _rest(content, "".join(streamed)):
        yield chunk({"content": rest})
    remember(state, prior, question, content, conversation_id)
    yield chunk({}, "stop", **_extension(answer, conversation_id))
    yield "data: [DONE]\n\n"


@router.post(
    "/v1/chat/completions",
    responses={200: {"content": {"text/event-stream": {}}, "description": "chat.completion, or chunks when stream"}, **ERRORS},
    summary="Chat completions (OpenAI-compatible)",
    response_model=None,
)
async def chat_completions(body: ChatRequest, state: State) -> dict[str, Any] | StreamingResponse:
    """Answer the last user message; ``stream: true`` sends ``chat.completion.chunk`` events and ``data: [DONE]``."""
    question, prior = split(body)
    validate(state, question, None)
    conversation_id = conversation_for(state, body, prior)
    if body.stream:
        return sse_response(_chunks(state, question, prior, conversation_id))
    answer = await state.call(state.runner.run, question, conversation_id=conversation_id)
    content = content_of(answer)
    remember(state, prior, question, content, conversation_id)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        **_extension(answer, conversation_id),
    }
