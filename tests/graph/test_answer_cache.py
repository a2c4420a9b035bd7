"""The answer cache serves an answer only to the same standalone question over the same corpus, and only
answers that passed a grounding check (issue #21: each of these served a wrong answer before)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from geungeo.engine import build_engine
from geungeo.graph.cache import normalize_question
from geungeo.graph.runner import QueryRunner
from geungeo.retrieval.expansion import load_lexicon
from geungeo.settings import Settings
from geungeo.testing.fake_llm import ScriptedChatModel
from tests.fixtures import VACATION_LAW as LAW
from tests.graph.test_graph import GOOD

OTHER_LAW = """---
제목: 출산지원법
---

# 출산지원법

##### 제1조 (출산휴가)

**①** 사용자는 임신 중인 여성에게 출산 전과 출산 후를 통하여 90일의 출산전후휴가를 주어야 한다.
"""


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "휴가보장법.md").write_text(LAW, "utf-8")
    return folder


def _runner(tmp_path: Path, docs: Path, llm: Any = None, **settings: Any) -> QueryRunner:
    engine = build_engine(Settings(data_dir=tmp_path / "data", embed_provider="fake", **settings))
    engine.ingest([docs])
    return QueryRunner(engine, llm=llm)


def test_the_same_question_normalised_hits_and_a_different_one_does_not(tmp_path: Path, docs: Path) -> None:
    runner = _runner(tmp_path, docs)
    try:
        first = runner.run("연차 유급휴가는 며칠?")
        assert not first.cache_hit and first.citations
        assert runner.run("  연차  유급휴가는 며칠 ？").cache_hit  # spaces and end punctuation only
        # a negation, another figure: near in any embedding, never the same answer
        assert not runner.run("연차 유급휴가가 아닌 휴가는 며칠?").cache_hit
        assert not runner.run("연차 유급휴가는 몇 시간?").cache_hit
    finally:
        runner.close()


def test_normalisation_keeps_what_changes_the_meaning() -> None:
    assert normalize_question("연차는  며칠?! ") == normalize_question("연차는 며칠")
    assert normalize_question("수습 중인 근로자") != normalize_question("수습 중이 아닌 근로자")
    assert normalize_question("Annual leave?") == normalize_question("annual leave")


def test_a_follow_up_is_never_cached_nor_served_to_another_conversation(tmp_path: Path, docs: Path) -> None:
    runner = _runner(tmp_path, docs)
    other = QueryRunner(build_engine(runner.settings), llm=None)  # another process on the same data directory
    try:
        runner.run("연차 유급휴가는 며칠?", conversation_id="A")
        follow_up = runner.run("그럼 3년 근속이면요?", conversation_id="A")
        assert not follow_up.cache_hit
        for r, conversation in ((runner, "B"), (other, "C"), (other, None)):
            again = r.run("그럼 3년 근속이면요?", conversation_id=conversation)
            assert not again.cache_hit, conversation
        # inside a conversation with earlier turns nothing is looked up, not even a question answered before
        runner.run("출산휴가는 며칠?", conversation_id="D")
        inside = runner.run("연차 유급휴가는 며칠?", conversation_id="D")
        assert not inside.cache_hit and any("conversation" in s.note for s in inside.flow_log if s.node == "cache_lookup")
    finally:
        other.close()
        runner.close()


def test_any_ingest_or_a_filter_changes_the_scope(tmp_path: Path, docs: Path) -> None:
    runner = _runner(tmp_path, docs)
    try:
        question = "연차 유급휴가는 며칠?"
        runner.run(question)
        assert runner.run(question).cache_hit
        assert not runner.run(question, filters="doc=휴가보장법").cache_hit  # another filter, another scope
        (docs / "출산지원법.md").write_text(OTHER_LAW, "utf-8")
        runner.engine.ingest([docs])  # a new document: the corpus version changed
        assert not runner.run(question).cache_hit
    finally:
        runner.close()


def test_an_improved_answer_that_fails_its_grounding_check_is_dropped_and_never_cached(tmp_path: Path, docs: Path) -> None:
    low = {"completeness": 0.2, "relevance": 0.5, "clarity": 0.5, "accuracy": 0.5, "feedback": "더 자세히"}
    script = {
        **GOOD,
        "grader": low,
        "generate": [
            "1년간 80퍼센트 이상 출근하면 15일의 유급휴가를 받습니다 [휴가보장법 제2조]",
            "연차는 30일이며 퇴직금도 두 배로 받습니다 [휴가보장법 제2조]",  # the rewrite invents
        ],
        "grounding": [{"score": 0.95, "unsupported": []}, {"score": 0.1, "unsupported": ["30일", "퇴직금"]}],
    }
    runner = _runner(tmp_path, docs, ScriptedChatModel(script))
    try:
        answer = runner.run("연차 며칠?")
        assert [s.node for s in answer.flow_log].count("improve") == 1
        assert "15일" in answer.answer and "30일" not in answer.answer
        assert answer.groundedness is not None and answer.groundedness.score == 0.95
        assert runner.run("연차 며칠?").cache_hit  # the checked answer was stored …
        assert "30일" not in runner.run("연차 며칠?").answer  # … not the rewrite
    finally:
        runner.close()


def test_an_answer_whose_grounding_was_not_checked_is_not_cached(tmp_path: Path, docs: Path) -> None:
    runner = _runner(tmp_path, docs, ScriptedChatModel(GOOD), hallucination_check_enabled=False)
    try:
        runner.run("연차 며칠?")
        assert not runner.run("연차 며칠?").cache_hit
    finally:
        runner.close()


def test_an_answer_is_not_served_once_the_lexicon_or_a_setting_that_shapes_answers_changed(tmp_path: Path, docs: Path) -> None:
    """A user who edits the lexicon (same file) or changes how evidence is found gets a fresh answer; a setting that
    only says how geungeo runs (a port, a timeout) shares the answers."""
    lexicon = tmp_path / "lexicon.json"
    lexicon.write_text(json.dumps({"synonyms": {"연차": ["유급휴가"]}, "audiences": {}}, ensure_ascii=False), "utf-8")
    question = "연차 유급휴가는 며칠?"
    runner = _runner(tmp_path, docs, lexicon_path=str(lexicon))
    try:
        runner.run(question)
        assert runner.run(question).cache_hit
        assert runner.run(question, api_port=9999, llm_timeout_s=5).cache_hit
        assert not runner.run(question, top_k=3).cache_hit
        assert not runner.run(question, query_expansion=False).cache_hit
    finally:
        runner.close()
    lexicon.write_text(json.dumps({"synonyms": {"연차": ["연가"]}, "audiences": {}}, ensure_ascii=False), "utf-8")
    load_lexicon.cache_clear()  # the next process reads the edited file
    again = QueryRunner(build_engine(runner.settings))
    try:
        assert not again.run(question).cache_hit
        assert again.run(question).cache_hit
    finally:
        again.close()
        load_lexicon.cache_clear()
