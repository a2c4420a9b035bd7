"""Incremental, idempotent and crash-safe ingestion through the real embedded store."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from geungeo.engine import build_engine
from geungeo.ingest.base import Loader, loader
from geungeo.settings import Settings
from geungeo.testing.store_contract import HeldGuard
from geungeo.types import Document, Element
from tests.conftest import CORPUS, need_shared

LAW = """---
제목: {title}
시행일자: 2025-01-01
---

# {title}

## 제1장 총칙

##### 제1조 (목적)

이 법은 {topic}에 관한 사항을 정함을 목적으로 한다.

##### 제2조 (휴가)

**①** 근로자는 {topic} 휴가를 신청할 수 있다.

**②** 휴가는 연 {days}일로 한다.

## 부칙

부칙 <제1호,2025.1.1>

제1조 (시행일) 이 법은 공포한 날부터 시행한다.
"""


def _settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", embed_provider="fake")


def _write(dir_: Path, name: str, topic: str, days: int = 15) -> Path:
    p = dir_ / f"{name}.md"
    p.write_text(LAW.format(title=name, topic=topic, days=days), "utf-8")
    return p


def _law_folder(tmp_path: Path, count: int) -> Path:
    """A folder of ``count`` small laws (규정00, 규정01, …), one document of a few chunks each."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(count):
        _write(docs, f"규정{n:02d}", f"주제{n}")
    return docs


def test_ingest_search_and_incremental_reingest(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _write(docs, "가족돌봄법", "가족돌봄")
    _write(docs, "연구년법", "연구년")
    (docs / "notes.xyz").write_text("ignored", "utf-8")
    engine = build_engine(_settings(tmp_path))
    first = engine.ingest([docs])
    assert first.documents == 2 and first.chunks == 6 and not first.failed
    assert first.skipped and first.skipped[0].endswith("notes.xyz")
    hits = engine.search("연구년법의 휴가는 며칠", k=3)
    assert hits[0].chunk.meta["doc"] == "연구년법"
    assert {"sparse", "dense", "sparse in named"} <= set(hits[0].ranks)

    again = engine.ingest([docs])
    assert again.written_chunks == again.embedded_chunks == 0 and sum(f.unchanged for f in again.files) == 2

    _write(docs, "연구년법", "연구년", days=30)
    changed = engine.ingest([docs])
    # the changed document's chunks are written again; texts embedded before come from the embedding cache
    assert changed.written_chunks == 3 and changed.embedded_chunks < 3 and engine.store.count() == 6
    hits = engine.search("연구년 휴가 30일", k=1, mode="sparse")
    assert "30일" in hits[0].chunk.text
    engine.close()


def test_unchanged_chunks_are_not_embedded_twice(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    law = _write(docs, "가족돌봄법", "가족돌봄")
    engine = build_engine(_settings(tmp_path))
    engine.ingest([law])
    law.write_text(law.read_text("utf-8").replace("연 15일", "연 20일"), "utf-8")
    inner = engine.embedder.inner  # type: ignore[attr-defined]
    before = inner.calls
    engine.ingest([law])
    assert inner.calls - before == 1  # only the changed article is embedded
    engine.close()


def test_bad_files_are_reported_and_the_batch_goes_on(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _write(docs, "가족돌봄법", "가족돌봄")
    (docs / "broken.pdf").write_bytes(os.urandom(2048))
    (docs / "empty.md").write_bytes(b"")
    engine = build_engine(_settings(tmp_path))
    report = engine.ingest([docs, tmp_path / "missing.md"])
    failed = {Path(f.path).name: f.error for f in report.failed}
    assert set(failed) == {"broken.pdf", "empty.md", "missing.md"}
    assert failed["missing.md"] == "no such file"
    assert report.documents == 1 and engine.store.count() == 3
    engine.close()


def test_changed_single_document_file_is_replaced_in_place(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    law = _write(docs, "가족돌봄법", "가족돌봄")
    engine = build_engine(_settings(tmp_path))
    engine.ingest([law])
    law.write_text(LAW.format(title="새이름법", topic="돌봄", days=3), "utf-8")  # same file, renamed statute
    report = engine.ingest([law])
    assert report.files[0].removed == 0
    assert [d.title for d in engine.store.documents()] == ["새이름법"]
    engine.close()


@loader(".book")
def _book_loader() -> Loader:
    """A test format holding one document per ``== title`` section, keyed by title (like the HWPX book)."""

    def load(path: Path) -> list[Document]:
        parts = [p.strip() for p in path.read_text("utf-8").split("== ") if p.strip()]
        return [
            Document(source=path.name, title=p.splitlines()[0], kind="regulation", key=p.splitlines()[0],
                     elements=[Element(text=line) for line in p.splitlines()[1:]])
            for p in parts
        ]

    return load


def test_regulation_dropped_from_a_book_is_deleted(tmp_path: Path) -> None:
    book = tmp_path / "규정집.book"
    book.write_text("== 학칙\n학생은 휴학할 수 있다.\n== 연구년규정\n교원은 연구년을 신청한다.\n", "utf-8")
    engine = build_engine(_settings(tmp_path))
    assert engine.ingest([book]).files[0].documents == 2
    book.write_text("== 학칙\n학생은 휴학할 수 있다.\n", "utf-8")
    report = engine.ingest([book])
    assert report.files[0].removed == 1 and report.files[0].unchanged == 1
    assert [d.title for d in engine.store.documents()] == ["학칙"]
    assert all(h.chunk.meta["doc"] == "학칙" for h in engine.search("연구년", k=5))
    engine.close()


def test_killed_ingest_leaves_store_consistent_and_next_run_completes(tmp_path: Path) -> None:
    need_shared()
    data = tmp_path / "data"
    laws = CORPUS / "laws"
    ingest_and_kill(laws, data, after_documents=5)

    engine = build_engine(Settings(data_dir=data, embed_provider="fake"))
    visible = engine.store.documents()
    assert 5 <= len(visible) < 48
    for rec in visible:  # every visible document is whole
        assert len(engine.store.chunks_of(rec.doc_id)) == rec.chunk_count
    report = engine.ingest([laws])
    assert not report.failed and engine.store.pending() == []
    assert len(engine.store.documents()) == 48
    assert sum(f.unchanged for f in report.files) == len(visible)
    total = sum(d.chunk_count for d in engine.store.documents())
    assert engine.store.count() == total == engine.store.collection.count()  # type: ignore[attr-defined]
    engine.close()


def ingest_and_kill(path: Path, data: Path, after_documents: int) -> None:
    """Run `geungeo ingest path` (fake embedder) into ``data`` and SIGKILL it once ``after_documents`` are written."""
    env = {**os.environ, "GEUNGEO_DATA_DIR": str(data), "GEUNGEO_EMBED_PROVIDER": "fake"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "geungeo", "ingest", str(path)], env=env, cwd=data.parent,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and _complete_documents(data) < after_documents:
        time.sleep(0.05)
    assert proc.poll() is None, "ingestion finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def _complete_documents(data: Path) -> int:
    """Documents a (running) ingestion has finished writing, read from its catalog (0 before there is one)."""
    catalog = data / "store" / "catalog.sqlite"
    if not catalog.exists():
        return 0
    try:
        with sqlite3.connect(catalog, timeout=1) as db:
            return int(db.execute("SELECT COUNT(*) FROM documents WHERE state='complete'").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("query", ["", "   ", "가" * 100_000])
def test_bad_queries_are_user_errors(tmp_path: Path, query: str) -> None:
    from geungeo.errors import QueryError

    engine = build_engine(_settings(tmp_path))
    with pytest.raises(QueryError):
        engine.search(query)
    engine.close()


def test_unchanged_file_is_not_parsed_again(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    law = _write(docs, "가족돌봄법", "가족돌봄")
    engine = build_engine(_settings(tmp_path))
    assert engine.ingest([docs]).files[0].parsed
    again = engine.ingest([docs]).files[0]
    assert not again.parsed and again.unchanged == 1 and again.chunks == 3
    law.write_text(law.read_text("utf-8").replace("15일", "20일"), "utf-8")
    changed = engine.ingest([docs]).files[0]
    assert changed.parsed and changed.unchanged == 0
    engine.store.delete_document(engine.store.documents()[0].doc_id)  # the store lost it: parse again
    assert engine.ingest([docs]).files[0].parsed and engine.store.count() == 3
    engine.close()



def test_a_new_chunk_size_rewrites_a_document_whose_text_is_the_same(tmp_path: Path) -> None:
    """The manifest parses the file again when the way documents are chunked changes (chunk size, the loaders'
    format version); its documents must then be written again although their text is the same, else the store
    keeps chunks (and chunk metadata) of the old way."""
    docs = tmp_path / "docs"
    docs.mkdir()
    _write(docs, "가족돌봄법", "가족의 돌봄과 간병을 위한 " * 8)
    engine = build_engine(_settings(tmp_path))
    engine.ingest([docs])
    assert engine.store.count() == 3  # 제1조, 제2조, 부칙
    engine.close()
    small = build_engine(_settings(tmp_path).model_copy(update={"chunk_size": 100, "chunk_overlap": 0}))
    again = small.ingest([docs])
    assert again.files[0].parsed and again.written_chunks == small.store.count() > 3
    small.close()


_SLOW_PARSE = """
import sys, time
from pathlib import Path
from geungeo.engine import build_engine
from geungeo.ingest.base import loader
from geungeo.settings import Settings

@loader(".slow")
def _factory():
    def load(path):
        time.sleep(120)  # a file that takes long to parse: the run is killed here
        return []
    return load

engine = build_engine(Settings(data_dir=Path(sys.argv[1]), embed_provider="fake"))
engine.ingest([Path(sys.argv[2])])
"""


def test_a_kill_during_parsing_keeps_every_document_parsed_before_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, topic in (("가족돌봄법", "가족돌봄"), ("난임치료법", "난임치료"), ("배우자출산법", "배우자출산")):
        _write(docs, name, topic)
    (docs / "휴가신청서-스캔.slow").write_bytes(b"slow")  # sorts after the three laws
    data = tmp_path / "data"
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_PARSE, str(data), str(docs)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    complete, deadline = 0, time.monotonic() + 90
    try:
        while time.monotonic() < deadline and proc.poll() is None and complete < 3:
            complete = _complete_documents(data)
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # before: every file was parsed before any was written, and the kill lost them all
    assert complete == 3
    engine = build_engine(_settings(tmp_path))
    assert sorted(d.title for d in engine.store.documents()) == ["가족돌봄법", "난임치료법", "배우자출산법"]
    report = engine.ingest([docs / f"{n}.md" for n in ("가족돌봄법", "난임치료법", "배우자출산법")])
    assert report.written_chunks == 0 and all(not f.parsed for f in report.files)
    engine.close()


_LAWS = (("가족돌봄법", "가족돌봄"), ("난임치료법", "난임치료"), ("배우자출산법", "배우자출산"), ("연구년법", "연구년"),
         ("육아휴직법", "육아휴직"), ("병가법", "병가"))  # fmt: skip


def _laws(tmp_path: Path, count: int = 3) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, topic in _LAWS[:count]:
        _write(docs, name, topic)
    return docs


def test_an_isolated_ingest_parses_and_embeds_in_its_own_process_and_writes_the_same(tmp_path: Path) -> None:
    import multiprocessing

    import numpy as np

    docs = _laws(tmp_path)
    threaded = build_engine(Settings(data_dir=tmp_path / "threaded", embed_provider="fake"))
    expected = threaded.ingest([docs])
    isolated = build_engine(Settings(data_dir=tmp_path / "isolated", embed_provider="fake"))
    seen: list[tuple[str, int, int, list[str]]] = []

    def progress(stage: str, done: int, total: int) -> None:  # read from the process's messages
        seen.append((stage, done, total, [p.name for p in multiprocessing.active_children()]))

    report = isolated.ingest([docs], progress=progress, isolated=True)
    assert (report.documents, report.chunks, report.written_chunks) == (3, 9, 9) and not report.failed
    assert report.embedded_chunks == expected.embedded_chunks == 9 and report.parse_seconds > 0
    assert {"files", "embed"} <= {s for s, *_ in seen}
    assert "geungeo-ingest" in seen[0][3]  # progress came from the live process (it may have ended by the last one)
    assert not [p for p in multiprocessing.active_children() if p.name == "geungeo-ingest"]  # and it is gone
    ids = sorted(c.id for d in threaded.store.documents() for c in threaded.store.chunks_of(d.doc_id))
    assert ids == sorted(c.id for d in isolated.store.documents() for c in isolated.store.chunks_of(d.doc_id))
    hits = [engine.search("난임치료 휴가는 며칠", k=3) for engine in (threaded, isolated)]
    assert [h.chunk.id for h in hits[0]] == [h.chunk.id for h in hits[1]]
    assert np.allclose([h.score for h in hits[0]], [h.score for h in hits[1]])
    again = isolated.ingest([docs], isolated=True)  # unchanged: nothing parsed, nothing started
    assert again.written_chunks == 0 and all(not f.parsed for f in again.files)
    threaded.close()
    isolated.close()


def test_a_dead_ingestion_process_is_a_clear_error_and_what_it_sent_stays_written(tmp_path: Path) -> None:
    import multiprocessing

    from geungeo.errors import IngestionError

    docs = _laws(tmp_path, 6)
    engine = build_engine(_settings(tmp_path))

    def kill_early(stage: str, done: int, total: int) -> None:
        # the first file parsed: with at most a queue's worth of messages sent ahead, the process cannot have sent
        # the six files' 20-odd messages yet
        if stage == "files" and done == 1:
            for child in multiprocessing.active_children():
                if child.name == "geungeo-ingest" and child.pid:
                    os.kill(child.pid, signal.SIGKILL)

    with pytest.raises(IngestionError, match="ingestion process stopped"):
        engine.ingest([docs], progress=kill_early, isolated=True)
    titles = {name for name, _ in _LAWS}
    assert {d.title for d in engine.store.documents()} < titles
    report = engine.ingest([docs], isolated=True)  # the next run does the rest
    assert not report.failed and {d.title for d in engine.store.documents()} == titles
    assert engine.store.count() == 18
    engine.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="the idle scheduling class is Linux's")
def test_the_ingestion_process_runs_only_where_a_core_would_idle(tmp_path: Path) -> None:
    import multiprocessing

    engine = build_engine(_settings(tmp_path))
    policies: list[int] = []

    def look(stage: str, done: int, total: int) -> None:
        for child in multiprocessing.active_children():
            if child.name == "geungeo-ingest" and child.pid:
                with contextlib.suppress(ProcessLookupError):  # it may have ended since
                    policies.append(os.sched_getscheduler(child.pid))

    report = engine.ingest([_laws(tmp_path, 2)], progress=look, isolated=True)
    assert not report.failed and engine.store.count() > 0
    assert policies and set(policies) == {os.SCHED_IDLE}
    engine.close()


def test_the_final_index_rebuild_does_not_hold_readers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An ingestion's last step rebuilds the derived indexes (1.4 s of the server's interpreter after the 규정집
    upload, benchmarks/reports/upload_load.md); readers search the indexes they have meanwhile, so it does not take
    the writer's guard, which every request would wait for. Each document's write still takes it."""
    engine = build_engine(_settings(tmp_path))
    guard = HeldGuard()
    flushes: list[bool] = []
    real = engine.store.flush
    monkeypatch.setattr(engine.store, "flush", lambda: (flushes.append(guard.held), real())[1])
    writes: list[bool] = []
    replace = engine.store.replace_document
    monkeypatch.setattr(
        engine.store, "replace_document", lambda *a, **k: (writes.append(k["guard"] is guard), replace(*a, **k))[1]
    )
    report = engine.ingest([_laws(tmp_path)], write_guard=guard)
    assert report.documents == 3 and writes == [True] * 3
    assert flushes == [False]
    assert engine.search("연차 유급휴가", k=3)  # the rebuilt index answers
    engine.close()


def test_the_next_group_is_embedded_while_the_last_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Embedding and store writes overlap (an embedding thread beside the writer): with slow writes, an embedding
    call starts while a document is being written, and every document still lands once, in order of parsing."""
    from geungeo.ingest import parsing as parsing_module
    from geungeo.ingest.pipeline import Ingestor
    from geungeo.testing.fakes import FakeEmbedder

    monkeypatch.setattr(parsing_module, "EMBED_GROUP_CHUNKS", 4)
    docs = _law_folder(tmp_path, 12)
    engine = build_engine(_settings(tmp_path))
    writing = [False]
    during_write = [0]
    written: list[str] = []

    class LoggingEmbedder(FakeEmbedder):
        def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
            during_write[0] += writing[0]
            time.sleep(0.02)
            return super()._embed(texts, query=query)

    replace = engine.store.replace_document

    def slow_replace(record, chunks, vectors, terms, **kwargs):  # type: ignore[no-untyped-def]
        writing[0] = True
        time.sleep(0.1)
        written.append(record.title)
        replace(record, chunks, vectors, terms, **kwargs)
        writing[0] = False

    monkeypatch.setattr(engine.store, "replace_document", slow_replace)
    ingestor = Ingestor(engine.store, LoggingEmbedder(), engine.settings)
    report = ingestor.run([docs])
    ingestor.close()
    assert not report.failed and report.documents == 12 and report.write_seconds >= 12 * 0.1
    assert written == sorted(written) and len(written) == 12
    assert during_write[0] >= 1
    engine.close()


def test_a_failing_write_stops_the_embedding_and_parsing_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store write that fails ends the ingestion with its error, and neither the embedding thread nor the parsing
    thread is left waiting for ever (a server ingests many times in one process), even while the error is kept."""
    import threading

    docs = _law_folder(tmp_path, 30)
    engine = build_engine(_settings(tmp_path))
    calls = [0]

    def failing_replace(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        if calls[0] == 3:
            raise OSError("disk full")

    monkeypatch.setattr(engine.store, "replace_document", failing_replace)
    with pytest.raises(OSError, match="disk full") as kept:  # the traceback keeps the writer's frames alive
        engine.ingest([docs])
    deadline = time.monotonic() + 5
    names = {"geungeo-embed", "geungeo-parse"}
    while time.monotonic() < deadline and any(t.name in names for t in threading.enumerate()):
        time.sleep(0.05)
    assert not [t.name for t in threading.enumerate() if t.name in names], kept.value
    engine.close()


def test_ahead_raises_the_makers_error_and_stops_with_its_consumer() -> None:
    """The embedding thread's error reaches the writer; a writer that stops early stops the thread."""
    from geungeo.ingest.parsing import ahead

    def failing() -> Iterator[int]:
        yield 1
        raise ValueError("embedder broke")

    got: list[int] = []
    with pytest.raises(ValueError, match="embedder broke"):
        got.extend(ahead(failing(), 2, name="t"))
    assert got == [1]

    made: list[int] = []

    def endless() -> Iterator[int]:
        n = 0
        while True:
            made.append(n)
            yield n
            n += 1

    consumer = ahead(endless(), 2, name="t")
    assert [next(consumer) for _ in range(3)] == [0, 1, 2]
    consumer.close()  # the writer failed: the thread stops at its next item
    time.sleep(0.5)
    stopped_at = len(made)
    time.sleep(0.5)
    assert len(made) == stopped_at <= 3 + 2 + 2


def test_parsing_runs_ahead_of_a_slow_embedder_by_a_bounded_queue_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory stays flat whatever the corpus: the parser stops when ``QUEUE_DOCUMENTS`` parsed documents wait for
    vectors, however slow the embedder (a list between the stages would hold every parsed document); the writer
    holds at most one group of ``EMBED_GROUP_CHUNKS`` chunks besides, and embeds small documents together."""
    from geungeo.ingest import parsing as parsing_module
    from geungeo.ingest.parsing import QUEUE_DOCUMENTS
    from geungeo.ingest.pipeline import Ingestor
    from geungeo.testing.fakes import FakeEmbedder

    group_chunks = 5
    monkeypatch.setattr(parsing_module, "EMBED_GROUP_CHUNKS", group_chunks)
    docs = _law_folder(tmp_path, 40)
    engine = build_engine(_settings(tmp_path))
    parsed = [0]
    embedded = [0]
    log: list[tuple[int, int]] = []  # (documents parsed, chunks embedded) when each embedding call starts

    class SlowEmbedder(FakeEmbedder):
        def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
            time.sleep(0.05)  # the parser has all the time it wants to run ahead
            log.append((parsed[0], embedded[0]))
            embedded[0] += len(texts)
            return super()._embed(texts, query=query)

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "files":
            parsed[0] = done

    embedder = SlowEmbedder()
    ingestor = Ingestor(engine.store, embedder, engine.settings)
    report = ingestor.run([docs], progress=progress)
    ingestor.close()
    assert not report.failed and report.documents == 40
    per_document = engine.store.count() // 40
    assert per_document * 40 == engine.store.count() and per_document < group_chunks
    ahead = [done - chunks // per_document for done, chunks in log]  # documents parsed but not yet embedded
    group_documents = -(-group_chunks // per_document)
    # the queue, the group being embedded, the one being parsed
    assert max(ahead) <= QUEUE_DOCUMENTS + group_documents + 1, ahead
    assert max(ahead) >= QUEUE_DOCUMENTS // 2  # it did run ahead (a file queues its work and its document)
    assert embedder.calls < 40  # small documents were embedded together
    engine.close()
