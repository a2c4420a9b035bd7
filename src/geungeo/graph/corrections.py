"""Corrections: a right answer someone proposed through feedback, used as evidence once a reviewer accepts it.

``POST /v1/feedback`` (and the web UI's feedback) with a ``correction`` records a **proposal**; nothing
changes for other users until a reviewer — an API key listed in ``GEUNGEO_REVIEWER_KEYS``, or
``geungeo corrections accept N`` on the server — accepts it, which keeps who accepted it and when. An
accepted correction of a question close enough to a later one (cosine similarity of question vectors ≥
``correction_threshold``) is that question's first evidence item, cited as ``검수 답변 #N``, ahead of the
retrieved passages; accepting one clears the answer cache.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

from geungeo.answering.models import EvidenceItem
from geungeo.embeddings.base import Embedder
from geungeo.errors import InvalidInputError, NotFoundError
from geungeo.graph.question_index import Entry, QuestionIndex
from geungeo.text.normalize import nfc
from geungeo.text.particles import particle

LABEL = "검수 답변"
Status = Literal["proposed", "accepted", "rejected"]


@dataclass(frozen=True)
class Correction:
    """A proposed answer to a question and its review."""

    id: int
    question: str
    text: str
    created: float
    status: Status = "proposed"
    proposed_by: str = ""
    reviewed_by: str = ""
    reviewed_at: float | None = None

    def evidence(self, n: int, similarity: float) -> EvidenceItem:
        """The accepted correction as an evidence item that ranks above any retrieved passage."""
        day = time.strftime("%Y-%m-%d", time.localtime(self.reviewed_at or self.created))
        label = f"{LABEL} #{self.id}"
        return EvidenceItem(
            n=n,
            chunk_id=f"correction-{self.id}",
            doc_id="corrections",
            label=label,
            doc=f"{LABEL} / verified correction",
            header=f"{label} ({day}, {self.reviewed_by}) — {self.question}",
            text=self.text,
            score=1.0 + similarity,
            origin="correction",
        )

    def payload(self) -> str:
        fields = asdict(self)
        for key in ("id", "question", "created"):
            fields.pop(key)
        return json.dumps(fields, ensure_ascii=False)

    @classmethod
    def from_entry(cls, entry: Entry) -> Correction:
        try:
            fields = json.loads(entry.payload)
        except json.JSONDecodeError:
            fields = None
        if not isinstance(fields, dict):  # written before review existed: a plain text, now a proposal
            fields = {"text": entry.payload, "status": "proposed"}
        return cls(id=entry.id, question=entry.question, created=entry.created, **fields)


class Corrections:
    """Proposals and accepted corrections, searched by the similarity of their questions."""

    def __init__(self, path: Path, embedder: Embedder, threshold: float) -> None:
        self.index = QuestionIndex(path, "corrections", embedder)
        self.threshold = threshold

    def propose(self, question: str, text: str, *, by: str = "") -> Correction:
        """Record a proposed correction of the answer to ``question`` (not used before a review)."""
        question, text = nfc(question).strip(), nfc(text).strip()
        if not question or not text:
            raise InvalidInputError("a correction needs its question and its text / 질문과 수정 답변이 모두 필요합니다")
        draft = Correction(0, question, text, 0.0, "proposed", proposed_by=by)
        entry = self.index.add(question, draft.payload())
        return replace(draft, id=entry.id, created=entry.created)

    def review(self, correction_id: int, status: Literal["accepted", "rejected"], *, by: str) -> Correction:
        """Accept or reject a correction, keeping who and when; NotFoundError for an unknown id."""
        entry = self.index.get(correction_id)
        if entry is None:
            raise NotFoundError(f"no correction #{correction_id} / 수정 제안 {particle(f'#{correction_id}', '이')} 없습니다")
        if not by.strip():
            raise InvalidInputError("a review needs the reviewer's name / 검토자 이름이 필요합니다")
        reviewed = replace(Correction.from_entry(entry), status=status, reviewed_by=by.strip(), reviewed_at=time.time())
        self.index.set_payload(correction_id, reviewed.payload())
        return reviewed

    def all(self, status: Status | None = None) -> list[Correction]:
        """Corrections (newest first), those of one status when given."""
        found = [Correction.from_entry(e) for e in self.index.entries()]
        return [c for c in found if status is None or c.status == status]

    def find(self, question: str, limit: int = 2) -> list[tuple[Correction, float]]:
        """Accepted corrections of questions similar to ``question`` (newest first among equals), with similarity."""
        found = []
        for entry in self.index.similar(nfc(question), self.threshold):
            correction = Correction.from_entry(entry)
            if correction.status == "accepted":
                found.append((correction, entry.similarity))
        return found[:limit]

    def close(self) -> None:
        self.index.close()
