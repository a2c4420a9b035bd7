"""An ingestion process: the parsing, BM25 terms and embedding of an upload, away from the server's interpreter.

:class:`geungeo.ingest.pipeline.Ingestor` with ``isolated`` keeps only the store writes in its own process and
takes everything else from here. The process is started with ``spawn`` (safe beside a server's threads), lowers
its CPU priority (:func:`lower_priority`) so that requests go first on shared cores, and sends each parsed file, each
document with its vectors, its progress and its end through a bounded queue (memory stays flat). It exits when
the process that started it is gone; the writer raises :class:`~geungeo.errors.IngestionError` when it dies.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from geungeo.embeddings import get_cached_embedder
from geungeo.errors import IngestionError
from geungeo.ingest import ocr
from geungeo.ingest.parsing import (
    QUEUE_DOCUMENTS,
    FileWork,
    IngestReport,
    Parser,
    Parsing,
    Pending,
    Progress,
    Todo,
    embedded,
    parsed_items,
)
from geungeo.settings import Settings
from geungeo.types import DocumentRecord

NICENESS = 10
"""How much lower the ingestion process's CPU priority is than the server's (Unix ``nice``), where the idle scheduling
class is not available."""

_POLL_S = 0.5


@dataclass(frozen=True)
class _Step:
    """A progress report: (stage, done, total) as :data:`~geungeo.ingest.pipeline.Progress` takes it."""

    stage: str
    done: int
    total: int


@dataclass(frozen=True)
class _End:
    """The last message: the process's share of the report."""

    parse_seconds: float
    sparse_seconds: float
    embed_seconds: float
    computed: int  # vectors the model computed (not read from the embedding cache)


def lower_priority() -> None:
    """Lower the calling process's CPU priority below the server's, before it starts any thread (threads inherit it).

    Linux's idle scheduling class (``SCHED_IDLE``) runs the process only where a core would otherwise idle: with
    nice +10 alone, a request on two cores still ran 1.3× slower at the median while an upload ingested
    (``benchmarks/reports/upload_load.md``). Elsewhere, or where it is refused: ``nice`` +:data:`NICENESS`; where
    neither can be set, the same priority."""
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, idle, os.sched_param(0))


class IngestionProcess:
    """The ingestion process of one run, seen from the writer: start it, read its items, add its report."""

    def __init__(self, settings: Settings, todo: Todo, known: dict[str, DocumentRecord], done: int, total: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._queue: Any = context.Queue(maxsize=QUEUE_DOCUMENTS)
        self._process = context.Process(
            target=_main,
            args=(settings, todo, known, done, total, self._queue, os.getpid()),
            name="geungeo-ingest",
            daemon=True,
        )
        self._end: _End | None = None

    def __enter__(self) -> IngestionProcess:
        self._process.start()
        # Only the process writes to the queue: without this process's end open, a message cut short by its death
        # reads as the end of the pipe instead of waiting for the rest forever.
        self._queue._writer.close()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._process.is_alive():  # stopped early (an error here or an interrupt): do not leave it running
            self._process.terminate()
        self._process.join(5.0)
        self._queue.cancel_join_thread()
        self._queue.close()

    def items(self, progress: Progress | None) -> Iterator[FileWork | Pending]:
        """The parsed files and the documents with their vectors, in order, until the process ends."""
        while True:
            try:
                item = self._queue.get(timeout=_POLL_S)
            except queue.Empty:
                if not self._process.is_alive():
                    raise self._stopped() from None
                continue
            except (EOFError, OSError, pickle.UnpicklingError):  # the process died while sending
                self._process.join(5.0)
                raise self._stopped() from None
            if isinstance(item, _Step):
                if progress:
                    progress(item.stage, item.done, item.total)
            elif isinstance(item, _End):
                self._end = item
                return
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item

    def _stopped(self) -> IngestionError:
        return IngestionError(
            f"the ingestion process stopped (exit code {self._process.exitcode}); what was written stays "
            "/ 색인 프로세스가 중단되었습니다. 저장된 문서는 남아 있습니다"
        )

    def add_to(self, report: IngestReport) -> None:
        """Add the process's timings and computed vectors to the writer's ``report``."""
        if self._end is not None:
            report.parse_seconds += self._end.parse_seconds
            report.sparse_seconds += self._end.sparse_seconds
            report.embed_seconds += self._end.embed_seconds
            report.embedded_chunks += self._end.computed


def _main(
    settings: Settings,
    todo: Todo,
    known: dict[str, DocumentRecord],
    done: int,
    total: int,
    out: Any,
    parent: int,
) -> None:
    """The process: parse in a thread, embed here, send everything to ``out``."""
    lower_priority()

    def send(item: object) -> None:
        while True:
            try:
                out.put(item, timeout=_POLL_S)
                return
            except queue.Full:
                if os.getppid() != parent:  # the writer's process is gone: nothing will read this
                    os._exit(0)

    def progress(stage: str, done_: int, total_: int) -> None:
        send(_Step(stage, done_, total_))

    try:
        ocr.configure_cache(settings.data_dir)
        embedder = get_cached_embedder(settings)
        report = IngestReport()
        parsing = Parsing(queue.Queue(maxsize=QUEUE_DOCUMENTS))
        parser = threading.Thread(
            target=Parser(settings).parse_all,
            args=(todo, known, report, parsing, progress, done, total),
            name="geungeo-parse",
            daemon=True,
        )
        parser.start()
        try:
            for item in embedded(parsed_items(parsing), parsing, embedder, settings, report, progress):
                send(item)
        finally:
            parsing.stop.set()
            embedder.close()
        send(_End(report.parse_seconds, report.sparse_seconds, report.embed_seconds, embedder.computed))
    except BaseException as exc:  # everything goes to the writer, which raises it
        send(_portable(exc))


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else an :class:`IngestionError` with its message."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # any pickling failure
        return IngestionError(f"{type(exc).__name__}: {exc}")
