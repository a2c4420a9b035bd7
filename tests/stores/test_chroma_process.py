"""The embedded store's Chroma runs in a child process: the caller's threads run while it works, and the child
follows the store's life (started on use, started again after a crash, gone when the store is closed)."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from geungeo.errors import StoreError
from geungeo.settings import Settings
from geungeo.stores.chroma import ChromaStore
from geungeo.stores.chroma_process import ChromaCollection
from geungeo.testing.store_contract import SIGNATURE, make_doc


def test_the_callers_threads_run_while_chroma_adds(tmp_path: Path) -> None:
    """chromadb's bindings hold the GIL through a call: in the caller's process another thread got one tick in a
    whole add of 3,000 vectors (a server's requests waited for every write of an upload). Now it waits on a socket."""
    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    collection = store.collection
    collection.count()  # the child is up
    vectors = np.random.default_rng(0).standard_normal((3000, 384)).astype(np.float32)
    ticks: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.05)
    started = time.perf_counter()
    collection.add(ids=[f"v{i}" for i in range(3000)], embeddings=vectors, metadatas=[{"doc_id": "d"}] * 3000)
    ended = time.perf_counter()
    stop.set()
    ticker.join()
    during = [t for t in ticks if started < t < ended]
    assert collection.count() == 3000
    assert len(during) >= 10, f"{len(during)} ticks in {ended - started:.2f} s of Chroma's add"
    store.close()


def test_chroma_runs_in_a_child_that_a_crash_does_not_end_for_good(tmp_path: Path) -> None:
    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    store.replace_document(*make_doc("d1", 3))
    process = store.collection._child.process
    assert process is not None and process.pid != os.getpid()
    process.kill()
    process.wait()
    store.replace_document(*make_doc("d2", 2, seed=2))  # the next call starts the child again
    assert store.collection.count() == 5 and store.count() == 5
    store.close()


def test_the_child_exits_when_its_store_is_closed_or_dropped(tmp_path: Path) -> None:
    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    store.replace_document(*make_doc("d1", 3))
    first = store.collection._child.process
    store.close()
    assert first is not None and first.poll() == 0
    again = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    assert again.collection.count() == 3  # the directory was left whole
    second = again.collection._child.process
    del again
    gc.collect()
    assert second is not None and second.poll() == 0


def test_chromas_own_errors_come_back_as_store_errors(tmp_path: Path) -> None:
    collection = ChromaCollection(tmp_path / "chroma", "chunks", {"hnsw": {"space": "cosine"}})
    collection.add(ids=["a"], embeddings=np.ones((1, 4), dtype=np.float32), metadatas=[{"doc_id": "d"}])
    with pytest.raises(StoreError, match="Chroma add"):
        collection.add(ids=["b"], embeddings=np.ones((1, 6), dtype=np.float32), metadatas=[{"doc_id": "d"}])
    assert collection.count() == 1  # the child goes on
    collection.close()


def test_ctrl_c_is_left_to_the_caller(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the whole process group: the child must not die of it mid-write (nor print a
    traceback); the caller decides, and its end of the pipe ends the child."""
    collection = ChromaCollection(tmp_path / "chroma", "chunks", {"hnsw": {"space": "cosine"}})
    assert collection.count() == 0
    process = collection._child.process
    assert process is not None
    os.kill(process.pid, signal.SIGINT)
    time.sleep(0.3)
    assert process.poll() is None and collection.count() == 0
    collection.close()


def test_a_call_interrupted_before_its_answer_leaves_no_stale_answer_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or any exception) between a call and its answer leaves that answer in the pipe; the next call must not
    take it for its own (a count's 1 returned for a get)."""
    collection = ChromaCollection(tmp_path / "chroma", "chunks", {"hnsw": {"space": "cosine"}})
    collection.add(ids=["a"], embeddings=np.ones((1, 4), dtype=np.float32), metadatas=[{"doc_id": "d"}])
    conn = collection._child.conn
    assert conn is not None
    real = conn.recv

    def interrupted() -> None:  # once, as a signal would
        monkeypatch.setattr(conn, "recv", real)
        raise RuntimeError("interrupted")

    monkeypatch.setattr(conn, "recv", interrupted)
    with pytest.raises(RuntimeError, match="interrupted"):
        collection.count()
    assert collection.get(ids=["a"], include=["embeddings"])["ids"] == ["a"]
    collection.close()


@pytest.mark.parametrize("how", ["stdin", "unguarded file"])
def test_a_script_without_a_main_guard_or_from_stdin_can_write(tmp_path: Path, how: str) -> None:
    """A ``multiprocessing`` child imports the caller's main script again: a script read from stdin could not open
    the store ("No such file or directory: '<stdin>'"), and one without ``if __name__ == "__main__"`` ran twice."""
    script = (
        "from pathlib import Path\n"
        "from geungeo.settings import Settings\n"
        "from geungeo.stores.chroma import ChromaStore\n"
        "from geungeo.testing.store_contract import SIGNATURE, make_doc\n"
        f"store = ChromaStore(Settings(data_dir=Path({str(tmp_path)!r})), SIGNATURE)\n"
        "store.replace_document(*make_doc('d1', 3))\n"
        "print('written', store.collection.count())\n"
    )
    if how == "stdin":
        run = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, timeout=120)
    else:
        (tmp_path / "job.py").write_text(script, "utf-8")
        run = subprocess.run([sys.executable, str(tmp_path / "job.py")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == ["written 3"]
