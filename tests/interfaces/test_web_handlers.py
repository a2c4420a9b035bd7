"""The web UI's handlers without a browser: formatting, streaming, passages, uploads, documents, feedback."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from geungeo.answering.models import Answer, Citation, EvidenceItem, FlowStep, Groundedness
from geungeo.engine import build_engine
from geungeo.errors import QueryError
from geungeo.graph.runner import QueryRunner
from geungeo.ingest import page_images
from geungeo.interfaces.api.state import ApiState
from geungeo.interfaces.web import handlers, labels
from geungeo.services import Services
from geungeo.settings import Settings
from tests.fixtures import VACATION_LAW as LAW


def _item(n: int = 1, **extra: Any) -> EvidenceItem:
    fields: dict[str, Any] = {
        "n": n, "chunk_id": f"c{n}", "doc_id": "d1", "label": "휴가보장법 제2조", "doc": "휴가보장법", "article": "제2조",
        "header": "휴가보장법 제2조(연차 유급휴가)",
        "text": "① 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.",
    }
    return EvidenceItem(**{**fields, **extra})


def _answer(**extra: Any) -> Answer:
    item = _item()
    fields: dict[str, Any] = {
        "question": "연차는 며칠?",
        "answer": "15일의 유급휴가를 받습니다 [휴가보장법 제2조]",
        "mode": "llm",
        "citations": [Citation.of(item)],
        "evidence": [item],
        "suggestions": ["출산휴가는 며칠인가요?", "위반하면 처벌은?"],
        "flow_log": [FlowStep(node="router", seconds=0.01, llm_calls=1, note="rag | planner"),
                     FlowStep(node="generate", seconds=0.5, llm_calls=1)],
        "llm_calls": 2,
        "conversation_id": "web-1",
    }
    return Answer(**{**fields, **extra})


# --- formatting (no store) ---------------------------------------------------------------------


def test_citations_are_numbered_buttons_and_listed_in_the_bubble() -> None:
    answer = _answer()
    assert handlers.citation_labels(answer) == ["[1] 휴가보장법 제2조"]
    bubble = handlers.answer_markdown(answer)
    assert bubble.startswith("15일의 유급휴가") and "근거 / Sources: [1] 휴가보장법 제2조" in bubble
    many = _answer(citations=[Citation.of(_item(n)) for n in range(1, 12)])
    assert len(handlers.citation_labels(many)) == handlers.MAX_CITATIONS
    assert "근거 / Sources" not in handlers.answer_markdown(_answer(citations=[], answer="근거 부족: …", refused=True))


def test_passage_shows_document_article_page_and_text() -> None:
    answer = _answer()
    item = handlers.cited_evidence(answer, 0)
    assert item is not None and handlers.cited_evidence(answer, 1) is None and handlers.cited_evidence(answer, -1) is None
    md = handlers.passage_markdown(item)
    assert md.startswith("### 휴가보장법 제2조")
    assert "**문서 / Document**: 휴가보장법" in md and "**조문 / Article**: 제2조" in md and "15일의 유급휴가" in md
    pdf = handlers.passage_markdown(_item(label="보고서.pdf p.4", article=None, page=4, doc="보고서", code="R-1"))
    assert "**쪽 / Page**: 4" in pdf and "(R-1)" in pdf and "Article" not in pdf


def test_flow_log_lists_nodes_timings_and_llm_calls() -> None:
    answer = _answer(groundedness=Groundedness(score=0.42, checked_by="llm"), removed_citations=1)
    md = handlers.flow_log_markdown(answer)
    assert "LLM 호출 / calls 2" in md and "| router | 0.010 | 1 | rag \\| planner |" in md and "| generate | 0.500 | 1 |" in md
    assert "groundedness 0.42 (llm)" in md and "1 citation(s) to nothing removed" in md
    assert handlers.steps_markdown([]) == labels.WORKING
    status = handlers.steps_markdown(["cache_lookup", "router", "planner", "retrieve"], done=True)
    assert status == (f"{labels.DONE}: 이전 답변 확인 / Checking earlier answers → 질문 이해 / Reading the question → "
                      "검색 계획 / Planning the search → 문서 검색 / Searching the documents")
    assert "router" not in handlers.steps_markdown(["router"]) and "_" not in handlers.steps_markdown(["cache_store"])


def test_groundedness_warning_is_shown() -> None:
    assert handlers.warnings_markdown(_answer()) == ""
    warned = _answer(warnings=["⚠ 근거 확인 실패(groundedness 0.30): 30일"])
    assert handlers.warnings_markdown(warned) == "> ⚠ 근거 확인 실패(groundedness 0.30): 30일"


def test_page_image_must_lie_inside_the_data_dir(tmp_path: Path) -> None:
    data = tmp_path / "data"
    image = data / "page_images" / "abc" / "p4.png"
    image.parent.mkdir(parents=True)
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "outside.png").write_bytes(b"x")
    (data / "page_images" / "abc" / "notes.txt").write_text("x")
    assert page_images.resolve(data, "page_images/abc/p4.png") == image.resolve()
    for bad in (None, "", 4, "page_images/abc/p5.png", "../outside.png", str(tmp_path / "outside.png"),
                "page_images/abc/notes.txt"):
        assert page_images.resolve(data, bad) is None, bad


def test_upload_names_are_checked_like_the_api() -> None:
    assert handlers.check_upload("휴가보장법.md") == "휴가보장법.md"
    for name, why in (("../../etc/passwd.md", "invalid file name"), ("..\\x.md", "invalid file name"),
                      (".hidden.md", "invalid file name"), ("/abs.md", "invalid file name"), ("", "invalid file name"),
                      ("virus.exe", "unsupported file type"), ("README", "unsupported file type")):
        with pytest.raises(handlers.UserError, match=why):
            handlers.check_upload(name)


# --- actions over a real store and runner ----------------------------------------------------------


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiState]:
    root = tmp_path_factory.mktemp("web")
    (root / "docs").mkdir()
    (root / "docs" / "휴가보장법.md").write_text(LAW, "utf-8")
    settings = Settings(data_dir=root / "data", embed_provider="fake", llm_provider="none", cache_enabled=False,
                        api_max_upload_mb=1)
    engine = build_engine(settings)
    engine.ingest([root / "docs"])
    services = Services(runner=QueryRunner(engine))
    yield ApiState(settings=settings, services=services)
    services.close()


async def _collect(state: ApiState, question: str, conversation: str) -> list[handlers.StreamUpdate]:
    return [u async for u in handlers.stream_answer(state, question, conversation)]


def test_stream_answer_streams_then_ends_with_the_answer(state: ApiState) -> None:
    updates = asyncio.run(_collect(state, "1년 일하면 연차 유급휴가 며칠 받아요?", "web-t1"))
    final = updates[-1]
    assert final.answer is not None and final.error is None and "15일" in final.answer.answer
    assert final.answer.conversation_id == "web-t1" and handlers.citation_labels(final.answer) == ["[1] 휴가보장법 제2조"]
    partial = [u.text for u in updates[:-1] if u.text]
    assert len(set(partial)) > 3 and all(b.startswith(a) for a, b in pairwise(partial))
    assert "router" in final.steps and "generate" in final.steps
    with pytest.raises(QueryError):
        handlers.check_question(state, "   ", None)
    with pytest.raises(QueryError):
        handlers.check_question(state, "연차", "nope=1")
    assert handlers.check_question(state, "연차", "  ").filters is None


def test_open_passage_reads_the_store_and_shows_the_page_image(state: ApiState, monkeypatch: pytest.MonkeyPatch) -> None:
    final = asyncio.run(_collect(state, "연차 유급휴가는 며칠?", "web-t2"))[-1].answer
    assert final is not None
    passage = asyncio.run(handlers.open_passage(state, final, 0))
    assert passage.markdown.startswith("### 휴가보장법 제2조") and "15일의 유급휴가" in passage.markdown
    assert passage.image is None
    assert asyncio.run(handlers.open_passage(state, final, 9)).markdown == labels.PASSAGE_EMPTY
    assert asyncio.run(handlers.open_passage(state, None, 0)).markdown == labels.PASSAGE_EMPTY

    image = state.settings.data_dir / "page_images" / "h" / "p2.png"
    image.parent.mkdir(parents=True, exist_ok=True)
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    store = state.services.engine.store
    real_get = store.get

    def with_image(ids: Any) -> Any:
        return [dataclasses.replace(c, meta={**c.meta, "page_image": "page_images/h/p2.png"}) for c in real_get(ids)]

    monkeypatch.setattr(store, "get", with_image)
    bare = final.model_copy(update={"evidence": []})  # the passage then comes from the store alone
    passage = asyncio.run(handlers.open_passage(state, bare, 0))
    assert passage.image == image.resolve() and "15일의 유급휴가" in passage.markdown


def test_feedback_goes_to_the_api_feedback_store(state: ApiState) -> None:
    with pytest.raises(handlers.UserError):
        asyncio.run(handlers.send_feedback(state, None, "up"))
    note = asyncio.run(handlers.send_feedback(state, _answer(), "down", "  조문이 틀렸어요 "))
    assert note.startswith(labels.FEEDBACK_SAVED)
    record = json.loads((state.settings.data_dir / "feedback.jsonl").read_text("utf-8").splitlines()[-1])
    assert record["rating"] == "down" and record["comment"] == "조문이 틀렸어요" and record["conversation_id"] == "web-1"
    assert record["question"] == "연차는 며칠?" and record["id"]
    with pytest.raises(handlers.UserError):
        asyncio.run(handlers.send_feedback(state, _answer(), "up", "가" * 20_000))


def test_upload_list_and_delete(state: ApiState, tmp_path: Path) -> None:
    uploads = state.settings.data_dir / "uploads"
    good = tmp_path / "주차관리규정.md"
    good.write_text("---\n제목: 주차관리규정\n---\n\n# 주차관리규정\n\n##### 제1조 (주차권)\n\n"
                    "교직원은 연 1회 주차권을 신청할 수 있다.\n", "utf-8")
    for name in ("../주차관리규정.md", "주차.exe"):
        with pytest.raises(handlers.UserError):
            asyncio.run(handlers.ingest_uploads(state, [(name, good)]))
    assert not (state.settings.data_dir / "주차관리규정.md").exists() and not (uploads / "주차.exe").exists()
    with pytest.raises(handlers.UserError, match="Upload files first"):
        asyncio.run(handlers.ingest_uploads(state, []))
    big = tmp_path / "큰파일.md"
    big.write_text("가" * (1 << 20), "utf-8")
    with pytest.raises(handlers.UserError, match="too large"):
        asyncio.run(handlers.ingest_uploads(state, [("큰파일.md", big)]))

    seen: list[tuple[str, int, int]] = []
    report = asyncio.run(handlers.ingest_uploads(state, [(good.name, good)], lambda *a: seen.append(a)))
    assert "| 주차관리규정.md | 1 |" in report and "✓" in report and seen and (uploads / good.name).is_file()
    rows = asyncio.run(handlers.document_rows(state))
    parking = next(r for r in rows if r[0] == "주차관리규정")
    assert parking[1] == "주차관리규정.md" and parking[4] >= 1
    assert ("주차관리규정 — 주차관리규정.md", parking[5]) in handlers.document_choices(rows)

    note = asyncio.run(handlers.delete_document(state, parking[5]))
    assert note.startswith("✓") and not (uploads / good.name).exists()
    assert all(r[0] != "주차관리규정" for r in asyncio.run(handlers.document_rows(state)))
    for missing in (parking[5], None, ""):
        with pytest.raises(handlers.UserError):
            asyncio.run(handlers.delete_document(state, missing))


def test_cli_has_a_ui_command() -> None:
    from typer.testing import CliRunner

    from geungeo.interfaces.cli import app

    result = CliRunner().invoke(app, ["ui", "--help"])
    assert result.exit_code == 0 and "web UI" in result.output and "--port" in result.output


def test_citations_inside_the_answer_are_links_to_their_passage() -> None:
    answer = _answer(answer="연차는 15일입니다 [휴가보장법 제2조]. 다른 말 [참고] 도 있습니다.")
    bubble = handlers.answer_markdown(answer)
    assert '<a href="#cite-0" class="cite-link" title="휴가보장법 제2조">[휴가보장법 제2조]</a>' in bubble
    assert "[참고]" in bubble and 'href="#cite-1"' not in bubble


def test_labels_use_no_emoji() -> None:
    """Emoji render as tofu without a colour emoji font: the buttons and status words are plain text."""
    texts = [v for v in vars(labels).values() if isinstance(v, str)] + list(labels.NODE_LABELS.values())
    assert not [t for t in texts if any(ord(c) >= 0x1F000 for c in t)]
    assert labels.node_label("grounding") == "근거 확인 / Checking the answer against the sources"
    assert labels.node_label("new_step") == "new step"
