"""Agent mode: the scripted chat model calls geungeo's tools over a real store; fallbacks to the graph."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from geungeo.agent.tools import SCHEMAS, SearchArgs, Toolbox
from geungeo.answering.models import REFUSAL, Answer
from geungeo.engine import build_engine
from geungeo.graph import runner as runner_module
from geungeo.graph.runner import QueryRunner, run_query, stream_query
from geungeo.llm.base import LLMError
from geungeo.llm.openai import OpenAIChat
from geungeo.prompts import load
from geungeo.settings import Settings
from geungeo.testing.fake_llm import ScriptedChatModel, ToolCall, tool_calls
from tests.fixtures import vacation_law_store

GENERATED = "1년간 80퍼센트 이상 출근하면 15일의 유급휴가를 받습니다 [휴가보장법 제2조] [없는법 제9조]"
SEARCH = ToolCall("search_documents", {"query": "연차 유급휴가 일수", "top_k": 3})
ANSWER = ToolCall("answer", {"question": "연차 유급휴가는 며칠인가요?", "context": ["휴가보장법 제2조"]})
GRAPH = {  # what the graph's nodes reply when the agent falls back
    "router": {"route": "rag_required"},
    "judge": {"score": 0.9, "verdict": "sufficient", "missing": []},
    "generate": GENERATED,
    "grounding": {"score": 0.95, "unsupported": []},
    "grader": {"completeness": 0.9, "relevance": 0.9, "clarity": 0.9, "accuracy": 0.9, "feedback": ""},
}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return vacation_law_store(tmp_path_factory.mktemp("agent"))


def _runner(data_dir: Path, llm: Any, **settings: Any) -> QueryRunner:
    base = Settings(data_dir=data_dir, embed_provider="fake", cache_enabled=False, **{"mode": "agent", **settings})
    return QueryRunner(build_engine(base), llm=llm)


@pytest.fixture
def ask(data_dir: Path) -> Iterator[Any]:
    opened: list[QueryRunner] = []

    def run(llm: Any, question: str = "1년 일하면 연차 유급휴가 며칠 받아요?", **settings: Any) -> Answer:
        runner = _runner(data_dir, llm, **settings)
        opened.append(runner)
        return runner.run(question)

    yield run
    for r in opened:
        r.close()


def _nodes(answer: Answer) -> list[str]:
    return [s.node for s in answer.flow_log]


def _tool_messages(llm: ScriptedChatModel) -> list[ToolMessage]:
    """The tool results the model saw on its last agent turn."""
    last = [msgs for node, msgs in llm.calls if node == "agent"][-1]
    return [m for m in last if isinstance(m, ToolMessage)]


def test_search_then_answer_cites_gathered_evidence(ask: Any) -> None:
    llm = ScriptedChatModel({"agent": [SEARCH, ANSWER], "generate": GENERATED})
    answer = ask(llm)
    assert llm.bound_tools == list(SCHEMAS)
    assert answer.mode == "llm" and not answer.refused and "15일" in answer.answer
    assert [c.label for c in answer.citations] == ["휴가보장법 제2조"]
    assert {c.chunk_id for c in answer.citations} <= {e.chunk_id for e in answer.evidence}
    assert answer.removed_citations == 1 and "[없는법 제9조]" not in answer.answer
    assert _nodes(answer) == ["search_documents", "answer", "generate"]
    assert answer.llm_calls == len(llm.calls) == 3 and [s.llm_calls for s in answer.flow_log] == [1, 1, 1]
    assert all(s.seconds >= 0 for s in answer.flow_log) and "3 hits" in answer.flow_log[0].note
    # the model saw the hits with their labels; generation saw only the passage the answer named
    assert "휴가보장법 제2조" in _tool_messages(llm)[0].text
    generate_prompt = next(msgs for node, msgs in llm.calls if node == "generate")[-1].text
    assert "[휴가보장법 제2조]" in generate_prompt and "[휴가보장법 제4조]" not in generate_prompt
    system = llm.calls[0][1][0]
    assert system.name == "agent" and system.text.startswith(load("agent")[:40]) and "intent: lookup" in system.text
    assert "[node:" not in system.text
    assert answer.plan is not None and answer.plan.intent == "lookup"


def test_intent_hints_name_audience_and_legal_terms(ask: Any) -> None:
    llm = ScriptedChatModel({"agent": [SEARCH, ANSWER], "generate": GENERATED})
    ask(llm, "신입생인데 알바 월급 못 받으면 어떻게 해요?")
    system = llm.calls[0][1][0].text
    assert "student" in system and "임금" in system and "단시간근로자" in system


def test_get_article_then_plain_text_reply(ask: Any) -> None:
    llm = ScriptedChatModel(
        {
            "agent": [
                ToolCall("get_article", {"regulation": "휴가보장법", "article": "제3조"}),
                "출산전후휴가는 90일입니다 [휴가보장법 제3조]",
            ]
        }
    )
    answer = ask(llm, "출산휴가는 며칠?")
    assert _nodes(answer) == ["get_article", "reply"] and answer.answer == "출산전후휴가는 90일입니다 [휴가보장법 제3조]"
    assert [c.label for c in answer.citations] == ["휴가보장법 제3조"]
    assert [e.origin for e in answer.evidence] == ["structural"] and "90일" in answer.evidence[0].text
    assert "90일의 출산전후휴가" in _tool_messages(llm)[0].text


def test_several_calls_in_one_turn_and_answer_with_a_label_never_fetched(ask: Any) -> None:
    turn = tool_calls(SEARCH, ToolCall("answer", {"question": "벌칙은?", "context": "휴가보장법 제4조, 휴가보장법 제2조"}))
    llm = ScriptedChatModel({"agent": turn, "generate": "제2조를 위반하면 2년 이하의 징역에 처합니다 [휴가보장법 제4조]"})
    answer = ask(llm, "연차휴가를 안 주면 벌칙은?")
    assert _nodes(answer) == ["search_documents", "answer", "generate"]
    assert answer.flow_log[0].llm_calls == 1 and answer.flow_log[1].llm_calls == 0
    assert [c.label for c in answer.citations] == ["휴가보장법 제4조"]
    generate_prompt = next(msgs for node, msgs in llm.calls if node == "generate")[-1].text
    assert "[휴가보장법 제4조]" in generate_prompt and "[휴가보장법 제2조]" in generate_prompt


def test_step_limit_still_answers_from_what_was_gathered(ask: Any) -> None:
    llm = ScriptedChatModel({"agent": SEARCH, "generate": GENERATED})
    answer = ask(llm, agent_max_steps=2)
    assert _nodes(answer) == ["search_documents", "search_documents", "agent", "generate"]
    assert "step limit (2)" in answer.flow_log[2].note and llm.count("agent") == 2
    assert [c.label for c in answer.citations] == ["휴가보장법 제2조"] and answer.llm_calls == 3


@pytest.mark.parametrize(
    ("llm", "why"),
    [
        (None, "no LLM configured"),
        (ScriptedChatModel(GRAPH, supports_tools=False), "cannot call tools"),
        (ScriptedChatModel({**GRAPH, "agent": "연차는 15일입니다."}), "called no tool"),
        (ScriptedChatModel({**GRAPH, "agent": TimeoutError("slow")}), "model call failed (timeout"),
    ],
)
def test_falls_back_to_the_graph(ask: Any, llm: Any, why: str) -> None:
    answer = ask(llm, llm_max_retries=0)
    assert answer.flow_log[0].node == "agent" and why in answer.flow_log[0].note
    assert "fallback to the answer graph" in answer.flow_log[0].note
    assert {"router", "retrieve", "generate"} <= set(_nodes(answer))
    assert "15일" in answer.answer and any(c.label == "휴가보장법 제2조" for c in answer.citations)
    assert answer.llm_calls == sum(s.llm_calls for s in answer.flow_log)


def test_garbage_tool_calls_go_back_to_the_model_as_errors(ask: Any) -> None:
    llm = ScriptedChatModel(
        {
            "agent": [
                tool_calls(
                    ToolCall("search_documents", {"query": "", "top_k": "many"}),
                    ToolCall("get_article", '{"regulation": "휴가보장법", "art'),
                    ToolCall("delete_everything", {}),
                    ToolCall("get_article", {"regulation": "휴가보장법", "article": "제99조"}),
                    ToolCall("search_documents", {"query": "휴가", "filters": "nonsense==="}),
                ),
                SEARCH,
                ANSWER,
            ],
            "generate": GENERATED,
        }
    )
    answer = ask(llm)
    assert [c.label for c in answer.citations] == ["휴가보장법 제2조"]
    first_turn = [msgs for node, msgs in llm.calls if node == "agent"][1]
    errors = {m.tool_call_id: m for m in first_turn if isinstance(m, ToolMessage)}  # one per call, by call id
    assert len(errors) == 5 and all(m.status == "error" and m.text.startswith("error:") for m in errors.values())
    assert "top_k" in errors["call_1"].text and "query" in errors["call_1"].text
    assert "not a JSON object" in errors["call_2"].text
    assert "unknown tool 'delete_everything'" in errors["call_3"].text and "search_documents" in errors["call_3"].text
    assert "제99조" in errors["call_4"].text
    assert errors["call_5"].text.strip() != "error:"
    called = ["search_documents", "get_article", "delete_everything", "get_article", "search_documents"]
    assert sorted(_nodes(answer)[:5]) == sorted(called)
    assert all(step.note for step in answer.flow_log[:5]) and answer.flow_log[0].llm_calls == 1


def test_stream_yields_tool_steps_then_tokens_then_the_answer(data_dir: Path) -> None:
    llm = ScriptedChatModel({"agent": [SEARCH, ANSWER], "generate": GENERATED}, chunk_chars=4)
    runner = _runner(data_dir, llm)
    events = list(runner.stream("연차 유급휴가는 며칠?"))
    runner.close()
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["node", "node"] and [e["node"] for e in events[:2]] == ["search_documents", "answer"]
    assert kinds[-2:] == ["node", "answer"] and events[-2]["node"] == "generate"
    tokens = [e["text"] for e in events if e["type"] == "token"]
    assert len(tokens) > 5 and "15일" in "".join(tokens)
    assert events[-1]["answer"].answer.startswith("".join(tokens)[:20])


def test_conversation_turns_are_shared_with_the_graph(data_dir: Path) -> None:
    llm = ScriptedChatModel({"agent": [SEARCH, ANSWER, SEARCH, ANSWER], "generate": GENERATED})
    runner = _runner(data_dir, llm)
    runner.run("연차 유급휴가는 며칠?", conversation_id="c")
    runner.run("그럼 위반하면?", conversation_id="c")
    second = [msgs for node, msgs in llm.calls if node == "agent"][2]
    assert second[1].text == "연차 유급휴가는 며칠?" and "15일" in second[2].text  # the earlier turn, after the system prompt
    follow = runner.run("그럼 출산휴가는?", conversation_id="c", mode="graph", llm_provider="none")
    runner.close()
    assert follow.conversation_id == "c" and "agent" not in _nodes(follow) and follow.route == "history_required"


def test_run_query_dispatches_on_the_mode(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEUNGEO_MODE", "agent")
    assert Settings().mode == "agent"
    llm = ScriptedChatModel({**GRAPH, "agent": [SEARCH, ANSWER, SEARCH, ANSWER]})
    runner = _runner(data_dir, llm, mode="graph")
    monkeypatch.setattr(runner_module, "_default", runner)
    graph_answer = run_query("연차 유급휴가는 며칠?")
    agent_answer = run_query("연차 유급휴가는 며칠?", mode="agent")
    events = list(stream_query("연차 유급휴가는 며칠?", mode="agent", agent_max_steps=3))
    runner.close()
    assert "router" in _nodes(graph_answer) and "search_documents" not in _nodes(graph_answer)
    assert _nodes(agent_answer) == ["search_documents", "answer", "generate"]
    assert events[0]["node"] == "search_documents" and events[-1]["answer"].citations


def test_answer_tool_writes_an_extractive_answer_from_named_passages(data_dir: Path) -> None:
    engine = build_engine(Settings(data_dir=data_dir, embed_provider="fake"))
    box = Toolbox(engine)
    hits = box.search_documents("출산휴가", top_k=2)
    assert hits.payload[0]["label"] and len(hits.passages) == 2
    answer = box.answer("출산휴가는 며칠인가요?", ["휴가보장법 제3조"], llm=None, lexicon=None)
    nothing = box.answer("출산휴가는 며칠인가요?", ["없는법 제1조"], llm=None, lexicon=None)
    engine.close()
    assert answer.mode == "extractive" and "90일" in answer.answer
    assert [c.label for c in answer.citations] == ["휴가보장법 제3조"]
    assert nothing.refused and nothing.answer.startswith(REFUSAL)


def test_answer_tool_with_a_failing_model_gives_the_extractive_answer_flagged(data_dir: Path) -> None:
    """MCP's ``answer`` shares the graph's answer path: a model that fails leaves the extractive answer, flagged."""
    engine = build_engine(Settings(data_dir=data_dir, embed_provider="fake", llm_max_retries=0))
    box = Toolbox(engine)
    extractive = box.answer("출산휴가는 며칠인가요?", ["휴가보장법 제3조"], llm=None, lexicon=None)
    failing = ScriptedChatModel({"generate": LLMError("HTTP 500", "server")})
    answer = box.answer("출산휴가는 며칠인가요?", ["휴가보장법 제3조"], llm=failing, lexicon=None)
    engine.close()
    assert not answer.refused and answer.mode == "extractive" and answer.answer == extractive.answer
    assert answer.llm_calls == 1 and failing.count("generate") == 1
    assert len(answer.warnings) == 1 and answer.warnings[0].startswith("LLM unavailable: ")


def test_model_failing_after_the_search_answers_extractively_with_a_warning(ask: Any) -> None:
    llm = ScriptedChatModel({"agent": [SEARCH, LLMError("HTTP 500", "server")], "generate": GENERATED})
    answer = ask(llm, llm_max_retries=0)
    assert not answer.refused and answer.mode == "extractive" and llm.count("generate") == 0
    assert any(w.startswith("LLM unavailable: ") for w in answer.warnings)


def test_mcp_server_adapts_the_same_tools(data_dir: Path) -> None:
    from geungeo.agent.tools import DESCRIPTIONS
    from geungeo.interfaces.mcp_server import build_server

    engine = build_engine(Settings(data_dir=data_dir, embed_provider="fake", cache_enabled=False))
    server = build_server(engine)

    async def session() -> tuple[dict[str, Any], Any, Any]:
        listed = {t.name: t for t in await server.list_tools()}
        hits = await server.call_tool("search_documents", {"query": "출산휴가", "top_k": 2})
        grounded = await server.call_tool("answer", {"question": "출산휴가는 며칠인가요?", "context": ["휴가보장법 제3조"]})
        return listed, hits, grounded

    listed, hits, grounded = asyncio.run(session())
    engine.close()
    assert set(listed) == set(SCHEMAS)
    assert all(listed[name].description == DESCRIPTIONS[name] for name in SCHEMAS if name != "answer")
    assert set(SearchArgs.model_fields) <= set(listed["search_documents"].input_schema["properties"])
    assert {"question", "context", "conversation_id"} <= set(listed["answer"].input_schema["properties"])
    assert not hits.is_error and not grounded.is_error
    payload = grounded.structured_content
    assert "90일" in payload["answer"] and [c["label"] for c in payload["citations"]] == ["휴가보장법 제3조"]


def test_agent_over_an_openai_compatible_server(data_dir: Path) -> None:
    """The whole loop over HTTP: tool calls parsed from the server, tool results sent back, the answer streamed."""
    requests: list[dict[str, Any]] = []

    def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        calls = [{"id": f"call_{len(requests)}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]
        message = {"role": "assistant", "content": None, "tool_calls": calls}
        return {"model": "m", "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append(body)
            if body["stream"]:  # the answer, written by the generation prompt
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for piece in ("15일의 유급휴가를 ", "받습니다 [휴가보장법 제2조]"):
                    event = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                return
            seen = [m for m in body["messages"] if m["role"] == "tool"]
            reply = call("search_documents", {"query": "연차 유급휴가"}) if not seen else call("answer", {"question": "연차는?"})
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    llm = OpenAIChat(model="m", base_url=f"http://127.0.0.1:{httpd.server_address[1]}/v1", timeout_s=5.0)
    runner = _runner(data_dir, llm)
    try:
        answer = runner.run("연차 유급휴가는 며칠?")
    finally:
        runner.close()
        httpd.shutdown()
        httpd.server_close()
    assert _nodes(answer) == ["search_documents", "answer", "generate"] and answer.llm_calls == 3
    assert answer.answer == "15일의 유급휴가를 받습니다 [휴가보장법 제2조]"
    assert [c.label for c in answer.citations] == ["휴가보장법 제2조"]
    assert {t["function"]["name"] for t in requests[0]["tools"]} == set(SCHEMAS) and "tools" not in requests[2]
    tool_turn = requests[1]["messages"]
    assert tool_turn[-2]["tool_calls"][0]["function"]["name"] == "search_documents"
    assert tool_turn[-1]["role"] == "tool" and tool_turn[-1]["tool_call_id"] == "call_1"
    assert "휴가보장법 제2조" in tool_turn[-1]["content"]
