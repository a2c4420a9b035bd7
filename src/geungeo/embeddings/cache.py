"""A persistent embedding cache: a text is embedded once per model, ever.

Keyed by (model name, query/passage side, sha256 of the prepared text) in SQLite, so
re-ingesting a changed document only embeds its new chunks and a killed ingestion
resumes without redoing the embeddings it had finished.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from geungeo.embeddings.base import BatchCallback, Embedder
from geungeo.text.normalize import nfc


class CachedEmbedder(Embedder):
    """Wraps an embedder; vectors of texts seen before come from disk."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        super().__init__(batch_size=inner.batch_size, max_chars=inner.max_chars)
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        path.parent.mkdir(parents=True, exist_ok=True)
        self.computed = 0  # texts the inner model embedded (cache misses), for the ingest report
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors "
            "(model TEXT, side TEXT, key TEXT, vec BLOB, PRIMARY KEY (model, side, key))"
        )

    def _key(self, text: str) -> str:
        return hashlib.sha256(nfc(text)[: self.max_chars].encode("utf-8")).hexdigest()

    def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:  # pragma: no cover - embed() is overridden
        return self.inner.embed(texts, query=query)

    def embed(self, texts: Sequence[str], *, query: bool = False, on_batch: BatchCallback | None = None) -> np.ndarray:
        side = "q" if query else "p"
        keys = [self._key(t) for t in texts]
        found = self._lookup(side, set(keys))
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            first = {k: t for k, t in zip(keys, texts, strict=True)}
            done_before = len(texts) - len(missing)

            def progress(done: int, _total: int) -> None:
                if on_batch is not None:
                    on_batch(done_before + done, len(texts))

            # Embed and store in slices so that an interruption keeps what was finished.
            step = self.inner.batch_size * 8
            for start in range(0, len(missing), step):
                part = missing[start : start + step]
                vecs = self.inner.embed([first[k] for k in part], query=query, on_batch=_offset(progress, start))
                self._store(side, part, vecs)
                self.computed += len(part)
                found.update(zip(part, vecs, strict=True))
        elif on_batch is not None:
            on_batch(len(texts), len(texts))
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)

    def load(self) -> None:
        self.inner.load()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _lookup(self, side: str, keys: set[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        todo = list(keys)
        with self._lock:
            for start in range(0, len(todo), 500):
                part = todo[start : start + 500]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT key, vec FROM vectors WHERE model=? AND side=? AND key IN ({marks})",
                    (self.name, side, *part),
                )
                for key, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape[0] == self.dim:
                        out[key] = vec
        return out

    def _store(self, side: str, keys: list[str], vectors: np.ndarray) -> None:
        rows = [
            (self.name, side, k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in zip(keys, vectors, strict=True)
        ]
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
            self._db.execute("COMMIT")


def _offset(callback: BatchCallback, start: int) -> BatchCallback:
    """A batch callback that reports ``start`` more texts done."""
    return lambda done, total: callback(start + done, total)
