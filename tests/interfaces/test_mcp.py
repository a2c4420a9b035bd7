"""``geungeo mcp``: a real MCP client talks to ``python -m geungeo mcp`` over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from geungeo.engine import build_engine
from geungeo.settings import Settings
from tests.fixtures import VACATION_LAW

SAFETY_LAW = """---
제목: 안전관리법
시행일자: 2025-01-01
---

# 안전관리법

##### 제1조 (목적)

이 법은 사업장의 안전관리에 관한 사항을 정함을 목적으로 한다.

##### 제2조 (안전교육)

사업주는 근로자에게 매 분기 6시간 이상의 안전교육을 실시하여야 한다.
"""


def _ingest(data_dir: Path, tmp_path: Path) -> None:
    files = []
    for name, text in (("휴가보장법.md", VACATION_LAW), ("안전관리법.md", SAFETY_LAW)):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        files.append(path)
    engine = build_engine(Settings(data_dir=data_dir, embed_provider="fake"))
    try:
        report = engine.ingest(files)
        assert not report.failed
    finally:
        engine.close()


def _text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def _structured(result: Any) -> Any:
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if isinstance(content, dict) and set(content) == {"result"} else content
    return json.loads(_text(result))


async def _session_checks(params: StdioServerParameters) -> None:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"search_documents", "get_article", "get_document_outline", "answer"} <= tools

        article = await session.call_tool("get_article", {"regulation": "휴가보장법", "article": "제2조"})
        assert not article.is_error, _text(article)
        payload = _structured(article)
        assert "15일의 유급휴가" in payload["text"]
        assert "휴가보장법" in payload["citation"] and "제2조" in payload["citation"]

        search = await session.call_tool("search_documents", {"query": "안전교육 시간", "top_k": 3})
        assert not search.is_error, _text(search)
        hits = _structured(search)
        assert 1 <= len(hits) <= 3
        assert {"doc", "code", "article", "page", "header", "text", "score", "chunk_id"} <= set(hits[0])
        assert any("안전교육" in h["text"] for h in hits)

        filtered = await session.call_tool("search_documents", {"query": "휴가", "filters": "doc=안전관리법"})
        assert not filtered.is_error, _text(filtered)
        assert all(h["doc"] == "안전관리법" for h in _structured(filtered))

        missing = await session.call_tool("get_article", {"regulation": "휴가보장법", "article": "제99조"})
        assert missing.is_error
        assert "제99조" in _text(missing)

        unknown = await session.call_tool("get_article", {"regulation": "없는법", "article": "제1조"})
        assert unknown.is_error and "없는법" in _text(unknown)

        outline = await session.call_tool("get_document_outline", {"regulation": "휴가보장법"})
        assert not outline.is_error, _text(outline)
        assert "제4조" in _structured(outline)["text"] and _structured(outline)["citation"] == "[휴가보장법]"

        answer = await session.call_tool("answer", {"question": "연차 유급휴가는 며칠?", "conversation_id": "t1"})
        assert not answer.is_error, _text(answer)
        grounded = _structured(answer)
        assert "15일" in grounded["answer"] and grounded["citations"]

        bad_filter = await session.call_tool("search_documents", {"query": "휴가", "filters": "nonsense==="})
        assert bad_filter.is_error and _text(bad_filter).strip()

        # the server survived the errors
        again = await session.call_tool("get_article", {"regulation": "안전관리법", "article": "제2조"})
        assert not again.is_error and "6시간" in _structured(again)["text"]


def test_mcp_stdio_server(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    _ingest(data_dir, tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEUNGEO_")}
    env.update({"GEUNGEO_DATA_DIR": str(data_dir), "GEUNGEO_EMBED_PROVIDER": "fake", "PYTHONIOENCODING": "utf-8"})
    params = StdioServerParameters(command=sys.executable, args=["-m", "geungeo", "mcp"], env=env, cwd=str(tmp_path))
    asyncio.run(asyncio.wait_for(_session_checks(params), timeout=60))
