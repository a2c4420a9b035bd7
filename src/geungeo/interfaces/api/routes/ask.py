"""``POST /v1/ask`` (the Answer as JSON) and ``POST /v1/ask/stream`` (node, token, answer events as SSE)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse

from geungeo.answering.events import StreamEvent
from geungeo.answering.models import Answer
from geungeo.errors import GeungeoError
from geungeo.interfaces.api.schemas import AskRequest, ErrorBody
from geungeo.interfaces.api.sse import sse, sse_response
from geungeo.interfaces.api.state import ApiState, ApiTimeout, api_state
from geungeo.services import Question

log = logging.getLogger(__name__)
router = APIRouter(tags=["ask"])
State = Annotated[ApiState, Depends(api_state)]
ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": ErrorBody}, 401: {"model": ErrorBody}, 409: {"model": ErrorBody},
                                           504: {"model": ErrorBody}}


async def check(state: ApiState, question: str, filters: str | None = None) -> Question:
    """The checked question (400 for an empty, too long or invalid one or a bad filter; 409 on an empty store),
    before any stream starts."""
    return await state.call(state.services.answers.check, question, filters)


def timeout_message(state: ApiState) -> str:
    return f"request timed out after {state.settings.api_timeout_s:g} s (GEUNGEO_API_TIMEOUT_S) / 요청 시간이 초과되었습니다"


@router.post("/v1/ask", response_model=Answer, responses=ERRORS, summary="Answer a question with citations")
async def ask(body: AskRequest, state: State) -> Answer:
    """The whole answer graph for one question: answer, citations, evidence, grades, flow log."""
    question = await check(state, body.question, body.filters)
    return await state.call(state.services.answers.ask, question, body.conversation_id)


async def answer_events(state: ApiState, question: Question, conversation_id: str | None) -> AsyncIterator[StreamEvent]:
    """The answer's stream events, each fetched in a worker thread (shared with the OpenAI-compatible route and the UI)."""
    async for event in state.iterate(state.services.answers.stream(question, conversation_id)):
        yield event


def error_text(state: ApiState, exc: Exception) -> str:
    """What to tell the client about a failure after a stream began (no server paths, no internals)."""
    if isinstance(exc, ApiTimeout):
        return timeout_message(state)
    if isinstance(exc, GeungeoError):
        return state.services.documents.redact(str(exc))
    log.error("answer stream failed", exc_info=exc)
    return f"internal error / 내부 오류: {type(exc).__name__}"


async def _frames(state: ApiState, question: Question, conversation_id: str | None) -> AsyncIterator[str]:
    try:
        async for event in answer_events(state, question, conversation_id):
            if event["type"] == "answer":
                yield sse(event["answer"].model_dump(mode="json"), "answer")
            else:
                yield sse({k: v for k, v in event.items() if k != "type"}, event["type"])
    except Exception as exc:  # the stream has started: report in band
        yield sse({"error": error_text(state, exc)}, "error")


@router.post(
    "/v1/ask/stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "event: node | token | answer | error"}, **ERRORS},
    summary="Answer a question, streamed as server-sent events",
)
async def ask_stream(body: AskRequest, state: State) -> StreamingResponse:
    """``event: node`` per graph step, ``event: token`` per answer piece, then ``event: answer`` (the Answer JSON);
    ``event: error`` if the run fails after the stream began."""
    question = await check(state, body.question, body.filters)
    return sse_response(_frames(state, question, body.conversation_id))
