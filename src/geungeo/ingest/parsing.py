"""The parsing side of an ingestion: files → documents → chunks → BM25 terms, queued for their vectors and write.

:class:`Parser` runs in a thread beside the writer (:class:`geungeo.ingest.pipeline.Ingestor`) or in an ingestion
process of its own (:mod:`geungeo.ingest.worker`); a bounded queue (:data:`QUEUE_DOCUMENTS`) keeps memory flat.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty, Full, Queue
from typing import Any, TypeVar

import numpy as np

from geungeo.chunking import chunk_document
from geungeo.embeddings.base import Embedder
from geungeo.errors import LoaderError
from geungeo.ingest.base import FORMAT_VERSION, load_file
from geungeo.ingest.page_images import attach, render_pages
from geungeo.settings import Settings
from geungeo.text.kiwi import chunk_terms
from geungeo.text.normalize import content_hash, nfc
from geungeo.types import Chunk, Document, DocumentRecord


def stored_hash(doc: Document, settings: Settings) -> str:
    """What a document is stored under: its content and how it was chunked (the loaders' format version, chunk
    size and overlap, page images), so that a new format or chunk size rewrites a document whose text is the same
    (its chunks' metadata may not be)."""
    how = f"{FORMAT_VERSION}|{settings.chunk_size}|{settings.chunk_overlap}|{settings.page_images}"
    return content_hash(f"{how}|{doc.content_hash}")


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
    embed_seconds: float = 0.0  # embedding (and LLM context sentences)
    write_seconds: float = 0.0  # store writes
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
"""Progress callback: (stage, done, total); stages are "files" (parsed) and "embed" (chunks embedded, of those
parsed so far: the total grows while files are parsed), called from the parsing and the embedding thread."""

# Parsed documents waiting for their vectors: enough to keep the embedder fed, few enough to keep memory flat.
QUEUE_DOCUMENTS = 8
# Embedded documents (and files) waiting for their write: the next group is embedded while these are written.
EMBEDDED_AHEAD = QUEUE_DOCUMENTS
# Chunks of small documents embedded in one call: the embedder's batches stay full and its workers busy.
EMBED_GROUP_CHUNKS = 256

T = TypeVar("T")
Todo = list[tuple[Path, str, str]]
"""The files to parse: (path, origin, fingerprint) each."""


def index_terms(settings: Settings, chunks: list[Chunk]) -> list[list[str]]:
    """The chunks' BM25 terms (with their context sentences unless ``chunk_context`` is off)."""
    return chunk_terms(chunks, context=settings.chunk_context != "off")


@dataclass
class FileWork:
    """A parsed file whose changed documents are still being written."""

    result: FileResult
    origin: str
    fingerprint: str
    doc_ids: list[str]
    left: int = 0


@dataclass
class Pending:
    """A changed document, chunked (and its BM25 terms made), waiting for its vectors and its write."""

    file: FileWork
    doc: Document
    chunks: list[Chunk]
    terms: list[list[str]] | None = None
    vectors: np.ndarray | None = None  # made by :func:`embedded`
    seconds: float = 0.0  # its share of the embedding time, added to its file's by the writer


@dataclass
class Parsing:
    """What the parsing thread shares with the writer: the queue between them and the running counts."""

    queue: Queue[FileWork | Pending | BaseException | None]
    stop: threading.Event = field(default_factory=threading.Event)
    chunks_queued: int = 0

    def put(self, item: FileWork | Pending | BaseException | None) -> bool:
        """Wait for room in the queue; False when the writer has stopped."""
        return put_unless_stopped(self.queue, item, self.stop)


def put_unless_stopped(queue: Queue[Any], item: object, stop: threading.Event) -> bool:
    """Wait for room in ``queue`` for ``item``; False (and nothing put) once ``stop`` is set."""
    while not stop.is_set():
        try:
            queue.put(item, timeout=0.2)
            return True
        except Full:
            continue
    return False


class Parser:
    """Loads, chunks and tokenises files one after another, queueing each changed document (the parsing side of
    an ingestion, in a thread of this process or in an ingestion process of its own)."""

    def __init__(self, settings: Settings, *, terms: bool = True) -> None:
        self.settings = settings
        self.terms = terms  # False: the writer makes the terms (after LLM context sentences are added)

    def parse_all(
        self,
        todo: Todo,
        known: dict[str, DocumentRecord],
        report: IngestReport,
        parsing: Parsing,
        progress: Progress | None,
        done: int,
        total: int,
    ) -> None:
        """Parse ``todo`` into ``parsing``'s queue, then put None (or the exception that stopped it)."""
        try:
            for n, (path, origin, fingerprint) in enumerate(todo):
                if progress:
                    progress("files", done + n, total)
                if not self.parse_file(path, origin, fingerprint, known, report, parsing):
                    return
            if progress:
                progress("files", total, total)
            parsing.put(None)
        except BaseException as exc:  # the writer re-raises it
            parsing.put(exc)

    def parse_file(
        self,
        path: Path,
        origin: str,
        fingerprint: str,
        known: dict[str, DocumentRecord],
        report: IngestReport,
        parsing: Parsing,
    ) -> bool:
        """Parse one file and queue its changed documents; False when the writer has stopped."""
        t0 = time.perf_counter()
        result = FileResult(nfc(str(path)))
        try:
            docs = load_file(path, max_unpacked_bytes=self.settings.max_unpacked_mb << 20)
        except LoaderError as exc:
            result.error = exc.reason
            result.seconds = time.perf_counter() - t0
            return parsing.put(FileWork(result, origin, "", []))
        result.documents = len(docs)
        for doc in docs:
            doc.origin = origin
        file = FileWork(result, origin, fingerprint, [d.doc_id for d in docs])
        pending: list[Pending] = []
        for doc in docs:
            old = known.get(doc.doc_id)
            if old is not None and old.content_hash == stored_hash(doc, self.settings):
                result.unchanged += 1
                result.chunks += old.chunk_count
                continue
            chunks = chunk_document(doc, size=self.settings.chunk_size, overlap=self.settings.chunk_overlap)
            pending.append(Pending(file, doc, chunks))
        if self.settings.page_images:
            self._add_page_images(path, pending)
        file.left = len(pending)
        result.seconds = time.perf_counter() - t0
        report.parse_seconds += result.seconds
        if not parsing.put(file):
            return False
        for item in pending:
            t1 = time.perf_counter()
            if self.terms:
                item.terms = index_terms(self.settings, item.chunks)
            report.sparse_seconds += time.perf_counter() - t1
            parsing.chunks_queued += len(item.chunks)
            if not parsing.put(item):
                return False
        return True

    def _add_page_images(self, path: Path, pending: list[Pending]) -> None:
        """Render the file's pages (those not rendered before) when a PDF document of it is written."""
        pdfs = [item for item in pending if item.doc.kind == "pdf"]
        if pdfs:
            images = render_pages(path, self.settings.data_dir)
            for item in pdfs:
                attach(item.chunks, images)


def embed_chunks(
    embedder: Embedder, settings: Settings, chunks: list[Chunk], done: int, total: int, progress: Progress | None
) -> np.ndarray:
    """The vectors of ``chunks`` (their indexed text, or their context sentence and text with ``chunk_context=all``);
    ``progress("embed", done + n, total)`` after each batch."""
    if not chunks:
        return np.zeros((0, embedder.dim), dtype=np.float32)

    def on_batch(n: int, _total: int) -> None:
        if progress:
            progress("embed", done + n, total)

    contextual = settings.chunk_context == "all"
    return embedder.embed([c.contextual_text() if contextual else c.indexed_text for c in chunks], on_batch=on_batch)


def parsed_items(parsing: Parsing) -> Iterator[FileWork | Pending]:
    """What a parsing thread queues, until its end (its exception is raised here) or until ``parsing`` is stopped
    (the writer has failed: the thread that reads this must not wait for ever)."""
    while True:
        try:
            item = parsing.queue.get(timeout=0.2)
        except Empty:
            if parsing.stop.is_set():
                return
            continue
        if item is None:
            return
        if isinstance(item, BaseException):
            raise item
        yield item


def embedded(
    items: Iterable[FileWork | Pending],
    parsing: Parsing,
    embedder: Embedder,
    settings: Settings,
    report: IngestReport,
    progress: Progress | None,
) -> Iterator[FileWork | Pending]:
    """``items`` with each document's vectors made: the step between parsing and writing, in the writer's thread or
    in an ingestion process. Small documents are embedded together, up to ``EMBED_GROUP_CHUNKS`` chunks or until
    nothing more is parsed yet, so that the embedder's batches stay full; a group is written as soon as it is
    embedded. Its time counts to ``report.embed_seconds`` and, by chunks, to each file's; progress "embed" is out of
    the chunks ``parsing`` has queued so far."""
    done = 0
    group: list[FileWork | Pending] = []
    size = 0
    for item in items:
        group.append(item)
        size += len(item.chunks) if isinstance(item, Pending) else 0
        if size < EMBED_GROUP_CHUNKS and not parsing.queue.empty():
            continue
        _embed_group(group, done, parsing, embedder, settings, report, progress)
        done += size
        yield from group
        group, size = [], 0
    _embed_group(group, done, parsing, embedder, settings, report, progress)
    yield from group


def _embed_group(
    group: list[FileWork | Pending],
    done: int,
    parsing: Parsing,
    embedder: Embedder,
    settings: Settings,
    report: IngestReport,
    progress: Progress | None,
) -> None:
    """Give each document of ``group`` its rows of one embedding call over all their chunks."""
    pending = [item for item in group if isinstance(item, Pending)]
    chunks = [c for item in pending for c in item.chunks]
    if not chunks:
        return
    t0 = time.perf_counter()
    vectors = embed_chunks(embedder, settings, chunks, done, parsing.chunks_queued, progress)
    spent = time.perf_counter() - t0
    report.embed_seconds += spent
    start = 0
    for item in pending:
        item.vectors = vectors[start : start + len(item.chunks)]
        start += len(item.chunks)
        item.seconds += spent * len(item.chunks) / len(chunks)


def ahead(items: Iterator[T], size: int, *, name: str) -> Generator[T]:
    """``items`` made in a thread of their own, at most ``size`` ahead of the consumer, so that making the next
    ones (embedding) overlaps using these (writing). The thread's exception is raised here; a consumer that
    stops early (an error, an interrupt) stops the thread at its next item."""
    buffer: Queue[tuple[T] | BaseException | None] = Queue(maxsize=size)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                if not put_unless_stopped(buffer, (item,), stop):
                    return
            put_unless_stopped(buffer, None, stop)
        except BaseException as exc:  # raised in the consumer
            put_unless_stopped(buffer, exc, stop)

    thread = threading.Thread(target=produce, name=name, daemon=True)
    thread.start()
    try:
        while (entry := buffer.get()) is not None:
            if isinstance(entry, BaseException):
                raise entry
            yield entry[0]
    finally:
        stop.set()
        thread.join(1.0)  # interrupted mid-item: do not wait for a long embedding call (a daemon thread)
