"""A learned reranker over the fused candidates (LightGBM LambdaMART), no LLM.

Each (query, candidate) pair becomes a row of features that say how the candidate was found and how
well it covers the query: the sparse and dense scores and ranks, the fused score and rank, whether the
query names the candidate's document, the share of the query's terms found in the chunk text, its
header, its article title and its document name (weighted by how rare each term is among the
candidates), the standing of the candidate's document over all candidates (right document first, then
the article), 부칙/정의/별표 flags and the chunk length. Scores are taken relative to the candidate list
(differences from the best, ranks), so a model trained on one store and embedder carries to another.

The model is trained on the corpus itself (:mod:`geungeo.retrieval.ranker_training`), never on
questions with gold answers; the bundled one (``geungeo/data/ranker/ltr.txt``) was trained on the shared
corpus with the default embedder's vectors (e5-onnx). It is off by default (``GEUNGEO_RERANKER=none``): it orders
generated queries better than the fused order but real questions worse (``benchmarks/reports/ranking.md``).
Reranking keeps the list's fused scores (sorted, best first) and only changes which candidate carries which, so
thresholds on scores keep their meaning.
"""

from __future__ import annotations

import functools
import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from geungeo.errors import ConfigError
from geungeo.retrieval.expansion import QUERY_STOP_TERMS
from geungeo.text.kiwi import bm25_terms
from geungeo.text.normalize import nfc, squash
from geungeo.text.structure import normalize_article_refs
from geungeo.types import Hit

if TYPE_CHECKING:
    import lightgbm

BUNDLED_MODEL = "ranker/ltr.txt"
_REF_TERM = re.compile(r"제\d+조(?:의\d+)?")
_ASKS_ADDENDUM = re.compile(r"부칙|시행일|시행\s*시기|경과\s*조치|적용례|개정|언제부터")

FEATURES: tuple[str, ...] = (
    "fused_score",
    "fused_gap",
    "fused_log_rank",
    "sparse_rel",
    "sparse_log_rank",
    "dense_gap",
    "dense_log_rank",
    "in_named",
    "query_names_doc",
    "text_cov",
    "text_cov_idf",
    "header_cov",
    "header_cov_idf",
    "title_cov",
    "doc_cov",
    "doc_share",
    "doc_count",
    "doc_log_rank",
    "doc_best_log_rank",
    "best_in_doc",
    "article_ref_match",
    "query_has_article_ref",
    "addendum",
    "asks_addendum",
    "definition",
    "attachment",
    "log_length",
    "query_terms",
)


@dataclass(frozen=True)
class QueryTerms:
    """What the features look for in a candidate: the query's content stems and the articles it cites."""

    stems: tuple[str, ...]
    articles: frozenset[str]
    asks_addendum: bool

    @classmethod
    def of(cls, query: str) -> QueryTerms:
        q = nfc(query)
        stems: list[str] = []
        for term in bm25_terms(q, compounds=False):
            if term in QUERY_STOP_TERMS or _REF_TERM.fullmatch(term):
                continue
            stem = term[:-1] if term.endswith("다") and len(term) > 2 else term
            if len(stem) >= 2 or stem.isdigit():
                stems.append(stem.lower())
        return cls(tuple(dict.fromkeys(stems)), frozenset(normalize_article_refs(q)), bool(_ASKS_ADDENDUM.search(q)))


def _coverage(stems: Sequence[str], weights: Sequence[float], text: str) -> tuple[float, float]:
    """Share of the stems found in ``text`` (squashed, lower case), plain and weighted."""
    if not stems:
        return 0.0, 0.0
    found = [s in text for s in stems]
    total = sum(weights) or 1.0
    return sum(found) / len(stems), sum(w for w, f in zip(weights, found, strict=True) if f) / total


def _log_rank(rank: int | None, missing: int) -> float:
    return math.log1p(rank if rank is not None else missing)


def features(query: str | QueryTerms, hits: Sequence[Hit], *, missing_rank: int = 1000) -> np.ndarray:
    """The feature matrix (one row per hit, columns :data:`FEATURES`) of a fused candidate list, best first."""
    terms = query if isinstance(query, QueryTerms) else QueryTerms.of(query)
    n = len(hits)
    out = np.zeros((n, len(FEATURES)), dtype=np.float32)
    if not n:
        return out
    texts = [squash(h.chunk.text).lower() for h in hits]
    headers = [squash(h.chunk.header).lower() for h in hits]
    titles = [squash(str(h.chunk.meta.get("article_title") or "")).lower() for h in hits]
    docs = [squash(str(h.chunk.meta.get("doc") or "")).lower() for h in hits]
    stems = terms.stems
    df = [sum(s in t or s in hh for t, hh in zip(texts, headers, strict=True)) for s in stems]
    idf = [math.log((n + 1) / (d + 0.5)) for d in df]
    top_fused = hits[0].score
    sparse_scores = [h.scores.get("sparse", h.scores.get("sparse in named", 0.0)) for h in hits]
    top_sparse = max(sparse_scores) or 1.0
    dense_values = [h.scores[name] for h in hits for name in ("dense", "dense in named") if name in h.scores]
    top_dense = max(dense_values, default=0.0)
    named = any("sparse in named" in h.ranks or "dense in named" in h.ranks for h in hits)
    by_doc: dict[str, list[int]] = defaultdict(list)
    for i, h in enumerate(hits):
        by_doc[h.chunk.doc_id].append(i)
    share = {d: sum(hits[i].score for i in idx) for d, idx in by_doc.items()}
    total_share = sum(share.values()) or 1.0
    doc_rank = {d: r for r, d in enumerate(sorted(share, key=lambda d: -share[d]), start=1)}
    for i, h in enumerate(hits):
        meta = h.chunk.meta
        dense = max((h.scores[name] for name in ("dense", "dense in named") if name in h.scores), default=None)
        sparse_rank = min((h.ranks[k] for k in ("sparse", "sparse in named") if k in h.ranks), default=None)
        dense_rank = min((h.ranks[k] for k in ("dense", "dense in named") if k in h.ranks), default=None)
        text_cov, text_idf = _coverage(stems, idf, headers[i] + texts[i])
        header_cov, header_idf = _coverage(stems, idf, headers[i])
        title_cov, _ = _coverage(stems, idf, titles[i])
        doc_cov, _ = _coverage(stems, idf, docs[i])
        siblings = by_doc[h.chunk.doc_id]
        title = str(meta.get("article_title") or "")
        out[i] = (
            h.score,
            top_fused - h.score,
            math.log1p(i + 1),
            sparse_scores[i] / top_sparse,
            _log_rank(sparse_rank, missing_rank),
            (top_dense - dense) if dense is not None else 1.0,
            _log_rank(dense_rank, missing_rank),
            float("sparse in named" in h.ranks or "dense in named" in h.ranks),
            float(named),
            text_cov,
            text_idf,
            header_cov,
            header_idf,
            title_cov,
            doc_cov,
            share[h.chunk.doc_id] / total_share,
            len(siblings) / n,
            math.log1p(doc_rank[h.chunk.doc_id]),
            math.log1p(siblings[0] + 1),
            float(siblings[0] == i),
            float(bool(terms.articles) and meta.get("article") in terms.articles),
            float(bool(terms.articles)),
            float(bool(meta.get("addendum"))),
            float(terms.asks_addendum),
            float("정의" in title or "용어" in title),
            float(bool(meta.get("attachment"))),
            math.log1p(len(h.chunk.text)),
            float(len(stems)),
        )
    return out


class LearnedRanker:
    """A LightGBM ranking model over :func:`features`."""

    def __init__(self, booster: lightgbm.Booster) -> None:
        names = tuple(booster.feature_name())
        if names != FEATURES:
            raise ConfigError(
                f"ranker model has features {names[:3]}… but this geungeo computes {FEATURES[:3]}…: "
                "train it again (geungeo train-ranker) / 랭커 모델을 다시 학습하세요"
            )
        self.booster = booster

    @classmethod
    def from_string(cls, text: str) -> LearnedRanker:
        import lightgbm

        try:
            booster = lightgbm.Booster(model_str=text)
        except lightgbm.basic.LightGBMError as exc:
            raise ConfigError(f"not a LightGBM ranker model: {exc}") from exc
        return cls(booster)

    def scores(self, query: str | QueryTerms, hits: Sequence[Hit]) -> np.ndarray:
        """The model's score of each hit (higher is better)."""
        if not hits:
            return np.zeros(0)
        return np.asarray(self.booster.predict(features(query, hits), num_threads=1), dtype=float)

    def rerank(self, query: str | QueryTerms, hits: Sequence[Hit]) -> list[Hit]:
        """The hits in the model's order; the list's fused scores, sorted, are handed out again in that order
        (each hit keeps its own fused score in ``scores['fused']``)."""
        if len(hits) < 2:
            return list(hits)
        predicted = self.scores(query, hits)
        order = sorted(range(len(hits)), key=lambda i: (-predicted[i], i))
        slots = sorted((h.score for h in hits), reverse=True)
        out = []
        for slot, i in zip(slots, order, strict=True):
            h = hits[i]
            out.append(Hit(h.chunk, slot, dict(h.ranks), {**h.scores, "fused": h.score, "ranker": float(predicted[i])}))
        return out


@functools.cache
def load_ranker(path: str = "") -> LearnedRanker:
    """The ranker model at ``path`` (empty: the one shipped with geungeo); a ConfigError when it cannot be read."""
    try:
        source = Path(path).expanduser() if path else resources.files("geungeo.data").joinpath(BUNDLED_MODEL)
        text = source.read_text("utf-8")
    except OSError as exc:
        raise ConfigError(f"ranker model {path or 'geungeo/data/' + BUNDLED_MODEL}: {exc}") from exc
    return LearnedRanker.from_string(text)
