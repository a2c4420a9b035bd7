"""The document ranking in fusion: a candidate scored by how close its whole document is to the query."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore
from geungeo.stores.chroma import ChromaStore
from geungeo.testing.fakes import FakeEmbedder
from geungeo.testing.store_contract import DIM, SIGNATURE, version_reads
from geungeo.types import Chunk, DocumentRecord, chunk_id


def _unit(*parts: tuple[int, float]) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    for axis, weight in parts:
        v[axis] += weight
    return v / np.linalg.norm(v)


def _document(store: ChunkStore, doc_id: str, title: str, passages: list[tuple[list[str], np.ndarray]]) -> None:
    ids = [chunk_id(doc_id, i) for i in range(len(passages))]
    chunks = [
        Chunk(
            id=ids[i], doc_id=doc_id, ordinal=i, header=f"{title} 제{i + 1}조", text=" ".join(terms),
            meta={"doc_id": doc_id, "doc": title, "kind": "law", "article": f"제{i + 1}조", "category": "article"},
        )
        for i, (terms, _) in enumerate(passages)
    ]
    record = DocumentRecord(doc_id, f"{title}.md", title, "law", None, f"hash-{doc_id}", len(chunks), origin=title)
    store.replace_document(record, chunks, np.stack([v for _, v in passages]), [t for t, _ in passages])


def test_a_passage_of_the_document_the_query_is_about_rises_over_a_look_alike(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, embed_provider="fake")
    store = ChromaStore(settings, SIGNATURE)
    # 형법 is about axis 0 throughout; 농업기계화 촉진법 about axis 1, one of its passages states both of the query's
    # words and leans towards axis 0 (a look-alike), while 형법's passage states one word and is the closest in meaning
    _document(store, "crime", "형법", [(["사기", "기망"], _unit((0, 1), (2, 0.9)))] + [
        ([f"죄{i}", "형벌"], _unit((0, 1), (3 + i % 3, 0.2))) for i in range(5)
    ])
    _document(store, "farm", "농업기계화 촉진법", [(["중고거래", "사기", "신고"], _unit((0, 1), (1, 0.7)))] + [
        ([f"농업{i}", "기계"], _unit((1, 1), (3 + i % 3, 0.2))) for i in range(5)
    ])
    store.flush()
    query, vector = "중고거래 사기", _unit((0, 1), (2, 0.9))

    def first(weight: float) -> str:
        retriever = HybridRetriever(store, FakeEmbedder(DIM), settings.model_copy(update={"document_weight": weight}))
        return retriever.search(query, k=3, vector=vector)[0].chunk.doc_id

    assert first(0.0) == "farm"  # both words: the look-alike leads the fused order of words and meaning
    assert first(settings.document_weight) == "crime"  # 형법 as a whole is what the query is about
    store.close()


def test_a_search_reads_the_documents_version_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the named documents and the document ranking both follow the store's documents: one read of their version
    settings = Settings(data_dir=tmp_path, embed_provider="fake")
    store = ChromaStore(settings, SIGNATURE)
    _document(store, "crime", "형법", [(["사기", "기망"], _unit((0, 1))), (["횡령"], _unit((1, 1)))])
    store.flush()
    reads = version_reads(store, monkeypatch)
    retriever = HybridRetriever(store, FakeEmbedder(DIM), settings)
    assert retriever.search("형법상 사기", k=2, vector=_unit((0, 1)))[0].chunk.doc_id == "crime"
    assert len(reads) == 1
    store.close()
