"""DOCX and PPTX loaders: the shared glossary files and small generated documents."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import docx
import pptx
import pytest
from pptx.util import Inches

from geungeo.ingest import load_file
from geungeo.text.normalize import squash
from tests.conftest import CORPUS, QUESTIONS, need_shared

WORD = "sample-word-document.docx"


def test_real_docx_paragraphs_in_order_with_gold_evidence() -> None:
    need_shared()
    doc = load_file(CORPUS / "office" / WORD)[0]
    assert (doc.kind, doc.source, doc.title, doc.meta["file_name"]) == ("docx", WORD, WORD, WORD)
    texts = [e.text for e in doc.elements]
    terms = ["Semantic Search", "Embedding", "Token", "멀티모달 (Multimodal)"]
    assert [texts.index(t) for t in terms] == sorted(texts.index(t) for t in terms)
    assert texts[texts.index("Embedding") + 1].startswith("정의: 임베딩은")
    questions = [json.loads(line) for line in (QUESTIONS / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    evidence = [q["evidence"] for q in questions if q["gold"][0]["doc"] == WORD]
    body = squash("\n".join(texts))
    assert evidence and all(squash(ev) in body for ev in evidence)


def test_real_pptx_slides_carry_page_numbers() -> None:
    need_shared()
    doc = load_file(CORPUS / "office" / "sample-ppt.pptx")[0]
    assert (doc.kind, doc.title, doc.meta["slides"]) == ("pptx", "랭체인 한국어 튜토리얼", 4)
    assert [e.page for e in doc.elements if e.category == "heading"] == [1, 2, 3, 4]
    body = next(e for e in doc.elements if e.page == 3 and e.category == "paragraph")
    assert body.path == ("Embedding",) and body.text.startswith("정의: 임베딩은")


def _write_docx(path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("들어가며", style="Heading 1")
    d.add_paragraph("첫 문단입니다.")
    d.add_paragraph("세부 사항", style="Heading 2")
    d.add_paragraph("항목 하나", style="List Bullet")
    table = d.add_table(rows=2, cols=2)
    for r, row in enumerate([["구분", "값"], ["휴가", "15일"]]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    d.add_paragraph("표 다음 문단")
    d.save(str(path))


def test_docx_headings_lists_and_tables_in_body_order(tmp_path: Path) -> None:
    _write_docx(tmp_path / "규정.docx")
    doc = load_file(tmp_path / "규정.docx")[0]
    assert doc.title == "들어가며"
    got = [(e.category, e.text, e.path) for e in doc.elements]
    assert got == [
        ("heading", "들어가며", ("들어가며",)),
        ("paragraph", "첫 문단입니다.", ("들어가며",)),
        ("heading", "세부 사항", ("들어가며", "세부 사항")),
        ("list", "항목 하나", ("들어가며", "세부 사항")),
        ("table", "| 구분 | 값 |\n|---|---|\n| 휴가 | 15일 |", ("들어가며", "세부 사항")),
        ("paragraph", "표 다음 문단", ("들어가며", "세부 사항")),
    ]


def test_pptx_tables_come_out_as_rows(tmp_path: Path) -> None:
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = "요약"
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1)).table
    for r, row in enumerate([["항목", "값"], ["연차", "15일"]]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    deck.save(str(tmp_path / "deck.pptx"))
    doc = load_file(tmp_path / "deck.pptx")[0]
    assert [(e.category, e.text, e.page) for e in doc.elements] == [
        ("heading", "요약", 1),
        ("table", "| 항목 | 값 |\n|---|---|\n| 연차 | 15일 |", 1),
    ]


@pytest.mark.parametrize("suffix", [".docx", ".pptx"])
def test_nfd_file_name_gives_nfc_source(tmp_path: Path, suffix: str) -> None:
    name = "한글 문서" + suffix
    path = tmp_path / unicodedata.normalize("NFD", name)
    if suffix == ".docx":
        _write_docx(path)
    else:
        deck = pptx.Presentation()
        deck.slides.add_slide(deck.slide_layouts[0]).shapes.title.text = "제목"
        deck.save(str(path))
    assert path.name != name
    assert load_file(path)[0].source == name
