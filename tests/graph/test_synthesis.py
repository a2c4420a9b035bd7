"""The structured answer: key points, references, page images, entities, cautions, confidence."""

from __future__ import annotations

from pathlib import Path

from geungeo.answering.models import Answer, Citation, EvidenceItem, Groundedness, Sufficiency
from geungeo.answering.synthesis import key_points, synthesize
from geungeo.types import Table

TABLE = Table.from_rows([["과정", "학위"], ["학사", "문학사"], ["박사", "철학박사"]], caption="[별표 2] 학위의 종류")


def _items(tmp_path: Path) -> list[EvidenceItem]:
    image = tmp_path / "page_images" / "abc" / "p4.png"
    image.parent.mkdir(parents=True)
    image.write_bytes(b"\x89PNG\r\n")
    return [
        EvidenceItem(
            n=1,
            chunk_id="pdf-4",
            doc_id="p",
            label="brief.pdf p.4",
            doc="brief",
            page=4,
            category="paragraph",
            page_image="page_images/abc/p4.png",
            text="생성 AI 도입이 늘고 있다. 도입 시 개인정보 유출에 주의해야 한다. 기업의 60%가 시범 운영 중이다.",
        ),
        EvidenceItem(
            n=2,
            chunk_id="rule-t",
            doc_id="r",
            label="학칙 별표 2",
            doc="학칙",
            category="table",
            table=TABLE.to_json() if TABLE else None,
            text=TABLE.markdown() if TABLE else "",
        ),
        EvidenceItem(
            n=3,
            chunk_id="law-9",
            doc_id="l",
            label="법 제9조",
            doc="법",
            article="제9조",
            text="제9조 경고 없이 인용되지 않은 조문.",
        ),
    ]


def test_key_points_strip_citations_bullets_and_lead() -> None:
    text = "문서에 따르면:\n- 기업의 60%가 시범 운영 중이다. [brief.pdf p.4]\n- 과정: 박사, 학위: 철학박사 [학칙 별표 2]"
    assert key_points(text, ["brief.pdf p.4", "학칙 별표 2"]) == ["기업의 60%가 시범 운영 중이다.", "과정: 박사, 학위: 철학박사"]
    quoted = "- 휴가는 연간 최장 10일[제3호에 따라 연장되는 경우 20일]로 한다. [법 제22조의2]"
    assert key_points(quoted, ["법 제22조의2"]) == ["휴가는 연간 최장 10일[제3호에 따라 연장되는 경우 20일]로 한다."]


def test_synthesis_of_a_cited_answer(tmp_path: Path) -> None:
    items = _items(tmp_path)
    answer = Answer(
        question="q",
        answer="문서에 따르면:\n- 기업의 60%가 시범 운영 중이다. [brief.pdf p.4]\n- 과정: 박사, 학위: 철학박사 [학칙 별표 2]",
        citations=[Citation.of(items[0]), Citation.of(items[1])],
        evidence=items,
        sufficiency=Sufficiency(score=0.8, verdict="sufficient"),
        groundedness=Groundedness(score=1.0, checked_by="extractive"),
    )
    s = synthesize(answer, tmp_path)
    assert [r.label for r in s.references] == ["brief.pdf p.4", "학칙 별표 2"]  # uncited evidence is not a reference
    assert s.references[0].snippet == "기업의 60%가 시범 운영 중이다."  # the sentence the answer quotes
    assert len(s.page_images) == 1 and s.page_images[0].page == 4 and Path(s.page_images[0].path).is_file()
    assert s.page_images[0].markdown.startswith("![brief.pdf p.4](")
    [table] = s.entity_references
    assert table.kind == "table" and table.caption == "[별표 2] 학위의 종류" and ["박사", "철학박사"] in table.rows
    assert s.warnings == ["도입 시 개인정보 유출에 주의해야 한다."]  # from cited evidence only
    assert s.confidence == 0.8 and len(s.key_points) == 2


def test_missing_page_image_is_left_out_and_refusal_has_no_confidence(tmp_path: Path) -> None:
    items = _items(tmp_path)
    (tmp_path / "page_images" / "abc" / "p4.png").unlink()
    answer = Answer(question="q", answer="x [brief.pdf p.4]", citations=[Citation.of(items[0])], evidence=items)
    assert synthesize(answer, tmp_path).page_images == []
    refused = Answer(question="q", answer="근거 부족", refused=True, evidence=items)
    assert synthesize(refused, tmp_path).model_dump() == {
        "key_points": [],
        "references": [],
        "page_images": [],
        "entity_references": [],
        "warnings": [],
        "confidence": 0.0,
    }


def test_a_page_image_is_listed_once(tmp_path: Path) -> None:
    items = _items(tmp_path)
    second = items[0].model_copy(update={"n": 4, "chunk_id": "pdf-4b", "text": "같은 쪽의 다른 단락이다."})
    answer = Answer(
        question="q",
        answer="x [brief.pdf p.4]",
        citations=[Citation.of(items[0]), Citation.of(second)],
        evidence=[*items, second],
    )
    assert [img.page for img in synthesize(answer, tmp_path).page_images] == [4]
