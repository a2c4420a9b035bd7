"""The web UI in a real browser: headless Chromium (Playwright) against `geungeo serve`'s app on a real uvicorn server.

The server runs the scripted chat model (its answer streams in small, slow pieces) and the fake embedder over
an empty data directory; the browser uploads a statute, asks in Korean, watches the answer stream, opens its
citation and rates it. Every request that leaves 127.0.0.1 is blocked and must not happen: the UI works offline.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from geungeo.engine import build_engine
from geungeo.graph.runner import QueryRunner
from geungeo.interfaces.api import create_app
from geungeo.settings import Settings
from geungeo.testing.fake_llm import ScriptedChatModel
from geungeo.testing.server import serving

CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

STATUTE = """---
제목: 휴가보장법
시행일자: 2025-01-01
---

# 휴가보장법

## 제1장 총칙

##### 제1조 (목적)

이 법은 근로자의 휴가에 관한 사항을 정함을 목적으로 한다.

##### 제2조 (연차 유급휴가)

**①** 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.

**②** 계속하여 근로한 기간이 1년 미만인 근로자에게는 1개월 개근 시 1일의 유급휴가를 주어야 한다.

##### 제3조 (출산휴가)

사용자는 임신 중인 여성에게 출산 전과 출산 후를 통하여 90일의 출산전후휴가를 주어야 한다.
"""

SCRIPT: dict[str, Any] = {
    "router": {"route": "rag_required", "needs_retrieval": True},
    "planner": {"normalized_query": "연차 유급휴가 일수", "intent": "lookup", "answer_style": "short",
                "sub_queries": [{"text": "연차 유급휴가 일수", "priority": 1}]},
    "rerank": {"order": [0, 1, 2]},
    "judge": {"score": 0.9, "verdict": "sufficient", "missing": []},
    "generate": "1년간 80퍼센트 이상 출근한 근로자는 15일의 유급휴가를 받습니다 [휴가보장법 제2조]",
    "grounding": {"score": 0.95, "unsupported": []},
    "grader": {"completeness": 0.9, "relevance": 0.9, "clarity": 0.9, "accuracy": 0.9, "feedback": ""},
    "suggest": {"questions": ["출산휴가는 며칠인가요?", "연차를 쓰지 못하면 어떻게 되나요?"]},
}

# Records each text the last bot message shows, so that the test sees the answer grow piece by piece.
WATCH_STREAM = """() => {
  window.__bot = [];
  const chat = document.querySelector('#chat');
  new MutationObserver(() => {
    const bots = chat.querySelectorAll('[data-testid="bot"]');
    const text = bots.length ? bots[bots.length - 1].innerText : '';
    if (text && window.__bot[window.__bot.length - 1] !== text) window.__bot.push(text);
  }).observe(chat, {subtree: true, childList: true, characterData: true});
}"""


class SlowStreamModel(ScriptedChatModel):
    """The scripted model, streaming each piece 40 ms apart (as a real model does)."""

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        for chunk in super()._stream(*args, **kwargs):
            time.sleep(0.04)
            yield chunk


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("web-ui") / "data"
    settings = Settings(data_dir=data, embed_provider="fake", cache_enabled=False)
    runner = QueryRunner(build_engine(settings), llm=SlowStreamModel(SCRIPT, chunk_chars=3))
    with serving(create_app(settings, runner)) as url:
        yield url, data
    runner.close()


def test_ui_is_mounted_under_the_api_and_follows_its_api_keys(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", embed_provider="fake", api_keys="web-key")
    with serving(create_app(settings)) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.get("/ui/").status_code == 200  # the page itself (a login form)
        assert client.get("/ui/config").status_code == 401
        assert client.post("/ui/gradio_api/upload", files={"files": ("a.md", b"x")}).status_code == 401
        assert client.post("/ui/login", data={"username": "anyone", "password": "wrong"}).status_code == 400
        assert client.post("/ui/login", data={"username": "anyone", "password": "web-key"}).status_code == 200
        assert client.get("/ui/config").status_code == 200
        assert client.get("/v1/documents").status_code == 401  # the API still wants its key
    bare = create_app(Settings(data_dir=tmp_path / "data", embed_provider="fake", ui_mount_path=""))
    assert not any(getattr(r, "path", "") == "/ui" for r in bare.routes)
    bare.state.api.runner.close()


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/dev.sh test installs it with apt-get)")
def test_upload_ask_stream_cite_and_rate_in_a_browser(server: tuple[str, Path], tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    url, data = server
    statute = tmp_path / "휴가보장법.md"
    statute.write_text(STATUTE, "utf-8")
    outside: list[str] = []
    started = time.monotonic()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100}, locale="ko-KR")
            page.set_default_timeout(30_000)

            def offline(route: Any) -> None:
                if route.request.url.startswith((url, "data:", "blob:")):
                    route.continue_()
                else:
                    outside.append(route.request.url)
                    route.abort()

            page.route("**/*", offline)
            page.goto(f"{url}/ui/")
            expect = sync_api.expect
            expect.set_options(timeout=60_000)  # assertions wait as long as a loaded machine needs (ingestion, streaming)

            # documents: upload a statute and ingest it (the same checks and ingestion as POST /v1/documents)
            page.get_by_role("tab", name="문서 / Documents").click()
            page.locator("#upload input[type=file]").set_input_files(str(statute))
            expect(page.locator("#upload")).to_contain_text("휴가보장법.md")
            page.locator("#ingest").click()
            expect(page.locator("#ingest-report")).to_contain_text("휴가보장법.md")
            expect(page.locator("#documents")).to_contain_text("휴가보장법")
            assert (data / "uploads" / "휴가보장법.md").is_file()

            # chat: ask in Korean; the answer streams in, then its citation and follow-ups appear
            page.get_by_role("tab", name="대화 / Chat").click()
            page.evaluate(WATCH_STREAM)
            page.locator("#question textarea").fill("1년 일하면 연차 유급휴가는 며칠인가요?")
            page.locator("#send").click()
            citation = page.locator("#cite-0")
            expect(citation).to_be_visible()
            expect(citation).to_have_text("[1] 휴가보장법 제2조")
            bot = page.locator('#chat [data-testid="bot"]').last
            expect(bot).to_contain_text("15일의 유급휴가를 받습니다")
            seen: list[str] = page.evaluate("window.__bot")
            partial = [t for t in seen if "15일의 유급휴가를 받습니다" not in t]
            assert len(partial) >= 3, seen  # it grew piece by piece before the final answer
            expect(page.locator("#suggest-0")).to_have_text("출산휴가는 며칠인가요?")

            # the page's text is set in the shipped Korean web font, loaded from the UI's own static files
            assert page.evaluate("document.fonts.check('16px \"Noto Sans KR\"', '연차')")
            assert "Noto Sans KR" in page.evaluate("getComputedStyle(document.querySelector('#question textarea')).fontFamily")
            loaded = page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
            assert any("/ui-static/fonts/noto-sans-kr-korean-400-normal.woff2" in u for u in loaded), loaded
            expect(page.locator("#thumbs-up")).to_have_text("도움됨 / Helpful")  # no emoji: they render as tofu

            # a citation inside the answer text opens its passage, as its button does
            inline = bot.locator('a[href="#cite-0"]').first
            expect(inline).to_be_visible()
            inline.click()
            expect(page.locator("#passage")).to_contain_text("80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다")

            # the citation opens its passage: document, article and the evidence text
            citation.click()
            passage = page.locator("#passage")
            expect(passage).to_contain_text("휴가보장법 제2조")
            expect(passage).to_contain_text("조문 / Article")
            expect(passage).to_contain_text("80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다")

            # the flow log: nodes, timings, LLM calls
            page.get_by_text("흐름 기록 / Flow log").click()
            expect(page.locator("#flow")).to_contain_text("generate")
            expect(page.locator("#flow")).to_contain_text("LLM 호출 / calls")

            # feedback lands in the API's feedback store
            page.locator("#comment textarea").fill("정확해요")
            page.locator("#thumbs-up").click()
            expect(page.locator("#feedback-note")).to_contain_text("Feedback saved")
            record = json.loads((data / "feedback.jsonl").read_text("utf-8").splitlines()[-1])
            assert record["rating"] == "up" and record["comment"] == "정확해요" and record["conversation_id"]

            shot = tmp_path / "web_ui.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"\nweb UI screenshot: {shot}")

            # a follow-up button asks its question in the same conversation
            page.locator("#suggest-0").click()
            expect(page.locator('#chat [data-testid="user"]')).to_have_count(2)
            expect(page.locator('#chat [data-testid="user"]').last).to_contain_text("출산휴가는 며칠인가요?")
            expect(page.locator("#status")).to_contain_text("완료 / Done")
            expect(page.locator("#status")).to_contain_text("답변 작성 / Writing the answer")
            expect(page.locator("#status")).not_to_contain_text("generate")
        finally:
            browser.close()
    assert not outside, f"the UI tried to leave the machine: {outside}"
    assert shot.stat().st_size > 10_000
    print(f"browser part: {time.monotonic() - started:.1f} s")
