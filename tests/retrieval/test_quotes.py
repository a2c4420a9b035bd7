"""A question that quotes a passage gets that passage first."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.retrieval.quotes import quoted
from geungeo.settings import Settings
from geungeo.stores.chroma import ChromaStore
from geungeo.testing.fakes import FakeEmbedder
from geungeo.testing.store_contract import DIM, SIGNATURE
from geungeo.types import Chunk, DocumentRecord, chunk_id
from tests.retrieval.test_document_ranking import _unit

LEAVE = "① 교원이 휴직을 원하는 경우에는 휴직원을 총장에게 제출하여야 한다."


def test_half_the_question_s_words_in_a_row_quote_a_passage() -> None:
    assert quoted("교원이 휴직을 원하는 경우에는 어디에 내요?", [LEAVE, "교원은 휴직할 수 있다."]) == [True, False]
    assert quoted("“교원이 휴직을 원하는 경우에는,” 이 문구 어느 규정이야?", [LEAVE]) == [True]  # quotes and commas
    assert quoted("교원이 휴직을 원하면 어디에 신청하나요?", [LEAVE]) == [False]  # in one's own words
    assert quoted("휴직을 원하는 경우에는", [LEAVE]) == [True]
    assert quoted("휴직 원하는", [LEAVE]) == [False]  # fewer than three words quote nothing


def test_a_set_phrase_many_passages_state_is_no_quote() -> None:
    question = "정당한 이유 없이 해고하면 어떻게 되나요?"
    dismissal = "① 사용자는 근로자에게 정당한 이유 없이 해고, 휴직, 정직, 전직, 감봉, 그 밖의 징벌을 하지 못한다."
    assert quoted(question, [dismissal, "기타 사항"]) == [True, False]
    others = [f"제{n}조 누구든지 정당한 이유 없이 그 자료를 제공하여서는 아니 된다." for n in range(3)]
    assert quoted(question, [dismissal, *others]) == [False] * 4  # four passages state it: a set phrase


def test_document_names_and_cited_titles_are_no_part_of_a_quote() -> None:
    citing = "「장애인차별금지 및 권리구제 등에 관한 법률」에 따른 손해배상을 청구할 수 있다."
    question = "장애인차별금지 및 권리구제 등에 관한 법률에 따르면 손해배상은?"
    assert quoted(question, [citing]) == [True]
    assert quoted(question, [citing], ["장애인차별금지 및 권리구제 등에 관한 법률"]) == [False]
    assert quoted("「장애인차별금지 및 권리구제 등에 관한 법률」에 따른 손해배상은?", [citing]) == [False]


def test_the_quoted_passage_comes_first(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, embed_provider="fake")
    store = ChromaStore(settings, SIGNATURE)
    # the question pastes the start of 제3조's sentence; 제1조 states more of its words and is closer in meaning
    passages = [
        ("교원의 휴직은 휴직원으로 원하는 경우에 한다.", ["교원", "휴직", "휴직원", "원하다", "경우", "교원"], _unit((0, 1))),
        ("보수는 매월 지급한다.", ["보수", "지급"], _unit((1, 1))),
        (LEAVE, ["교원", "총장", "제출"], _unit((0, 1), (1, 1))),
    ]
    chunks = [
        Chunk(
            id=chunk_id("rules", i), doc_id="rules", ordinal=i, header=f"복무규정 제{i + 1}조", text=text,
            meta={"doc_id": "rules", "doc": "복무규정", "kind": "regulation", "article": f"제{i + 1}조", "category": "article"},
        )
        for i, (text, _, _) in enumerate(passages)
    ]
    record = DocumentRecord("rules", "복무규정.md", "복무규정", "regulation", None, "hash-rules", 3, origin="복무규정")
    store.replace_document(record, chunks, np.stack([v for _, _, v in passages]), [t for _, t, _ in passages])
    store.flush()
    retriever = HybridRetriever(store, FakeEmbedder(DIM), settings)
    first = retriever.search("교원이 휴직을 원하는 경우에는 휴직원을 어디에 내나요?", k=3, vector=_unit((0, 1)))[0]
    assert first.chunk.meta["article"] == "제3조"
    assert retriever.search("교원 휴직은 어떻게 신청해요?", k=3, vector=_unit((0, 1)))[0].chunk.meta["article"] == "제1조"
    store.close()
