"""``POST /v1/feedback``: ratings and corrections, appended as JSON lines to ``<data_dir>/feedback.jsonl``.

A feedback with a ``correction`` is a human-verified answer: the runner keeps it as preferred evidence
for similar questions (:mod:`geungeo.graph.corrections`) and drops their cached answers.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Annotated

from fastapi import APIRouter, Depends

from geungeo.interfaces.api.routes.ask import ERRORS
from geungeo.interfaces.api.schemas import FeedbackOut, FeedbackRequest
from geungeo.interfaces.api.state import ApiState, api_state

router = APIRouter(tags=["feedback"])


@router.post("/v1/feedback", response_model=FeedbackOut, responses=ERRORS, summary="Rate an answer or correct it")
async def feedback(body: FeedbackRequest, state: Annotated[ApiState, Depends(api_state)]) -> FeedbackOut:
    record = {"id": uuid.uuid4().hex, "time": time.time(), **body.model_dump()}
    path = state.settings.data_dir / "feedback.jsonl"

    def append() -> None:
        with state.file_lock, path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")

    await state.call(append)
    correction_id = None
    if body.correction and body.correction.strip() and body.question.strip():
        correction_id = await state.call(state.runner.correct, body.question, body.correction)
    return FeedbackOut(id=record["id"], correction_id=correction_id)
