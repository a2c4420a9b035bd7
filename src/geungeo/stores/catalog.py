"""SQLite catalog of the embedded store: documents, chunk texts, metadata and sparse terms.

The catalog is the embedded store's source of truth. A document row is written as
``pending`` before its vectors go to Chroma and flipped to ``complete`` in the same
transaction that writes its chunk rows, so a killed process leaves the document pending
(invisible to search) and the next ingestion redoes it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from geungeo.types import Chunk, DocumentRecord

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT NOT NULL, kind TEXT NOT NULL,
    code TEXT, content_hash TEXT NOT NULL, chunk_count INTEGER NOT NULL, origin TEXT NOT NULL,
    ingested_at REAL NOT NULL, state TEXT NOT NULL CHECK (state IN ('pending', 'complete'))
);
CREATE TABLE IF NOT EXISTS chunks (
    id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, ordinal INTEGER NOT NULL, header TEXT NOT NULL,
    text TEXT NOT NULL, meta TEXT NOT NULL, prev_id TEXT, next_id TEXT, terms TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks (doc_id, ordinal);
"""
_CHUNK_COLS = "id, doc_id, ordinal, header, text, meta, prev_id, next_id"
_DOC_COLS = "doc_id, source, title, kind, code, content_hash, chunk_count, origin, ingested_at"


def _chunk(row: sqlite3.Row | tuple[object, ...]) -> Chunk:
    id_, doc_id, ordinal, header, text, meta, prev_id, next_id = row
    return Chunk(
        id=str(id_),
        doc_id=str(doc_id),
        ordinal=int(str(ordinal)),
        header=str(header),
        text=str(text),
        meta=json.loads(str(meta)),
        prev_id=prev_id if prev_id is None else str(prev_id),
        next_id=next_id if next_id is None else str(next_id),
    )


class Catalog:
    """Documents and chunks in one SQLite file (WAL, one writer)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)

    # --- key/value ---------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    @property
    def generation(self) -> int:
        """Bumped by every committed change; derived indexes compare against it."""
        return int(self.get_meta("generation") or 0)

    def _bump(self) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    # --- documents ---------------------------------------------------------------
    def documents(self, state: str = "complete") -> list[DocumentRecord]:
        rows = self.db.execute(f"SELECT {_DOC_COLS} FROM documents WHERE state = ? ORDER BY source, title", (state,))
        return [DocumentRecord(*row) for row in rows]

    def mark_pending(self, record: DocumentRecord) -> None:
        """Record that ``record`` is being written (its old chunks become invisible)."""
        self.db.execute(
            f"INSERT OR REPLACE INTO documents ({_DOC_COLS}, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
            (record.doc_id, record.source, record.title, record.kind, record.code, record.content_hash, 0,
             record.origin, time.time()),
        )
        self._bump()

    def complete(self, record: DocumentRecord, chunks: Sequence[Chunk], terms: Sequence[Sequence[str]]) -> None:
        """Replace the document's chunk rows and mark it complete, in one transaction."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM chunks WHERE doc_id = ?", (record.doc_id,))
            self.db.executemany(
                f"INSERT INTO chunks ({_CHUNK_COLS}, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (c.id, c.doc_id, c.ordinal, c.header, c.text, json.dumps(c.meta, ensure_ascii=False),
                     c.prev_id, c.next_id, json.dumps(list(t), ensure_ascii=False))
                    for c, t in zip(chunks, terms, strict=True)
                ],
            )
            self.db.execute(
                f"INSERT OR REPLACE INTO documents ({_DOC_COLS}, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'complete')",
                (record.doc_id, record.source, record.title, record.kind, record.code, record.content_hash,
                 len(chunks), record.origin, time.time()),
            )
            self._bump()

    def delete(self, doc_id: str) -> int:
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            n = self.db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,)).rowcount
            self.db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
            self._bump()
        return int(n)

    # --- chunks ------------------------------------------------------------------
    _VISIBLE = "doc_id IN (SELECT doc_id FROM documents WHERE state = 'complete')"

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        found: dict[str, Chunk] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            marks = ",".join("?" * len(part))
            rows = self.db.execute(f"SELECT {_CHUNK_COLS} FROM chunks WHERE id IN ({marks}) AND {self._VISIBLE}", part)
            found.update((c.id, c) for c in map(_chunk, rows))
        return [found[i] for i in ids if i in found]

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        rows = self.db.execute(
            f"SELECT {_CHUNK_COLS} FROM chunks WHERE doc_id = ? AND {self._VISIBLE} ORDER BY ordinal", (doc_id,)
        )
        return [_chunk(r) for r in rows]

    def count(self) -> int:
        return int(self.db.execute(f"SELECT COUNT(*) FROM chunks WHERE {self._VISIBLE}").fetchone()[0])

    def iter_terms(self) -> Iterator[tuple[str, dict[str, object], list[str]]]:
        """(id, meta, terms) of every visible chunk, in a stable order."""
        rows = self.db.execute(f"SELECT id, meta, terms FROM chunks WHERE {self._VISIBLE} ORDER BY doc_id, ordinal")
        for id_, meta, terms in rows:
            yield str(id_), json.loads(meta), json.loads(terms)

    def close(self) -> None:
        self.db.close()
