"""Chroma in a process of its own: the embedded store's vectors are written and read there, not in the caller's.

chromadb's bindings hold the GIL through every call, waiting for their own threads: an add of 20 vectors takes
~16 ms in which no other thread of the process runs. While an upload wrote its documents, every request of the
server waited for those calls (``/v1/ask``'s p95 doubled, ``benchmarks/reports/upload_load.md``). Here the caller
waits on a socket, which releases the GIL, and Chroma works in a child process that owns the persistent directory
alone (Chroma does not support two processes on one directory).

The child is this module run by the caller's interpreter (``python -m geungeo.stores.chroma_process``), not a
``multiprocessing`` child: those import the caller's main script again, which fails for a script read from stdin and
runs a script without a ``__main__`` guard twice. It is started by the first call, started again by the next call if
it died, told to exit when its :class:`ChromaCollection` is closed or collected, and exits by itself when the caller
is gone (its socket ends). It runs in a session of its own, so a terminal's Ctrl-C is the caller's to handle.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import weakref
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import geungeo
from geungeo.errors import StoreError

_START_S = 120.0
"""How long the child may take to open the directory (Chroma loads its index) before the call fails."""
_STOP_S = 10.0
_PACKAGE_ROOT = str(Path(geungeo.__file__).resolve().parent.parent)


class _Child:
    """The running child: its process and the parent's end of its socket (what the finalizer stops)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.conn: Connection | None = None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None and self.conn is not None

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
            try:
                process.wait(_STOP_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class ChromaCollection:
    """A persistent Chroma collection served by a child process, with the collection methods the store uses."""

    def __init__(self, path: Path, name: str, configuration: dict[str, Any]) -> None:
        self._path = str(path.absolute())  # as opened, whatever the cwd later
        self._name = name
        self._configuration = configuration
        self._lock = threading.Lock()  # one call at a time on the socket
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
        ours, theirs = socket.socketpair()
        with ours, theirs:
            env = dict(os.environ)  # the child imports this very package, wherever the caller found it
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
            process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(theirs.fileno()), self._path, self._name, json.dumps(self._configuration)],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=2,  # nothing it prints may reach a stdio protocol on the caller's stdout (MCP's)
                env=env,
                start_new_session=True,
            )
            conn = Connection(ours.detach())
        self._child.process, self._child.conn = process, conn
        if not conn.poll(_START_S):
            self._child.stop()
            raise StoreError(f"the Chroma process did not open {self._path} in {_START_S:.0f} s")
        try:
            ready = conn.recv()
        except EOFError as exc:
            self._child.stop()
            raise StoreError(f"the Chroma process could not start (exit code {process.poll()})") from exc
        if ready[0] == "error":
            self._child.stop()
            raise StoreError(f"Chroma could not open {self._path}: {ready[1]}")


def _serve(conn: Connection, path: str, name: str, configuration: dict[str, Any]) -> None:
    """The child: open the collection, then answer calls until told to close or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's: a call in progress ends whole
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
        try:
            conn.send(("ok", None) if method == "close" else _answer(collection, method, kwargs))
        except OSError:  # the parent stopped listening (it closed its end after an interrupted call)
            return
        if method == "close":
            return


def _answer(collection: Any, method: str, kwargs: dict[str, Any]) -> tuple[str, Any]:
    """One call's answer: ("ok", its result) or ("error", what went wrong)."""
    try:
        value = getattr(collection, method)(**kwargs)
    except Exception as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    # results are plain dicts; "included" holds chromadb's enum, which the parent need not import
    return "ok", {k: v for k, v in value.items() if k != "included"} if isinstance(value, dict) else value


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])), sys.argv[2], sys.argv[3], json.loads(sys.argv[4]))
