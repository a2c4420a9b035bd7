"""Semantic answer cache: a question close enough to an answered one gets that answer at once.

Entries are keyed by the embedding of the normalised question; only grounded, non-refused
answers are stored. Each entry remembers the content hash of every document it cites, and
an entry whose documents were re-ingested with other content or deleted is dropped on read.
"""

from __future__ import annotations

import json
from pathlib import Path

from geungeo.answering.models import Answer
from geungeo.embeddings.base import Embedder
from geungeo.graph.question_index import QuestionIndex
from geungeo.stores.base import ChunkStore


class SemanticCache:
    """Answers searched by the cosine similarity of their questions' vectors."""

    def __init__(self, path: Path, embedder: Embedder, store: ChunkStore, threshold: float) -> None:
        self.index = QuestionIndex(path, "cached_answers", embedder)
        self.store = store
        self.threshold = threshold

    def lookup(self, question: str) -> tuple[Answer, float] | None:
        """The cached answer nearest to ``question`` with its similarity, if above the threshold and still valid."""
        for entry in self.index.similar(question, self.threshold):
            data = json.loads(entry.payload)
            if self._still_valid(data["docs"]):
                return Answer.model_validate(data["answer"]), entry.similarity
            self.index.delete([entry.id])
        return None

    def store_answer(self, question: str, answer: Answer) -> None:
        """Remember an answer together with the content hashes of the documents it cites."""
        docs: dict[str, str] = {}
        for item in answer.evidence:
            record = self.store.get_document(item.doc_id)
            if record is not None:
                docs[item.doc_id] = record.content_hash
        self.index.add(question, json.dumps({"answer": answer.model_dump(mode="json"), "docs": docs}, ensure_ascii=False))

    def forget(self, question: str) -> int:
        """Drop the cached answers to questions similar to ``question`` (it was corrected); how many."""
        stale = [entry.id for entry in self.index.similar(question, self.threshold)]
        self.index.delete(stale)
        return len(stale)

    def _still_valid(self, docs: dict[str, str]) -> bool:
        current = {d.doc_id: d.content_hash for d in self.store.documents()}
        return all(current.get(doc_id) == digest for doc_id, digest in docs.items())

    def clear(self) -> None:
        self.index.clear()

    def close(self) -> None:
        self.index.close()
