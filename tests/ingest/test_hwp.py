"""HWP 5 binary loader: the shared 디지털 정부혁신 추진계획 plan and broken/encrypted files."""

from __future__ import annotations

import json
import shutil
import struct
import unicodedata
import zlib
from pathlib import Path

import pytest

from geungeo.errors import LoaderError
from geungeo.ingest import load_file
from geungeo.ingest.hwp import build_tree, decode_para_text, read_records
from geungeo.text.normalize import squash
from geungeo.types import Document
from tests.conftest import CORPUS, QUESTIONS, need_shared

PLAN = "디지털 정부혁신 추진계획.hwp"


@pytest.fixture(scope="module")
def plan() -> Document:
    need_shared()
    return load_file(CORPUS / "hwp" / PLAN)[0]


def test_title_comes_before_first_section_heading(plan: Document) -> None:
    assert plan.title == "디지털 정부혁신 추진계획"
    assert (plan.kind, plan.source, plan.meta["file_name"]) == ("hwp", PLAN, PLAN)
    texts = [e.text for e in plan.elements]
    assert plan.elements[0].category == "title"
    heading = next(e for e in plan.elements if e.category == "heading" and e.path)
    assert heading.text == "Ⅰ. 개 요"
    assert texts.index("디지털 정부혁신 추진계획") < texts.index("Ⅰ. 개 요")


def test_section_markers_give_heading_paths(plan: Document) -> None:
    para = next(e for e in plan.elements if e.text.startswith("○ 우리나라는 국가적 초고속"))
    assert para.path == ("Ⅰ. 개 요", "□ 추진 배경")
    # table-of-contents entries ("Ⅰ. 개요 1") open no section
    assert not any(e.path and e.path[-1].endswith(" 1") for e in plan.elements)


def test_contents_entries_naming_a_heading_are_headings_not_text(plan: Document) -> None:
    """Quoted as text, "Ⅱ. 디지털 정부혁신 추진계획 2" answered "디지털 정부혁신 추진계획의 6대 과제는?"."""
    contents = plan.elements[: next(i for i, e in enumerate(plan.elements) if e.text == "Ⅰ. 개 요")]
    entries = [e for e in contents if e.category == "heading"]
    assert [e.text for e in entries] == [
        "Ⅰ. 개요 1",
        "Ⅱ. 디지털 정부혁신 추진계획 2",
        "1. 우선 추진과제 2",
        "2. 중장기 범정부 디지털 전환 로드맵 수립 4",
        "Ⅲ. 추진체계 및 일정 4",
        "[붙임] 디지털 정부혁신 우선 추진과제(상세) 8",
    ]
    assert all(not e.path for e in entries)  # they open no section
    # the tasks listed under them, without a page number, stay text, as does the cover
    assert next(e for e in contents if e.text == "② 공공부문 마이데이터 활성화").category == "paragraph"
    assert [e.text for e in contents if e.category == "paragraph"][:3] == ["2019. 10. 29.", "관계부처 합동", "순 서"]


def test_table_rows_come_out_in_order(plan: Document) -> None:
    schedule = next(e for e in plan.elements if e.category == "table" and "| 2019 |  | 2020 |" in e.text)
    assert schedule.table is not None and schedule.path == ("참고 2 주요 과제별·연도별 추진일정",)
    # row-spanning cells (추진 과제, 관계 부처) repeat in every row they span; one spanning columns leaves them
    # empty, so 관계 부처 is the last column in every row and each year stands over its 상 and 하
    half_years = ("2019", "", "2020", "", "2021", "", "2022", "")
    assert schedule.table.header == ("추진 과제", "", "", "추진일정", *[""] * 7, "관계 부처")
    assert schedule.table.rows[0] == ("추진 과제", "", "", *half_years, "관계 부처")
    assert schedule.table.rows[1] == ("추진 과제", "", "", *("상", "하") * 4, "관계 부처")
    assert schedule.table.rows[2] == ("1. 선제적·통합적 대국민 서비스 혁신", *[""] * 11)
    assert {len(row) for row in schedule.table.rows} == {12}


def test_layout_boxes_read_as_text(plan: Document) -> None:
    """One-row banners and a title over one block of text are boxes, not tables."""
    assert not any(e.category == "table" and "로드맵 핵심 내용" in e.text for e in plan.elements)
    box = next(e for e in plan.elements if e.text.startswith("< 행복출산 원스톱 서비스 사례 >"))
    assert box.category == "paragraph" and box.text.split("\n")[1].startswith("ㅇ 양육수당, 아동수당 등")
    assert [e.category for e in plan.elements].count("table") == 2


def test_a_sentence_wrapped_by_a_line_break_is_one_line(plan: Document) -> None:
    # the plan wraps its points by line breaks inside the paragraph: the sentence goes on, a new line does not open
    wrapped = (
        "○ 그러나, 인공지능‧클라우드 중심의 디지털 전환(Digital Transformation) 시대가 도래함에 따라 기존 전자정부의 한계 표출"
    )
    assert wrapped in {line for e in plan.elements for line in e.text.split("\n")}
    assert not any(e.text.startswith("시대가") or "\n시대가" in e.text for e in plan.elements)


def test_gold_evidence_is_in_the_text(plan: Document) -> None:
    body = squash("\n".join(e.text for e in plan.elements))
    questions = [json.loads(line) for line in (QUESTIONS / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    evidence = [q["evidence"] for q in questions if q["gold"][0]["doc"] == PLAN]
    assert evidence and all(squash(ev) in body for ev in evidence)


def test_non_ole_file_is_a_loader_error_naming_the_file(tmp_path: Path) -> None:
    fake = tmp_path / "가짜.hwp"
    fake.write_bytes(b"HWP Document File but plain bytes" * 20)
    with pytest.raises(LoaderError, match="not an HWP 5 file") as err:
        load_file(fake)
    assert "가짜.hwp" in str(err.value)


def test_encrypted_flag_is_refused(tmp_path: Path) -> None:
    need_shared()
    data = bytearray((CORPUS / "hwp" / PLAN).read_bytes())
    at = data.index(b"HWP Document File") + 36
    data[at] |= 0x02  # FileHeader property bit 1: password protected
    locked = tmp_path / "locked.hwp"
    locked.write_bytes(bytes(data))
    with pytest.raises(LoaderError, match="encrypted HWP file"):
        load_file(locked)


def test_nfd_file_name_gives_nfc_source(tmp_path: Path) -> None:
    need_shared()
    nfd = tmp_path / unicodedata.normalize("NFD", PLAN)
    shutil.copyfile(CORPUS / "hwp" / PLAN, nfd)
    assert load_file(nfd)[0].source == PLAN


def test_para_text_skips_wide_controls_and_keeps_line_breaks() -> None:
    def unit(code: int) -> bytes:
        return struct.pack("<H", code)

    table_ctrl = unit(11) + b" lbt" + bytes(8) + unit(11)  # extended control: 8 units
    tab = unit(9) + bytes(12) + unit(9)  # inline control: 8 units, read as a tab
    payload = "가".encode("utf-16le") + table_ctrl + "나".encode("utf-16le") + unit(10) + "다".encode("utf-16le")
    assert decode_para_text(payload + tab + unit(13)) == "가나\n다\t"


def test_records_nest_by_level_and_read_long_sizes() -> None:
    def record(tag: int, level: int, payload: bytes) -> bytes:
        if len(payload) >= 0xFFF:
            return struct.pack("<II", tag | level << 10 | 0xFFF << 20, len(payload)) + payload
        return struct.pack("<I", tag | level << 10 | len(payload) << 20) + payload

    stream = record(66, 0, b"p") + record(67, 1, b"x" * 5000) + record(66, 0, b"q")
    records = read_records(zlib.decompress(zlib.compress(stream)))
    assert [(r.tag, r.level, len(r.payload)) for r in records] == [(66, 0, 1), (67, 1, 5000), (66, 0, 1)]
    roots = build_tree(records)
    assert [r.tag for r in roots] == [66, 66] and [c.tag for c in roots[0].children] == [67]
