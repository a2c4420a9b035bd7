"""Composition root: ``build_engine(settings)`` wires store, embedder and retriever.

Every interface (CLI, API, UI, MCP) builds its engine here; nothing else constructs
stores or providers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from geungeo.embeddings import get_embedder
from geungeo.embeddings.base import Embedder
from geungeo.embeddings.cache import CachedEmbedder
from geungeo.ingest.pipeline import Ingestor, IngestReport, Progress
from geungeo.retrieval.filters import Filter
from geungeo.retrieval.hybrid import HybridRetriever, Mode
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore, IndexSignature, open_store
from geungeo.text.kiwi import tokenizer_id
from geungeo.types import Hit


@dataclass
class Engine:
    """The running system: one store, one embedder, one retriever."""

    settings: Settings
    store: ChunkStore
    embedder: Embedder
    retriever: HybridRetriever

    def ingest(self, paths: Iterable[Path], *, progress: Progress | None = None) -> IngestReport:
        """Ingest files and directories (incremental: unchanged documents are skipped)."""
        ingestor = Ingestor(self.store, self.embedder, self.settings)
        try:
            return ingestor.run(paths, progress=progress)
        finally:
            ingestor.close()

    def search(self, query: str, *, k: int | None = None, where: Filter | None = None, mode: Mode = "hybrid") -> list[Hit]:
        """Hybrid search over the store."""
        return self.retriever.search(query, k=k, where=where, mode=mode)

    def close(self) -> None:
        self.store.close()


def index_terms_id(settings: Settings) -> str:
    """What decides a chunk's index terms and vectors besides the models: a store built otherwise needs a rebuild."""
    context = "" if settings.chunk_context == "off" else f"/context-{settings.chunk_context}"
    return f"{tokenizer_id()}/header{settings.header_weight}{context}"


def build_engine(settings: Settings | None = None) -> Engine:
    """Build the engine the settings describe (creates the data directory if needed)."""
    settings = settings or Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    embedder: Embedder = CachedEmbedder(get_embedder(settings), settings.data_dir / "cache" / "embeddings.sqlite")
    store = open_store(settings, IndexSignature(embedder.name, embedder.dim, index_terms_id(settings)))
    return Engine(settings, store, embedder, HybridRetriever(store, embedder, settings))
