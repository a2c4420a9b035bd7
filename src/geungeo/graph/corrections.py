"""Human-verified corrections: the right answer a reviewer wrote through feedback, preferred as evidence.

``POST /v1/feedback`` (and the web UI's feedback) with a ``correction`` adds one. A later question
close enough to the corrected one (cosine similarity of question vectors ≥ ``correction_threshold``)
gets the correction as its first evidence item, cited as ``검수 답변 #N``, ahead of the retrieved
passages; the semantic cache forgets the old answers to such questions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from geungeo.answering.models import EvidenceItem
from geungeo.embeddings.base import Embedder
from geungeo.graph.question_index import QuestionIndex
from geungeo.text.normalize import nfc

LABEL = "검수 답변"


@dataclass(frozen=True)
class Correction:
    id: int
    question: str
    text: str
    created: float

    def evidence(self, n: int, similarity: float) -> EvidenceItem:
        """The correction as an evidence item that ranks above any retrieved passage."""
        day = time.strftime("%Y-%m-%d", time.localtime(self.created))
        label = f"{LABEL} #{self.id}"
        return EvidenceItem(
            n=n,
            chunk_id=f"correction-{self.id}",
            doc_id="corrections",
            label=label,
            doc=f"{LABEL} / verified correction",
            header=f"{label} ({day}) — {self.question}",
            text=self.text,
            score=1.0 + similarity,
            origin="correction",
        )


class Corrections:
    """Corrections, searched by the similarity of their questions."""

    def __init__(self, path: Path, embedder: Embedder, threshold: float) -> None:
        self.index = QuestionIndex(path, "corrections", embedder)
        self.threshold = threshold

    def add(self, question: str, text: str) -> Correction:
        """Record a reviewer's correction of the answer to ``question``."""
        question, text = nfc(question).strip(), nfc(text).strip()
        if not question or not text:
            raise ValueError("a correction needs its question and its text")
        entry = self.index.add(question, text)
        return Correction(entry.id, question, text, entry.created)

    def find(self, question: str, limit: int = 2) -> list[tuple[Correction, float]]:
        """Corrections of questions similar to ``question`` (newest first among equals), with their similarity."""
        entries = self.index.similar(nfc(question), self.threshold)[:limit]
        return [(Correction(e.id, e.question, e.payload, e.created), e.similarity) for e in entries]

    def close(self) -> None:
        self.index.close()
