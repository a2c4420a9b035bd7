"""Deterministic stand-ins for models, for tests only."""

from __future__ import annotations

import hashlib

import numpy as np

from geungeo.embeddings.base import Embedder
from geungeo.text.kiwi import bm25_terms


class FakeEmbedder(Embedder):
    """Bag-of-morphemes hashed into ``dim`` buckets: texts sharing words get similar vectors.

    Deterministic across processes (no Python ``hash``), fast, and counts its calls so tests
    can assert what was (not) embedded.
    """

    name = "fake-hash"

    def __init__(self, dim: int = 64, *, batch_size: int = 32, max_chars: int = 1000) -> None:
        super().__init__(batch_size=batch_size, max_chars=max_chars)
        self.dim = dim
        self.calls = 0
        self.texts_embedded = 0

    def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in bm25_terms(text) or [text]:
                digest = hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, bucket] += sign
        return out
