"""The answer graph's expand node adds the articles that retrieved passages cite (origin ``reference``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from geungeo.answering.models import Answer
from geungeo.engine import build_engine
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings

STATUTE = """---
제목: 이자보장법
---

# 이자보장법

##### 제1조 (목적)

이 법은 임금 체불의 이자에 관한 사항을 정함을 목적으로 한다.

##### 제2조 (정의)

이 법에서 "사용자"란 근로자를 고용한 자를 말한다.

##### 제3조 (지연이자)

사용자는 퇴직한 근로자의 임금을 14일 이내에 지급하지 아니하면 대통령령으로 정하는 이율의 지연이자를 지급하여야 한다.

##### 제4조 (보고)

사용자는 매년 임금 지급 현황을 보고하여야 한다.
"""

DECREE = """---
제목: 이자보장법 시행령
---

# 이자보장법 시행령

##### 제1조 (목적)

이 영은 이자보장법에서 위임된 사항을 정함을 목적으로 한다.

##### 제2조 (지연이자의 이율)

법 제3조에서 "대통령령으로 정하는 이율"이란 연 100분의 20을 말한다.
"""


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("references")
    (root / "docs").mkdir()
    (root / "docs" / "이자보장법.md").write_text(STATUTE, "utf-8")
    (root / "docs" / "이자보장법 시행령.md").write_text(DECREE, "utf-8")
    engine = build_engine(Settings(data_dir=root / "data", embed_provider="fake"))
    engine.ingest([root / "docs"])
    engine.close()
    return root / "data"


def _ask(data_dir: Path, question: str, *, top_k: int) -> Answer:
    """The extractive answer with ``top_k`` hits a query, one passage kept by rerank and no neighbours."""
    settings = Settings(data_dir=data_dir, embed_provider="fake", cache_enabled=False, neighbour_window=0, top_k=top_k,
                        rerank_top_k=1)
    runner = QueryRunner(build_engine(settings))
    try:
        return runner.run(question)
    finally:
        runner.close()


def test_expand_adds_the_cited_article_as_reference_evidence(data_dir: Path) -> None:
    answer = _ask(data_dir, "지연이자 이율은 연 100분의 몇인가요?", top_k=1)
    origins = {(e.label, e.origin) for e in answer.evidence}
    assert ("이자보장법 시행령 제2조", "retrieval") in origins  # the passage retrieval found
    assert ("이자보장법 제3조", "reference") in origins  # the article it cites: "법 제3조"
    assert not any(e.origin == "neighbour" for e in answer.evidence)
    expand = next(s for s in answer.flow_log if s.node == "expand")
    assert "+1 cited or citing articles" in expand.note


def test_expand_adds_the_decree_article_implementing_a_retrieved_statute_article(data_dir: Path) -> None:
    answer = _ask(data_dir, "퇴직한 근로자의 임금을 14일 이내에 지급하지 아니하면?", top_k=1)
    origins = [(e.label, e.origin) for e in answer.evidence]
    assert origins == [("이자보장법 제3조", "retrieval"), ("이자보장법 시행령 제2조", "reference")]


def test_rerank_keeps_a_cited_article_that_retrieval_ranked_below_the_chosen_ones(data_dir: Path) -> None:
    answer = _ask(data_dir, "지연이자 이율은 연 100분의 몇인가요?", top_k=6)
    origins = [(e.label, e.origin) for e in answer.evidence]
    assert origins == [("이자보장법 시행령 제2조", "retrieval"), ("이자보장법 제3조", "reference")]


def test_links_are_read_back_after_ingestion(data_dir: Path) -> None:
    engine = build_engine(Settings(data_dir=data_dir, embed_provider="fake"))
    try:
        decree = next(d for d in engine.store.documents() if d.title == "이자보장법 시행령")
        rate = next(c for c in engine.store.chunks_of(decree.doc_id) if c.meta["article"] == "제2조")
        links = engine.store.links_from([rate.id])
        assert [(lk.doc, lk.article) for lk in links] == [("이자보장법", "제3조")]
        target = engine.store.get(list(links[0].targets))
        assert [c.meta["article"] for c in target] == ["제3조"] and target[0].meta["doc"] == "이자보장법"
        assert [lk.source for lk in engine.store.links_to(list(links[0].targets))] == [rate.id]
    finally:
        engine.close()


def test_a_figure_the_statute_leaves_to_its_decree_is_answered_from_the_decree(data_dir: Path) -> None:
    """법 제3조 delegates the rate ("대통령령으로 정하는 이율"); the 시행령 article citing it states it. It is not among the
    passages retrieval keeps (one here) but joins the evidence as a reference, and the answer quotes it."""
    answer = _ask(data_dir, "퇴직한 근로자의 임금을 14일 이내에 지급하지 아니하면 지연이자는 연 몇 %인가요?", top_k=1)
    assert [(e.label, e.origin) for e in answer.evidence][:1] == [("이자보장법 제3조", "retrieval")]
    decree = next(e for e in answer.evidence if e.label == "이자보장법 시행령 제2조")
    assert decree.origin == "reference" and decree.via == answer.evidence[0].chunk_id
    assert not answer.refused and "연 100분의 20" in answer.answer
    assert [c.label for c in answer.citations] == ["이자보장법 제3조", "이자보장법 시행령 제2조"]
