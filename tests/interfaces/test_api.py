"""The HTTP API through a real uvicorn server on 127.0.0.1 (httpx and the official openai client)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openai import OpenAI

from geungeo.engine import build_engine
from geungeo.graph.runner import QueryRunner
from geungeo.interfaces.api import create_app
from geungeo.settings import Settings
from geungeo.testing.fake_llm import ScriptedChatModel
from geungeo.testing.server import serving
from tests.fixtures import VACATION_LAW as LAW

RULES = """---
제목: 교원인사규정
---

# 교원인사규정

## 제1장 총칙

##### 제1조 (목적)

이 규정은 교원의 임용과 승진에 관한 사항을 정함을 목적으로 한다.

## 제2장 승진

##### 제8조 (승진 소요 연수)

**①** 조교수가 부교수로 승진하려면 4년 이상 재직하여야 한다.

**②** 부교수가 교수로 승진하려면 5년 이상 재직하여야 한다.
"""

EXTRA = """---
제목: 주차관리규정
---

# 주차관리규정

##### 제1조 (주차권)

교직원은 연 1회 정기 주차권을 신청할 수 있다.
"""


def _settings(data: Path, **extra: Any) -> Settings:
    return Settings(data_dir=data, embed_provider="fake", llm_provider="none", cache_enabled=False, **extra)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("api")
    (root / "docs").mkdir()
    (root / "docs" / "휴가보장법.md").write_text(LAW, "utf-8")
    (root / "docs" / "교원인사규정.md").write_text(RULES, "utf-8")
    engine = build_engine(_settings(root / "data"))
    engine.ingest([root / "docs"])
    engine.close()
    return root / "data"


@pytest.fixture(scope="module")
def base(data_dir: Path) -> Iterator[str]:
    app = create_app(_settings(data_dir, api_max_upload_mb=1, api_cors_origins="http://example.org"))
    with serving(app) as url:
        yield url


@pytest.fixture(scope="module")
def client(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def guarded(data_dir: Path) -> Iterator[str]:
    """A second app: API keys required, 1 s timeout, and an LLM whose planner takes 1.3 s."""
    settings = _settings(data_dir, api_keys="key-one, key-two", api_timeout_s=1.0)

    def slow_planner(_: Any) -> dict[str, Any]:
        time.sleep(1.3)
        return {"normalized_query": "연차", "sub_queries": [{"text": "연차", "priority": 1}]}

    slow = ScriptedChatModel({"planner": slow_planner}, default="{}")
    runner = QueryRunner(build_engine(settings), llm=slow)
    with serving(create_app(settings, runner)) as url:
        yield url
    time.sleep(1.5)  # let the abandoned runs finish before the store closes
    runner.close()


def events(response: httpx.Response) -> list[tuple[str, Any]]:
    """(event, data) pairs of a server-sent event stream."""
    out: list[tuple[str, Any]] = []
    name = "message"
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
            out.append((name, data if data == "[DONE]" else json.loads(data)))
            name = "message"
    return out


def parse_events(raw: bytes) -> list[tuple[str, Any]]:
    """(event, data) pairs of a whole SSE body."""
    names = []
    for frame in raw.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines() if ": " in line)
        if "data" in lines:
            names.append((lines.get("event", "message"), lines["data"]))
    return names


# --- health, OpenAPI, CORS ------------------------------------------------------------------


def test_health_counts_the_store(client: httpx.Client) -> None:
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and body["documents"] >= 2 and body["chunks"] > 0 and body["llm"].startswith("none")


def test_openapi_lists_every_endpoint(client: httpx.Client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/v1/ask", "/v1/ask/stream", "/v1/search", "/v1/documents", "/v1/documents/{doc_id}", "/healthz",
                 "/v1/structure/{regulation}", "/v1/feedback", "/v1/chat/completions", "/v1/models",
                 "/v1/page_images/{digest}/{name}"):
        assert path in paths


def test_cors_preflight(client: httpx.Client) -> None:
    r = client.options("/v1/ask", headers={"Origin": "http://example.org", "Access-Control-Request-Method": "POST"})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "http://example.org"


# --- ask --------------------------------------------------------------------------------------


def test_ask_answers_with_citations(client: httpx.Client) -> None:
    r = client.post("/v1/ask", json={"question": "1년 일하면 연차 유급휴가 며칠 받아요?"})
    assert r.status_code == 200
    answer = r.json()
    assert "15일" in answer["answer"] and not answer["refused"]
    assert answer["citations"][0]["label"] == "휴가보장법 제2조" and answer["citations"][0]["chunk_id"]
    assert answer["flow_log"] and answer["llm_calls"] == 0


def test_ask_keeps_a_conversation(client: httpx.Client) -> None:
    client.post("/v1/ask", json={"question": "출산휴가는 며칠인가요?", "conversation_id": "api-c1"})
    answer = client.post("/v1/ask", json={"question": "그럼 위반하면 처벌은?", "conversation_id": "api-c1"}).json()
    assert answer["route"] == "history_required" and answer["conversation_id"] == "api-c1"


def test_ask_errors_are_json(client: httpx.Client) -> None:
    for body, status, text in (
        ({"question": "   "}, 400, "empty"),
        ({"question": "가" * 5000}, 400, "too long"),
        ({"question": "연차", "filters": "nope=1"}, 400, "unknown field"),
        ({"question": "연차", "filters": "doc=휴가보장벚"}, 400, "did you mean: 휴가보장법"),  # a typo, not "근거 부족"
        ({"q": "연차"}, 422, "question"),
        ({"question": "가" * 300_000}, 413, "too large"),
    ):
        r = client.post("/v1/ask", json=body)
        assert r.status_code == status and text in r.json()["error"], (body, r.text[:200])
    assert client.post("/v1/ask/stream", json={"question": ""}).status_code == 400


def test_ask_stream_sends_nodes_then_tokens_then_the_answer(client: httpx.Client) -> None:
    with client.stream("POST", "/v1/ask/stream", json={"question": "출산휴가는 며칠인가요?"}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        got = events(r)
    kinds = [k for k, _ in got]
    assert kinds[0] == "node" and kinds[-1] == "answer" and kinds.count("answer") == 1 and "error" not in kinds
    assert kinds.index("token") > kinds.index("node")
    answer = got[-1][1]
    assert "90일" in answer["answer"]
    streamed = "".join(d["text"] for k, d in got if k == "token")
    assert "90일" in streamed
    assert {d["node"] for k, d in got if k == "node"} >= {"router", "planner", "generate"}


# --- search and structure -------------------------------------------------------------------


def test_search_returns_located_hits(client: httpx.Client) -> None:
    r = client.post("/v1/search", json={"query": "승진 소요 연수", "k": 3})
    hits = r.json()["hits"]
    assert r.status_code == 200 and 0 < len(hits) <= 3
    top = hits[0]
    assert top["doc"] == "교원인사규정" and top["article"] == "제8조" and "4년" in top["text"]
    assert set(top) >= {"doc", "code", "article", "page", "header", "text", "score", "chunk_id"}
    only = client.post("/v1/search", json={"query": "휴가", "filters": ["doc=교원인사규정"], "mode": "sparse"}).json()
    assert all(h["doc"] == "교원인사규정" for h in only["hits"])
    assert client.post("/v1/search", json={"query": "휴가", "mode": "magic"}).status_code == 422
    assert client.post("/v1/search", json={"query": ""}).status_code == 400


def test_structure_lookups(client: httpx.Client) -> None:
    article = client.get("/v1/structure/교원인사규정", params={"article": "8"}).json()
    assert article["query"] == "교원인사규정 제8조" and article["kind"] == "article"
    assert "4년" in article["text"] and "5년" in article["text"] and article["citations"]
    chapter = client.get("/v1/structure/휴가보장법", params={"chapter": "2"}).json()
    assert chapter["kind"] == "chapter" and "2천만원" in chapter["text"]
    assert client.get("/v1/structure/휴가보장법", params={"full": "true"}).json()["kind"] == "full"
    assert client.get("/v1/structure/휴가보장법").json()["kind"] == "overview"
    missing = client.get("/v1/structure/휴가보장법", params={"article": "99"})
    assert missing.status_code == 404 and "제99조" in missing.json()["error"]
    assert client.get("/v1/structure/없는규정", params={"article": "1"}).status_code == 404


# --- documents --------------------------------------------------------------------------------


def finished(client: httpx.Client, response: httpx.Response) -> dict[str, Any]:
    """The job an upload answered with (202), once it has finished."""
    assert response.status_code == 202, response.text
    job = response.json()
    deadline = time.monotonic() + 60
    while job["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.05)
        job = client.get(f"/v1/jobs/{job['job_id']}").json()
    return dict(job)


def test_upload_list_and_delete(client: httpx.Client, data_dir: Path) -> None:
    r = client.post("/v1/documents", files={"files": ("주차관리규정.md", EXTRA.encode(), "text/markdown")})
    job = finished(client, r)
    assert job["status"] == "done" and job["files"] == ["주차관리규정.md"], job
    report = job["result"]
    assert report["documents"] == 1 and report["failed"] == 0 and report["files"][0]["file"] == "주차관리규정.md"
    assert (data_dir / "uploads" / "주차관리규정.md").is_file()
    docs = client.get("/v1/documents").json()["documents"]
    doc = next(d for d in docs if d["title"] == "주차관리규정")
    assert client.post("/v1/search", json={"query": "정기 주차권", "k": 1}).json()["hits"][0]["doc"] == "주차관리규정"
    deleted = client.delete(f"/v1/documents/{doc['doc_id']}")
    assert deleted.status_code == 200 and deleted.json()["chunks"] >= 1
    assert all(d["title"] != "주차관리규정" for d in client.get("/v1/documents").json()["documents"])
    assert not (data_dir / "uploads" / "주차관리규정.md").exists()
    assert client.delete(f"/v1/documents/{doc['doc_id']}").status_code == 404


def test_page_images_are_served_from_the_data_directory_only(client: httpx.Client, data_dir: Path) -> None:
    page = data_dir / "page_images" / "0123abcd" / "p4.png"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    r = client.get("/v1/page_images/0123abcd/p4.png")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png" and r.content.startswith(b"\x89PNG")
    for bad in ("0123abcd/p5.png", "0123abcd/..%2F..%2Fconversations.sqlite", "..%2F..%2Fcache/p4.png", "XYZ/p4.png"):
        assert client.get(f"/v1/page_images/{bad}").status_code == 404, bad


def test_upload_rejections(client: httpx.Client, data_dir: Path) -> None:
    root = data_dir.parent
    before = {p for p in root.rglob("*") if "uploads" not in p.parts}
    for name in ("../evil.md", "/tmp/evil.md", "..\\evil.md", ".hidden.md"):
        r = client.post("/v1/documents", files={"files": (name, b"# x", "text/markdown")})
        assert r.status_code == 400 and "file name" in r.json()["error"], (name, r.text)
    r = client.post("/v1/documents", files={"files": ("virus.exe", b"MZ", "application/octet-stream")})
    assert r.status_code == 415 and ".exe" in r.json()["error"]
    for size in (3 << 20, 3 << 19):  # past the body limit; past the file limit only
        r = client.post("/v1/documents", files={"files": ("big.md", b"a" * size, "text/markdown")})
        assert r.status_code == 413 and "too large" in r.json()["error"], r.text
    after = {p for p in root.rglob("*") if "uploads" not in p.parts}
    assert not {p for p in after - before if p.suffix in (".md", ".exe")}
    assert not list((data_dir / "uploads").glob("*.md")) if (data_dir / "uploads").exists() else True


def test_nfc_file_names(client: httpx.Client, data_dir: Path) -> None:
    import unicodedata

    nfd = unicodedata.normalize("NFD", "주차관리규정.md")
    uploaded = client.post("/v1/documents", files={"files": (nfd, EXTRA.encode(), "text/markdown")})
    assert finished(client, uploaded)["status"] == "done"
    assert (data_dir / "uploads" / "주차관리규정.md").is_file()
    doc = next(d for d in client.get("/v1/documents").json()["documents"] if d["title"] == "주차관리규정")
    assert client.delete(f"/v1/documents/{doc['doc_id']}").status_code == 200


# --- feedback -----------------------------------------------------------------------------------


def test_feedback_is_appended(client: httpx.Client, data_dir: Path) -> None:
    body = {"question": "연차는?", "answer": "15일", "rating": "down", "correction": "15일 (1년 80% 출근 시)"}
    r = client.post("/v1/feedback", json=body)
    assert r.status_code == 200
    lines = (data_dir / "feedback.jsonl").read_text("utf-8").splitlines()
    stored = json.loads(lines[-1])
    assert stored["id"] == r.json()["id"] and stored["rating"] == "down" and stored["correction"].startswith("15일")
    assert client.post("/v1/feedback", json={**body, "rating": "meh"}).status_code == 422


def test_a_correction_is_a_proposal_until_a_reviewer_accepts_it(client: httpx.Client, data_dir: Path) -> None:
    question = "정기 주차권 신청은 어디에 하나요?"
    body = {"question": question, "answer": "근거 부족", "rating": "down",
            "correction": "정기 주차권은 총무팀에 신청하며, 신청서는 매 학기 시작 2주 전까지 제출합니다."}
    proposed = client.post("/v1/feedback", json=body).json()
    correction_id = proposed["correction_id"]
    assert isinstance(correction_id, int) and proposed["correction_status"] == "proposed"
    before = client.post("/v1/ask", json={"question": question}).json()
    assert all(e["origin"] != "correction" for e in before["evidence"])  # anyone's proposal changes nothing
    # this server has no reviewer keys: reviewing over HTTP is refused, the CLI on the server reviews
    assert client.get("/v1/corrections").status_code == 403
    assert client.post(f"/v1/corrections/{correction_id}/accept", json={}).status_code == 403
    settings = _settings(data_dir, reviewer_keys="rev-key")
    with serving(create_app(settings)) as url, httpx.Client(base_url=url, timeout=60) as reviewing:
        assert reviewing.get("/v1/corrections", headers={"X-API-Key": "not-a-reviewer"}).status_code == 403
        listed = reviewing.get("/v1/corrections", params={"status": "proposed"}, headers={"X-API-Key": "rev-key"}).json()
        assert correction_id in [c["id"] for c in listed] and {c["status"] for c in listed} == {"proposed"}
        accepted = reviewing.post(
            f"/v1/corrections/{correction_id}/accept", json={"name": "김검토"}, headers={"Authorization": "Bearer rev-key"}
        ).json()
        assert accepted["status"] == "accepted" and accepted["reviewed_by"].startswith("김검토 (key:")
        assert accepted["reviewed_at"] >= accepted["created"]
        assert reviewing.post("/v1/corrections/999/accept", json={}, headers={"X-API-Key": "rev-key"}).status_code == 404
        answer = reviewing.post("/v1/ask", json={"question": question}).json()
    assert answer["evidence"][0]["origin"] == "correction" and answer["evidence"][0]["label"] == f"검수 답변 #{correction_id}"
    assert not answer["refused"] and any(c["label"] == f"검수 답변 #{correction_id}" for c in answer["citations"])
    assert "총무팀" in answer["answer"]


# --- OpenAI-compatible ----------------------------------------------------------------------


def test_openai_client_chat_completion(base: str) -> None:
    oai = OpenAI(base_url=f"{base}/v1", api_key="unused")
    assert [m.id for m in oai.models.list()] == ["geungeo"]
    first = oai.chat.completions.create(model="geungeo", messages=[{"role": "user", "content": "출산휴가는 며칠인가요?"}])
    content = first.choices[0].message.content or ""
    assert "90일" in content and "[휴가보장법 제3조]" in content and first.choices[0].finish_reason == "stop"
    extra = first.model_extra or {}
    assert extra["citations"][0]["label"] == "휴가보장법 제3조"
    follow = oai.chat.completions.create(
        model="geungeo",
        messages=[
            {"role": "user", "content": "출산휴가는 며칠인가요?"},
            {"role": "assistant", "content": content},
            {"role": "user", "content": "그럼 위반하면 처벌은?"},
        ],
    )
    assert (follow.model_extra or {})["conversation_id"] == extra["conversation_id"]
    assert any("제4조" in c["label"] for c in (follow.model_extra or {})["citations"])


def test_openai_client_streaming(base: str) -> None:
    oai = OpenAI(base_url=f"{base}/v1", api_key="unused")
    question = [{"role": "user", "content": "1년 일하면 연차 유급휴가 며칠 받아요?"}]
    whole = oai.chat.completions.create(model="geungeo", messages=question)  # type: ignore[arg-type]
    chunks = list(oai.chat.completions.create(model="geungeo", messages=question, stream=True))  # type: ignore[arg-type]
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert len(chunks) > 3 and chunks[-1].choices[0].finish_reason == "stop"
    assert text == whole.choices[0].message.content
    assert (chunks[-1].model_extra or {})["citations"][0]["label"] == "휴가보장법 제2조"


def test_openai_raw_stream_ends_with_done(client: httpx.Client) -> None:
    body = {"model": "geungeo", "stream": True, "messages": [{"role": "user", "content": "연차 유급휴가"}]}
    with client.stream("POST", "/v1/chat/completions", json=body) as r:
        got = events(r)
    assert got[-1][1] == "[DONE]" and got[0][1]["object"] == "chat.completion.chunk"
    assert client.post("/v1/chat/completions", json={**body, "model": "gpt-4"}).status_code == 404
    no_user = {**body, "messages": [{"role": "system", "content": "hi"}]}
    assert client.post("/v1/chat/completions", json=no_user).status_code == 400


def test_openai_user_names_the_conversation(client: httpx.Client) -> None:
    body = {"model": "geungeo", "user": "alice", "messages": [{"role": "user", "content": "출산휴가는 며칠인가요?"}]}
    first = client.post("/v1/chat/completions", json=body).json()
    second = client.post("/v1/chat/completions", json={**body, "messages": [{"role": "user", "content": "그럼 벌칙은?"}]}).json()
    assert first["conversation_id"] == second["conversation_id"] and first["conversation_id"].startswith("oai-user-")
    assert first["object"] == "chat.completion" and first["choices"][0]["message"]["role"] == "assistant"


# --- auth and timeouts (second app) -------------------------------------------------------------


def test_api_keys(guarded: str) -> None:
    with httpx.Client(base_url=guarded, timeout=30) as c:
        assert c.get("/healthz").status_code == 200
        r = c.post("/v1/search", json={"query": "연차"})
        assert r.status_code == 401 and "API" in r.json()["error"]
        assert c.post("/v1/search", json={"query": "연차"}, headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.post("/v1/search", json={"query": "연차"}, headers={"Authorization": "Bearer key-one"}).status_code == 200
        assert c.get("/v1/documents", headers={"X-API-Key": "key-two"}).status_code == 200
        oai = OpenAI(base_url=f"{guarded}/v1", api_key="key-two")
        assert [m.id for m in oai.models.list()] == ["geungeo"]


def test_auth_off_by_default(client: httpx.Client) -> None:
    assert client.get("/v1/documents").status_code == 200


def test_timeouts(guarded: str) -> None:
    key = {"X-API-Key": "key-one"}
    with httpx.Client(base_url=guarded, timeout=30, headers=key) as c:
        started = time.monotonic()
        r = c.post("/v1/ask", json={"question": "연차 유급휴가는 며칠?"})
        assert r.status_code == 504 and "timed out" in r.json()["error"] and time.monotonic() - started < 3
        with c.stream("POST", "/v1/ask/stream", json={"question": "연차 유급휴가는 며칠?"}) as s:
            got = events(s)
        assert got[-1][0] == "error" and "timed out" in got[-1][1]["error"]


# --- concurrency --------------------------------------------------------------------------------


def test_twenty_concurrent_streams(base: str) -> None:
    questions = ["연차 유급휴가는 며칠?", "출산휴가 기간", "승진 소요 연수", "벌칙은?", "교수 승진 요건"]

    async def one(c: httpx.AsyncClient, n: int) -> str:
        async with c.stream("POST", "/v1/ask/stream", json={"question": questions[n % len(questions)]}) as r:
            kinds = [k for k, _ in parse_events(await r.aread())]
        return "ok" if r.status_code == 200 and kinds[-1] == "answer" and "error" not in kinds else f"{r.status_code} {kinds}"

    async def main() -> list[str]:
        async with httpx.AsyncClient(base_url=base, timeout=120) as c:
            return await asyncio.gather(*(one(c, n) for n in range(20)))

    assert asyncio.run(main()) == ["ok"] * 20



# --- contained input, background uploads --------------------------------------------------------


def test_invalid_unicode_is_a_400_not_a_crash(client: httpx.Client) -> None:
    raw = '{"query": "\\ud800 연차"}'.encode()  # JSON's escape of a lone surrogate: valid JSON, invalid text
    r = client.post("/v1/search", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "not valid Unicode" in r.json()["error"], r.text
    for path in ("/v1/ask", "/v1/ask/stream"):
        r = client.post(path, content='{"question": "연차 \\udcff"}'.encode(), headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "유니코드" in r.json()["error"], (path, r.text)
    body = '{"model": "geungeo", "messages": [{"role": "user", "content": "\\ud83d 연차"}]}'.encode()
    r = client.post("/v1/chat/completions", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "not valid Unicode" in r.json()["error"]["message"]


def test_a_question_under_the_limit_is_answered_with_its_lexicon_terms(client: httpx.Client) -> None:
    question = "월급을 못 받았어요 연차 유급휴가는 며칠인가요? "
    question += "가" * (1993 - len(question))
    r = client.post("/v1/ask", json={"question": question})
    assert r.status_code == 200, r.text[:300]


def test_a_failed_upload_leaves_nothing_and_shows_no_server_path(client: httpx.Client, data_dir: Path) -> None:
    job = finished(client, client.post("/v1/documents", files={"files": ("빈문서.md", b"", "text/markdown")}))
    assert job["status"] == "done" and job["result"]["failed"] == 1, job
    error = job["result"]["files"][0]["error"]
    assert error and str(data_dir.resolve()) not in json.dumps(job, ensure_ascii=False) and "/" not in error
    assert not (data_dir / "uploads" / "빈문서.md").exists()
    assert not [p for p in (data_dir / "uploads").iterdir() if p.name.endswith(".part")]
    missing = client.get("/v1/jobs/0123456789abcdef")
    assert missing.status_code == 404 and "no job" in missing.json()["error"]


def test_docs_are_served_without_a_cdn(client: httpx.Client) -> None:
    for path, asset in (("/docs", "/static-docs/swagger-ui-bundle.js"), ("/redoc", "/static-docs/redoc.standalone.js")):
        page = client.get(path)
        assert page.status_code == 200 and asset in page.text, path
        assert not any(cdn in page.text for cdn in ("cdn.jsdelivr", "unpkg.com", "fonts.googleapis")), path
        script = client.get(asset)
        assert script.status_code == 200 and len(script.content) > 100_000
    assert client.get("/static-docs/swagger-ui.css").status_code == 200


# --- OpenAI conventions, through the official client ---------------------------------------------


def test_openai_errors_reach_the_sdk_with_their_message(base: str) -> None:
    import openai

    oai = OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)
    question: Any = [{"role": "user", "content": "연차는 며칠?"}]
    with pytest.raises(openai.NotFoundError) as missing:
        oai.chat.completions.create(model="gpt-4", messages=question)
    assert "model 'gpt-4' not found" in missing.value.message and missing.value.code == "model_not_found"
    with pytest.raises(openai.BadRequestError) as many:
        oai.chat.completions.create(model="geungeo", messages=question, n=2)
    assert "unsupported parameter 'n'" in many.value.message and many.value.param == "n"
    tool: Any = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    with pytest.raises(openai.BadRequestError, match="tools"):
        oai.chat.completions.create(model="geungeo", messages=question, tools=[tool])
    with pytest.raises(openai.BadRequestError, match="empty query"):
        oai.chat.completions.create(model="geungeo", messages=[{"role": "user", "content": "  "}])
    assert oai.models.retrieve("geungeo").id == "geungeo"
    with pytest.raises(openai.NotFoundError, match="not found"):
        oai.models.retrieve("gpt-4")


def test_openai_usage_is_filled(base: str) -> None:
    oai = OpenAI(base_url=f"{base}/v1", api_key="unused")
    question: Any = [{"role": "user", "content": "출산휴가는 며칠인가요?"}]
    whole = oai.chat.completions.create(model="geungeo", messages=question)
    usage = whole.usage
    assert usage is not None and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    chunks = list(oai.chat.completions.create(model="geungeo", messages=question, stream=True,
                                              stream_options={"include_usage": True}))
    assert chunks[-1].usage is not None and chunks[-1].usage.prompt_tokens == usage.prompt_tokens
    assert chunks[-1].usage.completion_tokens == usage.completion_tokens


def test_openai_transcript_the_client_assembled_is_a_conversation(data_dir: Path) -> None:
    """A transcript whose earlier turns this server never answered: its messages are the history."""
    app = create_app(_settings(data_dir))
    with serving(app) as url:
        oai = OpenAI(base_url=f"{url}/v1", api_key="unused")
        follow = oai.chat.completions.create(
            model="geungeo",
            messages=[
                {"role": "user", "content": "출산휴가는 며칠인가요?"},
                {"role": "assistant", "content": "출산전후휴가는 90일입니다. [휴가보장법 제3조]"},
                {"role": "user", "content": "그럼 위반하면 처벌은?"},
            ],
        )
        conversation_id = (follow.model_extra or {})["conversation_id"]
        runner = app.state.api.services.runner
        history = runner.graph.get_state({"configurable": {"thread_id": conversation_id}}).values["history"]
    assert [type(m).__name__ for m in history] == ["HumanMessage", "AIMessage", "HumanMessage", "AIMessage"]
    assert "출산휴가" in str(history[0].content)
    assert any("제4조" in c["label"] for c in (follow.model_extra or {})["citations"])


def test_openai_user_conversation_starts_from_the_transcript(data_dir: Path) -> None:
    """A conversation named by ``user`` that this server has not seen yet also takes the messages as its history."""
    app = create_app(_settings(data_dir))
    with serving(app) as url, httpx.Client(base_url=url, timeout=60) as c:
        body = {"model": "geungeo", "user": "bob-new", "messages": [
            {"role": "user", "content": "출산휴가는 며칠인가요?"},
            {"role": "assistant", "content": "90일입니다."},
            {"role": "user", "content": "그럼 위반하면 처벌은?"},
        ]}
        reply = c.post("/v1/chat/completions", json=body).json()
        runner = app.state.api.services.runner
        state = runner.graph.get_state({"configurable": {"thread_id": reply["conversation_id"]}}).values
    assert len(state["history"]) == 4 and state["route"] == "history_required"


def test_an_empty_store_is_a_clear_409(tmp_path: Path) -> None:
    with serving(create_app(_settings(tmp_path / "empty"))) as url, httpx.Client(base_url=url, timeout=60) as c:
        for path, body in (("/v1/ask", {"question": "연차는 며칠?"}), ("/v1/ask/stream", {"question": "연차는 며칠?"})):
            r = c.post(path, json=body)
            assert r.status_code == 409 and "store is empty" in r.json()["error"], (path, r.text)
        oai = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        import openai

        with pytest.raises(openai.ConflictError, match="store is empty"):
            oai.chat.completions.create(model="geungeo", messages=[{"role": "user", "content": "연차는 며칠?"}])
