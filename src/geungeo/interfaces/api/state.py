"""What the HTTP API shares between requests: settings, the services, thread helpers.

The services are blocking, so every call runs in a worker thread. Store writes (delete; uploads
run as background jobs) take the services' writer lock for each step that changes what readers see;
searches and every step of an answer take a reader lock, one unit of work at a time, so such a step
never overlaps a read and no thread ever waits while holding a lock that another worker thread needs.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from fastapi import Request

from geungeo.graph.runner import QueryRunner
from geungeo.services import Services
from geungeo.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")
_END = object()


class ApiTimeout(Exception):
    """The request ran past ``api_timeout_s``."""


@dataclass
class ApiState:
    """Everything a route needs; one per app (``app.state.api``)."""

    settings: Settings
    services: Services
    owns_services: bool = False
    file_lock: threading.Lock = field(default_factory=threading.Lock)
    threads: OrderedDict[str, str] = field(default_factory=OrderedDict)  # transcript hash -> conversation id

    @property
    def runner(self) -> QueryRunner:
        """The answer runner (for the feedback route's corrections)."""
        return self.services.runner

    @property
    def api_keys(self) -> frozenset[str]:
        return frozenset(k.strip() for k in self.settings.api_keys.get_secret_value().split(",") if k.strip())

    async def call(self, fn: Callable[..., T], *args: Any, write: bool = False, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a worker thread under the store lock (abandoned, not killed, on timeout)."""
        lock = self.services.lock.write if write else self.services.lock.read

        def work() -> T:
            with lock():
                return fn(*args, **kwargs)

        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)

    async def iterate(self, events: Iterator[T]) -> AsyncIterator[T]:
        """The items of a blocking iterator, each fetched in a worker thread; ApiTimeout past the deadline.

        A stream left early (timeout, client gone) is run to its end in a background thread, like an
        abandoned ``call``: closing a graph mid-run would leave its node threads writing into nothing.
        """
        deadline = anyio.current_time() + self.settings.api_timeout_s
        guard = threading.Lock()  # one next() at a time, even when a step was abandoned

        def step() -> Any:
            with guard, self.services.lock.read():
                return next(events, _END)

        finished = False
        try:
            while True:
                with anyio.move_on_after(max(0.0, deadline - anyio.current_time())) as scope:
                    item = await anyio.to_thread.run_sync(step, abandon_on_cancel=True)
                if scope.cancelled_caught:
                    raise ApiTimeout
                if item is _END:
                    finished = True
                    return
                yield item
        finally:
            if not finished:  # (an iterator that raised is already closed: the drain ends at once)
                threading.Thread(target=_drain, args=(step,), daemon=True).start()


def _drain(step: Callable[[], Any]) -> None:
    try:
        while step() is not _END:
            pass
    except Exception:
        log.debug("abandoned stream failed", exc_info=True)


def api_state(request: Request) -> ApiState:
    """Dependency: the app's shared state."""
    state: ApiState = request.app.state.api
    return state
