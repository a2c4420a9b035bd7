"""Hybrid retrieval: Kiwi BM25 and dense vectors, fused by reciprocal rank fusion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from geungeo.embeddings.base import Embedder
from geungeo.errors import QueryError
from geungeo.retrieval.filters import Filter
from geungeo.retrieval.rrf import rrf
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore
from geungeo.text.kiwi import bm25_terms
from geungeo.text.normalize import nfc
from geungeo.types import Hit

Mode = Literal["hybrid", "dense", "sparse"]


def check_query(query: str, max_chars: int) -> str:
    """The NFC query, or a QueryError saying why it cannot be searched."""
    q = nfc(query).strip()
    if not q:
        raise QueryError("empty query: ask a question or give keywords / 질문을 입력하세요")
    if len(q) > max_chars:
        raise QueryError(
            f"query too long: {len(q):,} characters (limit {max_chars:,}, GEUNGEO_MAX_QUERY_CHARS) / 질문이 너무 깁니다"
        )
    return q


@dataclass
class HybridRetriever:
    """Searches a store with BM25 and dense vectors and fuses the rankings."""

    store: ChunkStore
    embedder: Embedder
    settings: Settings

    def embed_query(self, query: str) -> np.ndarray:
        """The query vector (embedding is the slow part of a search; callers may reuse it)."""
        return self.embedder.embed([query], query=True)[0]

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        where: Filter | None = None,
        mode: Mode = "hybrid",
        vector: np.ndarray | None = None,
    ) -> list[Hit]:
        """Top-k hits for ``query``, each with per-retriever ranks and scores and the fused score."""
        q = check_query(query, self.settings.max_query_chars)
        k = k or self.settings.top_k
        n = max(self.settings.candidate_k, k)
        rankings: dict[str, list[tuple[str, float]]] = {}
        if mode in ("hybrid", "sparse"):
            rankings["sparse"] = self.store.sparse_search(bm25_terms(q), n, where)
        if mode in ("hybrid", "dense"):
            vec = self.embed_query(q) if vector is None else vector
            rankings["dense"] = self.store.dense_search(vec, n, where)
        weights = {"sparse": self.settings.sparse_weight, "dense": self.settings.dense_weight}
        names = list(rankings)
        fused = rrf(
            [[cid for cid, _ in rankings[name]] for name in names],
            k=self.settings.rrf_k,
            weights=[weights[name] for name in names],
        )[:k]
        chunks = {c.id: c for c in self.store.get([cid for cid, _ in fused])}
        hits: list[Hit] = []
        for cid, score in fused:
            if cid not in chunks:
                continue
            hit = Hit(chunks[cid], score)
            for name in names:
                for rank, (other, s) in enumerate(rankings[name], start=1):
                    if other == cid:
                        hit.ranks[name], hit.scores[name] = rank, s
                        break
            hits.append(hit)
        return hits
