"""Each on/off switch of the answer graph does what its setting says, both ways (with the scripted chat model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from geungeo.answering.models import Answer
from geungeo.engine import build_engine
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings
from geungeo.testing.fake_llm import ScriptedChatModel
from geungeo.testing.server import serving
from tests.fixtures import vacation_law_store
from tests.graph.test_graph import GOOD


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return vacation_law_store(tmp_path_factory.mktemp("switches"))


def _ask(data_dir: Path, question: str, script: dict[str, Any] | None = None, **overrides: Any) -> tuple[Answer, Any]:
    llm = ScriptedChatModel(script or GOOD)
    settings = Settings(data_dir=data_dir, embed_provider="fake", cache_enabled=False, **overrides)
    runner = QueryRunner(build_engine(settings), llm=llm)
    try:
        return runner.run(question), llm
    finally:
        runner.close()


def _nodes(answer: Answer) -> list[str]:
    return [s.node for s in answer.flow_log]


@pytest.mark.parametrize("enabled", [True, False])
def test_query_routing(data_dir: Path, enabled: bool) -> None:
    answer, llm = _ask(data_dir, "안녕하세요", enable_query_routing=enabled)
    # on: a greeting is answered directly; off: every question is a retrieval question and the router asks nothing
    assert (answer.route == "simple") is enabled and llm.count("router") == 0
    assert ("retrieve" in _nodes(answer)) is not enabled


@pytest.mark.parametrize("enabled", [True, False])
def test_hyde(data_dir: Path, enabled: bool) -> None:
    script = {**GOOD, "hyde": "연차 유급휴가는 1년간 80퍼센트 이상 출근한 근로자에게 15일을 준다."}
    _, llm = _ask(data_dir, "연차 휴가", script, enable_hyde=enabled)  # short and vague: HyDE's case
    assert llm.count("hyde") == (1 if enabled else 0)


@pytest.mark.parametrize("enabled", [True, False])
def test_hallucination_check(data_dir: Path, enabled: bool) -> None:
    answer, llm = _ask(data_dir, "연차 며칠?", hallucination_check_enabled=enabled)
    assert llm.count("grounding") == (1 if enabled else 0)
    assert answer.groundedness is not None and answer.groundedness.checked_by == ("llm" if enabled else "skipped")


@pytest.mark.parametrize("enabled", [True, False])
def test_answer_grader(data_dir: Path, enabled: bool) -> None:
    answer, llm = _ask(data_dir, "연차 며칠?", answer_grader_enabled=enabled)
    assert llm.count("grader") == (1 if enabled else 0) and (answer.grade is not None) is enabled


@pytest.mark.parametrize("enabled", [True, False])
def test_suggestions(data_dir: Path, enabled: bool) -> None:
    answer, llm = _ask(data_dir, "연차 며칠?", suggestions_enabled=enabled)
    assert llm.count("suggest") == (1 if enabled else 0) and bool(answer.suggestions) is enabled


@pytest.mark.parametrize("enabled", [True, False])
def test_web_search(data_dir: Path, enabled: bool) -> None:
    asked: list[dict[str, Any]] = []
    app = FastAPI()

    @app.post("/search")
    def search(body: dict[str, Any]) -> dict[str, Any]:
        asked.append(body)
        return {"results": [{"title": "고용노동부 안내", "url": "https://example.org/leave", "content": "연차휴가 안내문"}]}

    weak = {**GOOD, "judge": {"score": 0.2, "verdict": "insufficient", "missing": []}}
    with serving(app) as url:
        answer, _ = _ask(data_dir, "연차 며칠?", weak, enable_web_search=enabled, web_search_url=f"{url}/search")
    assert ("web_search" in _nodes(answer)) is enabled and len(asked) == (1 if enabled else 0)
    assert any(e.origin == "web" for e in answer.evidence) is enabled
    if enabled:
        assert asked[0]["max_results"] == 3 and asked[0]["query"]


def test_per_call_settings_take_effect_and_their_graph_is_compiled_once(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import geungeo.graph.runner as runner_module

    compiled: list[bool] = []
    build = runner_module.build_graph

    def counting(ctx: Any, checkpointer: Any = None) -> Any:
        compiled.append(ctx.settings.enable_query_routing)
        return build(ctx, checkpointer)

    monkeypatch.setattr(runner_module, "build_graph", counting)
    runner = QueryRunner(build_engine(Settings(data_dir=data_dir, embed_provider="fake")), llm=ScriptedChatModel(GOOD))
    try:
        compiled.clear()  # the two default graphs of the constructor
        for _ in range(3):
            # off for this call only: the greeting is searched, not answered directly
            assert runner.run("안녕하세요", enable_query_routing=False, cache_enabled=False).route != "simple"
            assert runner.run("안녕하세요", cache_enabled=False).route == "simple"
        assert compiled == [False, True]  # one graph per distinct per-call settings, kept for the next calls
    finally:
        runner.close()
