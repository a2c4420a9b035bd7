"""The PostgreSQL store against the store contract, plus what only a server store has to get right."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import psycopg
import pytest

from geungeo.errors import StoreError
from geungeo.filters import And, Eq, Filter, In, Or, Range, matches
from geungeo.settings import Settings
from geungeo.stores import pg_schema
from geungeo.stores.base import ChunkStore, IndexSignature
from geungeo.stores.factory import drop_store, open_store
from geungeo.stores.pg_filters import to_sql
from geungeo.stores.postgres import PostgresStore
from geungeo.testing.store_contract import DIM, SIGNATURE, MakeStore, StoreContract, article_doc, make_doc
from geungeo.text import references

Opener = Callable[..., PostgresStore]


@pytest.fixture
def open_pg(pg_url: str) -> Iterator[Opener]:
    """Opens PostgresStores on this test's database and closes them after the test."""
    opened: list[PostgresStore] = []

    def open_(signature: IndexSignature = SIGNATURE, **settings: object) -> PostgresStore:
        store = PostgresStore(Settings(store_url=pg_url, **settings), signature)
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def make_store(self, open_pg: Opener) -> MakeStore:
        def make(signature: IndexSignature) -> ChunkStore:
            return open_pg(signature)

        return make


# --- filters -----------------------------------------------------------------------
def _sql(where: Filter | None) -> tuple[str, dict[str, object]]:
    composed, params = to_sql(where)
    return composed.as_string(None), params


def test_filter_translation_uses_typed_columns_when_the_value_fits() -> None:
    assert _sql(None) == ("TRUE", {})
    assert _sql(Eq("doc", "민법")) == ('"doc" = ANY(%(w0)s)', {"w0": ["민법"]})
    text, params = _sql(Eq("doc", 3))  # a number never equals a text column
    assert text == "meta @> ANY(%(w0)s::jsonb[])" and params["w0"][0].obj == {"doc": 3}
    assert _sql(Range("page", 2, None)) == ('("page" IS NOT NULL AND "page" >= %(w0)s)', {"w0": 2})
    text, _ = _sql(And((Eq("kind", "law"), Or((Range("part", 1, 2), In("page", ()))))))
    assert text.startswith("(meta @> ANY(") and "jsonb_path_exists(meta -> %(w1)s" in text and text.endswith("FALSE))")


def test_filters_with_mixed_types_agree_with_the_oracle(open_pg: Opener) -> None:
    store = open_pg()
    record, chunks, vectors, terms = make_doc("d1", 6)
    odd = {"page": "iv", "doc": 7, "part": 2.5, "attachment": "별표 1", "addendum": True}
    chunks[5] = dataclasses.replace(chunks[5], meta={**chunks[5].meta, **odd})
    store.replace_document(record, chunks, vectors, terms)
    for where in (Eq("page", "iv"), Eq("doc", 7), Range("part", 2, 3), Range("page", 1, None), Eq("addendum", True),
                  In("page", (1, "iv")), Eq("attachment", "별표 1"), Range("doc", None, 10), Or(())):
        expected = {c.id for c in chunks if matches(c.meta, where)}
        assert {cid for cid, _ in store.dense_search(vectors[0], 50, where)} == expected, where
        assert {cid for cid, _ in store.sparse_search(["조문"], 50, where)} == expected, where


def test_filtered_dense_search_finds_every_match_in_a_large_index(open_pg: Opener) -> None:
    store = open_pg()
    for n in range(6):
        store.replace_document(*make_doc(f"big{n}", 500, title=f"법{n}", seed=n + 10))
    probe = make_doc("q", 1, seed=99)[2][0]
    where = And((Eq("doc", "법3"), Range("page", 100, 111)))
    hits = store.dense_search(probe, 50, where)
    _, chunks, vectors, _ = make_doc("big3", 500, title="법3", seed=13)
    expected = sorted(range(99, 111), key=lambda i: -float(vectors[i] @ probe))
    assert [cid for cid, _ in hits] == [chunks[i].id for i in expected]


# --- sparse ------------------------------------------------------------------------
def test_sparse_scores_equal_bm25s(open_pg: Opener) -> None:
    import bm25s

    rng = np.random.default_rng(5)
    vocab = [f"어휘{i}" for i in range(40)]
    record, chunks, vectors, _ = make_doc("d1", 60)
    terms = [[str(t) for t in rng.choice(vocab, size=int(rng.integers(3, 30)), p=np.linspace(2, 0.1, 40) / 42)]
             for _ in chunks]
    store = open_pg(bm25_k1=1.5, bm25_b=0.6)
    store.replace_document(record, chunks, vectors, terms)
    reference = bm25s.BM25(k1=1.5, b=0.6)
    reference.index(terms, show_progress=False)
    for query in (["어휘0"], ["어휘3", "어휘17", "어휘3"], ["어휘39", "없음"], vocab[:10]):
        docs, scores = reference.retrieve([query], k=60, show_progress=False, n_threads=1)
        expected = {chunks[int(d)].id: float(s) for d, s in zip(docs[0], scores[0], strict=True) if s > 0}
        got = dict(store.sparse_search(query, 60))
        assert got.keys() == expected.keys()
        assert all(got[cid] == pytest.approx(expected[cid], rel=1e-4) for cid in got)


def test_terms_are_stored_verbatim(open_pg: Opener, pg_url: str) -> None:
    weird = ["it's", "back\\slash", "a:1", "a b", "!&|", "ABC", "제43조의2", "'", "x" * 3000, ""]
    store = open_pg()
    record, chunks, vectors, _ = make_doc("d1", 1)
    store.replace_document(record, chunks, vectors, [weird])
    for term in weird[:-2]:
        assert [cid for cid, _ in store.sparse_search([term], 5)] == ["d1-00000"], term
    assert store.sparse_search(["abc"], 5) == [] and store.sparse_search(["a"], 5) == []
    with psycopg.connect(pg_url) as conn:
        stored = conn.execute("SELECT tsvector_to_array(lexemes) FROM geungeo.chunks").fetchone()
    assert stored is not None and sorted(stored[0]) == sorted(weird[:-2])


def test_replace_and_delete_leave_no_stale_postings(open_pg: Opener, pg_url: str) -> None:
    store = open_pg()
    for doc_id, n in (("d1", 6), ("d2", 5)):
        store.replace_document(*make_doc(doc_id, n))
    store.replace_document(*make_doc("d1", 2, words=("퇴직금",)))
    assert store.delete_document("d2") == 5 and store.delete_document("d2") == 0
    store.flush()
    with psycopg.connect(pg_url) as conn:
        postings = conn.execute("SELECT chunk_id, term, tf, n_terms FROM geungeo.postings").fetchall()
    assert sorted(postings) == sorted((f"d1-0000{i}", t, 1, 3) for i in range(2) for t in ("퇴직금", "조문", f"제{i + 1}조"))


def test_links_are_derived_again_when_the_rules_change(open_pg: Opener, pg_url: str) -> None:
    open_pg().replace_document(*article_doc("d", "시험법", [("제1조", "목적"), ("제2조", "제1조에 따른다.")]))
    with psycopg.connect(pg_url, autocommit=True) as conn:  # links made by older rules (or a store from before them)
        conn.execute("DELETE FROM geungeo.links")
        conn.execute("UPDATE geungeo.links_version SET version = 0")
    assert [lk.targets for lk in open_pg().links_from(["d-00001"])] == [("d-00000",)]
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT version FROM geungeo.links_version").fetchone()
    assert row == (references.VERSION,)


# --- schema, signature, errors ---------------------------------------------------------
def test_migrations_apply_once_even_when_opened_concurrently(open_pg: Opener, pg_url: str) -> None:
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            open_pg()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    open_pg().replace_document(*make_doc("d1", 2))
    assert open_pg().count() == 2
    with psycopg.connect(pg_url) as conn:
        applied = conn.execute("SELECT version, name FROM geungeo.schema_migrations ORDER BY version").fetchall()
    assert applied == [(v, name) for v, name, _ in pg_schema.migrations()]


def test_other_embedder_or_tokenizer_is_refused(open_pg: Opener) -> None:
    open_pg().close()
    with pytest.raises(StoreError, match=r"holds contract-embedder vectors \(dim 8\).*dim 16"):
        open_pg(IndexSignature(SIGNATURE.embedder, 16, SIGNATURE.tokenizer))
    with pytest.raises(StoreError, match="contract-tokenizer"):
        open_pg(IndexSignature(SIGNATURE.embedder, DIM, "other-tokenizer"))


def test_drop_store_removes_the_collection(open_pg: Opener, pg_url: str) -> None:
    first = open_pg()
    first.replace_document(*make_doc("d1", 3))
    first.close()
    drop_store(Settings(store_url=pg_url))
    again = open_pg(IndexSignature("other-embedder", 16, "other-tokenizer"))
    assert again.count() == 0 and again.documents() == []


def test_collections_are_separate_schemas(open_pg: Opener) -> None:
    first = open_pg()
    second = open_pg(IndexSignature("bigger", 32, "t"), collection="other")
    first.replace_document(*make_doc("d1", 3))
    assert first.count() == 3 and second.count() == 0 and second.documents() == []
    assert second.size_on_disk() > 0 and first.pending() == []


def test_open_store_dispatches_postgres_urls(pg_url: str) -> None:
    store = open_store(Settings(store_url=pg_url), SIGNATURE)
    try:
        assert isinstance(store, PostgresStore)
    finally:
        store.close()


def test_unreachable_server_error_masks_the_password() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://geungeo:s3cr3t-pw@127.0.0.1:{port}/rag?password=s3cr3t-pw&connect_timeout=2"
    with pytest.raises(StoreError, match="cannot connect to PostgreSQL") as info:
        PostgresStore(Settings(store_url=url), SIGNATURE)
    assert "s3cr3t" not in str(info.value) and "geungeo:***@127.0.0.1" in str(info.value)
    assert info.value.__cause__ is None


def test_missing_vector_extension_is_explained(open_pg: Opener, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg_schema, "EXTENSION", "vector_not_installed")
    with pytest.raises(StoreError, match="does not have the pgvector extension"):
        open_pg()


# --- several processes -------------------------------------------------------------------
def _write_documents(url: str, doc_ids: list[str], barrier: Any) -> None:
    store = PostgresStore(Settings(store_url=url), SIGNATURE)
    barrier.wait()
    for n, doc_id in enumerate(doc_ids):
        store.replace_document(*make_doc(doc_id, 300, seed=n))
    store.close()


def test_two_processes_ingest_different_documents(open_pg: Opener, pg_url: str) -> None:
    store = open_pg()
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    jobs = [ctx.Process(target=_write_documents, args=(pg_url, [f"p{p}-{n}" for n in range(4)], barrier))
            for p in range(2)]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join(60)
    assert [job.exitcode for job in jobs] == [0, 0]
    assert sorted(d.doc_id for d in store.documents()) == [f"p{p}-{n}" for p in range(2) for n in range(4)]
    assert store.count() == 8 * 300 and all(d.chunk_count == 300 for d in store.documents())
    assert len(store.sparse_search(["휴가"], 10_000)) == 8 * 75


def _replace_and_hang(url: str, copied: Any) -> None:
    """Replace d1 with 5000 chunks, but hang for good after streaming 1000 of them."""
    from geungeo.stores import postgres

    original = postgres._copy_row
    rows = 0

    def slow(*args: Any) -> tuple[object, ...]:
        nonlocal rows
        rows += 1
        if rows == 1000:
            copied.set()
            time.sleep(600)
        return original(*args)

    postgres._copy_row = slow
    store = PostgresStore(Settings(store_url=url), SIGNATURE)
    store.replace_document(*make_doc("d1", 5000, seed=7, words=("새조문",)))


def _kill_while_copying(job: Any, copied: Any, url: str) -> None:
    """SIGKILL the writer mid-COPY and wait until the server has rolled its transaction back."""
    assert copied.wait(60), "the writer never got going"
    writers = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL"
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute(writers).fetchall(), "the replace transaction is not open"
        os.kill(job.pid, signal.SIGKILL)
        job.join(10)
        deadline = time.monotonic() + 20
        while conn.execute(writers).fetchall() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not conn.execute(writers).fetchall(), "the killed writer's transaction is still open"
        assert conn.execute("SELECT count(*) FROM geungeo.chunks").fetchone() == (3,)


def test_kill_9_during_replace_leaves_the_old_version(open_pg: Opener, pg_url: str) -> None:
    store = open_pg()
    store.replace_document(*make_doc("d1", 3))
    ctx = multiprocessing.get_context("spawn")
    copied = ctx.Event()
    job = ctx.Process(target=_replace_and_hang, args=(pg_url, copied))
    job.start()
    try:
        _kill_while_copying(job, copied, pg_url)
    finally:
        job.kill()
    assert [c.id for c in store.chunks_of("d1")] == ["d1-00000", "d1-00001", "d1-00002"]
    doc = store.get_document("d1")
    assert doc is not None and doc.chunk_count == 3 and store.pending() == []
    assert store.sparse_search(["새조문"], 5) == []
    store.replace_document(*make_doc("d1", 4, seed=8))  # nothing left locked
    assert store.count() == 4
