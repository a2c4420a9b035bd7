"""Chroma in a process of its own: the embedded store's vectors are written and read there, not in the caller's.

chromadb's bindings hold the GIL through every call, waiting for their own threads: an add of 20 vectors takes
~16 ms in which no other thread of the process runs. While an upload wrote its documents, every request of the
server waited for those calls (``/v1/ask``'s p95 doubled, ``benchmarks/reports/upload_load.md``). Here the caller
waits on a pipe, which releases the GIL, and Chroma works in a child process that owns the persistent directory
alone (Chroma does not support two processes on one directory).

The child is forked from a fork server that imported chromadb once (fast to start, and safe beside the caller's
threads), started by the first call, started again by the next call if it died, and told to exit when its
:class:`ChromaCollection` is closed or collected; it exits by itself when the caller is gone (its pipe ends).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import weakref
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from geungeo.errors import StoreError

_START_S = 120.0
"""How long the child may take to open the directory (Chroma loads its index) before the call fails."""
_STOP_S = 10.0


def _context() -> Any:
    """The fork server where the platform has one (its children start with chromadb already imported), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["chromadb", __name__])
        return ctx
    return multiprocessing.get_context("spawn")


class _Child:
    """The running child: its process and the parent's end of its pipe (what the finalizer stops)."""

    def __init__(self) -> None:
        self.process: BaseProcess | None = None
        self.conn: Connection | None = None

    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive() and self.conn is not None

    def stop(self) -> None:
        """Ask the child to exit (it finishes the call it is in), then wait for it; killed if it does not."""
        conn, process, self.conn, self.process = self.conn, self.process, None, None
        if conn is not None:
            try:
                conn.send(("close", {}))
                conn.poll(_STOP_S)
            except (OSError, EOFError, ValueError):
                pass
            conn.close()
        if process is not None:
            process.join(_STOP_S)
            if process.is_alive():
                process.kill()
                process.join()


class ChromaCollection:
    """A persistent Chroma collection served by a child process, with the collection methods the store uses."""

    def __init__(self, path: Path, name: str, configuration: dict[str, Any]) -> None:
        self._args = (str(path.absolute()), name, configuration)  # as opened, whatever the cwd later
        self._lock = threading.Lock()  # one call at a time on the pipe
        self._child = _Child()
        self._finalizer = weakref.finalize(self, self._child.stop)

    def add(self, *, ids: list[str], embeddings: Any, metadatas: list[dict[str, Any]]) -> None:
        self._call("add", ids=ids, embeddings=embeddings, metadatas=metadatas)

    def delete(self, *, where: dict[str, Any] | None = None, ids: list[str] | None = None) -> None:
        self._call("delete", where=where, ids=ids)

    def get(self, *, ids: list[str], include: list[str]) -> dict[str, Any]:
        result: dict[str, Any] = self._call("get", ids=ids, include=include)
        return result

    def count(self) -> int:
        return int(self._call("count"))

    def query(self, **kwargs: Any) -> dict[str, Any]:
        result: dict[str, Any] = self._call("query", **kwargs)
        return result

    def close(self) -> None:
        """Stop the child (a later call starts it again)."""
        with self._lock:
            self._child.stop()

    def _call(self, method: str, **kwargs: Any) -> Any:
        with self._lock:
            if not self._child.alive():
                self._child.stop()
                self._start()
            conn = self._child.conn
            assert conn is not None
            try:
                conn.send((method, kwargs))
                answer = conn.recv()
            except (EOFError, OSError) as exc:
                self._child.stop()
                raise StoreError(f"the Chroma process ended during {method} ({exc or type(exc).__name__})") from exc
            except BaseException:  # interrupted between a call and its answer: the next call starts a new child
                self._child.stop()
                raise
        if answer[0] == "error":
            raise StoreError(f"Chroma {method}: {answer[1]}")
        return answer[1]

    def _start(self) -> None:
        ctx = _context()
        parent, child = ctx.Pipe()
        process = ctx.Process(target=_serve, args=(child, *self._args), name="geungeo-chroma", daemon=True)
        process.start()
        child.close()  # the child's end lives in the child: its death ends the pipe here
        self._child.process, self._child.conn = process, parent
        if not parent.poll(_START_S):
            self._child.stop()
            raise StoreError(f"the Chroma process did not open {self._args[0]} in {_START_S:.0f} s")
        try:
            ready = parent.recv()
        except EOFError as exc:
            self._child.stop()
            raise StoreError(f"the Chroma process could not start (exit code {process.exitcode})") from exc
        if ready[0] == "error":
            self._child.stop()
            raise StoreError(f"Chroma could not open {self._args[0]}: {ready[1]}")


def _serve(conn: Connection, path: str, name: str, configuration: dict[str, Any]) -> None:
    """The child: open the collection, then answer calls until told to close or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's: a call in progress ends whole
    with contextlib.suppress(OSError):  # nothing it prints may reach a stdio protocol on the caller's stdout (MCP's)
        os.dup2(2, 1)
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    try:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        client = chromadb.PersistentClient(path=path, settings=ChromaSettings(anonymized_telemetry=False))
        config: Any = configuration  # a plain dict of CreateCollectionConfiguration's shape
        collection = client.get_or_create_collection(name, embedding_function=None, configuration=config)
    except Exception as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", None))
    while True:
        try:
            method, kwargs = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if method == "close":
            conn.send(("ok", None))
            return
        try:
            value = getattr(collection, method)(**kwargs)
            # results are plain dicts; "included" holds chromadb's enum, which the parent need not import
            answer = ("ok", {k: v for k, v in value.items() if k != "included"} if isinstance(value, dict) else value)
        except Exception as exc:
            answer = ("error", f"{type(exc).__name__}: {exc}")
        conn.send(answer)
