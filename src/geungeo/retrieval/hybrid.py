"""Hybrid retrieval: Kiwi BM25 and dense vectors, fused (z-score or reciprocal rank fusion)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from geungeo.embeddings.base import Embedder
from geungeo.errors import QueryError
from geungeo.filters import And, Filter, In
from geungeo.retrieval.expansion import lexicon_for, query_terms, without_names
from geungeo.retrieval.fusion import rrf, zscore_fusion
from geungeo.retrieval.quotes import quoted
from geungeo.retrieval.ranker import LearnedRanker, load_ranker
from geungeo.retrieval.scope import StoredDocuments
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore
from geungeo.text.normalize import nfc
from geungeo.types import Hit, doc_id_of

Mode = Literal["hybrid", "dense", "sparse"]

# Fused candidates looked at beyond k, so that the chunk prior (addenda count less) can reorder them.
_PRIOR_SLACK = 30
# 부칙 (amendment history) chunks count at half their score unless the query asks about them: they repeat the article
# numbers and terms of the body without stating the rule.
_ADDENDUM_FACTOR = 0.5
# Weight, times the retriever's, of the extra rankings restricted to the documents a query names (a query that says
# 근로기준법 or 학칙 searches those documents once more, so that their articles compete among themselves too).
_NAMED_SCOPE_WEIGHT = 1.0
_ASKS_ADDENDUM = re.compile(r"부칙|시행일|시행\s*시기|경과\s*조치|적용례|개정|언제부터")


def check_query(query: str, max_chars: int) -> str:
    """The NFC query, or a QueryError saying why it cannot be searched."""
    q = nfc(query).strip()
    if not any(ch.isalnum() for ch in q):  # nothing to search for: spaces, "?", "…"
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
    documents: StoredDocuments = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.documents = StoredDocuments(self.store)

    @property
    def ranker(self) -> LearnedRanker | None:
        """The learned reranker when ``reranker`` is ``ltr`` (loaded once per model path), else None."""
        return load_ranker(self.settings.reranker_path) if self.settings.reranker == "ltr" else None

    def embed_query(self, query: str) -> np.ndarray:
        """The query vector (embedding is the slow part of a search; callers may reuse it)."""
        return self.embedder.embed([query], query=True)[0]

    def _by_document(self, rankings: dict[str, list[tuple[str, float]]], vector: np.ndarray) -> list[tuple[str, float]]:
        """The candidates of ``rankings`` ranked by their document's closeness to the query (the cosine of the mean
        of the document's chunk vectors): a chunk of the statute the question is about rises over a look-alike
        passage of an unrelated one ("중고거래" in 농업기계화 촉진법 for a question about 사기)."""
        closeness = self.store.document_vectors().similarity(vector)
        pool = dict.fromkeys(cid for ranking in rankings.values() for cid, _ in ranking)
        scored = [(cid, closeness[doc]) for cid in pool if (doc := doc_id_of(cid)) in closeness]
        return sorted(scored, key=lambda pair: pair[1], reverse=True)

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        where: Filter | None = None,
        mode: Mode = "hybrid",
        vector: np.ndarray | None = None,
    ) -> list[Hit]:
        """Top-k hits for ``query``, each with per-retriever ranks and scores and the fused score; the store is read
        as one version (:meth:`~geungeo.stores.base.ChunkStore.one_read`).

        In hybrid mode with the learned reranker on, the best ``rerank_candidates`` fused hits are put in its order,
        and the passages the query quotes come first (:func:`_quoted_first`).
        """
        with self.store.one_read():
            return self._search(query, k, where, mode, vector)

    def _search(
        self, query: str, k: int | None, where: Filter | None, mode: Mode, vector: np.ndarray | None
    ) -> list[Hit]:
        # The user's limit applies to what the user sent (the services check it); a query composed from a question
        # (its lexicon terms, a follow-up's topic added) may be longer, so the retriever only bounds it at twice that.
        q = check_query(query, 2 * self.settings.max_query_chars)
        k = k or self.settings.top_k
        n = max(self.settings.candidate_k, k)
        naming = self.documents.current()[1].naming(q)
        named = naming.ids
        scoped: Filter | None = In("doc_id", tuple(sorted(named))) if named else None
        if scoped is not None and where is not None:
            scoped = And((where, scoped))
        rankings: dict[str, list[tuple[str, float]]] = {}
        if mode in ("hybrid", "sparse"):
            full = query_terms(q, lexicon_for(self.settings))
            terms = without_names(full, naming.names)
            rankings["sparse"] = self.store.sparse_search(terms, n, where)
            if scoped is not None:
                rankings["sparse in named"] = self.store.sparse_search(full, n, scoped)
        if mode in ("hybrid", "dense"):
            vec = self.embed_query(q) if vector is None else vector
            rankings["dense"] = self.store.dense_search(vec, n, where)
            if scoped is not None:
                rankings["dense in named"] = self.store.dense_search(vec, n, scoped)
        if mode == "hybrid" and self.settings.document_weight > 0:
            rankings["document"] = self._by_document(rankings, vec)
        sw, dw, nw = self.settings.sparse_weight, self.settings.dense_weight, _NAMED_SCOPE_WEIGHT
        weights = {
            "sparse": sw,
            "dense": dw,
            "sparse in named": sw * nw,
            "dense in named": dw * nw,
            "document": self.settings.document_weight,
        }
        names = list(rankings)
        weighted = [weights[name] for name in names]
        if self.settings.fusion == "rrf":
            fused = rrf([[cid for cid, _ in rankings[name]] for name in names], k=self.settings.rrf_k, weights=weighted)
        else:
            fused = zscore_fusion([rankings[name] for name in names], weights=weighted)
        ranker = self.ranker if mode == "hybrid" else None
        pool = max(k, self.settings.rerank_candidates) if ranker is not None else 0
        fused = fused[: max(k + _PRIOR_SLACK, pool)]
        chunks = {c.id: c for c in self.store.get([cid for cid, _ in fused])}
        addendum_weight = 1.0 if _ASKS_ADDENDUM.search(q) else _ADDENDUM_FACTOR
        positions = {name: {cid: (rank, s) for rank, (cid, s) in enumerate(rankings[name], start=1)} for name in names}
        hits: list[Hit] = []
        for cid, score in fused:
            chunk = chunks.get(cid)
            if chunk is None:
                continue
            hit = Hit(chunk, score * (addendum_weight if chunk.meta.get("addendum") else 1.0))
            for name in names:
                if cid in positions[name]:
                    hit.ranks[name], hit.scores[name] = positions[name][cid]
            hits.append(hit)
        hits.sort(key=lambda h: h.score, reverse=True)
        if ranker is not None:
            hits = ranker.rerank(q, hits[:pool]) + hits[pool:]
        if mode == "hybrid":
            hits = _quoted_first(q, hits, naming.names)
        return hits[:k]


def _quoted_first(query: str, hits: list[Hit], names: Sequence[str]) -> list[Hit]:
    """The passages ``query`` quotes (:func:`~geungeo.retrieval.quotes.quoted`; the document ``names`` it writes are
    no part of a quote) first, each scored as the best hit: a question made of a passage's own words asks for it."""
    quotes = quoted(query, [h.chunk.text for h in hits], names)
    if not any(quotes):
        return hits
    best = hits[0].score
    first = [hit for hit, is_quoted in zip(hits, quotes, strict=True) if is_quoted]
    for hit in first:
        hit.score = max(hit.score, best)
    return first + [hit for hit, is_quoted in zip(hits, quotes, strict=True) if not is_quoted]
