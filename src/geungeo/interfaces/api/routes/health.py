"""``GET /healthz``: the store answers and what it holds (no auth)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException

from geungeo.interfaces.api.schemas import ErrorBody, Health
from geungeo.interfaces.api.state import ApiState, api_state

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, responses={503: {"model": ErrorBody}}, summary="Liveness and store counts")
async def healthz(state: Annotated[ApiState, Depends(api_state)]) -> Health:
    services = state.services
    try:
        documents, chunks = await state.call(services.documents.counts)
    except Exception as exc:
        reason = services.documents.redact(str(exc) or type(exc).__name__)
        raise HTTPException(503, f"store unreachable / 저장소에 연결할 수 없습니다: {reason}") from exc
    llm = services.runner.llm
    return Health(status="ok", documents=documents, chunks=chunks, embedder=services.engine.embedder.name,
                  llm="none (extractive)" if llm is None else type(llm).__name__)
