"""``GET /v1/jobs/{job_id}``: how a background ingestion (an upload) is going, and its report when done."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from geungeo.interfaces.api.routes.ask import ERRORS
from geungeo.interfaces.api.schemas import ErrorBody
from geungeo.interfaces.api.state import ApiState, api_state
from geungeo.services import Job

router = APIRouter(tags=["documents"])


@router.get("/v1/jobs/{job_id}", response_model=Job, responses={**ERRORS, 404: {"model": ErrorBody}},
            summary="Status of an upload's ingestion")
async def job(job_id: str, state: Annotated[ApiState, Depends(api_state)]) -> Job:
    """``queued`` → ``running`` (with ``progress``) → ``done`` (with ``result``) or ``failed`` (with ``error``)."""
    return state.services.jobs.get(job_id)
