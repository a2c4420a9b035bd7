"""The chunk store interface every backend implements, and the factory that picks one.

A store keeps documents, their chunks, one dense vector per chunk and the chunk's sparse
terms. Writing a document is atomic (all of its chunks or none are visible), and a store
refuses to mix vectors of different embedders or terms of different tokenizers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geungeo.filters import Filter
from geungeo.types import Chunk, DocumentRecord


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
    ) -> None:
        """Atomically replace a document's chunks (insert when new)."""

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

    # --- lifecycle -------------------------------------------------------------
    def flush(self) -> None:  # noqa: B027 - optional hook
        """Bring derived indexes up to date after a batch of writes."""

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
