"""Feedback: ratings and comments kept as JSON lines, corrections kept as proposals until a reviewer decides.

Every interface records feedback here (``POST /v1/feedback``, the web UI's buttons); reviewing a proposal
is for a reviewer: an API key of ``GEUNGEO_REVIEWER_KEYS`` over HTTP, or ``geungeo corrections`` on the server.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Literal

from geungeo.graph.corrections import Correction, Status
from geungeo.graph.runner import QueryRunner


@dataclass(frozen=True)
class Feedback:
    """One rating of an answer, with an optional comment and an optional proposed correction."""

    question: str
    answer: str
    rating: Literal["up", "down"]
    comment: str | None = None
    correction: str | None = None
    conversation_id: str | None = None


@dataclass(frozen=True)
class Recorded:
    """The stored feedback's id and, when it proposed a correction, the proposal."""

    id: str
    correction: Correction | None = None


class FeedbackService:
    """Records feedback and reviews the corrections it proposes."""

    def __init__(self, runner: QueryRunner) -> None:
        self.runner = runner
        self.path = runner.settings.data_dir / "feedback.jsonl"
        self._lock = threading.Lock()

    def record(self, feedback: Feedback, *, by: str = "") -> Recorded:
        """Append the feedback; a correction in it becomes a proposal (not used before a review)."""
        record = {"id": uuid.uuid4().hex, "time": time.time(), **feedback.__dict__}
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        proposal = None
        if feedback.correction and feedback.correction.strip() and feedback.question.strip():
            proposal = self.runner.corrections.propose(feedback.question, feedback.correction, by=by)
        return Recorded(record["id"], proposal)

    def corrections(self, status: Status | None = None) -> list[Correction]:
        """Proposed, accepted or rejected corrections, newest first."""
        return self.runner.corrections.all(status)

    def review(self, correction_id: int, accept: bool, *, by: str) -> Correction:
        """Accept or reject a proposal as reviewer ``by`` (NotFoundError for an unknown id)."""
        return self.runner.review_correction(correction_id, accept, by=by)
