"""The PostgreSQL store: pgvector HNSW for dense search, BM25 computed in SQL for sparse search.

Each collection (``GEUNGEO_COLLECTION``) is one schema holding ``documents``, ``chunks``, the
BM25 ``postings`` and the index signature (``stores/sql/``, :mod:`geungeo.stores.pg_schema`;
the queries are in :mod:`geungeo.stores.pg_queries`). A document is replaced in one
transaction: upsert its row (which also serialises writers of the same document), delete its
old postings and chunks, COPY the new ones. Readers see the old or the new version and a
killed writer leaves nothing behind, so ``pending()`` stays empty: unlike the embedded store,
no document is ever left half written. ``flush()`` refreshes planner statistics and the
visibility map that index-only BM25 scans rely on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from geungeo.errors import StoreError
from geungeo.filters import Filter
from geungeo.settings import Settings
from geungeo.stores import pg_queries
from geungeo.stores.base import (
    ChunkStore,
    DocumentVectors,
    IndexSignature,
    LinkRow,
    UntilChanged,
    WriteGuard,
    link_rows,
)
from geungeo.stores.pg_filters import COLUMNS, column_value, to_sql
from geungeo.stores.pg_schema import connect, connection_kwargs, drop_schema, mask_url, prepare
from geungeo.text import references
from geungeo.text.normalize import squash
from geungeo.text.references import Reference
from geungeo.types import Chunk, DocumentRecord

_POOL_MAX = 8
_MAX_TERM_BYTES = 2047  # PostgreSQL's limit for one tsvector lexeme
_MAX_EF_SEARCH = 1000  # pgvector's limit for hnsw.ef_search


def _quote_lexeme(term: str) -> str:
    """A term as one verbatim tsvector lexeme (quoted: no parsing, no normalisation)."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def _usable(terms: Iterable[str]) -> list[str]:
    """Terms PostgreSQL can hold as lexemes (non-empty, at most 2047 bytes)."""
    return [t for t in terms if t and len(t.encode()) <= _MAX_TERM_BYTES]


def _chunk(row: Sequence[Any]) -> Chunk:
    id_, doc_id, ordinal, header, text, meta, prev_id, next_id = row
    return Chunk(id_, doc_id, ordinal, header, text, meta, prev_id, next_id)


def _record(row: Sequence[Any]) -> DocumentRecord:
    doc_id, source, title, kind, code, content_hash, chunk_count, origin, ingested_at = row
    return DocumentRecord(doc_id, source, title, kind, code, content_hash, chunk_count, origin, float(ingested_at))


def _copy_row(chunk: Chunk, vector: np.ndarray, terms: list[str]) -> tuple[object, ...]:
    return (
        chunk.id, chunk.doc_id, chunk.ordinal, chunk.header, chunk.text, chunk.prev_id, chunk.next_id,
        Jsonb(chunk.meta), *(column_value(c, chunk.meta.get(c)) for c in COLUMNS),
        vector, " ".join(map(_quote_lexeme, sorted(set(terms)))),
    )


class PostgresStore(ChunkStore):
    """Documents, chunks, pgvector embeddings and BM25 terms in one PostgreSQL schema."""

    def __init__(self, settings: Settings, signature: IndexSignature) -> None:
        url = settings.store_url.strip()
        self.where = mask_url(url)
        self.schema = settings.collection
        self.k1, self.b = settings.bm25_k1, settings.bm25_b
        with connect(url) as conn:
            prepared = prepare(conn, self.schema, signature, self.where)
        self.signature = signature
        self._iterative_scan = prepared.iterative_scan
        self._documents = UntilChanged(self.read_version, self._read_documents)
        self._document_vectors = UntilChanged(self.read_version, self._read_document_vectors)
        search_path = sql.SQL("SET search_path TO {}, {}").format(
            sql.Identifier(self.schema), sql.Identifier(prepared.extension_schema)
        )

        def configure(conn: psycopg.Connection[Any]) -> None:
            conn.execute(search_path)
            register_vector(conn)

        self._pool = ConnectionPool(
            url, min_size=1, max_size=_POOL_MAX, kwargs=connection_kwargs(url), configure=configure,
            timeout=30, name="geungeo", open=True,
        )
        self._check_links()

    @staticmethod
    def drop(settings: Settings) -> None:
        """Delete the collection: its schema with every document, chunk and the index signature."""
        with connect(settings.store_url.strip()) as conn:
            drop_schema(conn, settings.collection)

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled autocommit connection; connection failures become a StoreError."""
        try:
            with self._pool.connection() as conn:
                yield conn
        except psycopg.OperationalError as exc:
            raise StoreError(f"PostgreSQL at {self.where}: {exc}") from exc

    def _rows(self, query: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._connection() as conn:
            return conn.execute(query, params).fetchall()

    # --- documents ---------------------------------------------------------------
    def documents(self) -> list[DocumentRecord]:
        return list(self._documents())

    def _read_documents(self) -> list[DocumentRecord]:
        rows = self._rows(f"SELECT {pg_queries.DOC_COLS} FROM documents WHERE state = 'complete' ORDER BY source, title")
        return [_record(r) for r in rows]

    def documents_version(self) -> str:
        return str(self._rows(pg_queries.DOCUMENTS_VERSION)[0][0])

    def get_document(self, doc_id: str) -> DocumentRecord | None:
        rows = self._rows(f"SELECT {pg_queries.DOC_COLS} FROM documents WHERE doc_id = %s AND state = 'complete'", (doc_id,))
        return _record(rows[0]) if rows else None

    def pending(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT doc_id FROM documents WHERE state = 'pending' ORDER BY doc_id")]

    def document_vectors(self) -> DocumentVectors:
        return self._document_vectors()

    def _read_document_vectors(self) -> DocumentVectors:
        """The mean of each document's chunk vectors, averaged by the server (the stored vectors are unit length, so
        the mean has the direction of their sum)."""
        rows = self._rows(pg_queries.DOCUMENT_VECTORS)
        return DocumentVectors.of_sums({str(doc): np.asarray(mean, dtype=np.float32) for doc, mean in rows})

    def replace_document(
        self,
        record: DocumentRecord,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        terms: Sequence[Sequence[str]],
        *,
        guard: WriteGuard = nullcontext,
    ) -> None:
        """One transaction, under ``guard`` throughout."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(chunks) != len(vectors) or len(chunks) != len(terms):
            raise StoreError(f"{record.source}: {len(chunks)} chunks, {len(vectors)} vectors, {len(terms)} term lists")
        if chunks and vectors.shape != (len(chunks), self.signature.dim):
            raise StoreError(f"{record.source}: vectors of shape {vectors.shape}, the store holds dim {self.signature.dim}")
        if any(c.doc_id != record.doc_id for c in chunks):
            raise StoreError(f"{record.source}: chunks of another document than {record.doc_id}")
        usable = [_usable(t) for t in terms]
        params = {
            "doc_id": record.doc_id, "source": record.source, "title": record.title, "kind": record.kind,
            "code": record.code, "content_hash": record.content_hash, "chunk_count": len(chunks),
            "term_count": sum(map(len, usable)), "origin": record.origin,
        }
        links = link_rows(record, chunks)  # before the guard: readers do not wait for it
        try:
            with guard(), self._connection() as conn, conn.transaction():
                conn.execute(pg_queries.UPSERT_DOCUMENT, params)
                self._delete_chunks(conn, record.doc_id)
                with conn.cursor() as cur:
                    with cur.copy(pg_queries.COPY_CHUNKS) as copy:
                        for row in map(_copy_row, chunks, vectors, usable):
                            copy.write_row(row)
                    with cur.copy(pg_queries.COPY_POSTINGS) as copy:
                        for chunk, terms in zip(chunks, usable, strict=True):
                            for term, tf in Counter(terms).items():
                                copy.write_row((term, chunk.id, tf, len(terms)))
                self._write_links(conn, links)
        except psycopg.IntegrityError as exc:
            raise StoreError(f"{record.source}: {exc}") from exc

    def delete_document(self, doc_id: str) -> int:
        with self._connection() as conn, conn.transaction():
            conn.execute(pg_queries.LOCK_DOCUMENT, (doc_id,))
            removed = self._delete_chunks(conn, doc_id)
            conn.execute(pg_queries.DELETE_DOCUMENT, (doc_id,))
        return removed

    @staticmethod
    def _delete_chunks(conn: psycopg.Connection[Any], doc_id: str) -> int:
        """Delete a document's postings and chunks (inside the caller's transaction)."""
        conn.execute(pg_queries.DELETE_POSTINGS, (doc_id,))
        conn.execute(pg_queries.DELETE_LINKS, (doc_id,))
        return conn.execute(pg_queries.DELETE_CHUNKS, (doc_id,)).rowcount

    # --- links -------------------------------------------------------------------
    @staticmethod
    def _write_links(conn: psycopg.Connection[Any], rows: Sequence[LinkRow]) -> None:
        """COPY a document's citations (inside the caller's transaction, after its old ones were deleted)."""
        with conn.cursor() as cur, cur.copy(pg_queries.COPY_LINKS) as copy:
            for row in rows:
                copy.write_row(row)

    def _check_links(self) -> None:
        """Derive the citations again from the stored chunks when they were made by other rules."""
        with self._connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"geungeo.links.{self.schema}",))
            row = conn.execute("SELECT version FROM links_version").fetchone()
            if row is not None and row[0] == references.VERSION:
                return
            conn.execute("DELETE FROM links")
            for record in map(_record, conn.execute(f"SELECT {pg_queries.DOC_COLS} FROM documents").fetchall()):
                rows = conn.execute(
                    f"SELECT {pg_queries.CHUNK_COLS} FROM chunks WHERE doc_id = %s ORDER BY ordinal", (record.doc_id,)
                ).fetchall()
                self._write_links(conn, link_rows(record, [_chunk(r) for r in rows]))
            conn.execute(
                "INSERT INTO links_version (version) VALUES (%s) "
                "ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version",
                (references.VERSION,),
            )

    def _reference_rows(self, query: str, params: Sequence[object]) -> list[tuple[str, Reference]]:
        return [(str(d), Reference(str(s), str(t), str(a), str(x))) for d, s, t, a, x in self._rows(query, params)]

    def _references_from(self, chunk_ids: Sequence[str]) -> list[tuple[str, Reference]]:
        return self._reference_rows(pg_queries.LINKS_FROM, (list(chunk_ids),)) if chunk_ids else []

    def _references_into(self, title: str, articles: Sequence[str]) -> list[tuple[str, Reference]]:
        return self._reference_rows(pg_queries.LINKS_INTO, (list(articles), squash(title)))

    def _article_chunks(self, doc_ids: Sequence[str], articles: Sequence[str]) -> list[tuple[str, str, str]]:
        rows = self._rows(pg_queries.ARTICLE_CHUNKS, (list(doc_ids), list(articles)))
        return [(str(i), str(d), str(a)) for i, d, a in rows]

    # --- chunks ------------------------------------------------------------------
    def get(self, ids: Sequence[str]) -> list[Chunk]:
        if not ids:
            return []
        found = {c.id: c for c in map(_chunk, self._rows(f"SELECT {pg_queries.CHUNK_COLS} FROM chunks WHERE id = ANY(%s)",
                                                           (list(ids),)))}
        return [found[i] for i in ids if i in found]

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        rows = self._rows(f"SELECT {pg_queries.CHUNK_COLS} FROM chunks WHERE doc_id = %s ORDER BY ordinal", (doc_id,))
        return [_chunk(r) for r in rows]

    def count(self) -> int:
        return int(self._rows("SELECT count(*) FROM chunks")[0][0])

    # --- search ------------------------------------------------------------------
    def dense_search(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        vector = np.asarray(vector, dtype=np.float32).ravel()
        if vector.shape != (self.signature.dim,):
            raise StoreError(f"query vector of dim {vector.size}, the store holds dim {self.signature.dim}")
        if k <= 0:
            return []
        cond, params = to_sql(where)
        knobs = "SELECT set_config('hnsw.ef_search', %s, true)"
        if self._iterative_scan:
            knobs += ", set_config('hnsw.iterative_scan', 'strict_order', true)"
        with self._connection() as conn, conn.transaction():
            conn.execute(knobs, (str(min(max(k, 40), _MAX_EF_SEARCH)),))
            rows = conn.execute(pg_queries.DENSE.format(where=cond), {"vector": vector, "k": k, **params}).fetchall()
        return [(str(i), float(s)) for i, s in rows]

    def sparse_search(self, terms: Sequence[str], k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        repeats = Counter(_usable(terms))
        if not repeats or k <= 0:
            return []
        cond, params = to_sql(where)
        wanted = sql.SQL("TRUE") if where is None else pg_queries.BM25_WANTED.format(where=cond)
        params |= {
            "terms": list(repeats), "repeats": [float(n) for n in repeats.values()], "k1": self.k1, "b": self.b, "k": k,
        }
        with self._connection() as conn:
            rows = conn.execute(pg_queries.BM25.format(wanted=wanted), params).fetchall()
        return [(str(i), float(s)) for i, s in rows if s > 0]

    # --- lifecycle ---------------------------------------------------------------
    def flush(self) -> None:
        """Planner statistics and the postings' visibility map, after a batch of writes."""
        with self._connection() as conn:
            conn.execute("VACUUM (ANALYZE) postings")
            conn.execute("ANALYZE documents, chunks, links")

    def size_on_disk(self) -> int:
        return int(self._rows(pg_queries.SIZE, (self.schema,))[0][0])

    def close(self) -> None:
        self._pool.close()
