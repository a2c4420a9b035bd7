"""The embedded default store: Chroma for vectors, SQLite catalog, bm25s for BM25.

Layout under ``data_dir/store/``: ``catalog.sqlite`` (documents, chunk texts, terms: the
source of truth), ``chroma/`` (a persistent Chroma directory: one vector and flat metadata
per chunk; opened by a child process, :mod:`geungeo.stores.chroma_process`), ``bm25/`` (the saved
bm25s index and the catalog generation it reflects), ``dense/`` (every chunk's vector in one matrix
for exact search, the same generation; see :mod:`geungeo.stores.dense_index`).
Write order per document: catalog row ``pending`` → Chroma delete + add → catalog chunks
and ``complete`` in one transaction. Search only returns chunks of complete documents.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from geungeo.embeddings import settings_for
from geungeo.errors import StoreError
from geungeo.filters import And, Eq, Filter, In, Range
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore, DocumentVectors, IndexSignature, UntilChanged, WriteGuard, add_unit_rows
from geungeo.stores.bm25_index import Bm25Index
from geungeo.stores.catalog import Catalog, DocumentRows
from geungeo.stores.chroma_process import ChromaCollection
from geungeo.stores.dense_index import READ_BATCH, DenseIndex
from geungeo.text.references import Reference
from geungeo.types import Chunk, DocumentRecord, MetaValue, doc_id_of

log = logging.getLogger(__name__)
_ADD_BATCH = 2000
_REFRESH_SPACING = 2.0
"""After a background BM25 rebuild of t seconds, the next one waits 2t: rebuilds take at most a third of the time."""


def to_chroma_where(f: Filter) -> dict[str, Any]:
    """Translate a filter to Chroma's ``where`` syntax."""
    if isinstance(f, Eq):
        return {f.field: {"$eq": f.value}}
    if isinstance(f, In):
        return {f.field: {"$in": list(f.values)}}
    if isinstance(f, Range):
        bounds = [{f.field: {op: v}} for op, v in (("$gte", f.low), ("$lte", f.high)) if v is not None]
        if not bounds:
            return {f.field: {"$gte": float("-inf")}}
        return bounds[0] if len(bounds) == 1 else {"$and": bounds}
    parts = [to_chroma_where(p) for p in f.parts]
    if len(parts) == 1:
        return parts[0]
    return {"$and" if isinstance(f, And) else "$or": parts}


def _chroma_meta(chunk: Chunk) -> dict[str, str | int | float | bool]:
    """Flat metadata without None values (Chroma rejects them; missing never matches)."""
    return {k: v for k, v in chunk.meta.items() if v is not None}


# Without the exact dense index, a dense search inside named documents scores their chunks exactly when they are at
# most this many.
EXACT_SCOPE_CHUNKS = 5000


@dataclass(frozen=True, slots=True)
class _Derived:
    """The indexes derived from the catalog for one generation, over the same chunks in the same order (a filter's
    mask serves both); swapped whole, so a reader never mixes two generations."""

    sparse: Bm25Index
    dense: DenseIndex | None  # None above the size limit: Chroma's HNSW index answers


class ChromaStore(ChunkStore):
    """Chroma + SQLite catalog + bm25s, all in one directory."""

    def __init__(self, settings: Settings, signature: IndexSignature) -> None:
        self._flush_lock = threading.Lock()
        self.root = Path(settings.data_dir) / "store"
        self.catalog = Catalog(self.root / "catalog.sqlite")
        self._check_signature(signature)
        self.signature = signature
        self.collection = ChromaCollection(self.root / "chroma", settings.collection, {"hnsw": {"space": "cosine"}})
        self._derived = _Derived(Bm25Index(self.root / "bm25", k1=settings.bm25_k1, b=settings.bm25_b), None)
        self._dense_max_bytes = settings.dense_exact_max_mb * 2**20
        self._next_refresh = 0.0  # monotonic time before which no background rebuild starts
        self._ingestions = 0  # ingestions of this process writing now (their flush rebuilds the BM25 index)
        self._ingestions_lock = threading.Lock()
        self._vectors: int | None = None  # vectors in the collection; None after a write
        self._documents = UntilChanged(self.read_version, lambda: self.catalog.documents("complete"))
        # the documents' mean directions, over the chunks the derived indexes hold (rebuilt after the documents change)
        self._document_vectors = UntilChanged(
            lambda: f"{self.read_version()} indexed {self._derived.sparse.generation}", self._read_document_vectors
        )

    def _check_signature(self, signature: IndexSignature) -> None:
        stored = {k: self.catalog.get_meta(k) for k in ("embedder", "dim", "tokenizer")}
        if stored["embedder"] is None:
            self.catalog.set_meta("embedder", signature.embedder)
            self.catalog.set_meta("dim", str(signature.dim))
            self.catalog.set_meta("tokenizer", signature.tokenizer)
            return
        if stored["embedder"] != signature.embedder or stored["dim"] != str(signature.dim):
            raise StoreError(
                f"the store at {self.root} holds {stored['embedder']} vectors (dim {stored['dim']}) but the "
                f"configured embedder is {signature.embedder} (dim {signature.dim}): set "
                f"{settings_for(stored['embedder'])}, or re-index with `geungeo ingest --rebuild`"
            )
        if stored["tokenizer"] != signature.tokenizer:
            raise StoreError(
                f"the store's sparse terms were made by {stored['tokenizer']}, this install has "
                f"{signature.tokenizer}: re-index with `geungeo ingest --rebuild`"
            )

    # --- documents ---------------------------------------------------------------
    def documents(self) -> list[DocumentRecord]:
        return list(self._documents())

    def documents_version(self) -> str:
        return f"generation {self.catalog.generation}"

    def pending(self) -> list[str]:
        return [d.doc_id for d in self.catalog.documents("pending")]

    def document_vectors(self) -> DocumentVectors:
        self._searchable()  # the indexes a search would read, built first when there are none
        return self._document_vectors()

    def _read_document_vectors(self) -> DocumentVectors:
        """Over the body of each document (its 부칙 left out), from the exact dense index when there is one, else from
        Chroma, a batch of vectors at a time."""
        derived = self._derived
        addenda = {cid for cid, meta in zip(derived.sparse.ids, derived.sparse.metas, strict=True) if meta.get("addendum")}
        sums: dict[str, np.ndarray] = {}
        if derived.dense is not None:
            for ids, rows in derived.dense.batches():
                body = [i for i, cid in enumerate(ids) if cid not in addenda]
                add_unit_rows(sums, [doc_id_of(ids[i]) for i in body], rows[body])
        else:
            ids = [cid for cid in derived.sparse.ids if cid not in addenda]
            for start in range(0, len(ids), READ_BATCH):
                got = self._read_vectors(ids[start : start + READ_BATCH])
                if got:
                    add_unit_rows(sums, [doc_id_of(i) for i in got], np.stack(list(got.values())))
        return DocumentVectors.of_sums(sums)

    def replace_document(
        self,
        record: DocumentRecord,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        terms: Sequence[Sequence[str]],
        *,
        guard: WriteGuard = nullcontext,
    ) -> None:
        """Hide the document (pending), replace its vectors in Chroma, then write its rows and show it, in one
        catalog transaction; ``guard`` is held for the catalog's two steps only: a search meanwhile skips the pending
        document's vectors. Chroma's work runs in its own process (:mod:`geungeo.stores.chroma_process`): readers
        neither wait for it nor share an interpreter with it."""
        if len(chunks) != len(vectors) or len(chunks) != len(terms):
            raise StoreError(f"{record.source}: {len(chunks)} chunks, {len(vectors)} vectors, {len(terms)} term lists")
        rows = DocumentRows.of(record, chunks, terms)  # before the guarded steps: readers do not wait for it
        with guard():
            self.catalog.mark_pending(record)
        self._vectors = None
        self.collection.delete(where={"doc_id": record.doc_id})
        for start in range(0, len(chunks), _ADD_BATCH):
            part = chunks[start : start + _ADD_BATCH]
            self.collection.add(
                ids=[c.id for c in part],
                embeddings=np.asarray(vectors[start : start + _ADD_BATCH], dtype=np.float32),
                metadatas=[_chroma_meta(c) for c in part],
            )
        with guard():
            self._vectors = None  # a search during the add counted part of the collection; none runs now
            self.catalog.complete(record, rows)

    def delete_document(self, doc_id: str) -> int:
        self._vectors = None
        self.collection.delete(where={"doc_id": doc_id})
        return self.catalog.delete(doc_id)

    # --- chunks ------------------------------------------------------------------
    def get(self, ids: Sequence[str]) -> list[Chunk]:
        return self.catalog.get(ids)

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        return self.catalog.chunks_of(doc_id)

    def count(self) -> int:
        return self.catalog.count()

    # --- links -------------------------------------------------------------------
    def _references_from(self, chunk_ids: Sequence[str]) -> list[tuple[str, Reference]]:
        return self.catalog.references_from(chunk_ids)

    def _references_into(self, title: str, articles: Sequence[str]) -> list[tuple[str, Reference]]:
        return self.catalog.references_into(title, articles)

    def _article_chunks(self, doc_ids: Sequence[str], articles: Sequence[str]) -> list[tuple[str, str, str]]:
        return self.catalog.article_chunks(doc_ids, articles)

    # --- search ------------------------------------------------------------------
    def dense_search(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        derived = self._searchable()
        if derived.dense is not None:
            return derived.dense.search(vector, k, derived.sparse.mask(where) if where is not None else None)
        if isinstance(where, In) and where.field == "doc_id":  # a search inside named documents
            ids = self.catalog.chunk_ids([str(v) for v in where.values])
            if len(ids) <= EXACT_SCOPE_CHUNKS:
                return self._exact_search(vector, ids, k)
        vectors = self._vectors  # a writer may reset it meanwhile: read it once
        if vectors is None:
            vectors = self._vectors = self.collection.count()
        if vectors == 0:
            return []
        pending = set(self.pending())
        res = self.collection.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32).tolist()],
            n_results=min(k + (100 if pending else 0), vectors),
            where=to_chroma_where(where) if where is not None else None,
            include=["distances", "metadatas"] if pending else ["distances"],  # metadata only to skip pending docs
        )
        ids, dists = res["ids"][0], (res["distances"] or [[]])[0]
        metas = (res["metadatas"] or [[]])[0] if pending else [{}] * len(ids)
        out = [
            (i, 1.0 - float(d))
            for i, d, m in zip(ids, dists, metas, strict=True)
            if not pending or m.get("doc_id") not in pending
        ]
        return out[:k]

    def _exact_search(self, vector: np.ndarray, ids: list[str], k: int) -> list[tuple[str, float]]:
        """Cosine against each of ``ids``' vectors, read by id: Chroma's own search under a metadata filter took
        ~100 ms at 124k chunks, this ~2 ms for a statute's 50 (benchmarks/reports/scale-archive.md)."""
        if not ids:
            return []
        got = self.collection.get(ids=ids, include=["embeddings"])
        if not got["ids"]:  # the catalog's chunks without vectors (a store written by hand)
            return []
        matrix = np.asarray(got["embeddings"], dtype=np.float32).reshape(len(got["ids"]), -1)
        query = np.asarray(vector, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
        scores = (matrix @ query) / np.maximum(norms, 1e-12)
        order = np.argsort(-scores, kind="stable")[:k]
        return [(str(got["ids"][i]), float(scores[i])) for i in order]

    def sparse_search(self, terms: Sequence[str], k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        return self._searchable().sparse.search(terms, k, where)

    # --- derived index -------------------------------------------------------------
    def _searchable(self) -> _Derived:
        """The derived indexes to search: the ones last built or loaded (a snapshot, swapped whole). A reader waits
        only when there are none yet; writes since (here or by another process) are indexed in the background,
        one rebuild at a time and spaced out, so a reader never waits for a rebuild. While an ingestion of this
        process writes (:meth:`ingesting`), its own final :meth:`flush` does that, at once."""
        derived = self._derived
        if derived.sparse.generation < 0:
            self.flush()
            return self._derived
        if derived.sparse.generation != self.catalog.generation and not self._ingestions:
            self._refresh_in_background()
        return derived

    @contextmanager
    def ingesting(self) -> Iterator[None]:
        with self._ingestions_lock:
            self._ingestions += 1
        try:
            yield
        finally:
            with self._ingestions_lock:
                self._ingestions -= 1

    def _refresh_in_background(self) -> None:
        if time.monotonic() < self._next_refresh or not self._flush_lock.acquire(blocking=False):
            return

        def refresh() -> None:
            started = time.monotonic()
            try:
                self._flush()
            except Exception:  # a reader goes on with the index it has; the next search tries again
                log.exception("rebuilding the BM25 index failed")
            finally:
                self._next_refresh = time.monotonic() + _REFRESH_SPACING * (time.monotonic() - started)
                self._flush_lock.release()

        threading.Thread(target=refresh, name="geungeo-bm25", daemon=True).start()

    def flush(self) -> None:
        """Rebuild the derived indexes if the catalog changed since they were built (one rebuild at a time)."""
        with self._flush_lock:
            self._flush()

    def _flush(self) -> None:
        generation = self.catalog.generation
        current = self._derived
        if current.sparse.generation == generation:
            return
        fresh = Bm25Index(current.sparse.directory, k1=current.sparse.k1, b=current.sparse.b)
        if not (fresh.load() and fresh.generation == generation):
            ids: list[str] = []
            metas: list[dict[str, MetaValue]] = []
            terms: list[list[str]] = []
            for id_, meta, t in self.catalog.iter_terms():
                ids.append(id_)
                metas.append(meta)  # type: ignore[arg-type]
                terms.append(t)
            fresh.build(generation, ids, metas, terms)
        self._derived = _Derived(fresh, self._dense_for(fresh, current.dense))  # readers of the old ones finish with them

    def _dense_for(self, sparse: Bm25Index, previous: DenseIndex | None) -> DenseIndex | None:
        """The exact dense index over ``sparse``'s chunks: the saved one if it matches, else one rebuilt (reading
        from Chroma only the documents written since); None when it would take more than the configured memory."""
        if not self._dense_max_bytes or len(sparse.ids) * self.signature.dim * 4 > self._dense_max_bytes:
            return None
        if previous is None:
            previous = DenseIndex.saved(self.root / "dense")
        if previous.covers(sparse.generation, sparse.ids):
            return previous
        stamps = {d.doc_id: f"{d.content_hash}@{d.ingested_at!r}" for d in self.catalog.documents("complete")}
        docs = [str(m.get("doc_id", "")) for m in sparse.metas]
        return previous.rebuilt(sparse.generation, sparse.ids, docs, stamps, self.signature.dim, self._read_vectors)

    def _read_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        got = self.collection.get(ids=list(ids), include=["embeddings"])
        embeddings = got["embeddings"] if got["embeddings"] is not None else []
        return dict(zip(got["ids"], (np.asarray(e, dtype=np.float32) for e in embeddings), strict=True))

    def size_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())

    def close(self) -> None:
        with self._flush_lock:  # a background rebuild finishes before the catalog closes
            self.catalog.close()
            self.collection.close()
