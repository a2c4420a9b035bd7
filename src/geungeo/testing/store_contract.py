"""Contract tests every :class:`~geungeo.stores.base.ChunkStore` backend must pass.

A backend's test module subclasses :class:`StoreContract` and provides a ``make_store``
fixture: a callable ``(signature) -> ChunkStore`` that opens the same underlying store each
time it is called within one test (so reopening can be tested).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from geungeo.embeddings.e5_onnx import VECTOR_NAMES
from geungeo.errors import StoreError
from geungeo.filters import And, Eq, Filter, In, Or, Range, matches
from geungeo.stores.base import ChunkStore, IndexSignature
from geungeo.text import references
from geungeo.types import Chunk, DocumentRecord, chunk_id

DIM = 8
SIGNATURE = IndexSignature("contract-embedder", DIM, "contract-tokenizer")
MakeStore = Callable[[IndexSignature], ChunkStore]


def _vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def make_doc(doc_id: str, n: int, *, title: str = "시험법", code: str | None = None, seed: int = 0,
             words: tuple[str, ...] = ("휴가", "임금", "휴직", "징계")) -> tuple[DocumentRecord, list[Chunk],
                                                                                np.ndarray, list[list[str]]]:
    """A document of ``n`` chunks with deterministic vectors and terms."""
    ids = [chunk_id(doc_id, i) for i in range(n)]
    chunks = [
        Chunk(
            id=ids[i], doc_id=doc_id, ordinal=i, header=f"{title} 제{i + 1}조", text=f"{words[i % len(words)]} 조문 {i}",
            meta={"doc_id": doc_id, "doc": title, "code": code, "kind": "law", "source": f"{title}.md",
                  "article": f"제{i + 1}조", "page": i + 1, "category": "article", "addendum": False},
            prev_id=ids[i - 1] if i else None, next_id=ids[i + 1] if i + 1 < n else None,
        )
        for i in range(n)
    ]
    vectors = np.stack([_vec(seed * 1000 + i) for i in range(n)])
    terms = [[words[i % len(words)], "조문", f"제{i + 1}조"] for i in range(n)]
    record = DocumentRecord(doc_id, f"{title}.md", title, "law", code, f"hash-{doc_id}-{n}-{seed}", n, origin=title)
    return record, chunks, vectors, terms


def article_doc(doc_id: str, title: str, articles: list[tuple[str, str]], *, kind: str = "law") -> tuple[
        DocumentRecord, list[Chunk], np.ndarray, list[list[str]]]:
    """A document of one chunk per (article, text) pair, in order (an article may repeat: a split article)."""
    ids = [chunk_id(doc_id, i) for i in range(len(articles))]
    chunks = [
        Chunk(id=ids[i], doc_id=doc_id, ordinal=i, header=f"{title} {article}", text=text,
              meta={"doc_id": doc_id, "doc": title, "kind": kind, "source": f"{title}.md", "article": article,
                    "category": "article", "addendum": False},
              prev_id=ids[i - 1] if i else None, next_id=ids[i + 1] if i + 1 < len(ids) else None)
        for i, (article, text) in enumerate(articles)
    ]
    vectors = np.stack([_vec(100 + i) for i in range(len(chunks))])
    record = DocumentRecord(doc_id, f"{title}.md", title, kind, None, f"hash-{doc_id}-{len(chunks)}", len(chunks),
                            origin=title)
    return record, chunks, vectors, [["조문"] for _ in chunks]


def version_reads(store: ChunkStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The versions ``store`` reads from now on (:meth:`~geungeo.stores.base.ChunkStore.documents_version`), one
    entry a read."""
    reads: list[str] = []
    version = store.documents_version

    def counted() -> str:
        reads.append(version())
        return reads[-1]

    monkeypatch.setattr(store, "documents_version", counted)
    return reads


class HeldGuard:
    """A write guard (a server's writer lock) that tells whether it is held: what a test checks a step ran under."""

    def __init__(self) -> None:
        self._depth = 0

    @property
    def held(self) -> bool:
        return self._depth > 0

    @contextmanager
    def __call__(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1


class StoreContract:
    """Behaviour shared by all stores."""

    @pytest.fixture
    def store(self, make_store: MakeStore) -> ChunkStore:
        return make_store(SIGNATURE)

    def _fill(self, store: ChunkStore) -> dict[str, Chunk]:
        everything: dict[str, Chunk] = {}
        for doc_id, title, code, n, seed in (("d1", "근로기준법", None, 6, 1), ("d2", "교원인사규정", "3-1-5", 5, 2),
                                             ("d3", "민법", None, 4, 3)):
            record, chunks, vectors, terms = make_doc(doc_id, n, title=title, code=code, seed=seed)
            store.replace_document(record, chunks, vectors, terms)
            everything.update((c.id, c) for c in chunks)
        store.flush()
        return everything

    def test_empty_store(self, store: ChunkStore) -> None:
        assert store.count() == 0 and store.documents() == []
        assert store.dense_search(_vec(1), 5) == []
        assert store.sparse_search(["휴가"], 5) == []

    def test_write_and_read_back(self, store: ChunkStore) -> None:
        chunks = self._fill(store)
        assert store.count() == 15
        assert sorted(d.doc_id for d in store.documents()) == ["d1", "d2", "d3"]
        rec = store.get_document("d2")
        assert rec is not None and rec.code == "3-1-5" and rec.chunk_count == 5
        got = store.get(["d2-00001", "nope", "d1-00000"])
        assert [c.id for c in got] == ["d2-00001", "d1-00000"]
        assert got[0] == chunks["d2-00001"]
        assert [c.ordinal for c in store.chunks_of("d1")] == list(range(6))

    def test_neighbours(self, store: ChunkStore) -> None:
        self._fill(store)
        assert [c.id for c in store.neighbours("d1-00002", 1)] == ["d1-00001", "d1-00002", "d1-00003"]
        assert [c.id for c in store.neighbours("d1-00000", 2)] == ["d1-00000", "d1-00001", "d1-00002"]
        assert store.neighbours("missing") == []

    def test_replace_is_whole_document(self, store: ChunkStore) -> None:
        self._fill(store)
        record, chunks, vectors, terms = make_doc("d1", 2, title="근로기준법", seed=9, words=("퇴직금",))
        store.replace_document(record, chunks, vectors, terms)
        store.flush()
        assert [c.id for c in store.chunks_of("d1")] == ["d1-00000", "d1-00001"]
        assert store.get(["d1-00005"]) == []
        assert store.count() == 11
        assert all(cid.startswith("d1-0000") and cid < "d1-00002" for cid, _ in store.sparse_search(["퇴직금"], 10))
        dense_ids = {cid for cid, _ in store.dense_search(_vec(1 * 1000 + 5), 20)}
        assert "d1-00005" not in dense_ids

    def test_a_write_takes_its_guard(self, store: ChunkStore) -> None:
        """``guard`` (a server's writer lock) is taken by the write, at least around the step that shows the
        document, and released: the document is visible once the write returns."""
        entered: list[str] = []

        @contextmanager
        def guard() -> Iterator[None]:
            entered.append("in")
            yield
            entered.append("out")

        store.replace_document(*make_doc("g1", 2), guard=guard)
        assert entered and entered[::2] == ["in"] * (len(entered) // 2) and entered[-1] == "out"
        assert [d.doc_id for d in store.documents()] == ["g1"] and store.count() == 2

    def test_a_write_finds_its_citations_before_it_takes_its_guard(
        self, store: ChunkStore, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Finding a document's citations takes longer than writing them: readers waiting on ``guard`` must not
        wait for it. The citations are still written with the document."""
        guard = HeldGuard()
        finding: list[bool] = []
        real = references.document_references

        def find(*args: Any) -> list[references.Reference]:
            finding.append(guard.held)
            return real(*args)

        monkeypatch.setattr(references, "document_references", find)
        doc = article_doc("law", "시험법", [("제1조", "이 법은 시험을 정한다."), ("제2조", "제1조의 시험은 검사를 말한다.")])
        store.replace_document(*doc, guard=guard)
        store.flush()
        assert finding == [False]
        assert [(lk.article, lk.targets) for lk in store.links_from(["law-00001"])] == [("제1조", ("law-00000",))]

    def test_delete(self, store: ChunkStore) -> None:
        self._fill(store)
        assert store.delete_document("d3") == 4
        store.flush()
        assert store.get_document("d3") is None and store.count() == 11
        assert not any(cid.startswith("d3") for cid, _ in store.dense_search(_vec(3000), 20))
        assert not any(cid.startswith("d3") for cid, _ in store.sparse_search(["휴가", "조문"], 20))

    def test_dense_nearest_first(self, store: ChunkStore) -> None:
        self._fill(store)
        hits = store.dense_search(_vec(2 * 1000 + 3), 3)
        assert hits[0][0] == "d2-00003" and hits[0][1] == pytest.approx(1.0, abs=1e-4)
        assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)

    def test_sparse_ranks_matching_terms(self, store: ChunkStore) -> None:
        self._fill(store)
        hits = store.sparse_search(["제3조", "휴직"], 5)
        assert hits and all(s > 0 for _, s in hits)
        assert hits[0][0] in {"d1-00002", "d2-00002", "d3-00002"}
        assert store.sparse_search(["없는단어"], 5) == []

    @pytest.mark.parametrize(
        "where",
        [
            Eq("doc", "교원인사규정"),
            Eq("code", "3-1-5"),
            In("article", ("제1조", "제2조")),
            In("doc_id", ("d1", "d3")),  # the retriever's search inside the documents a question names
            Range("page", 2, 3),
            Range("page", 4, None),
            And((Eq("doc", "근로기준법"), Range("page", None, 2))),
            Or((Eq("doc", "민법"), Eq("article", "제6조"))),
            Eq("addendum", False),
        ],
    )
    def test_filters_agree_with_the_oracle(self, store: ChunkStore, where: Filter) -> None:
        chunks = self._fill(store)
        allowed = {cid for cid, c in chunks.items() if matches(c.meta, where)}
        dense = [cid for cid, _ in store.dense_search(_vec(7), 50, where)]
        assert set(dense) == allowed
        sparse = [cid for cid, _ in store.sparse_search(["조문"], 50, where)]
        assert set(sparse) == allowed
        probe = _vec(7)
        expected = sorted(allowed, key=lambda cid: -float(np.dot(probe, _vector_of(chunks[cid]))))
        assert dense[:3] == expected[:3]

    def test_links_resolve_when_read(self, store: ChunkStore) -> None:
        store.replace_document(*article_doc("law", "시험법", [
            ("제1조", "이 법은 시험을 정한다."),
            ("제2조", "① 정의는 다음과 같다. 1. 시험"),
            ("제2조", "② 제1항의 시험은 「다른법」 제2조제1호의 검사를 말한다."),
            ("제3조", "「다른법」 제3조와 같은 법 제4조 및 제5조에 따른다. 제2조제1항의 시험도 같다."),
        ]))
        decree = article_doc("decree", "시험법 시행령", [("제1조", "이 영은 법 제2조에서 위임한 사항을 정한다.")])
        store.replace_document(*decree)
        store.flush()
        links = store.links_from(["law-00002", "law-00003"])
        got = [(lk.source, lk.doc, lk.article, lk.detail, lk.targets) for lk in links]
        assert got == [
            ("law-00002", "다른법", "제2조", "제1호", ()),  # not ingested: kept, unresolved
            ("law-00003", "다른법", "제3조", "", ()),
            ("law-00003", "다른법", "제4조", "", ()),  # 같은 법: the title named last
            ("law-00003", "다른법", "제5조", "", ()),  # listed after it
            ("law-00003", "시험법", "제2조", "제1항", ("law-00001", "law-00002")),  # a split article: both chunks
        ]
        assert store.links_from(["decree-00000"])[0].targets == ("law-00001", "law-00002")  # 시행령 → its 법
        citing = store.links_to(["law-00001"])
        assert {lk.source for lk in citing} == {"law-00003", "decree-00000"}
        store.replace_document(*article_doc("other", "다 른 법", [("제2조", "검사"), ("제4조", "넷"), ("제5조", "다섯")]))
        later = store.links_from(["law-00002", "law-00003"])
        assert [lk.targets for lk in later] == [  # resolved once the cited law is ingested (제3조 it does not have)
            ("other-00000",), (), ("other-00001",), ("other-00002",), ("law-00001", "law-00002")]
        assert [lk.source for lk in store.links_to(["other-00000"])] == ["law-00002"]
        store.delete_document("decree")
        assert store.links_from(["decree-00000"]) == []
        assert {lk.source for lk in store.links_to(["law-00001"])} == {"law-00003"}

    def test_reopen_keeps_data_and_refuses_other_embedder(self, make_store: MakeStore) -> None:
        store = make_store(SIGNATURE)
        self._fill(store)
        store.close()
        again = make_store(SIGNATURE)
        assert again.count() == 15
        assert again.sparse_search(["휴직"], 3)
        again.close()
        with pytest.raises(StoreError, match=r"other-embedder|embedder"):
            make_store(IndexSignature("other-embedder", DIM, SIGNATURE.tokenizer))

    def test_documents_follow_writes_of_another_instance(self, make_store: MakeStore) -> None:
        # a reader (a server) keeps its list of documents until the store's documents_version changes: a write,
        # replacement or delete by another instance (an ingest in another process) must change it
        reader, writer = make_store(SIGNATURE), make_store(SIGNATURE)
        self._fill(writer)
        versions = [reader.documents_version()]
        assert sorted(d.doc_id for d in reader.documents()) == ["d1", "d2", "d3"]
        assert reader.documents_version() == versions[-1]  # reading changes nothing
        record, chunks, vectors, terms = make_doc("d2", 2, title="직원인사규정", code="3-1-5", seed=7)
        writer.replace_document(record, chunks, vectors, terms)
        versions.append(reader.documents_version())
        assert {d.doc_id: d.title for d in reader.documents()}["d2"] == "직원인사규정"
        writer.delete_document("d3")
        versions.append(reader.documents_version())
        assert sorted(d.doc_id for d in reader.documents()) == ["d1", "d2"]
        assert len(set(versions)) == 3
        writer.close()
        reader.close()

    def test_one_read_reads_the_documents_version_once(
        self, make_store: MakeStore, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # a search looks up the documents, their names and their vectors, each kept until the version changes: inside
        # one read the version is read once (on PostgreSQL each read is a query), and the next read sees a write
        reader, writer = make_store(SIGNATURE), make_store(SIGNATURE)
        self._fill(writer)
        reads = version_reads(reader, monkeypatch)
        with reader.one_read():
            assert len(reader.documents()) == 3 and len(reader.document_vectors().doc_ids) == 3
            with reader.one_read():  # nested: the same read
                reader.documents()
            assert len(reads) == 1
        writer.delete_document("d3")
        with reader.one_read():  # (the vectors follow once the indexes do: on Chroma, rebuilt in the background)
            assert len(reader.documents()) == 2 and reader.document_vectors() is not None
        assert len(reads) == 2
        reader.documents()  # outside a read: each look-up reads the version
        assert len(reads) == 3
        writer.close()
        reader.close()

    def test_document_vectors_are_the_mean_direction_of_each_documents_chunks(self, make_store: MakeStore) -> None:
        reader, writer = make_store(SIGNATURE), make_store(SIGNATURE)
        self._fill(writer)
        means = {
            doc_id: make_doc(doc_id, n, seed=seed)[2].mean(axis=0)
            for doc_id, n, seed in (("d1", 6, 1), ("d2", 5, 2), ("d3", 4, 3))
        }
        vectors = reader.document_vectors()
        assert sorted(vectors.doc_ids) == ["d1", "d2", "d3"]
        for doc_id, mean in means.items():
            row = vectors.matrix[vectors.doc_ids.index(doc_id)]
            assert np.isclose(float(np.linalg.norm(row)), 1.0, atol=1e-5)
            assert float(row @ mean) / float(np.linalg.norm(mean)) > 0.9999
        similarity = vectors.similarity(means["d2"])
        assert max(similarity, key=similarity.__getitem__) == "d2"
        # another instance's delete and write are seen (they change the documents' version); a document's 부칙 (its
        # amendment history) is not what it is about: its last chunk, an addendum, is left out of its mean
        writer.delete_document("d3")
        record, chunks, vecs, terms = make_doc("d4", 3, title="직원인사규정", seed=9)
        chunks[-1] = dataclasses.replace(chunks[-1], meta={**chunks[-1].meta, "addendum": True})
        writer.replace_document(record, chunks, vecs, terms)
        writer.flush()
        reader.flush()
        vectors = reader.document_vectors()
        assert sorted(vectors.doc_ids) == ["d1", "d2", "d4"]
        body = vecs[:2].mean(axis=0)
        assert float(vectors.matrix[vectors.doc_ids.index("d4")] @ body) / float(np.linalg.norm(body)) > 0.9999
        writer.close()
        reader.close()

    def test_other_precision_names_the_setting_that_made_the_store(self, make_store: MakeStore) -> None:
        """A store embedded at another e5-onnx precision (the default before) says which setting reads it."""
        make_store(IndexSignature(VECTOR_NAMES["q4"], DIM, SIGNATURE.tokenizer)).close()
        with pytest.raises(StoreError, match="GEUNGEO_EMBED_PRECISION=q4, or re-index"):
            make_store(IndexSignature(VECTOR_NAMES["int8"], DIM, SIGNATURE.tokenizer))


def _vector_of(chunk: Chunk) -> np.ndarray:
    seeds = {"d1": 1, "d2": 2, "d3": 3}
    return _vec(seeds[chunk.doc_id] * 1000 + chunk.ordinal)
