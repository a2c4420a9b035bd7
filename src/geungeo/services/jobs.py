"""Background jobs: an upload is ingested by one worker thread while requests go on; its job tells how it went.

Jobs run one at a time, in the order given. The last :data:`KEPT` finished jobs are kept for their status;
older ones are forgotten (memory stays bounded). Closing the runner waits for the running job and
discards the queued ones (their ``discard`` is called).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Literal

from pydantic import BaseModel, Field

from geungeo.errors import GeungeoError, NotFoundError
from geungeo.ingest.pipeline import Progress
from geungeo.services.documents import IngestSummary

log = logging.getLogger(__name__)

KEPT = 1000
"""Finished jobs remembered for ``GET /v1/jobs/{id}``."""

Status = Literal["queued", "running", "done", "failed"]


class StageProgress(BaseModel):
    done: int
    total: int


class Job(BaseModel):
    """One ingestion job as a client sees it."""

    job_id: str
    status: Status = "queued"
    files: list[str]
    created: float = Field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    progress: dict[str, StageProgress] = Field(default_factory=dict, description="Stage (files, embed) -> done/total.")
    result: IngestSummary | None = None
    error: str | None = None


Work = Callable[[Progress], IngestSummary]


class JobRunner:
    """Runs ingestion jobs in one background thread and keeps their status."""

    def __init__(self, describe_error: Callable[[Exception], str] = str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="geungeo-job")
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._pending: dict[str, tuple[Future[None], Callable[[], None]]] = {}
        self._lock = threading.Lock()
        self._describe = describe_error

    def submit(self, files: list[str], work: Work, discard: Callable[[], None] = lambda: None) -> Job:
        """Queue ``work(progress)``; ``discard`` cleans up if the job never runs. The job, as queued."""
        job = Job(job_id=uuid.uuid4().hex, files=files)
        with self._lock:  # held while submitting: the worker takes the job off ``_pending`` only after it is on
            self._jobs[job.job_id] = job
            self._forget_old()
            self._pending[job.job_id] = (self._pool.submit(self._run, job, work), discard)
            return job.model_copy(deep=True)

    def get(self, job_id: str) -> Job:
        """A snapshot of the job; NotFoundError for an unknown (or long forgotten) id."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                raise NotFoundError(f"no job '{job_id[:64]}' / 작업을 찾을 수 없습니다")
            return job.model_copy(deep=True)

    def wait(self, job_id: str, timeout: float | None = None) -> Job:
        """The job once finished (or as it is after ``timeout`` seconds)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (job := self.get(job_id)).status in ("queued", "running"):
            if deadline is not None and time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        return job

    def _run(self, job: Job, work: Work) -> None:
        with self._lock:
            self._pending.pop(job.job_id, None)
            job.status, job.started = "running", time.time()

        def progress(stage: str, done: int, total: int) -> None:
            with self._lock:
                job.progress[stage] = StageProgress(done=done, total=total)

        try:
            result = work(progress)
        except Exception as exc:
            if not isinstance(exc, GeungeoError):
                log.exception("job %s failed", job.job_id)
            with self._lock:
                job.status, job.error, job.finished = "failed", self._describe(exc), time.time()
            return
        with self._lock:
            job.status, job.result, job.finished = "done", result, time.time()

    def _forget_old(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.status in ("done", "failed")]
        for key in finished[: max(0, len(finished) - KEPT)]:
            del self._jobs[key]

    def close(self) -> None:
        """Discard the queued jobs and wait for the running one."""
        with self._lock:
            pending = list(self._pending.items())
            self._pending.clear()
        for job_id, (future, discard) in pending:
            if future.cancel():
                discard()
                with self._lock:
                    job = self._jobs[job_id]
                    job.status, job.error, job.finished = "failed", "server stopped / 서버가 중지되었습니다", time.time()
        self._pool.shutdown(wait=True)
