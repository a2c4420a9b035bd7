"""A question naming its document: the name picks the document, the rest of the question the passage."""

from __future__ import annotations

from pathlib import Path

from geungeo.retrieval.expansion import query_terms, without_names
from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.retrieval.scope import DocumentScope, Naming
from geungeo.settings import Settings
from geungeo.stores.chroma import ChromaStore
from geungeo.testing.fakes import FakeEmbedder
from geungeo.testing.store_contract import DIM, SIGNATURE
from tests.retrieval.test_document_ranking import _document, _unit
from tests.retrieval.test_query_handling import SCOPE, _doc


def test_names_are_read_as_the_question_writes_them() -> None:
    assert SCOPE.naming("동의대학교 대학원학칙에 따르면 휴학은").names == ("동의대학교 대학원학칙",)
    assert SCOPE.naming("근로기준법 시행령 제3조").names == ("근로기준법 시행령",)  # the longer name only
    assert SCOPE.naming("근기법상 연차").names == ("근기법",)  # a shortening, as written
    assert SCOPE.naming("규정 2-1-1 의 목적").names == ("2-1-1",)
    assert SCOPE.naming("휴가는 며칠?").names == ()
    fees = DocumentScope.build([_doc("fees", "등록금에관한규정")])
    assert fees.naming("등록금 분할납부 되나요?") == Naming({"fees"}, ())  # a word it shortens to names no name
    assert fees.naming("등록금에 관한 규정에 따르면 분할납부는?").names == ("등록금에 관한 규정",)


def test_a_name_s_terms_are_taken_out_once() -> None:
    terms = query_terms("근로기준법에 따르면 근로기준은 무엇?")
    left = without_names(terms, ["근로기준법"])
    assert "근로기준법" not in left and "법" not in left
    assert left.count("근로") == terms.count("근로") - 1  # the word the question uses outside the name stays
    assert without_names(query_terms("근로기준법"), ["근로기준법"]) == query_terms("근로기준법")  # nothing else asked


def test_a_passage_citing_the_named_document_does_not_rank_on_its_name(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, embed_provider="fake")
    store = ChromaStore(settings, SIGNATURE)
    # 영업법 제2조 states what is asked (신고 기한) and 제3조 the word 신고; 다른법 제1조 cites 영업법 by name and also
    # states 신고: on the words of the question besides the name, it is no better than 영업법 제3조
    _document(store, "biz", "영업법", [
        (["영업", "영업법", "목적"], _unit((0, 1), (2, 0.5))),
        (["신고", "기한", "30일"], _unit((0, 1), (1, 0.3))),
        (["신고", "서식"], _unit((0, 1), (2, 0.5))),
    ])
    _document(store, "other", "다른법", [
        (["영업", "영업법", "법", "신고", "준용"], _unit((0, 1), (1, 0.3))),
        (["보조", "지원"], _unit((3, 1))),
        (["위원회", "구성"], _unit((3, 1))),
    ])
    store.flush()
    retriever = HybridRetriever(store, FakeEmbedder(DIM), settings)
    hits = retriever.search("영업법에 따르면 신고 기한은?", k=6, vector=_unit((0, 1)))
    ranked = [(h.chunk.doc_id, h.chunk.meta["article"]) for h in hits]
    assert ranked[0] == ("biz", "제2조")
    assert ranked.index(("biz", "제3조")) < ranked.index(("other", "제1조"))
    store.close()
