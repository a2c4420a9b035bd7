"""Fusion of the sparse and dense rankings into one.

Two methods, chosen by ``GEUNGEO_FUSION``:

- ``zscore`` (default): a weighted mean of each ranking's z-scored retrieval scores, the
  distribution-based convex combination that Bruch, Gai & Ingber (TOIS 2023, "An Analysis of
  Fusion Functions for Hybrid Retrieval") found ahead of RRF and that OpenSearch ships as its
  ``z_score`` normalisation. Unlike RRF it keeps how far a passage stands above the rest: a BM25
  hit that matches every rare term of the question by a wide margin is not levelled with the
  runner-up. The fused value is mapped through the normal CDF, so a score lies in (0, 1), is
  about 0.5 for a passage of average standing and near 1 for one far above every other.
- ``rrf``: reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009). Each ranking
  contributes ``weight / (k + rank)``; k damps the very top ranks so that agreement between
  retrievers wins over one retriever's confidence.

Items are keyed by chunk id, never by text.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence

Ranking = Sequence[tuple[str, float]]
"""(id, retrieval score) pairs, best first."""


def rrf(rankings: Sequence[Sequence[str]], *, k: int = 60, weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """Fuse rankings of ids into one list of (id, score), best first (ties keep first-seen order)."""
    scores: dict[str, float] = defaultdict(float)
    for weight, ranking in zip(weights or [1.0] * len(rankings), rankings, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] += weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: kv[1], reverse=True)


def zscore_fusion(rankings: Sequence[Ranking], *, weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """Fuse scored rankings into one list of (id, score in (0, 1)), best first.

    Each ranking's scores become z-scores over that ranking (its mean and standard deviation).
    An id a ranking did not return counts as that ranking's lowest z-score: it ranked below
    everything the ranking kept. The fused value is the weighted mean of the z-scores, reported
    as its normal CDF. Empty rankings take no part; ties keep first-seen order.
    """
    weights = list(weights or [1.0] * len(rankings))
    if len(weights) != len(rankings):
        raise ValueError(f"{len(rankings)} rankings but {len(weights)} weights")
    standardised: list[tuple[float, dict[str, float], float]] = []
    for weight, ranking in zip(weights, rankings, strict=True):
        if not ranking or weight <= 0:
            continue
        values = [score for _, score in ranking]
        mean, spread = statistics.fmean(values), statistics.pstdev(values)
        z = {item: (score - mean) / spread if spread > 0 else 0.0 for item, score in ranking}
        standardised.append((weight, z, min(z.values())))
    total = sum(weight for weight, _, _ in standardised)
    if not total:
        return []
    order = dict.fromkeys(item for _, z, _ in standardised for item in z)
    fused = {item: sum(weight * z.get(item, floor) for weight, z, floor in standardised) / total for item in order}
    return sorted(((item, _normal_cdf(value)) for item, value in fused.items()), key=lambda kv: kv[1], reverse=True)


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
