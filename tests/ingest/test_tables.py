"""Tables as structured entities from every loader: real files where they lie, small generated ones else."""

from __future__ import annotations

from pathlib import Path

import docx
import pptx
import pytest
from pptx.util import Inches

from geungeo.chunking import chunk_document
from geungeo.ingest import load_file
from geungeo.ingest.hwpx import load_hwpx
from geungeo.ingest.tables import MAX_COLUMNS, Cell, build_table, caption_text, grid_rows, place_cells
from geungeo.types import Document, Element, Table
from tests.conftest import CORPUS, need_shared
from tests.ingest.test_hwpx import cell, load_book, para, table, write_hwpx


@pytest.fixture(scope="module")
def book() -> dict[str, Document]:
    """The 규정집 by code, parsed once per session (shared with tests/ingest/test_hwpx.py)."""
    need_shared()
    return {d.code or "": d for d in load_book()[0]}


@pytest.fixture(scope="module")
def plan() -> Document:
    need_shared()
    return load_file(CORPUS / "hwp" / "디지털 정부혁신 추진계획.hwp")[0]


def tables(doc: Document) -> list[Element]:
    return [e for e in doc.elements if e.category == "table"]


def entity(e: Element) -> Table:
    assert e.category == "table" and e.table is not None
    assert e.text == e.table.markdown()
    return e.table


# --- shared helpers --------------------------------------------------------------------------------


def test_grid_rows_repeat_row_spans_and_keep_every_cell_under_its_columns() -> None:
    cells = [Cell(0, 0, "구분", rows=2), Cell(0, 1, "2024"), Cell(0, 2, "2025"), Cell(1, 1, "10"), Cell(1, 2, "20"),
             Cell(2, 0, "합계", cols=3)]
    assert grid_rows(cells) == [["구분", "2024", "2025"], ["구분", "10", "20"], ["합계"]]
    # a cell spanning columns leaves the others empty, so the cells after it stay under their own names
    scores = [Cell(0, 0, "과정", rows=2), Cell(0, 1, "TOEFL", cols=2), Cell(0, 3, "TEPS", rows=2),
              Cell(1, 1, "CBT"), Cell(1, 2, "IBT"), Cell(2, 0, "석사"), Cell(2, 1, "160"), Cell(2, 2, "60"),
              Cell(2, 3, "480"), Cell(3, 0, "박사"), Cell(3, 3, "530")]
    assert grid_rows(scores) == [["과정", "TOEFL", "", "TEPS"], ["과정", "CBT", "IBT", "TEPS"],
                                 ["석사", "160", "60", "480"], ["박사", "", "", "530"]]


def test_grid_rows_keep_hostile_spans_and_addresses_inside_the_table() -> None:
    """A file may claim a span of 10⁹ rows or columns, or a cell at column 10⁹: the grid stays the table's size."""
    cells = [Cell(0, 0, "구분", rows=10**9, cols=2), Cell(0, 2, "값", cols=10**9), Cell(1, 2, "1"), Cell(1, 10**9, "x")]
    rows = grid_rows(cells)
    assert len(rows) == 2 and rows[1][:3] == ["구분", "", "1"] and len(rows[0]) == MAX_COLUMNS


def test_place_cells_lays_out_html_spans() -> None:
    rows = [[("구분", 2, 1), ("기간", 1, 2)], [("시작", 1, 1), ("끝", 1, 1)], [("A", 1, 1), ("1월", 1, 1), ("3월", 1, 1)]]
    assert grid_rows(place_cells(rows)) == [["구분", "기간", ""], ["구분", "시작", "끝"], ["A", "1월", "3월"]]


@pytest.mark.parametrize(
    ("line", "caption"),
    [
        ("<표 1> 연도별 현황", "<표 1> 연도별 현황"),
        ("[표 2-1] 예산", "[표 2-1] 예산"),
        ("[별표 2]  강사료 지급기준 <신설 2024. 3. 1.>", "[별표 2] 강사료 지급기준 <신설 2024. 3. 1.>"),
        ("2026학년도  입학정원", "2026학년도 입학정원"),
        ("제5조(교육과정 편성) ① 전문인력양성과정 편성은 다음과 같다.", None),
        ("1. 성적우수장학금", None),
        ("○ 추진 배경", None),
        ("다음과 같이 신청합니다.", None),
        ("----------", None),
        ("첫 줄\n둘째 줄", None),
    ],
)
def test_caption_lines(line: str, caption: str | None) -> None:
    assert caption_text(line) == caption


def test_a_one_cell_title_row_becomes_the_caption() -> None:
    built = build_table([["수당 기준표"], ["직급", "금액"], ["교수", "100"]])
    assert built == Table(("직급", "금액"), (("교수", "100"),), "수당 기준표")


def test_a_cell_holding_one_word_letter_spaced_is_that_word() -> None:
    """규정집 tables space out short words to fill a cell ("구 분", "일 수"): read as written, a row said
    "구 분: 결 혼, 일 수: 5" and the figure's header did not read as 일수."""
    built = build_table([["구 분", "대 상", "일 수"], ["결 혼", "본인 및 자녀", "5"], ["그 외", "A B", "3 일"]])
    assert built is not None
    assert built.header == ("구분", "대상", "일수")
    assert built.rows == (("결혼", "본인 및 자녀", "5"), ("그외", "A B", "3 일"))


# --- HWPX: the regulation book ---------------------------------------------------------------------


def test_a_letter_spaced_header_of_the_book_reads_as_its_word(book: dict[str, Document]) -> None:
    """교직원복무규정 별표 1 (경조사별 휴가일수표) heads its columns "구 분 | 대 상 | 일 수"."""
    (leave,) = [e for e in book["3-1-26"].elements if e.attachment == "별표 1" and e.table is not None]
    assert leave.table is not None and leave.table.header == ("구분", "대상", "일수")


def test_school_rule_degree_attachment_is_a_table_entity(book: dict[str, Document]) -> None:
    """학칙 별표 2 (학과별 수여 학위명): one table element carrying the 별표 and its title as caption."""
    (degrees,) = [e for e in book["2-1-1"].elements if e.attachment == "별표 2"]
    t = entity(degrees)
    assert t.caption == "<별표 2> 2026학년도 학과(전공)별 수여 학위명"
    assert t.header == ("학과(전공)", "학위명", "", "학과(전공)", "학위명")
    assert ("국어국문학과", "문학사", "", "물리치료학과", "물리치료학사") in t.rows
    assert ("영어영문학과", "문학사", "", "한의학과", "한의학사") in t.rows
    assert ("법학과", "법학사", "", "토목공학과", "공학사") in t.rows
    # K-뷰티학과 spans two rows in the book (rowSpan="2"): it repeats in both
    assert [r[3] for r in t.rows[-2:]] == ["K-뷰티학과", "K-뷰티학과"]
    assert all(len(r) == 5 for r in t.rows)


def test_school_rule_quota_attachment_resolves_merged_colleges(book: dict[str, Document]) -> None:
    quota = next(e for e in book["2-1-1"].elements if e.attachment == "별표 1" and e.category == "table")
    t = entity(quota)
    assert t.caption == "<별표 1(1-1)> 2026학년도 입학정원"
    assert t.header == ("단과대학", "계열", "학부(과, 전공)", "입학 정원", "모집유보 인원")
    # the college and field cells span many rows: every row names them again
    assert t.rows[0] == ("인문사회 과학대학", "인문사회", "국어국문학과", "50", "")
    assert t.rows[1] == ("인문사회 과학대학", "인문사회", "중어중국학과", "40", "5")


def test_a_table_inside_an_article_stays_with_it(book: dict[str, Document]) -> None:
    rule = book["2-1-1"]
    grades = next(e for e in tables(rule) if e.article == "제35조")
    t = entity(grades)
    assert (t.header, t.rows[0], t.caption) == (("등급", "평점", "등급", "평점"), ("A+", "4.5", "C°", "2.0"), None)
    article = next(e for e in rule.elements if e.category == "article" and e.article == "제35조")
    assert rule.elements.index(grades) > rule.elements.index(article)
    chunk = next(c for c in chunk_document(rule) if c.meta["article"] == "제35조")
    assert chunk.text.endswith(grades.text) and Table.from_json(str(chunk.meta["table"])) == t


def test_tables_in_an_addendum_stay_in_its_unit_with_their_captions(book: dict[str, Document]) -> None:
    """위임전결규정 prints its 전결 tables after the 부칙 line, each under a ``￭ 부서`` title."""
    delegation = book["3-1-3"]
    first = tables(delegation)[0]
    assert (first.path, entity(first).caption) == (("부칙",), "￭공통")
    # "전결권자" spans the three columns 부총장, 부서장 and 팀장 of the second header row
    assert entity(first).header == ("단위업무", "세부업무", "총장", "전결권자", "", "")
    assert entity(first).rows[0] == ("단위업무", "세부업무", "총장", "부총장", "부서장", "팀장")
    chunks = [c for c in chunk_document(delegation) if "table" in c.meta]
    assert chunks and all(c.meta["addendum"] is True and c.header == "위임전결규정(3-1-3) 부칙" for c in chunks)


# --- HWPX: generated files -------------------------------------------------------------------------


def test_generated_regulation_tables_get_captions_and_spans(tmp_path: Path) -> None:
    path = write_hwpx(
        tmp_path / "수당규정.hwpx",
        para("수당규정"),
        para("제1조 (목적) 이 규정은 수당을 정한다."),
        para("제2조 (지급액) 수당은 다음과 같다."),
        para("<표 1> 직급별 수당"),
        table(
            cell("직급", 0, 0) + cell("금액", 0, 1, cols=2),
            cell("교수", 1, 0, rows=2) + cell("기본", 1, 1) + cell("100", 1, 2),
            cell("가산", 2, 1) + cell("20", 2, 2),
        ),
        para("부칙"),
        para("이 규정은 2020년 1월 1일부터 시행한다."),
        para("[별표 1]"),
        para("지급 절차"),
        table(cell("단계", 0, 0) + cell("기한", 0, 1), cell("신청", 1, 0) + cell("매월 5일", 1, 1)),
        para("※ 기한이 휴일이면 다음 날로 한다."),
    )
    (doc,) = load_hwpx(path)
    got = [(e.category, e.article, e.attachment) for e in doc.elements]
    assert got == [
        ("article", "제1조", None),
        ("article", "제2조", None),
        ("table", "제2조", None),
        ("addendum", None, None),
        ("table", None, "별표 1"),
        ("attachment", None, "별표 1"),
    ]
    assert doc.elements[1].text == "제2조(지급액) 수당은 다음과 같다."  # the caption moved to its table
    assert entity(doc.elements[2]) == Table(
        ("직급", "금액", ""), (("교수", "기본", "100"), ("교수", "가산", "20")), "<표 1> 직급별 수당"
    )
    assert entity(doc.elements[4]) == Table(("단계", "기한"), (("신청", "매월 5일"),), "[별표 1] 지급 절차")
    assert doc.elements[5].text == "※ 기한이 휴일이면 다음 날로 한다."
    # a 별표 is one unit: its table and the note after it
    (attached,) = [c for c in chunk_document(doc) if c.meta["attachment"] == "별표 1"]
    assert attached.text == doc.elements[4].text + "\n" + doc.elements[5].text
    assert attached.meta["category"] == "table"


def test_generated_hwpx_table_takes_the_caption_paragraph_above(tmp_path: Path) -> None:
    path = write_hwpx(
        tmp_path / "보고.hwpx",
        para("현황", style=1),
        para("[표 3] 연도별 예산"),
        table(cell("연도", 0, 0) + cell("예산", 0, 1), cell("2024", 1, 0) + cell("10억", 1, 1)),
    )
    (doc,) = load_file(path)
    assert [e.category for e in doc.elements] == ["heading", "table"]
    assert entity(doc.elements[1]).caption == "[표 3] 연도별 예산" and doc.elements[1].path == ("현황",)


# --- HWP -------------------------------------------------------------------------------------------


def test_hwp_plan_table_has_header_and_rows(plan: Document) -> None:
    projects = next(e for e in tables(plan) if e.text.startswith("| 중점사업 (예시) |"))
    t = entity(projects)
    assert t.header == ("중점사업 (예시)", "현행", "개선")
    assert len(t.rows) == 2 and all(len(r) == 3 for r in t.rows)
    assert t.rows[0][0] == "블록체인 기반 부동산거래 플랫폼 (국토부) * 20년 ISP, 23년 구축 완료"
    assert t.rows[1][0].startswith("인공지능 식별‧추적 시스템")
    assert projects.path[0] == "붙임 디지털 정부혁신 우선 추진과제(상세)"


def test_hwp_schedule_table_repeats_row_spanning_cells(plan: Document) -> None:
    schedule = next(e for e in tables(plan) if "| 2019 |  | 2020 |  | 2021 |  | 2022 |" in e.text)
    t = entity(schedule)
    service = [r for r in t.rows if "대국민 편익서비스 맞춤형 안내" in r]
    assert len(service) == 2  # the task's cell spans two rows: both name it and its ministries
    assert all(r[1] == "대국민 편익서비스 맞춤형 안내" and r[-1] == "행안부, 각부처, 지자체" for r in service)


# --- DOCX / PPTX / HTML ----------------------------------------------------------------------------


def test_real_docx_has_no_table() -> None:
    need_shared()
    doc = load_file(CORPUS / "office" / "sample-word-document.docx")[0]
    assert not tables(doc)  # the glossary is paragraphs only; the generated file below has the tables


def test_docx_table_with_merged_cells_and_caption(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("연차휴가", style="Heading 1")
    d.add_paragraph("<표 1> 근속연수별 휴가")
    t = d.add_table(rows=4, cols=3)
    for r, row in enumerate([["구분", "근속", "일수"], ["정규직", "1년", "15일"], ["", "3년", "16일"], ["비고", "", ""]]):
        for c, text in enumerate(row):
            t.cell(r, c).text = text
    t.cell(1, 0).merge(t.cell(2, 0))  # 정규직 over two rows
    t.cell(3, 0).merge(t.cell(3, 2)).text = "비고: 80% 이상 출근"  # one cell across the row
    d.add_paragraph("표 다음 문단")
    d.save(str(tmp_path / "휴가.docx"))
    doc = load_file(tmp_path / "휴가.docx")[0]
    assert [e.category for e in doc.elements] == ["heading", "table", "paragraph"]
    assert entity(doc.elements[1]) == Table(
        ("구분", "근속", "일수"),
        (("정규직", "1년", "15일"), ("정규직", "3년", "16일"), ("비고: 80% 이상 출근",)),
        "<표 1> 근속연수별 휴가",
    )
    assert doc.elements[1].path == ("연차휴가",)


def test_docx_caption_style_paragraph_is_the_caption(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("표 1. 지역별 인원 현황과 전년 대비 증감률 및 비고 사항 요약", style="Caption")
    t = d.add_table(rows=2, cols=2)
    for r, row in enumerate([["지역", "인원"], ["부산", "12"]]):
        for c, text in enumerate(row):
            t.cell(r, c).text = text
    d.save(str(tmp_path / "현황.docx"))
    (only,) = load_file(tmp_path / "현황.docx")[0].elements
    assert entity(only).caption == "표 1. 지역별 인원 현황과 전년 대비 증감률 및 비고 사항 요약"


def test_pptx_table_with_merged_cells(tmp_path: Path) -> None:
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "요약"
    t = slide.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(6), Inches(1)).table
    for r, row in enumerate([["구분", "기간", ""], ["A", "1월", "3월"], ["", "4월", "6월"]]):
        for c, text in enumerate(row):
            t.cell(r, c).text = text
    t.cell(0, 1).merge(t.cell(0, 2))
    t.cell(1, 0).merge(t.cell(2, 0))
    deck.save(str(tmp_path / "deck.pptx"))
    doc = load_file(tmp_path / "deck.pptx")[0]
    (slide_table,) = tables(doc)
    assert entity(slide_table) == Table(("구분", "기간", ""), (("A", "1월", "3월"), ("A", "4월", "6월")))
    assert (slide_table.page, slide_table.path) == (1, ("요약",))


def test_html_table_with_spans_and_caption(tmp_path: Path) -> None:
    page = tmp_path / "표.html"
    page.write_text(
        "<html><body><h1>일정</h1><table><caption>표 1 추진 일정</caption>"
        "<tr><th rowspan='2'>과제</th><th colspan='2'>기간</th></tr><tr><th>시작</th><th>끝</th></tr>"
        "<tr><td>설계</td><td>1월</td><td>3월</td></tr></table>"
        "<p>[표 2] 담당</p><table><tr><td>과제</td><td>부서</td></tr><tr><td>설계</td><td>기획팀</td></tr></table>"
        "</body></html>",
        encoding="utf-8",
    )
    doc = load_file(page)[0]
    first, second = tables(doc)
    assert entity(first) == Table(("과제", "기간", ""), (("과제", "시작", "끝"), ("설계", "1월", "3월")), "표 1 추진 일정")
    assert entity(second) == Table(("과제", "부서"), (("설계", "기획팀"),), "[표 2] 담당")
    assert [e.category for e in doc.elements] == ["heading", "table", "table"]
