"""``POST /v1/feedback`` (ratings, comments, proposed corrections) and the reviewers' ``/v1/corrections``.

A correction in a feedback is only a proposal: it becomes preferred evidence (``검수 답변 #N``) once a reviewer
— an API key of ``GEUNGEO_REVIEWER_KEYS``, or ``geungeo corrections accept N`` on the server — accepts it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Query

from geungeo.graph.corrections import Correction
from geungeo.interfaces.api.routes.ask import ERRORS
from geungeo.interfaces.api.schemas import CorrectionOut, FeedbackOut, FeedbackRequest
from geungeo.interfaces.api.security import require_reviewer
from geungeo.interfaces.api.state import ApiState, api_state
from geungeo.services import Feedback

router = APIRouter(tags=["feedback"])
State = Annotated[ApiState, Depends(api_state)]
Reviewer = Annotated[str, Depends(require_reviewer)]


def _out(c: Correction) -> CorrectionOut:
    return CorrectionOut(
        id=c.id, question=c.question, text=c.text, status=c.status, created=c.created,
        proposed_by=c.proposed_by, reviewed_by=c.reviewed_by, reviewed_at=c.reviewed_at,
    )


@router.post("/v1/feedback", response_model=FeedbackOut, responses=ERRORS, summary="Rate an answer or propose a correction")
async def feedback(body: FeedbackRequest, state: State) -> FeedbackOut:
    """Keep the rating; a ``correction`` becomes a proposal that a reviewer accepts or rejects."""
    entry = Feedback(body.question, body.answer, body.rating, body.comment, body.correction, body.conversation_id)
    recorded = await state.call(state.services.feedback.record, entry)
    proposal = recorded.correction
    return FeedbackOut(
        id=recorded.id,
        correction_id=proposal.id if proposal else None,
        correction_status=proposal.status if proposal else None,
    )


@router.get("/v1/corrections", response_model=list[CorrectionOut], responses=ERRORS, summary="Corrections to review")
async def corrections(
    state: State, _reviewer: Reviewer, status: Literal["proposed", "accepted", "rejected"] | None = Query(None)
) -> list[CorrectionOut]:
    """Proposed (and reviewed) corrections, newest first; reviewers only."""
    return [_out(c) for c in await state.call(state.services.feedback.corrections, status)]


@router.post(
    "/v1/corrections/{correction_id}/{decision}", response_model=CorrectionOut, responses=ERRORS,
    summary="Accept or reject a proposed correction",
)
async def review(
    correction_id: int,
    decision: Literal["accept", "reject"],
    state: State,
    reviewer: Reviewer,
    name: Annotated[str, Body(embed=True, max_length=200)] = "",
) -> CorrectionOut:
    """Accept (it becomes preferred evidence) or reject a proposal; the reviewer and the time are kept."""
    by = f"{name.strip()} ({reviewer})" if name.strip() else reviewer
    reviewed = await state.call(state.services.feedback.review, correction_id, decision == "accept", by=by)
    return _out(reviewed)
