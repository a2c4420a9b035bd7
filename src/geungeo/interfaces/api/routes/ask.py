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
from geungeo.retrieval.filters import parse_filter
from geungeo.retrieval.hybrid import check_query

log = logging.getLogger(__name__)
router = APIRouter(tags=["ask"])
State = Annotated[ApiState, Depends(api_state)]
ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": ErrorBody}, 401: {"model": ErrorBody}, 504: {"model": ErrorBody}}


def validate(state: ApiState, question: str, filters: str | None) -> None:
    """Raise QueryError (400) before a stream starts, for an empty or too long question or a bad filter."""
    check_query(question, state.settings.max_query_chars)
    if filters:
        parse_filter(filters)


def timeout_message(state: ApiState) -> str:
    return f"request timed out after {state.settings.api_timeout_s:g} s (GEUNGEO_API_TIMEOUT_S) / 요청 시간이 초과되었습니다"


@router.post("/v1/ask", response_model=Answer, responses=ERRORS, summary="Answer a question with citations")
async def ask(body: AskRequest, state: State) -> Answer:
    """The whole answer graph for one question: answer, citations, evidence, grades, flow log."""
    return await state.call(state.runner.run, body.question, conversation_id=body.conversation_id, filters=body.filters)


async def answer_events(state: ApiState, body: AskRequest) -> AsyncIterator[StreamEvent]:
    """The runner's stream events, each fetched in a worker thread (shared with the OpenAI-compatible route)."""
    events = state.runner.stream(body.question, conversation_id=body.conversation_id, filters=body.filters)
    async for event in state.iterate(events):
        yield event


async def _frames(state: ApiState, body: AskRequest) -> AsyncIterator[str]:
    try:
        async for event in answer_events(state, body):
            if event["type"] == "answer":
                yield sse(event["answer"].model_dump(mode="json"), "answer")
            else:
                yield sse({k: v for k, v in event.items() if k != "type"}, event["type"])
    except ApiTimeout:
        yield sse({"error": timeout_message(state)}, "error")
    except GeungeoError as exc:
        yield sse({"error": str(exc)}, "error")
    except Exception as exc:  # the stream has started: report in band
        log.exception("answer stream failed")
        yield sse({"error": f"internal error / 내부 오류: {type(exc).__name__}"}, "error")


@router.post(
    "/v1/ask/stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "event: node | token | answer | error"}, **ERRORS},
    summary="Answer a question, streamed as server-sent events",
)
async def ask_stream(body: AskRequest, state: State) -> StreamingResponse:
    """``event: node`` per graph step, ``event: token`` per answer piece, then ``event: answer`` (the Answer JSON);
    ``event: error`` if the run fails after the stream began."""
    validate(state, body.question, body.filters)
    return sse_response(_frames(state, body))
