"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009).

Each ranking contributes ``weight / (k + rank)`` per item; k (60 in the paper) damps the
influence of the very top ranks so that agreement between retrievers wins over one
retriever's confidence. Items are keyed by chunk id, never by text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence


def rrf(
    rankings: Sequence[Sequence[str]], *, k: int = 60, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Fuse rankings of ids into one list of (id, score), best first (ties keep first-seen order)."""
    scores: dict[str, float] = defaultdict(float)
    for weight, ranking in zip(weights or [1.0] * len(rankings), rankings, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] += weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
