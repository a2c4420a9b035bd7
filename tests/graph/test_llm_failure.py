"""A chat model that fails (HTTP 500, a reply that is not JSON, a server that hangs) leaves the extractive answer,
flagged in the warnings, never a refusal that blames the documents; a hanging model costs at most the deadline.

The model is the real OpenAI-compatible client talking HTTP to a stand-in server on 127.0.0.1.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from geungeo.answering.models import Answer
from geungeo.engine import build_engine
from geungeo.graph.runner import QueryRunner
from geungeo.llm import get_chat_model
from geungeo.settings import Settings
from tests.fixtures import vacation_law_store

QUESTION = "1년 일하면 연차 유급휴가 며칠 받아요?"
WARNING = "LLM unavailable"
WARNING_KO = "LLM을 사용할 수 없어 추출식 답변으로 대체했습니다"

Behaviour = Callable[[BaseHTTPRequestHandler, threading.Event], None]


def _reply(handler: BaseHTTPRequestHandler, status: int, body: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _http_500(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
    _reply(handler, 500, b'{"error": {"message": "model crashed"}}')


def _garbage(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
    _reply(handler, 200, b"<html>\xeb\x8b\xa4 upstream proxy says hello {{{")


def _hang(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
    stop.wait(120)  # never answers while the test runs


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return vacation_law_store(tmp_path_factory.mktemp("llm-failure"))


def _serve(behaviour: Behaviour) -> Iterator[tuple[str, list[str]]]:
    stop = threading.Event()
    paths: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            paths.append(self.path)
            behaviour(self, stop)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", paths
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()


def _answer(data_dir: Path, url: str | None, **settings: Any) -> Answer:
    base = Settings(data_dir=data_dir, embed_provider="fake", cache_enabled=False, **settings)
    if url is not None:
        base = base.model_copy(update={"llm_provider": "openai", "llm_base_url": url, "llm_model": "m"})
    runner = QueryRunner(build_engine(base), llm=get_chat_model(base) if url is not None else None)
    try:
        return runner.run(QUESTION)
    finally:
        runner.close()


def _assert_extractive_with_warning(answer: Answer, extractive: Answer) -> None:
    assert not answer.refused and answer.mode == "extractive"
    assert answer.answer == extractive.answer and "15일" in answer.answer
    assert [c.chunk_id for c in answer.citations] == [c.chunk_id for c in extractive.citations]
    assert any(w.startswith(WARNING) and WARNING_KO in w for w in answer.warnings)
    assert any(w.startswith(WARNING) for w in answer.structured.warnings)
    assert not extractive.warnings


@pytest.mark.parametrize("behaviour", [_http_500, _garbage], ids=["http-500", "garbage"])
def test_failing_model_gives_the_extractive_answer_with_a_warning(data_dir: Path, behaviour: Behaviour) -> None:
    extractive = _answer(data_dir, None)
    for url, paths in _serve(behaviour):
        answer = _answer(data_dir, url, llm_max_retries=1)
        _assert_extractive_with_warning(answer, extractive)
        assert ("HTTP 500" if behaviour is _http_500 else "unexpected body") in answer.warnings[0]
        assert paths and len(paths) <= 2  # the first failing call (and its one retry); no node asks again
        assert any("skipped" in s.note for s in answer.flow_log)


def test_hanging_model_is_cut_at_the_answer_deadline(data_dir: Path) -> None:
    extractive = _answer(data_dir, None)
    for url, paths in _serve(_hang):
        started = time.monotonic()
        answer = _answer(data_dir, url, llm_timeout_s=60.0, llm_max_retries=2, answer_deadline_s=1.5)
        elapsed = time.monotonic() - started
        _assert_extractive_with_warning(answer, extractive)
        assert elapsed < 1.5 + 10.0, f"took {elapsed:.1f}s"  # the deadline, not 3 attempts × 60 s
        assert len(paths) == 1
        assert any("deadline" in w for w in answer.warnings)


def test_agent_mode_with_a_failing_model_falls_back_once(data_dir: Path) -> None:
    """The agent's first turn fails: the graph answers extractively and does not ask the failed model again."""
    import geungeo.agent  # noqa: F401  (registers the agent mode, as the interfaces do)

    extractive = _answer(data_dir, None)
    for url, paths in _serve(_http_500):
        answer = _answer(data_dir, url, mode="agent", llm_max_retries=1)
        _assert_extractive_with_warning(answer, extractive)
        assert len(paths) == 2  # the agent's turn and its one retry
        assert answer.flow_log[0].node == "agent" and "fallback to the answer graph" in answer.flow_log[0].note
