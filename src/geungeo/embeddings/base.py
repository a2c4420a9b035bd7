"""The embedding provider interface.

Every provider implements ``_embed(texts, query=...)``; the base class does the rest:
truncation to ``embed_max_chars``, batching with a progress callback, NFC, L2
normalisation and the langchain-core ``Embeddings`` methods, so any provider can be
handed to LangChain code as it is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from geungeo.text.normalize import nfc

BatchCallback = Callable[[int, int], None]
"""Called after each batch with (texts done, texts total)."""


class Embedder(Embeddings, ABC):
    """Dense text embeddings; vectors are float32 and L2-normalised."""

    #: Stable name of the model, stored with the index (a change means re-embedding).
    name: str
    #: Vector dimension.
    dim: int

    def __init__(self, *, batch_size: int = 32, max_chars: int = 1000) -> None:
        self.batch_size = max(1, batch_size)
        self.max_chars = max(1, max_chars)

    @abstractmethod
    def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
        """Vectors for one batch of prepared texts, shape (len(texts), dim)."""

    def embed(self, texts: Sequence[str], *, query: bool = False, on_batch: BatchCallback | None = None) -> np.ndarray:
        """Embed texts in batches; ``query`` selects the query side of asymmetric models."""
        prepared = self.prepare(texts)
        out = np.zeros((len(prepared), self.dim), dtype=np.float32)
        for start in range(0, len(prepared), self.batch_size):
            batch = prepared[start : start + self.batch_size]
            vecs = np.asarray(self._embed(batch, query=query), dtype=np.float32).reshape(len(batch), self.dim)
            out[start : start + len(batch)] = vecs
            if on_batch is not None:
                on_batch(start + len(batch), len(prepared))
        return normalize_rows(out)

    def load(self) -> None:
        """Make the model ready now, for a server that should not let its first question wait (a no-op for the
        embedders that are ready when made)."""

    def prepare(self, texts: Sequence[str]) -> list[str]:
        """The texts as the model sees them: NFC, cut to ``max_chars``, never empty."""
        return [nfc(t)[: self.max_chars] or " " for t in texts]

    # --- langchain-core Embeddings ------------------------------------------
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text], query=True)[0].tolist()


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """L2-normalise each row; zero rows stay zero."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32, copy=False)
