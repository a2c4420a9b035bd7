"""The embedded store (Chroma + SQLite catalog + bm25s) against the store contract."""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from geungeo.filters import And, Eq, In, Range
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore, IndexSignature
from geungeo.stores.chroma import ChromaStore, to_chroma_where
from geungeo.testing.store_contract import SIGNATURE, HeldGuard, MakeStore, StoreContract, article_doc, make_doc
from geungeo.text import references
from geungeo.types import Chunk, DocumentRecord


class TestChromaStore(StoreContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> MakeStore:
        def make(signature: IndexSignature) -> ChunkStore:
            return ChromaStore(Settings(data_dir=tmp_path / "data"), signature)

        return make


def test_filter_translation() -> None:
    assert to_chroma_where(Eq("doc", "민법")) == {"doc": {"$eq": "민법"}}
    assert to_chroma_where(Range("page", 2, None)) == {"page": {"$gte": 2}}
    assert to_chroma_where(And((Eq("a", 1), Range("page", 1, 3)))) == {
        "$and": [{"a": {"$eq": 1}}, {"$and": [{"page": {"$gte": 1}}, {"page": {"$lte": 3}}]}]
    }


def test_pending_document_is_invisible_until_completed(tmp_path: Path) -> None:
    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    record, chunks, vectors, terms = make_doc("d1", 3)
    store.replace_document(record, chunks, vectors, terms)
    # simulate a crash after the pending mark and the vectors but before the catalog commit
    record2, chunks2, vectors2, terms2 = make_doc("d2", 3, seed=5)
    store.catalog.mark_pending(record2)
    store.collection.add(ids=[c.id for c in chunks2], embeddings=vectors2,
                         metadatas=[{"doc_id": "d2"} for _ in chunks2])
    store.flush()
    assert store.pending() == ["d2"]
    assert {d.doc_id for d in store.documents()} == {"d1"}
    assert not any(cid.startswith("d2") for cid, _ in store.dense_search(vectors2[0], 10))
    assert store.get([chunks2[0].id]) == []
    store.replace_document(record2, chunks2, vectors2, terms2)
    assert store.pending() == [] and store.count() == 6


def test_a_writes_guard_is_held_for_the_catalog_steps_not_for_chromas_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's writer lock (``guard``) covers hiding the document and showing it again; Chroma's delete and add run
    between, while the document is pending, so a search then waits for neither (it skips the pending vectors)."""
    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    store.replace_document(*make_doc("d1", 3))
    guard = HeldGuard()
    steps: list[tuple[str, bool]] = []

    for name in ("delete", "add"):
        real = getattr(store.collection, name)

        def record(*args: Any, _name: str = name, _real: Any = real, **kwargs: Any) -> Any:
            steps.append((_name, guard.held))
            assert store.pending() == ["d1"]  # readers see the old version gone, not half of the new one
            assert not any(cid.startswith("d1") for cid, _ in store.dense_search(np.ones(SIGNATURE.dim), 10))
            return _real(*args, **kwargs)

        monkeypatch.setattr(store.collection, name, record)
    for name in ("mark_pending", "complete"):
        real = getattr(store.catalog, name)
        monkeypatch.setattr(store.catalog, name, lambda *a, _n=name, _r=real: (steps.append((_n, guard.held)), _r(*a))[1])
    store.replace_document(*make_doc("d1", 4, seed=3), guard=guard)
    assert steps == [("mark_pending", True), ("delete", False), ("add", False), ("complete", True)]
    assert store.pending() == [] and store.count() == 4


def test_a_search_during_chromas_add_leaves_no_stale_count_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search between hiding a document and showing it counts the collection while the add runs; the count it
    caches must not outlive the write (a first upload searched meanwhile left dense search empty until the next
    write). Chroma's HNSW index answers above the exact index's size limit (0 here)."""
    store = ChromaStore(Settings(data_dir=tmp_path, dense_exact_max_mb=0), SIGNATURE)
    real = store.collection.add

    def add(*args: Any, **kwargs: Any) -> Any:
        assert store.dense_search(np.ones(SIGNATURE.dim), 10) == []  # the store is empty so far: the count is 0
        return real(*args, **kwargs)

    monkeypatch.setattr(store.collection, "add", add)
    store.replace_document(*make_doc("d1", 4))
    assert len(store.dense_search(np.ones(SIGNATURE.dim), 10)) == 4


def test_a_search_inside_named_documents_is_exact_and_skips_pending_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``In("doc_id", …)`` is answered from those documents' own vectors (Chroma's filtered search took ~100 ms at
    124k chunks): the same order and scores as Chroma's, and a pending document stays invisible. (Above the exact
    index's size limit, 0 here: below it that index answers every dense search.)"""
    from geungeo.stores import chroma

    store = ChromaStore(Settings(data_dir=tmp_path, dense_exact_max_mb=0), SIGNATURE)
    for doc_id, seed in (("d1", 1), ("d2", 2)):
        store.replace_document(*make_doc(doc_id, 4, seed=seed))
    record3, chunks3, vectors3, _ = make_doc("d3", 3, seed=3)
    store.catalog.mark_pending(record3)
    store.collection.add(ids=[c.id for c in chunks3], embeddings=vectors3, metadatas=[{"doc_id": "d3"} for _ in chunks3])
    probe = vectors3[0] + make_doc("d1", 4, seed=1)[2][2]
    named = In("doc_id", ("d1", "d3"))
    exact = store.dense_search(probe, 10, named)
    assert [cid for cid, _ in exact] and all(cid.startswith("d1") for cid, _ in exact)
    monkeypatch.setattr(chroma, "EXACT_SCOPE_CHUNKS", 0)  # Chroma's own filtered search
    own = store.dense_search(probe, 10, named)
    assert [cid for cid, _ in exact] == [cid for cid, _ in own]
    assert np.allclose([s for _, s in exact], [s for _, s in own], atol=1e-5)


def test_a_reader_sees_the_last_committed_state_during_a_writers_transaction(tmp_path: Path) -> None:
    """A reader (a search, the background BM25 rebuild) never sees half of a writer's transaction (before, every
    thread read through the writer's connection and saw its uncommitted deletes)."""
    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    record, chunks, vectors, terms = make_doc("d1", 3)
    store.replace_document(record, chunks, vectors, terms)
    seen: dict[str, object] = {}

    def read() -> None:
        started = time.perf_counter()
        seen["count"], seen["got"] = store.count(), len(store.get([c.id for c in chunks]))
        seen["seconds"] = time.perf_counter() - started

    with store.catalog.db:  # a write in progress: the document's chunk rows deleted, not yet committed
        store.catalog.db.execute("BEGIN IMMEDIATE")
        store.catalog.db.execute("DELETE FROM chunks WHERE doc_id = 'd1'")
        reader = threading.Thread(target=read)
        reader.start()
        reader.join(timeout=30)
        store.catalog.db.execute("ROLLBACK")
    assert seen["count"] == 3 and seen["got"] == 3
    assert isinstance(seen["seconds"], float) and seen["seconds"] < 5.0
    # the reader's thread has ended: its connection goes with it (a server's threads come and go). CPython may let
    # join() return just before the ended thread's locals are released, so the release is awaited, briefly.
    deadline = time.monotonic() + 5.0
    while len(store.catalog._readers) > 1 and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    assert len(store.catalog._readers) == 1  # this thread's
    store.close()


def test_links_are_derived_again_when_the_rules_change(tmp_path: Path) -> None:
    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    store.replace_document(*article_doc("d", "시험법", [("제1조", "목적"), ("제2조", "제1조에 따른다.")]))
    store.catalog.db.execute("DELETE FROM links")
    store.catalog.set_meta("links_version", "0")  # links made by older rules (or none: a store from before links)
    store.close()
    again = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    assert [lk.targets for lk in again.links_from(["d-00001"])] == [("d-00000",)]
    assert again.catalog.get_meta("links_version") == str(references.VERSION)


def test_a_reader_searches_the_last_index_while_a_writer_writes_and_never_waits_for_a_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from geungeo.stores.bm25_index import Bm25Index

    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    store.replace_document(*make_doc("d1", 3, words=("휴가",)))
    store.flush()
    build = Bm25Index.build

    def slow_build(self: Bm25Index, *args: object, **kwargs: object) -> None:
        time.sleep(1.5)  # a rebuild over a large catalog
        build(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Bm25Index, "build", slow_build)
    store.replace_document(*make_doc("d2", 3, seed=2, words=("징계",)))  # an ingestion writes; no flush yet
    started = time.monotonic()
    assert store.sparse_search(["징계"], 5) == []  # the last index, at once (before: it rebuilt first)
    assert [cid[:2] for cid, _ in store.sparse_search(["휴가"], 5)] == ["d1"] * 3
    assert time.monotonic() - started < 1.0
    deadline = time.monotonic() + 10
    while not store.sparse_search(["징계"], 5) and time.monotonic() < deadline:  # rebuilt in the background
        time.sleep(0.1)
    assert {cid[:2] for cid, _ in store.sparse_search(["징계"], 5)} == {"d2"}
    store.replace_document(*make_doc("d3", 2, seed=3, words=("임금",)))
    store.flush()  # the writer's flush makes its writes searchable at once
    assert {cid[:2] for cid, _ in store.sparse_search(["임금"], 5)} == {"d3"}
    store.close()


def test_while_an_ingestion_of_this_process_writes_readers_leave_the_rebuild_to_its_flush(tmp_path: Path) -> None:
    import threading
    import time

    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    store.replace_document(*make_doc("d1", 2, words=("휴가",)))
    store.flush()
    with store.ingesting():
        store.replace_document(*make_doc("d2", 2, seed=2, words=("징계",)))
        assert store.sparse_search(["징계"], 5) == [] and store.sparse_search(["휴가"], 5)
        assert not [t for t in threading.enumerate() if t.name == "geungeo-bm25"]  # no rebuild started
        time.sleep(0.5)  # (a background rebuild would have indexed d2 by now)
        assert store.sparse_search(["징계"], 5) == []
    store.flush()
    assert {cid[:2] for cid, _ in store.sparse_search(["징계"], 5)} == {"d2"}
    store.close()


def _random_doc(doc_id: str, n: int, dim: int, seed: int) -> tuple[DocumentRecord, list[Chunk], np.ndarray, list[list[str]]]:
    """A document of ``n`` chunks with random ``dim``-dimensional vectors."""
    record, chunks, _, terms = make_doc(doc_id, n, seed=seed)
    vectors = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return record, chunks, vectors, terms


def test_dense_search_is_exact_and_the_same_after_reopening(tmp_path: Path) -> None:
    """Below the size limit every chunk is scored: the top k are the true nearest vectors, whoever opens the store
    (Chroma's HNSW graph missed some of the true top 200 and gave another process a different set)."""
    signature = IndexSignature("contract-embedder", 64, "contract-tokenizer")
    store = ChromaStore(Settings(data_dir=tmp_path), signature)
    vectors = []
    for n in range(4):
        record, chunks, v, terms = _random_doc(f"d{n}", 1000, 64, seed=n)
        store.replace_document(record, chunks, v, terms)
        vectors.append(v)
    store.flush()
    matrix = np.concatenate(vectors)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    ids = [f"d{n}-{i:05d}" for n in range(4) for i in range(1000)]
    for probe in np.random.default_rng(9).normal(size=(5, 64)).astype(np.float32):
        truth = [ids[i] for i in np.argsort(-(matrix @ (probe / np.linalg.norm(probe))), kind="stable")[:200]]
        got = store.dense_search(probe, 200)
        assert [cid for cid, _ in got] == truth
        reopened = ChromaStore(Settings(data_dir=tmp_path), signature)
        assert reopened.dense_search(probe, 200) == got
        reopened.close()
    allowed = [i for i, cid in enumerate(ids) if cid[:2] in ("d0", "d2") and 1 <= int(cid[3:]) <= 3]  # pages 2–4
    truth = [ids[allowed[i]] for i in np.argsort(-(matrix[allowed] @ matrix[5]), kind="stable")[:4]]
    within = store.dense_search(matrix[5], 4, And((In("doc_id", ("d0", "d2")), Range("page", 2, 4))))
    assert [cid for cid, _ in within] == truth
    store.close()


def test_a_rebuild_reads_only_the_vectors_of_documents_written_since(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    for doc_id, seed in (("d1", 1), ("d2", 2), ("d3", 3)):
        store.replace_document(*make_doc(doc_id, 4, seed=seed))
    store.flush()
    read: list[str] = []
    real = store._read_vectors
    monkeypatch.setattr(store, "_read_vectors", lambda ids: (read.extend(ids), real(ids))[1])
    record, chunks, vectors, terms = make_doc("d2", 5, seed=7)  # d2 rewritten with other vectors
    store.replace_document(record, chunks, vectors, terms)
    store.delete_document("d3")
    store.flush()
    assert sorted(read) == [c.id for c in chunks]
    assert store.dense_search(vectors[1], 1)[0][0] == chunks[1].id
    assert not any(cid.startswith("d3") for cid, _ in store.dense_search(vectors[1], 20))
    read.clear()
    reopened = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)  # loads the saved matrix, reads nothing
    monkeypatch.setattr(reopened, "_read_vectors", lambda ids: (read.extend(ids), real(ids))[1])
    assert reopened.dense_search(vectors[1], 1)[0][0] == chunks[1].id and read == []
    reopened.close()
    store.close()


def test_an_unreadable_saved_matrix_is_rebuilt(tmp_path: Path) -> None:
    store = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    record, chunks, vectors, terms = make_doc("d1", 4, seed=1)
    store.replace_document(record, chunks, vectors, terms)
    store.flush()
    store.close()
    for saved in (tmp_path / "store" / "dense").glob("vectors-*.npy"):
        saved.write_bytes(b"not a matrix")
    reopened = ChromaStore(Settings(data_dir=tmp_path), SIGNATURE)
    assert reopened.dense_search(vectors[2], 1)[0][0] == chunks[2].id
    reopened.close()
