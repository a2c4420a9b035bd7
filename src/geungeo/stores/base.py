"""The chunk store interface every backend implements, and the factory that picks one.

A store keeps documents, their chunks, one dense vector per chunk and the chunk's sparse
terms. Writing a document is atomic (all of its chunks or none are visible), and a store
refuses to mix vectors of different embedders or terms of different tokenizers. The citations
its article chunks make (:mod:`geungeo.text.references`) are written with them, in the same
transaction, and resolved to the cited articles' chunks when read (:meth:`ChunkStore.links_from`).
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from geungeo.embeddings.base import normalize_rows
from geungeo.filters import Filter
from geungeo.text import references
from geungeo.text.normalize import squash
from geungeo.text.references import Reference
from geungeo.types import Chunk, DocumentRecord, Link

T = TypeVar("T")

WriteGuard = Callable[[], AbstractContextManager[object]]
"""What a store's writes are made under (a service's writer lock), so that readers wait for one step at most."""

# The documents' versions read during the current :meth:`ChunkStore.one_read`, by store (None outside one).
_ONE_READ: ContextVar[dict[int, str] | None] = ContextVar("geungeo_one_read", default=None)


class UntilChanged(Generic[T]):
    """A value derived from a store's documents (the list itself, a name index, a digest), derived again
    (``derive``) only when the store's ``version`` (:meth:`ChunkStore.read_version`) has changed."""

    def __init__(self, version: Callable[[], str], derive: Callable[[], T]) -> None:
        self.version, self.derive = version, derive
        self._known: tuple[str, T] | None = None

    def __call__(self) -> T:
        version = self.version()
        known = self._known
        if known is None or known[0] != version:  # a write, by this process or another
            known = self._known = (version, self.derive())
        return known[1]


@dataclass(frozen=True)
class DocumentVectors:
    """What each document is about as a whole: the mean direction of its body's chunk vectors (unit length; 부칙, the
    amendment history, left out), one row per document, derived from the stored vectors (no question involved)."""

    doc_ids: tuple[str, ...]
    matrix: np.ndarray  # (documents, dim), unit rows

    @classmethod
    def of_sums(cls, sums: dict[str, np.ndarray]) -> DocumentVectors:
        """From each document's sum of unit chunk vectors."""
        if not sums:
            return cls((), np.zeros((0, 0), dtype=np.float32))
        return cls(tuple(sums), normalize_rows(np.stack([np.asarray(v, dtype=np.float32) for v in sums.values()])))

    def similarity(self, vector: np.ndarray) -> dict[str, float]:
        """Each document's cosine to ``vector``."""
        if not self.doc_ids:
            return {}
        scores = self.matrix @ normalize_rows(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
        return dict(zip(self.doc_ids, (float(x) for x in scores), strict=True))


def add_unit_rows(sums: dict[str, np.ndarray], doc_ids: Sequence[str], rows: np.ndarray) -> None:
    """Add each of ``rows`` (a chunk's vector, made unit length; a zero row, no vector, adds nothing) to the sum of
    its document ``doc_ids[i]``."""
    rows = np.asarray(rows, dtype=np.float32)
    if len(rows) != len(doc_ids):
        raise ValueError(f"{len(rows)} rows for {len(doc_ids)} documents")
    rows = normalize_rows(rows) if len(rows) else rows
    docs, index = np.unique(np.asarray(doc_ids, dtype=str), return_inverse=True)
    grouped = np.zeros((len(docs), rows.shape[1] if rows.ndim == 2 else 0), dtype=np.float32)
    np.add.at(grouped, index, rows)
    for doc, row in zip((str(d) for d in docs), grouped, strict=True):
        sums[doc] = sums[doc] + row if doc in sums else row


LinkRow = tuple[str, str, int, str, str, str, str]
"""A citation as both stores keep it: (citing chunk, citing document, order, cited title squashed, cited title,
article, detail)."""


def link_rows(record: DocumentRecord, chunks: Sequence[Chunk]) -> list[LinkRow]:
    """The citations of the document's article chunks, as link rows. Finding them takes longer than writing them,
    so a store makes them before it takes its ``guard``."""
    return [
        (r.source, record.doc_id, n, squash(r.doc), r.doc, r.article, r.detail)
        for n, r in enumerate(references.document_references(record.title, record.kind, chunks))
    ]


@dataclass(frozen=True, slots=True)
class IndexSignature:
    """What the stored vectors and terms were made with; a mismatch means re-ingest."""

    embedder: str
    dim: int
    tokenizer: str


class ChunkStore(ABC):
    """Documents, chunks, dense vectors and sparse terms, with filtered search."""

    signature: IndexSignature

    # --- documents -------------------------------------------------------------
    @abstractmethod
    def documents(self) -> list[DocumentRecord]:
        """Completely written documents."""

    def documents_version(self) -> str:
        """A value that changes whenever :meth:`documents` does (a document written, replaced or deleted, by any
        process) and is cheaper to read: what is derived from the documents is rebuilt only when it changes."""
        digest = hashlib.sha256()
        for d in sorted(self.documents(), key=lambda d: d.doc_id):
            digest.update(f"{d.doc_id}:{d.content_hash}:{d.ingested_at}\n".encode())
        return digest.hexdigest()

    @contextmanager
    def one_read(self) -> Iterator[None]:
        """One read of the store (a search, the searches of one question): inside, :meth:`read_version` reads the
        documents' version once, however many derived values (the documents, their names, their vectors) are looked
        up. Nested, the outer read's; a thread started inside takes part when it runs in a copy of this context
        (:func:`contextvars.copy_context`)."""
        if _ONE_READ.get() is not None:
            yield
            return
        token = _ONE_READ.set({})
        try:
            yield
        finally:
            _ONE_READ.reset(token)

    def read_version(self) -> str:
        """:meth:`documents_version`, read once per :meth:`one_read` (on PostgreSQL a query of its own)."""
        seen = _ONE_READ.get()
        if seen is None:
            return self.documents_version()
        if id(self) not in seen:
            seen[id(self)] = self.documents_version()
        return seen[id(self)]

    @abstractmethod
    def document_vectors(self) -> DocumentVectors:
        """Each complete document's mean chunk direction (:class:`DocumentVectors`), kept until the documents or
        the indexes change."""

    @abstractmethod
    def pending(self) -> list[str]:
        """Ids of documents whose writing was interrupted (they are invisible to search)."""

    @abstractmethod
    def replace_document(
        self,
        record: DocumentRecord,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        terms: Sequence[Sequence[str]],
        *,
        guard: WriteGuard = nullcontext,
    ) -> None:
        """Atomically replace a document's chunks (insert when new). ``guard`` is held around each step that changes
        what readers see; between them (the document hidden as pending) readers need not wait."""

    @abstractmethod
    def delete_document(self, doc_id: str) -> int:
        """Remove a document and its chunks; returns the number of chunks removed."""

    # --- chunks ----------------------------------------------------------------
    @abstractmethod
    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """Chunks by id, in the order asked, skipping unknown ids."""

    @abstractmethod
    def chunks_of(self, doc_id: str) -> list[Chunk]:
        """All chunks of a document in reading order."""

    @abstractmethod
    def count(self) -> int:
        """Number of searchable chunks."""

    # --- search ----------------------------------------------------------------
    @abstractmethod
    def dense_search(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) of the k nearest chunks that match ``where``."""

    @abstractmethod
    def sparse_search(self, terms: Sequence[str], k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        """(chunk id, BM25 score > 0) of the k best lexical matches that match ``where``."""

    # --- links between articles -------------------------------------------------
    @abstractmethod
    def _references_from(self, chunk_ids: Sequence[str]) -> list[tuple[str, Reference]]:
        """(citing document id, citation) of the stored citations made by ``chunk_ids``."""

    @abstractmethod
    def _references_into(self, title: str, articles: Sequence[str]) -> list[tuple[str, Reference]]:
        """(citing document id, citation) of the stored citations of ``articles`` under a title that ``title``
        ends with (whitespace ignored): candidates, the caller resolves them."""

    @abstractmethod
    def _article_chunks(self, doc_ids: Sequence[str], articles: Sequence[str]) -> list[tuple[str, str, str]]:
        """(chunk id, document id, article) of the article chunks (not 부칙) of ``doc_ids`` with those articles,
        in reading order."""

    def links_from(self, chunk_ids: Sequence[str]) -> list[Link]:
        """The citations that ``chunk_ids`` make, resolved now (``targets`` empty: the cited document is not
        ingested); in the order of ``chunk_ids``, then of the text."""
        rows = self._references_from(list(chunk_ids))
        order = {cid: n for n, cid in enumerate(chunk_ids)}
        links = self._resolve(rows)
        return sorted(links, key=lambda link: order.get(link.source, len(order)))

    def links_to(self, chunk_ids: Sequence[str]) -> list[Link]:
        """The resolved citations whose targets include one of ``chunk_ids`` (who cites these articles)."""
        wanted = set(chunk_ids)
        rows: list[tuple[str, Reference]] = []
        by_title: dict[str, set[str]] = {}
        for chunk in self.get(list(chunk_ids)):
            article, title = chunk.meta.get("article"), chunk.meta.get("doc")
            if article and title and not chunk.meta.get("addendum"):
                by_title.setdefault(str(title), set()).add(str(article))
        for title, articles in by_title.items():
            rows += self._references_into(title, sorted(articles))
        return [link for link in self._resolve(rows) if wanted.intersection(link.targets)]

    def _resolve(self, rows: Sequence[tuple[str, Reference]]) -> list[Link]:
        """Citations → links: the cited title matched ignoring spaces (the citing document itself first when
        several share it); a title not found whole (학칙 for 동의대학교학칙) matches the shortest title of the
        citing document's own source that ends with it."""
        if not rows:
            return []
        docs = self.documents()
        by_key: dict[str, list[DocumentRecord]] = {}
        for d in docs:
            by_key.setdefault(squash(d.title), []).append(d)
        source_of = {d.doc_id: d.source for d in docs}
        wanted: list[tuple[list[str], Reference]] = []
        for citing, ref in rows:
            key = squash(ref.doc)
            found = by_key.get(key)
            if not found:
                near = [d for d in docs if d.source == source_of.get(citing) and squash(d.title).endswith(key)]
                shortest = min((len(squash(d.title)) for d in near), default=0)
                found = [d for d in near if len(squash(d.title)) == shortest]
            ids = [d.doc_id for d in found]
            wanted.append(([citing] if citing in ids else ids, ref))
        doc_ids = sorted({d for ids, _ in wanted for d in ids})
        articles = sorted({ref.article for _, ref in wanted})
        chunks: dict[tuple[str, str], list[str]] = {}
        if doc_ids:
            for cid, doc_id, article in self._article_chunks(doc_ids, articles):
                chunks.setdefault((doc_id, article), []).append(cid)
        return [
            Link(ref.source, ref.doc, ref.article, ref.detail,
                 tuple(c for d in ids for c in chunks.get((d, ref.article), ())))
            for ids, ref in wanted
        ]

    # --- lifecycle -------------------------------------------------------------
    def flush(self) -> None:  # noqa: B027 - optional hook
        """Bring derived indexes up to date after a batch of writes."""

    @contextmanager
    def ingesting(self) -> Iterator[None]:
        """While an ingestion of this process writes: derived indexes that readers would otherwise rebuild for
        its writes wait for its :meth:`flush` at the end (the embedded store's new documents are searchable once
        it ends; PostgreSQL's as each one completes)."""
        yield

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections and files."""

    def size_on_disk(self) -> int:
        """Bytes the store occupies (0 when unknown)."""
        return 0

    # --- derived ---------------------------------------------------------------
    def get_document(self, doc_id: str) -> DocumentRecord | None:
        """A completely written document by id."""
        return next((d for d in self.documents() if d.doc_id == doc_id), None)

    def neighbours(self, chunk_id: str, window: int = 1) -> list[Chunk]:
        """The chunk and up to ``window`` chunks before and after it, in reading order."""
        found = self.get([chunk_id])
        if not found:
            return []
        before: list[Chunk] = []
        after: list[Chunk] = []
        cur = found[0]
        for _ in range(window):
            prev = self.get([cur.prev_id]) if cur.prev_id else []
            if not prev:
                break
            cur = prev[0]
            before.insert(0, cur)
        cur = found[0]
        for _ in range(window):
            nxt = self.get([cur.next_id]) if cur.next_id else []
            if not nxt:
                break
            cur = nxt[0]
            after.append(cur)
        return [*before, found[0], *after]
