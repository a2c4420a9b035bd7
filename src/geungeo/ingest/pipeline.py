"""Ingestion: files → documents → chunks → terms + vectors → store, incrementally.

Each document is written atomically and on its own, so an interrupted run loses at most
the document in flight; the next run skips every unchanged document (same content hash)
and redoes the rest. Vectors come through the embedding cache, so even a redone document
embeds only chunks never seen before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from geungeo.chunking import chunk_document
from geungeo.embeddings.base import Embedder
from geungeo.errors import LoaderError
from geungeo.ingest.base import load_file, supported_suffixes
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore
from geungeo.text.kiwi import bm25_terms_many
from geungeo.text.normalize import nfc
from geungeo.types import Chunk, Document, DocumentRecord


@dataclass
class FileResult:
    """What happened to one file."""

    path: str
    documents: int = 0
    chunks: int = 0
    unchanged: int = 0
    removed: int = 0
    error: str | None = None
    seconds: float = 0.0


@dataclass
class IngestReport:
    """Summary of an ingestion run."""

    files: list[FileResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0
    parse_seconds: float = 0.0
    sparse_seconds: float = 0.0
    embed_seconds: float = 0.0
    embedded_chunks: int = 0

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.error]

    @property
    def documents(self) -> int:
        return sum(f.documents for f in self.files)

    @property
    def chunks(self) -> int:
        return sum(f.chunks for f in self.files)


Progress = Callable[[str, int, int], None]
"""Progress callback: (stage, done, total); stages are "files" and "embed"."""


def discover(paths: Iterable[Path]) -> tuple[list[Path], list[str]]:
    """Files to ingest under ``paths`` (recursively) and the names skipped as unsupported.

    A path given explicitly is always returned (its loader reports what is wrong with it);
    inside directories, hidden files and unsupported types are skipped.
    """
    suffixes = set(supported_suffixes())
    files: list[Path] = []
    skipped: list[str] = []
    for path in paths:
        if path.is_dir():
            for p in sorted(path.rglob("*")):
                if not p.is_file() or any(part.startswith(".") for part in p.relative_to(path).parts):
                    continue
                (files.append(p) if p.suffix.lower() in suffixes else skipped.append(nfc(str(p))))
        else:
            files.append(path)
    return files, skipped


def _record(doc: Document, chunks: list[Chunk]) -> DocumentRecord:
    return DocumentRecord(
        doc.doc_id, doc.source, doc.title, doc.kind, doc.code, doc.content_hash, len(chunks), origin=doc.origin
    )


class Ingestor:
    """Writes files into a store, skipping what is already there unchanged."""

    def __init__(self, store: ChunkStore, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings

    def run(self, paths: Iterable[Path], *, progress: Progress | None = None) -> IngestReport:
        started = time.perf_counter()
        files, skipped = discover(paths)
        report = IngestReport(skipped=skipped)
        known = {d.doc_id: d for d in self.store.documents()}
        for n, path in enumerate(files):
            if progress:
                progress("files", n, len(files))
            report.files.append(self._ingest_file(path, known, report, progress))
        if progress:
            progress("files", len(files), len(files))
        self.store.flush()
        report.seconds = time.perf_counter() - started
        return report

    def _ingest_file(
        self, path: Path, known: dict[str, DocumentRecord], report: IngestReport, progress: Progress | None
    ) -> FileResult:
        t0 = time.perf_counter()
        result = FileResult(nfc(str(path)))
        try:
            docs = load_file(path)
        except LoaderError as exc:
            result.error = exc.reason
            return result
        origin = nfc(str(path.resolve()))
        for doc in docs:
            doc.origin = origin
        report.parse_seconds += time.perf_counter() - t0
        result.documents = len(docs)
        for doc in docs:
            old = known.get(doc.doc_id)
            if old is not None and old.content_hash == doc.content_hash:
                result.unchanged += 1
                result.chunks += old.chunk_count
                continue
            result.chunks += self._write(doc, report, progress)
        result.removed = self._remove_vanished(origin, {d.doc_id for d in docs}, known)
        result.seconds = time.perf_counter() - t0
        return result

    def _write(self, doc: Document, report: IngestReport, progress: Progress | None) -> int:
        t0 = time.perf_counter()
        chunks = chunk_document(doc, size=self.settings.chunk_size, overlap=self.settings.chunk_overlap)
        report.parse_seconds += time.perf_counter() - t0
        t1 = time.perf_counter()
        terms = list(bm25_terms_many(c.indexed_text for c in chunks))
        report.sparse_seconds += time.perf_counter() - t1
        t2 = time.perf_counter()
        vectors = self._embed(chunks, report, progress)
        report.embed_seconds += time.perf_counter() - t2
        self.store.replace_document(_record(doc, chunks), chunks, vectors, terms)
        return len(chunks)

    def _embed(self, chunks: list[Chunk], report: IngestReport, progress: Progress | None) -> np.ndarray:
        if not chunks:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        base = report.embedded_chunks

        def on_batch(done: int, total: int) -> None:
            if progress:
                progress("embed", base + done, base + total)

        vectors = self.embedder.embed([c.indexed_text for c in chunks], on_batch=on_batch)
        report.embedded_chunks += len(chunks)
        return vectors

    def _remove_vanished(self, origin: str, present: set[str], known: dict[str, DocumentRecord]) -> int:
        """Delete documents that an earlier version of this file held and this one does not."""
        vanished = [doc_id for doc_id, rec in known.items() if rec.origin == origin and doc_id not in present]
        for doc_id in vanished:
            self.store.delete_document(doc_id)
        return len(vanished)
