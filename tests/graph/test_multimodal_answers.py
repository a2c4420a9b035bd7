"""End to end on the real documents: an answer about the SPRI PDF carries its page image and table,
an answer about a 별표 quotes the right row (extractive mode, BM25 ranking)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from geungeo.engine import build_engine
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings
from geungeo.text.normalize import squash
from tests.conftest import CORPUS, need_shared

PDF = CORPUS / "pdf" / "SPRI_AI_Brief_2023년12월호_F.pdf"
BOOK = CORPUS / "regulations" / "규정집9-349(20251202).hwpx"


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QueryRunner]:
    need_shared()
    # The fake embedder's hashed vectors carry no meaning: rank by BM25 alone, as a real embedder's ranking cannot be had
    # here without embedding the whole book.
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("multimodal"), embed_provider="fake", cache_enabled=False, dense_weight=0.0
    )
    engine = build_engine(settings)
    report = engine.ingest([PDF, BOOK])
    assert not report.failed
    r = QueryRunner(engine, llm=None)
    yield r
    r.close()


def test_pdf_answer_carries_the_cited_page_image_and_table(runner: QueryRunner) -> None:
    answer = runner.run("구글 딥마인드의 범용 AI 분류 프레임워크에서 알파고는 몇 단계에 해당하나요?")
    assert not answer.refused, answer.answer
    assert any(c.page == 19 for c in answer.citations), answer.answer
    image = next(img for img in answer.structured.page_images if img.page == 19)
    assert Path(image.path).is_file() and image.path.endswith("p19.png") and image.url.endswith("/p19.png")
    assert image.markdown == f"![{image.label}]({Path(image.path).as_posix()})"
    table = next(e for e in answer.structured.entity_references if e.kind == "table")
    assert any("알파고" in " ".join(row) for row in table.rows)
    assert 0 < answer.structured.confidence <= 1


def test_attachment_table_answer_quotes_the_right_row(runner: QueryRunner) -> None:
    answer = runner.run("학칙에 따르면 물리치료학과의 수여 학위명은 무엇인가요?")
    assert not answer.refused, answer.answer
    assert any(c.label.endswith("별표 2") and c.code == "2-1-1" for c in answer.citations), answer.answer
    assert "물리치료학과" in answer.answer and "물리치료학사" in answer.answer
    # The row is quoted with what its cells are.
    assert any(squash("물리치료학과, 학위명: 물리치료학사") in squash(p) for p in answer.structured.key_points)
    rows = [r for e in answer.structured.entity_references if e.label.endswith("별표 2") for r in e.rows]
    row = next(r for r in rows if "물리치료학과" in r)  # the table entity of the 별표, header and rows
    assert [c for c in row if c][-2:] == ["물리치료학과", "물리치료학사"]
