"""Rows keyed by a question's embedding in one SQLite table, found again by cosine similarity.

The semantic answer cache and the human-verified corrections both remember something about a
question and look it up for similar questions later; this is their one storage.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from geungeo.embeddings.base import Embedder
from geungeo.sqlite import open_db

_TABLE = re.compile(r"^[a-z_]+$")


@dataclass(frozen=True)
class Entry:
    id: int
    question: str
    payload: str
    created: float
    similarity: float = 0.0


class QuestionIndex:
    """One table of (question, its vector under the current embedder, a text payload)."""

    def __init__(self, path: Path, table: str, embedder: Embedder) -> None:
        if not _TABLE.match(table):
            raise ValueError(f"bad table name {table!r}")
        self.table = table
        self.embedder = embedder
        self._lock = threading.Lock()
        self._db = open_db(
            path,
            f"CREATE TABLE IF NOT EXISTS {table} (id INTEGER PRIMARY KEY, model TEXT, question TEXT, vec BLOB, "
            "payload TEXT, created REAL)",
        )

    def vector(self, question: str) -> np.ndarray:
        return self.embedder.embed([question], query=True)[0].astype(np.float32)

    def add(self, question: str, payload: str) -> Entry:
        created = time.time()
        with self._lock:
            cur = self._db.execute(
                f"INSERT INTO {self.table} (model, question, vec, payload, created) VALUES (?, ?, ?, ?, ?)",
                (self.embedder.name, question, self.vector(question).tobytes(), payload, created),
            )
        return Entry(int(cur.lastrowid or 0), question, payload, created)

    def similar(self, question: str, threshold: float) -> list[Entry]:
        """Entries whose question is at least ``threshold`` similar, most similar (then newest) first."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT id, question, vec, payload, created FROM {self.table} WHERE model=? ORDER BY created DESC",
                (self.embedder.name,),
            ).fetchall()
        if not rows:
            return []
        sims = np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows]) @ self.vector(question)
        return [
            Entry(rows[i][0], rows[i][1], rows[i][3], rows[i][4], float(sims[i]))
            for i in (int(i) for i in np.argsort(-sims, kind="stable"))
            if sims[i] >= threshold
        ]

    def get(self, entry_id: int) -> Entry | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT id, question, payload, created FROM {self.table} WHERE id=?", (entry_id,)
            ).fetchone()
        return Entry(row[0], row[1], row[2], row[3]) if row else None

    def entries(self) -> list[Entry]:
        """Every entry, newest first."""
        with self._lock:
            rows = self._db.execute(f"SELECT id, question, payload, created FROM {self.table} ORDER BY id DESC").fetchall()
        return [Entry(r[0], r[1], r[2], r[3]) for r in rows]

    def set_payload(self, entry_id: int, payload: str) -> None:
        with self._lock:
            self._db.execute(f"UPDATE {self.table} SET payload=? WHERE id=?", (payload, entry_id))

    def delete(self, ids: list[int]) -> None:
        with self._lock:
            self._db.executemany(f"DELETE FROM {self.table} WHERE id=?", [(i,) for i in ids])

    def clear(self) -> None:
        with self._lock:
            self._db.execute(f"DELETE FROM {self.table}")

    def close(self) -> None:
        with self._lock:
            self._db.close()
