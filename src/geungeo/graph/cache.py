"""Semantic answer cache: a question close enough to an answered one gets that answer at once.

Entries are keyed by the embedding of the normalised question; only grounded, non-refused
answers are stored. Each entry remembers the content hash of every document it cites, and
an entry whose documents were re-ingested with other content or deleted is dropped on read.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np

from geungeo.embeddings.base import Embedder
from geungeo.graph.models import Answer
from geungeo.stores.base import ChunkStore


class SemanticCache:
    """SQLite-backed cache of answers, searched by cosine similarity of question vectors."""

    def __init__(self, path: Path, embedder: Embedder, store: ChunkStore, threshold: float) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.embedder = embedder
        self.store = store
        self.threshold = threshold
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS answers (id INTEGER PRIMARY KEY, model TEXT, question TEXT, vec BLOB, "
            "answer TEXT, docs TEXT, created REAL)"
        )

    def lookup(self, question: str) -> tuple[Answer, float] | None:
        """The cached answer nearest to ``question`` with its similarity, if above the threshold and still valid."""
        with self._lock:
            rows = self._db.execute("SELECT id, vec, answer, docs FROM answers WHERE model=?", (self.embedder.name,)).fetchall()
        if not rows:
            return None
        q = self.embedder.embed([question], query=True)[0]
        matrix = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
        sims = matrix @ q
        for i in np.argsort(-sims):
            if sims[i] < self.threshold:
                return None
            row_id, _, answer, docs = rows[int(i)]
            if self._still_valid(json.loads(docs)):
                return Answer.model_validate_json(answer), float(sims[i])
            with self._lock:
                self._db.execute("DELETE FROM answers WHERE id=?", (row_id,))
        return None

    def store_answer(self, question: str, answer: Answer) -> None:
        """Remember an answer together with the content hashes of the documents it cites."""
        docs: dict[str, str] = {}
        for item in answer.evidence:
            record = self.store.get_document(item.doc_id)
            if record is not None:
                docs[item.doc_id] = record.content_hash
        vec = self.embedder.embed([question], query=True)[0].astype(np.float32).tobytes()
        with self._lock:
            self._db.execute(
                "INSERT INTO answers (model, question, vec, answer, docs, created) VALUES (?, ?, ?, ?, ?, ?)",
                (self.embedder.name, question, vec, answer.model_dump_json(), json.dumps(docs), time.time()),
            )

    def _still_valid(self, docs: dict[str, str]) -> bool:
        current = {d.doc_id: d.content_hash for d in self.store.documents()}
        return all(current.get(doc_id) == digest for doc_id, digest in docs.items())

    def clear(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM answers")

    def close(self) -> None:
        with self._lock:
            self._db.close()
