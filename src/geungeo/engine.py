"""Composition root: ``build_engine(settings)`` wires store, embedder and retriever.

Every interface (CLI, API, UI, MCP) builds its engine here; nothing else constructs
stores or providers.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from geungeo.chunking.llm_context import ChunkSummarizer
from geungeo.embeddings import get_cached_embedder
from geungeo.embeddings.base import Embedder
from geungeo.errors import ConfigError
from geungeo.filters import Filter
from geungeo.ingest.pipeline import Ingestor, IngestReport, Progress, WriteGuard
from geungeo.llm import get_chat_model
from geungeo.retrieval.hybrid import HybridRetriever, Mode
from geungeo.retrieval.structural import StructuralLookup
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore, IndexSignature
from geungeo.stores.factory import drop_store, open_store
from geungeo.text.kiwi import HEADER_WEIGHT, tokenizer_id
from geungeo.types import Hit

log = logging.getLogger(__name__)


@dataclass
class Engine:
    """The running system: one store, one embedder, one retriever."""

    settings: Settings
    store: ChunkStore
    embedder: Embedder
    retriever: HybridRetriever

    def ingest(
        self,
        paths: Iterable[Path],
        *,
        progress: Progress | None = None,
        llm: BaseChatModel | None = None,
        write_guard: WriteGuard | None = None,
        isolated: bool = False,
    ) -> IngestReport:
        """Ingest files and directories (incremental: unchanged documents are skipped).

        With ``chunk_context_llm`` the chat model (``llm``, else the configured one) writes each new chunk's
        context sentence. ``write_guard`` (a service's writer lock) is held around each step of a store write that
        changes what readers see. ``isolated``: parse and embed in an ingestion process of lower priority, this
        process only writing (a server's uploads).
        """
        summarizer = self._summarizer(llm)
        ingestor = Ingestor(
            self.store, self.embedder, self.settings, summarizer=summarizer, write_guard=write_guard, isolated=isolated
        )
        try:
            return ingestor.run(paths, progress=progress)
        finally:
            ingestor.close()
            if summarizer is not None:
                summarizer.close()

    def _summarizer(self, llm: BaseChatModel | None) -> ChunkSummarizer | None:
        s = self.settings
        if not s.chunk_context_llm or s.chunk_context == "off":
            return None
        model = llm or get_chat_model(s)
        if model is None:
            raise ConfigError(
                "GEUNGEO_CHUNK_CONTEXT_LLM needs an LLM: set GEUNGEO_LLM_PROVIDER (or turn the setting off) / "
                "LLM 문맥 요약에는 LLM 설정이 필요합니다"
            )
        return ChunkSummarizer(model, s.data_dir / "cache" / "chunk_context.sqlite", timeout_s=s.llm_timeout_s)

    @cached_property
    def structural(self) -> StructuralLookup:
        """The structural lookups (제N조, 별표, chapters, outlines) over this store, built once and shared."""
        return StructuralLookup(self.store, self.retriever.documents)

    def search(self, query: str, *, k: int | None = None, where: Filter | None = None, mode: Mode = "hybrid") -> list[Hit]:
        """Hybrid search over the store."""
        return self.retriever.search(query, k=k, where=where, mode=mode)

    def mentions(self, term: str) -> bool:
        """Whether some stored passage holds the index term ``term`` (a BM25 term, as :func:`geungeo.text.kiwi.bm25_terms`
        makes them); an empty store mentions everything, so that an empty store, not a name, is what a refusal blames."""
        return bool(self.store.sparse_search([term], 1)) or self.store.count() == 0

    def similarity(self, question: str, texts: Sequence[str]) -> list[float]:
        """How close in meaning each of ``texts`` is to ``question``: the embedder's cosine of a query against
        passages (which clause of a provision an extractive answer quotes)."""
        if not texts:
            return []
        try:
            query = self.embedder.embed([question], query=True)[0]
            return [float(x) for x in self.embedder.embed(list(texts)) @ query]
        except Exception as exc:  # a remote embedder that fails: the clauses are chosen by their words instead
            log.warning("clause similarity unavailable (%s): quoting by word coverage", exc)
            return []

    def close(self) -> None:
        self.store.close()


def index_terms_id(settings: Settings) -> str:
    """What decides a chunk's index terms and vectors besides the models: a store built otherwise needs a rebuild."""
    context = "" if settings.chunk_context == "off" else f"/context-{settings.chunk_context}"
    if context and settings.chunk_context_llm:
        context += "+llm"
    return f"{tokenizer_id()}/header{HEADER_WEIGHT}{context}"


def drop_index(settings: Settings) -> None:
    """Remove the store's index (``ingest --rebuild``: after changing the embedder or the tokenizer settings)."""
    drop_store(settings)


def limit_blas_threads(threads: int) -> None:
    """Give NumPy's BLAS ``threads`` threads (0: leave them as they are), process-wide (threadpoolctl)."""
    if threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads, user_api="blas")


def build_engine(settings: Settings | None = None) -> Engine:
    """Build the engine the settings describe (creates the data directory if needed)."""
    settings = settings or Settings()
    limit_blas_threads(settings.blas_threads)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    embedder: Embedder = get_cached_embedder(settings)
    store = open_store(settings, IndexSignature(embedder.name, embedder.dim, index_terms_id(settings)))
    return Engine(settings, store, embedder, HybridRetriever(store, embedder, settings))
