"""SQLite catalog of the embedded store: documents, chunk texts, metadata and sparse terms.

The catalog is the embedded store's source of truth. A document row is written as
``pending`` before its vectors go to Chroma and flipped to ``complete`` in the same
transaction that writes its chunk rows, so a killed process leaves the document pending
(invisible to search) and the next ingestion redoes it.

Writes go through one connection; every thread reads through a connection of its own, so a reader sees the last
committed state (WAL) and never waits for a writer's transaction, nor sees half of one.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from geungeo.sqlite import use_wal
from geungeo.stores.base import LinkRow, link_rows
from geungeo.text import references
from geungeo.text.normalize import squash
from geungeo.text.references import Reference
from geungeo.types import Chunk, DocumentRecord

_IN_LIST = 500
"""Values bound in one ``IN (…)`` list: longer lists are read in parts (SQLite bounds the parameters of a query)."""


def _rows_in(db: sqlite3.Connection, query: str, values: Sequence[str]) -> Iterator[tuple[object, ...]]:
    """The rows of ``query``, whose ``{marks}`` is an ``IN`` list, over ``values`` in parts of ``_IN_LIST``."""
    for start in range(0, len(values), _IN_LIST):
        part = list(values[start : start + _IN_LIST])
        yield from db.execute(query.format(marks=",".join("?" * len(part))), part)


_ChunkRow = tuple[str, str, int, str, str, str, str | None, str | None, str]


@dataclass(frozen=True)
class DocumentRows:
    """A document's catalog rows, made before its write transaction: the JSON and the citations take longer than
    the inserts, and a reader waits for the transaction only (:meth:`Catalog.complete`)."""

    chunks: list[_ChunkRow]
    links: list[LinkRow]

    @classmethod
    def of(cls, record: DocumentRecord, chunks: Sequence[Chunk], terms: Sequence[Sequence[str]]) -> DocumentRows:
        return cls(
            [
                (c.id, c.doc_id, c.ordinal, c.header, c.text, json.dumps(c.meta, ensure_ascii=False), c.prev_id,
                 c.next_id, json.dumps(list(t), ensure_ascii=False))
                for c, t in zip(chunks, terms, strict=True)
            ],
            link_rows(record, chunks),
        )


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
CREATE TABLE IF NOT EXISTS links (
    source_id TEXT NOT NULL, doc_id TEXT NOT NULL, ord INTEGER NOT NULL, target_key TEXT NOT NULL,
    target TEXT NOT NULL, article TEXT NOT NULL, detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS links_by_source ON links (source_id, ord);
CREATE INDEX IF NOT EXISTS links_by_doc ON links (doc_id);
CREATE INDEX IF NOT EXISTS links_by_article ON links (article, target_key);
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


class _Reader(sqlite3.Connection):
    """A thread's reading connection (a subclass, so that the catalog can hold it weakly: it closes when its thread
    ends)."""


class Catalog:
    """Documents and chunks in one SQLite file (WAL, one writer, a reading connection per thread)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
        use_wal(self.db)
        self.db.executescript(_SCHEMA)
        self._local = threading.local()
        self._readers: weakref.WeakSet[_Reader] = weakref.WeakSet()  # to close those still open with the catalog
        self._readers_lock = threading.Lock()
        if self.get_meta("links_version") != str(references.VERSION):
            self.relink()

    @property
    def _read(self) -> sqlite3.Connection:
        """This thread's reading connection (opened on first use; committed data only)."""
        conn: _Reader | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=60, check_same_thread=False, isolation_level=None, factory=_Reader)
            self._local.conn = conn
            with self._readers_lock:
                self._readers.add(conn)
        return conn

    # --- key/value ---------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._read.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
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
        rows = self._read.execute(f"SELECT {_DOC_COLS} FROM documents WHERE state = ? ORDER BY source, title", (state,))
        return [DocumentRecord(*row) for row in rows]

    def mark_pending(self, record: DocumentRecord) -> None:
        """Record that ``record`` is being written (its old chunks become invisible)."""
        self.db.execute(
            f"INSERT OR REPLACE INTO documents ({_DOC_COLS}, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
            (record.doc_id, record.source, record.title, record.kind, record.code, record.content_hash, 0,
             record.origin, time.time()),
        )
        self._bump()

    def complete(self, record: DocumentRecord, rows: DocumentRows) -> None:
        """Replace the document's chunk rows and citations with ``rows`` and mark it complete, in one transaction."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM chunks WHERE doc_id = ?", (record.doc_id,))
            self.db.executemany(f"INSERT INTO chunks ({_CHUNK_COLS}, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows.chunks)
            self._write_links(record.doc_id, rows.links)
            self.db.execute(
                f"INSERT OR REPLACE INTO documents ({_DOC_COLS}, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'complete')",
                (record.doc_id, record.source, record.title, record.kind, record.code, record.content_hash,
                 len(rows.chunks), record.origin, time.time()),
            )
            self._bump()

    def delete(self, doc_id: str) -> int:
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            n = self.db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,)).rowcount
            self.db.execute("DELETE FROM links WHERE doc_id = ?", (doc_id,))
            self.db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
            self._bump()
        return int(n)

    # --- chunks ------------------------------------------------------------------
    _VISIBLE = "doc_id IN (SELECT doc_id FROM documents WHERE state = 'complete')"

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        found: dict[str, Chunk] = {}
        db = self._read
        with db:  # one snapshot for all the parts
            db.execute("BEGIN")
            rows = _rows_in(db, f"SELECT {_CHUNK_COLS} FROM chunks WHERE id IN ({{marks}}) AND {self._VISIBLE}", ids)
            found.update((c.id, c) for c in map(_chunk, rows))
        return [found[i] for i in ids if i in found]

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        rows = self._read.execute(
            f"SELECT {_CHUNK_COLS} FROM chunks WHERE doc_id = ? AND {self._VISIBLE} ORDER BY ordinal", (doc_id,)
        )
        return [_chunk(r) for r in rows]

    def chunk_ids(self, doc_ids: Sequence[str]) -> list[str]:
        """Ids of the chunks of these documents (complete ones only)."""
        query = f"SELECT id FROM chunks WHERE doc_id IN ({{marks}}) AND {self._VISIBLE}"
        return [str(r[0]) for r in _rows_in(self._read, query, doc_ids)]

    def count(self) -> int:
        return int(self._read.execute(f"SELECT COUNT(*) FROM chunks WHERE {self._VISIBLE}").fetchone()[0])

    def iter_terms(self) -> Iterator[tuple[str, dict[str, object], list[str]]]:
        """(id, meta, terms) of every visible chunk, in a stable order."""
        rows = self._read.execute(f"SELECT id, meta, terms FROM chunks WHERE {self._VISIBLE} ORDER BY doc_id, ordinal")
        for id_, meta, terms in rows:
            yield str(id_), json.loads(meta), json.loads(terms)

    # --- links -------------------------------------------------------------------
    def _write_links(self, doc_id: str, rows: Sequence[LinkRow]) -> None:
        """Replace the document's citations (inside the caller's transaction)."""
        self.db.execute("DELETE FROM links WHERE doc_id = ?", (doc_id,))
        self.db.executemany(
            "INSERT INTO links (source_id, doc_id, ord, target_key, target, article, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def relink(self) -> None:
        """Derive every document's citations again from its stored chunks (after the rules changed)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM links")
            for record in self.documents("complete"):
                self._write_links(record.doc_id, link_rows(record, self.chunks_of(record.doc_id)))
            self.set_meta("links_version", str(references.VERSION))

    _LINK_COLS = "doc_id, source_id, target, article, detail"

    def references_from(self, ids: Sequence[str]) -> list[tuple[str, Reference]]:
        query = f"SELECT {self._LINK_COLS} FROM links WHERE source_id IN ({{marks}}) ORDER BY source_id, ord"
        rows = _rows_in(self._read, query, ids)
        return [(str(d), Reference(str(s), str(t), str(a), str(x))) for d, s, t, a, x in rows]

    def references_into(self, title: str, articles: Sequence[str]) -> list[tuple[str, Reference]]:
        marks = ",".join("?" * len(articles))
        rows = self._read.execute(
            f"SELECT {self._LINK_COLS} FROM links WHERE article IN ({marks}) "
            "AND substr(?, -length(target_key)) = target_key ORDER BY doc_id, source_id, ord",
            [*articles, squash(title)],
        )
        return [(str(d), Reference(str(s), str(t), str(a), str(x))) for d, s, t, a, x in rows]

    def article_chunks(self, doc_ids: Sequence[str], articles: Sequence[str]) -> list[tuple[str, str, str]]:
        docs, arts = ",".join("?" * len(doc_ids)), ",".join("?" * len(articles))
        rows = self._read.execute(
            f"SELECT id, doc_id, json_extract(meta, '$.article') FROM chunks WHERE doc_id IN ({docs}) "
            f"AND json_extract(meta, '$.article') IN ({arts}) AND NOT coalesce(json_extract(meta, '$.addendum'), 0) "
            f"AND {self._VISIBLE} ORDER BY doc_id, ordinal",
            [*doc_ids, *articles],
        )
        return [(str(i), str(d), str(a)) for i, d, a in rows]

    def close(self) -> None:
        with self._readers_lock:
            for conn in list(self._readers):
                conn.close()
            self._readers.clear()
        self.db.close()
