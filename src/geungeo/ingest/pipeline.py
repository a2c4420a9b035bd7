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
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from pathlib import Path
from queue import Queue

from geungeo.chunking.llm_context import ChunkSummarizer
from geungeo.embeddings.base import Embedder
from geungeo.embeddings.cache import CachedEmbedder
from geungeo.errors import LoaderError
from geungeo.ingest import archives, ocr
from geungeo.ingest.base import FORMAT_VERSION, supported_suffixes
from geungeo.ingest.manifest import FileManifest
from geungeo.ingest.parsing import (
    EMBEDDED_AHEAD,
    QUEUE_DOCUMENTS,
    FileResult,
    FileWork,
    IngestReport,
    Parser,
    Parsing,
    Pending,
    Progress,
    Todo,
    ahead,
    embedded,
    index_terms,
    parsed_items,
    stored_hash,
)
from geungeo.ingest.worker import IngestionProcess
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore, WriteGuard
from geungeo.text.normalize import nfc
from geungeo.types import Chunk, Document, DocumentRecord

__all__ = ["FileResult", "IngestReport", "Ingestor", "Progress", "WriteGuard", "discover"]


def discover(
    paths: Iterable[Path], unpack: Callable[[Path], Path] | None = None
) -> tuple[list[Path], list[str], list[FileResult]]:
    """Files to ingest under ``paths`` (recursively), the names skipped as unsupported, and the archives that
    could not be unpacked.

    A path given explicitly is always returned (its loader reports what is wrong with it); inside
    directories, hidden files and unsupported types are skipped. With ``unpack``, an archive of documents
    (:mod:`geungeo.ingest.archives`), given or inside a directory, stands for the folder it unpacks to (an
    archive inside an archive is skipped).
    """
    suffixes = set(supported_suffixes())
    files: list[Path] = []
    skipped: list[str] = []
    failed: list[FileResult] = []

    def add(path: Path, explicit: bool, inside_archive: bool = False) -> None:
        if unpack is not None and archives.is_archive(path) and not inside_archive:  # no archive bombs by nesting
            try:
                folder = unpack(path)
            except LoaderError as exc:
                failed.append(FileResult(nfc(str(path)), error=exc.reason))
                return
            for p in _visible_files(folder):
                add(p, False, inside_archive=True)
        elif explicit or path.suffix.lower() in suffixes:
            files.append(path)
        else:
            skipped.append(nfc(str(path)))

    for path in paths:
        if path.is_dir():
            for p in _visible_files(path):
                add(p, False)
        else:
            add(path, True)
    return files, skipped, failed


def _visible_files(folder: Path) -> Iterator[Path]:
    """The files under ``folder``, sorted, but for hidden ones and those in hidden folders."""
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts):
            yield p


def _record(doc: Document, chunks: list[Chunk], settings: Settings) -> DocumentRecord:
    return DocumentRecord(
        doc.doc_id, doc.source, doc.title, doc.kind, doc.code, stored_hash(doc, settings), len(chunks), origin=doc.origin
    )


class Ingestor:
    """Writes files into a store, skipping what is already there unchanged.

    A parsing thread loads, chunks and tokenises one file after another, an embedding thread embeds the
    documents already parsed and this thread writes those embedded; bounded queues between them
    (``QUEUE_DOCUMENTS``, ``EMBEDDED_AHEAD``) keep the cores busy and memory flat, and every document is
    written as soon as its vectors are ready, so that a killed run loses at most the documents in flight.
    ``isolated``: parsing and embedding run in an ingestion process of their own at a lower CPU priority
    (:mod:`geungeo.ingest.worker`), and this process only writes, so that a server's requests do not share its
    interpreter with an upload's ingestion.
    """

    def __init__(
        self,
        store: ChunkStore,
        embedder: Embedder,
        settings: Settings,
        *,
        summarizer: ChunkSummarizer | None = None,
        write_guard: WriteGuard | None = None,
        isolated: bool = False,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.summarizer = summarizer
        self.write_guard = write_guard or nullcontext
        self.isolated = isolated and summarizer is None  # LLM context sentences are written here, in order
        salt = f"{FORMAT_VERSION}|{settings.chunk_size}|{settings.chunk_overlap}|{settings.page_images}|{store.signature}"
        self.manifest = FileManifest(settings.data_dir / "manifest.sqlite", salt)
        ocr.configure_cache(settings.data_dir)

    def close(self) -> None:
        self.manifest.close()

    def run(self, paths: Iterable[Path], *, progress: Progress | None = None) -> IngestReport:
        """Skip the unchanged files, then parse the others (in a thread or an ingestion process) while writing
        what is parsed."""
        started = time.perf_counter()
        limit = self.settings.max_unpacked_mb << 20
        files, skipped, failed = discover(paths, lambda a: archives.unpacked(a, self.settings.data_dir / "archives", limit))
        report = IngestReport(files=failed, skipped=skipped)
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
        try:
            with self.store.ingesting():  # readers keep the BM25 index as it was until the flush below
                if self.isolated and todo:
                    with IngestionProcess(self.settings, todo, known, len(files) - len(todo), len(files)) as child:
                        self._write_parsed(child.items(progress), known, report)
                        child.add_to(report)
                else:
                    self._run_threaded(todo, known, report, progress, len(files))
        finally:  # not under the writer's guard: readers search the indexes they have until the new ones are swapped in
            self.store.flush()
        report.seconds = time.perf_counter() - started
        return report

    def _run_threaded(
        self,
        todo: Todo,
        known: dict[str, DocumentRecord],
        report: IngestReport,
        progress: Progress | None,
        total: int,
    ) -> None:
        computed_before = self._computed()
        parsing = Parsing(Queue(maxsize=QUEUE_DOCUMENTS))
        parser = Parser(self.settings, terms=self.summarizer is None)
        worker = threading.Thread(
            target=parser.parse_all,
            args=(todo, known, report, parsing, progress, total - len(todo), total),
            name="geungeo-parse",
            daemon=True,
        )
        worker.start()
        items = parsed_items(parsing)
        if self.summarizer is not None:
            items = self._annotated(items, self.summarizer, report)
        vectors = embedded(items, parsing, self.embedder, self.settings, report, progress)
        written = ahead(vectors, EMBEDDED_AHEAD, name="geungeo-embed")  # embedded beside the writes
        finished = False
        try:
            self._write_parsed(written, known, report)
            finished = True
        finally:
            written.close()  # the writer failed or was interrupted: the embedding thread stops too
            parsing.stop.set()
            worker.join(None if finished else 1.0)  # interrupted: do not wait for a long parse (a daemon thread)
        computed = self._computed()
        report.embedded_chunks = report.written_chunks if computed is None else computed - (computed_before or 0)

    def _computed(self) -> int | None:
        """Vectors the model computed so far (None when there is no embedding cache to tell)."""
        return self.embedder.computed if isinstance(self.embedder, CachedEmbedder) else None

    def _annotated(
        self, items: Iterator[FileWork | Pending], summarizer: ChunkSummarizer, report: IngestReport
    ) -> Iterator[FileWork | Pending]:
        """``items`` with the LLM's context sentence on each chunk, and the terms made after it."""
        for item in items:
            if isinstance(item, Pending):
                t0 = time.perf_counter()
                summarizer.annotate(item.chunks)
                item.terms = index_terms(self.settings, item.chunks)
                spent = time.perf_counter() - t0
                report.embed_seconds += spent
                item.file.result.seconds += spent
            yield item

    # --- the writing side ------------------------------------------------------------------------

    def _write_parsed(self, items: Iterator[FileWork | Pending], known: dict[str, DocumentRecord], report: IngestReport) -> None:
        """Write each parsed document with its vectors (made by :func:`~geungeo.ingest.parsing.embedded`, here or in
        the ingestion process), and record each file in the manifest once all its documents are written."""
        files: dict[str, FileWork] = {}
        for item in items:
            if isinstance(item, FileWork):
                files[item.origin] = item
                self._start_file(item, known, report)
                continue
            file = files.get(item.file.origin, item.file)  # from a process: the copy sent with the file
            if item.vectors is None:
                raise ValueError(f"{item.doc.source}: a document reached the writer without its vectors")
            t0 = time.perf_counter()
            record = _record(item.doc, item.chunks, self.settings)
            # readers wait for the steps of one document's write that change what they see, never for the ingestion
            self.store.replace_document(record, item.chunks, item.vectors, item.terms or [], guard=self.write_guard)
            spent = time.perf_counter() - t0
            report.write_seconds += spent
            report.written_chunks += len(item.chunks)
            file.result.chunks += len(item.chunks)
            file.result.seconds += item.seconds + spent
            file.left -= 1
            if file.left == 0:
                self.manifest.record(file.origin, file.fingerprint, file.doc_ids)

    def _start_file(self, file: FileWork, known: dict[str, DocumentRecord], report: IngestReport) -> None:
        report.files.append(file.result)
        if file.result.error:
            self.manifest.forget(file.origin)
            return
        with self.write_guard():
            file.result.removed = self._remove_vanished(file.origin, set(file.doc_ids), known)
        if file.left == 0:
            self.manifest.record(file.origin, file.fingerprint, file.doc_ids)

    def _remove_vanished(self, origin: str, present: set[str], known: dict[str, DocumentRecord]) -> int:
        """Delete documents that an earlier version of this file held and this one does not."""
        vanished = [doc_id for doc_id, rec in known.items() if rec.origin == origin and doc_id not in present]
        for doc_id in vanished:
            self.store.delete_document(doc_id)
        return len(vanished)
