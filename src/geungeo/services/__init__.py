"""The service layer between the interfaces (CLI, HTTP, web UI, MCP) and the engine.

Each interface builds one :class:`Services` and calls it; the services raise domain errors
(:mod:`geungeo.errors`) that the interface translates (an HTTP status, a one-line CLI message, an MCP tool
error). No interface touches the store or builds lookups itself.

    services = Services.build(settings)        # or Services(engine) / Services(runner=runner)
    services.documents.list()
    services.search.search("연차 유급휴가", k=5)
    services.answers.ask(services.answers.check("연차는 며칠?"))
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import cached_property

from geungeo.engine import Engine, build_engine, drop_index
from geungeo.graph.runner import QueryRunner
from geungeo.ingest.pipeline import Progress
from geungeo.services.answers import AnswerService, Question, Turn
from geungeo.services.documents import DocumentService, IngestSummary, StagedUpload, StoreStats
from geungeo.services.feedback import Feedback, FeedbackService, Recorded
from geungeo.services.jobs import Job, JobRunner
from geungeo.services.locking import ReadWriteLock
from geungeo.services.ranking import RankerService
from geungeo.services.search import SearchService
from geungeo.services.structure import StructureService
from geungeo.settings import Settings

__all__ = [
    "AnswerService",
    "DocumentService",
    "Feedback",
    "FeedbackService",
    "IngestSummary",
    "Job",
    "Question",
    "RankerService",
    "ReadWriteLock",
    "Recorded",
    "SearchService",
    "Services",
    "StagedUpload",
    "StoreStats",
    "StructureService",
    "Turn",
    "drop_index",
]


class Services:
    """The services over one engine; the runner (answers) is built on first use unless given."""

    def __init__(self, engine: Engine | None = None, *, runner: QueryRunner | None = None) -> None:
        if engine is None and runner is None:
            raise ValueError("Services needs an engine or a runner")
        self.engine: Engine = runner.engine if runner is not None else engine  # type: ignore[assignment]
        self.settings: Settings = self.engine.settings
        self._runner = runner
        self._runner_lock = threading.Lock()
        self.lock = ReadWriteLock()
        """Store writes (ingestion, deletion) take it for writing, everything else for reading (threaded interfaces)."""
        self.documents = DocumentService(self.engine)
        self.search = SearchService(self.engine)
        self.structure = StructureService(self.engine)
        self.ranker = RankerService(self.engine)

    @classmethod
    def build(cls, settings: Settings | None = None) -> Services:
        """The services over the engine the settings describe."""
        return cls(build_engine(settings or Settings()))

    @property
    def runner(self) -> QueryRunner:
        """The answer runner (graph or agent), built on first use."""
        with self._runner_lock:
            if self._runner is None:
                self._runner = QueryRunner(self.engine)
            return self._runner

    @cached_property
    def answers(self) -> AnswerService:
        return AnswerService(self.runner)

    @cached_property
    def feedback(self) -> FeedbackService:
        return FeedbackService(self.runner)

    @cached_property
    def jobs(self) -> JobRunner:
        """Background ingestion jobs (uploads)."""
        return JobRunner(lambda exc: self.documents.redact(str(exc) or type(exc).__name__))

    def ingest_in_background(self, uploads: Sequence[StagedUpload]) -> Job:
        """Queue the staged uploads' ingestion as a job; a document's write takes the writer lock for the steps that
        change what readers see (hiding it, then showing it), so searches and answers wait for one such step at most,
        never for the whole ingestion. The parsing and embedding run in an ingestion process of lower priority and the
        embedded store's Chroma in a process of its own, so requests do not share this interpreter with them."""

        def work(progress: Progress) -> IngestSummary:
            report = self.documents.ingest_uploads(uploads, progress=progress, write_guard=self.lock.write, isolated=True)
            return self.documents.summary(report)

        def discard() -> None:
            for upload in uploads:
                upload.discard()

        return self.jobs.submit([u.name for u in uploads], work, discard)

    def load_models(self) -> None:
        """Load the embedding model now (a server at start), so that the first question does not wait for it."""
        self.engine.embedder.load()

    def close(self) -> None:
        """Finish the running job, then close the runner (or the engine)."""
        if "jobs" in self.__dict__:
            self.jobs.close()
        if self._runner is not None:
            self._runner.close()
        else:
            self.engine.close()
