"""Ingestion: files → documents → chunks → terms + vectors → store, incrementally.

Each document is written atomically and on its own, so an interrupted run loses at most
the document in flight; the next run skips every unchanged document (same content hash)
and redoes the rest. Vectors come through the embedding cache, so even a redone document
embeds only chunks never seen before. The pages of a PDF whose document is (re)written are
rendered to PNG once (:mod:`geungeo.ingest.page_images`, setting ``page_images``) and each of
its chunks records its page's image in ``meta["page_image"]``; turning the setting on or off
changes chunks of documents written afterwards (``--rebuild`` for all).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from queue import Full, Queue

import numpy as np

from geungeo.chunking import chunk_document
from geungeo.chunking.llm_context import ChunkSummarizer
from geungeo.embeddings.base import Embedder
from geungeo.embeddings.cache import CachedEmbedder
from geungeo.errors import LoaderError
from geungeo.ingest import ocr
from geungeo.ingest.base import FORMAT_VERSION, load_file, supported_suffixes
from geungeo.ingest.manifest import FileManifest
from geungeo.ingest.page_images import attach, render_pages
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore
from geungeo.text.kiwi import chunk_terms
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
    parsed: bool = True  # False when the file's fingerprint showed nothing to do


@dataclass
class IngestReport:
    """Summary of an ingestion run."""

    files: list[FileResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0
    parse_seconds: float = 0.0
    sparse_seconds: float = 0.0
    embed_seconds: float = 0.0  # embedding and writing
    written_chunks: int = 0  # chunks written in this run (the others were unchanged)
    embedded_chunks: int = 0  # vectors computed in this run (not read from the embedding cache)

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
"""Progress callback: (stage, done, total); stages are "files" (parsed) and "embed" (chunks written, of those
parsed so far: the total grows while files are parsed), called from the parsing and the writing thread."""

WriteGuard = Callable[[], AbstractContextManager[object]]
"""What each store write is made under (a service's writer lock), so that readers wait for one write at most."""

# Parsed documents waiting for their vectors: enough to keep the embedder fed, few enough to keep memory flat.
_QUEUE_DOCUMENTS = 8


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


@dataclass
class _FileWork:
    """A parsed file whose changed documents are still being written."""

    result: FileResult
    origin: str
    fingerprint: str
    doc_ids: list[str]
    left: int = 0


@dataclass
class _Pending:
    """A changed document, chunked (and its BM25 terms made), waiting for its vectors."""

    file: _FileWork
    doc: Document
    chunks: list[Chunk]
    terms: list[list[str]] | None = None


@dataclass
class _Parsing:
    """What the parsing thread shares with the writer: the queue between them and the running counts."""

    queue: Queue[_FileWork | _Pending | BaseException | None]
    stop: threading.Event = field(default_factory=threading.Event)
    chunks_queued: int = 0

    def put(self, item: _FileWork | _Pending | BaseException | None) -> bool:
        """Wait for room in the queue; False when the writer has stopped."""
        while not self.stop.is_set():
            try:
                self.queue.put(item, timeout=0.2)
                return True
            except Full:
                continue
        return False


def _record(doc: Document, chunks: list[Chunk]) -> DocumentRecord:
    return DocumentRecord(
        doc.doc_id, doc.source, doc.title, doc.kind, doc.code, doc.content_hash, len(chunks), origin=doc.origin
    )


class Ingestor:
    """Writes files into a store, skipping what is already there unchanged.

    A parsing thread loads, chunks and tokenises one file after another while this thread embeds and
    writes the documents already parsed; a bounded queue (``_QUEUE_DOCUMENTS``) between them keeps both
    cores busy and memory flat, and every document is written as soon as its vectors are ready, so that a
    killed run loses at most the documents in flight.
    """

    def __init__(
        self,
        store: ChunkStore,
        embedder: Embedder,
        settings: Settings,
        *,
        summarizer: ChunkSummarizer | None = None,
        write_guard: WriteGuard | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.summarizer = summarizer
        self.write_guard = write_guard or nullcontext
        salt = f"{FORMAT_VERSION}|{settings.chunk_size}|{settings.chunk_overlap}|{settings.page_images}|{store.signature}"
        self.manifest = FileManifest(settings.data_dir / "manifest.sqlite", salt)
        ocr.configure_cache(settings.data_dir)

    def close(self) -> None:
        self.manifest.close()

    def run(self, paths: Iterable[Path], *, progress: Progress | None = None) -> IngestReport:
        """Skip the unchanged files, then parse the others in a thread while writing what is parsed."""
        started = time.perf_counter()
        files, skipped = discover(paths)
        report = IngestReport(skipped=skipped)
        known = {d.doc_id: d for d in self.store.documents()}
        todo: list[tuple[Path, str, str]] = []
        for path in files:
            origin, fingerprint = nfc(str(path.resolve())), self.manifest.fingerprint(path)
            same = self.manifest.unchanged_documents(origin, fingerprint, known) if fingerprint else None
            if same is None:
                todo.append((path, origin, fingerprint))
                continue
            chunks = sum(known[d].chunk_count for d in same)
            report.files.append(FileResult(nfc(str(path)), len(same), chunks, len(same), parsed=False))
        computed_before = self._computed()
        parsing = _Parsing(Queue(maxsize=_QUEUE_DOCUMENTS))
        worker = threading.Thread(
            target=self._parse_all, args=(todo, known, report, parsing, progress, len(files) - len(todo), len(files)),
            name="geungeo-parse", daemon=True,
        )
        worker.start()
        finished = False
        try:
            self._write_parsed(parsing, known, report, progress)
            finished = True
        finally:
            parsing.stop.set()
            worker.join(None if finished else 1.0)  # interrupted: do not wait for a long parse (a daemon thread)
            with self.write_guard():
                self.store.flush()
        computed = self._computed()
        report.embedded_chunks = report.written_chunks if computed is None else computed - (computed_before or 0)
        report.seconds = time.perf_counter() - started
        return report

    def _computed(self) -> int | None:
        """Vectors the model computed so far (None when there is no embedding cache to tell)."""
        return self.embedder.computed if isinstance(self.embedder, CachedEmbedder) else None

    # --- the parsing thread ----------------------------------------------------------------------

    def _parse_all(
        self,
        todo: list[tuple[Path, str, str]],
        known: dict[str, DocumentRecord],
        report: IngestReport,
        parsing: _Parsing,
        progress: Progress | None,
        done: int,
        total: int,
    ) -> None:
        try:
            for n, (path, origin, fingerprint) in enumerate(todo):
                if progress:
                    progress("files", done + n, total)
                if not self._parse_file(path, origin, fingerprint, known, report, parsing):
                    return
            if progress:
                progress("files", total, total)
            parsing.put(None)
        except BaseException as exc:  # the writer re-raises it
            parsing.put(exc)

    def _parse_file(
        self,
        path: Path,
        origin: str,
        fingerprint: str,
        known: dict[str, DocumentRecord],
        report: IngestReport,
        parsing: _Parsing,
    ) -> bool:
        """Parse one file and queue its changed documents; False when the writer has stopped."""
        t0 = time.perf_counter()
        result = FileResult(nfc(str(path)))
        try:
            docs = load_file(path, max_unpacked_bytes=self.settings.max_unpacked_mb << 20)
        except LoaderError as exc:
            result.error = exc.reason
            result.seconds = time.perf_counter() - t0
            return parsing.put(_FileWork(result, origin, "", []))
        result.documents = len(docs)
        for doc in docs:
            doc.origin = origin
        file = _FileWork(result, origin, fingerprint, [d.doc_id for d in docs])
        pending: list[_Pending] = []
        for doc in docs:
            old = known.get(doc.doc_id)
            if old is not None and old.content_hash == doc.content_hash:
                result.unchanged += 1
                result.chunks += old.chunk_count
                continue
            chunks = chunk_document(doc, size=self.settings.chunk_size, overlap=self.settings.chunk_overlap)
            pending.append(_Pending(file, doc, chunks))
        if self.settings.page_images:
            self._add_page_images(path, pending)
        file.left = len(pending)
        result.seconds = time.perf_counter() - t0
        report.parse_seconds += result.seconds
        if not parsing.put(file):
            return False
        for item in pending:
            t1 = time.perf_counter()
            if self.summarizer is None:  # with LLM summaries the writer makes the terms after annotating
                item.terms = self._terms(item.chunks)
            report.sparse_seconds += time.perf_counter() - t1
            parsing.chunks_queued += len(item.chunks)
            if not parsing.put(item):
                return False
        return True

    def _terms(self, chunks: list[Chunk]) -> list[list[str]]:
        return chunk_terms(chunks, context=self.settings.chunk_context != "off")

    # --- the writing thread ----------------------------------------------------------------------

    def _write_parsed(
        self, parsing: _Parsing, known: dict[str, DocumentRecord], report: IngestReport, progress: Progress | None
    ) -> None:
        done = 0
        while (item := parsing.queue.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            if isinstance(item, _FileWork):
                self._start_file(item, known, report)
                continue
            t0 = time.perf_counter()
            if self.summarizer is not None:
                self.summarizer.annotate(item.chunks)
                item.terms = self._terms(item.chunks)
            vectors = self._embed(item.chunks, done, parsing.chunks_queued, progress)
            with self.write_guard():  # readers wait for one document's write, not for the whole ingestion
                self.store.replace_document(_record(item.doc, item.chunks), item.chunks, vectors, item.terms or [])
            report.embed_seconds += time.perf_counter() - t0
            report.written_chunks += len(item.chunks)
            done += len(item.chunks)
            file = item.file
            file.result.chunks += len(item.chunks)
            file.result.seconds += time.perf_counter() - t0
            file.left -= 1
            if file.left == 0:
                self.manifest.record(file.origin, file.fingerprint, file.doc_ids)

    def _start_file(self, file: _FileWork, known: dict[str, DocumentRecord], report: IngestReport) -> None:
        report.files.append(file.result)
        if file.result.error:
            self.manifest.forget(file.origin)
            return
        with self.write_guard():
            file.result.removed = self._remove_vanished(file.origin, set(file.doc_ids), known)
        if file.left == 0:
            self.manifest.record(file.origin, file.fingerprint, file.doc_ids)

    def _add_page_images(self, path: Path, pending: list[_Pending]) -> None:
        """Render the file's pages (those not rendered before) when a PDF document of it is written."""
        pdfs = [item for item in pending if item.doc.kind == "pdf"]
        if pdfs:
            images = render_pages(path, self.settings.data_dir)
            for item in pdfs:
                attach(item.chunks, images)

    def _embed(self, chunks: list[Chunk], done: int, total: int, progress: Progress | None) -> np.ndarray:
        if not chunks:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)

        def on_batch(n: int, _total: int) -> None:
            if progress:
                progress("embed", done + n, total)

        contextual = self.settings.chunk_context == "all"
        return self.embedder.embed([c.contextual_text() if contextual else c.indexed_text for c in chunks], on_batch=on_batch)

    def _remove_vanished(self, origin: str, present: set[str], known: dict[str, DocumentRecord]) -> int:
        """Delete documents that an earlier version of this file held and this one does not."""
        vanished = [doc_id for doc_id, rec in known.items() if rec.origin == origin and doc_id not in present]
        for doc_id in vanished:
            self.store.delete_document(doc_id)
        return len(vanished)
