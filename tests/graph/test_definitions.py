"""A question asking what a term is, answered by the clause that defines it (answering/definitions.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from geungeo.answering.definitions import asked_term, defines
from geungeo.answering.extractive import extract
from geungeo.answering.models import EvidenceItem
from geungeo.engine import build_engine
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("평균임금이란?", "평균임금"),
        ("통상임금이 뭐야?", "통상임금"),
        ("근로자의 정의", "근로자"),
        ("사용자란 누구를 말해?", "사용자"),
        ("근로기준법상 근로자란?", "근로기준법상 근로자"),  # the words before it are left aside by defines
        ("연구년 교원이란?", "연구년 교원"),
        ("소정근로시간 뜻", "소정근로시간"),
        # questions asking something else
        ("휴학은 몇 번까지?", None),
        ("육아휴직 급여는 얼마인가요?", None),
        ("교원 징계의 종류는?", None),
    ],
)
def test_the_term_a_question_asks_the_meaning_of(question: str, term: str | None) -> None:
    assert asked_term(question) == term


def test_a_clause_defines_the_term_it_quotes_before_란_or_라_함은() -> None:
    assert defines('8. "소정(所定)근로시간"이란 제50조에 따른 근로시간의 범위에서 정한 근로시간을 말한다.', "소정근로시간")
    assert defines('2. "사용자"라 함은 사업주를 말한다.', "사용자")
    assert not defines('2. "사용자"라 함은 사업주를 말한다.', "사업주")
    assert not defines("평균임금은 그 근로자가 소속한 사업장의 임금으로 한다.", "평균임금")
    assert defines('1. "근로자"란 임금을 목적으로 근로를 제공하는 사람을 말한다.', "근로기준법상 근로자")
    # a regulation defines its terms unquoted, opening the clause
    assert defines("제2조(정의) 연구년 교원이라 함은 6개월 이상 연구년의 기회를 부여받은 교원을 말한다.", "연구년 교원")
    assert defines("① 이 규정에서 검수라 함은 계약의 이행을 확인하는 것을 말한다.", "검수")
    assert not defines('1. "교원"이란 전임교원을 말한다.', "연구년 교원")  # the words of the term asked all count


def _item(n: int, label: str, text: str) -> EvidenceItem:
    return EvidenceItem(n=n, chunk_id=f"c{n}", doc_id="d", label=label, doc="근로법", header=label, text=text)


DEFINITIONS = (
    "제2조(정의) ① 이 법에서 사용하는 용어의 뜻은 다음과 같다.\n"
    '1. "근로자"란 임금을 목적으로 근로를 제공하는 사람을 말한다.\n'
    '2. "사용자"란 사업주를 말한다.\n'
    '3. "평균임금"이란 이를 산정하여야 할 사유가 발생한 날 이전 3개월 동안에 지급된 임금의 총액을 그 기간의 총일수로 '
    "나눈 금액을 말한다."
)


def test_a_question_asking_what_a_term_is_quotes_its_definition_alone() -> None:
    # before: 제5조, ranked first and stating 평균임금, was quoted; then the whole list of 제2조's terms
    using = _item(1, "근로법 제5조", "제5조(보상) 보상금을 산정할 때 적용할 평균임금은 같은 직종 근로자의 임금으로 한다.")
    defining = _item(2, "근로법 제2조", DEFINITIONS)
    (first,) = extract("평균임금이란?", [using, defining], None).sentences
    assert first.item is defining and first.text.splitlines() == [
        "① 이 법에서 사용하는 용어의 뜻은 다음과 같다.",
        DEFINITIONS.splitlines()[-1],
    ]


ARTICLES = "".join(
    f"\n##### 제{n}조 (보상 {n})\n\n보상금은 평균임금의 {n}0일분으로 하며, 평균임금이 적으면 평균임금을 올려 평균임금으로 한다.\n"
    for n in range(3, 12)
)
STATUTE = (
    "---\n제목: 근로법\n시행일자: 2025-01-01\n---\n\n# 근로법\n\n##### 제2조 (정의)\n\n"
    + DEFINITIONS.replace("제2조(정의) ", "")
    + "\n"
    + ARTICLES
)


def test_the_passage_defining_the_asked_term_joins_the_evidence(tmp_path: Path) -> None:
    # the nine articles repeating 평균임금 outrank the 정의 article in the search
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "law.md").write_text(STATUTE, "utf-8")
    engine = build_engine(Settings(data_dir=tmp_path / "data", embed_provider="fake", cache_enabled=False))
    engine.ingest([tmp_path / "docs"])
    assert "제2조" not in [hit.chunk.meta.get("article") for hit in engine.search("평균임금이란?", k=5)]
    runner = QueryRunner(engine, llm=None)
    try:
        answer = runner.run("평균임금이란?")
    finally:
        runner.close()
    assert '"평균임금"이란' in answer.answer and "[근로법 제2조]" in answer.answer
