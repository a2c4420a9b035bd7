"""PDF loader: the shared SPRI AI brief, encrypted and fake PDFs, paragraph and furniture rules."""

from __future__ import annotations

import ctypes
import json
import shutil
import types
import unicodedata
from pathlib import Path

import pytest

from geungeo.errors import LoaderError
from geungeo.ingest import load_file
from geungeo.ingest.pdf import paragraphs, running_furniture
from geungeo.ingest.pdf_layout import PageChars, PageLayout
from geungeo.text.normalize import nfc, squash
from geungeo.types import Document, Element
from tests.conftest import CORPUS, QUESTIONS, need_shared

BRIEF = "SPRI_AI_Brief_2023년12월호_F.pdf"


@pytest.fixture(scope="module")
def brief() -> Document:
    need_shared()
    return load_file(CORPUS / "pdf" / BRIEF)[0]


def _as_text(e: Element) -> str:
    """A table reads as its rows (cells separated by spaces), as the page shows it."""
    if e.table is None:
        return e.text
    return "\n".join(" ".join(row) for row in (e.table.header, *e.table.rows))


def _page_text(doc: Document, page: int) -> str:
    return "\n".join(_as_text(e) for e in doc.elements if e.page == page)


def test_one_document_with_23_pages(brief: Document) -> None:
    assert (brief.kind, brief.source, brief.meta["file_name"], brief.meta["pages"]) == ("pdf", BRIEF, BRIEF, 23)
    assert brief.title == BRIEF  # the PDF's metadata title is empty
    assert {e.page for e in brief.elements} == set(range(1, 24))


def test_page_4_holds_what_a_reader_sees_there(brief: Document) -> None:
    sentence = (
        "■ 미국 바이든 대통령이 2023년 10월 30일 연방정부 차원에서 안전하고 신뢰할 수 있는 AI 개발과 "
        "사용을 보장하기 위한 행정명령을 발표"
    )
    assert sentence in [e.text for e in brief.elements if e.page == 4]
    assert "미국, 안전하고 신뢰할 수 있는 AI 개발과 사용에 관한 행정명령 발표" in _page_text(brief, 4)
    assert "안전하고 신뢰할 수 있는" not in _page_text(brief, 6)


def test_dingbat_bullets_read_as_the_glyphs_they_draw(brief: Document) -> None:
    """The brief sets its bullets in Wingdings without a ToUnicode map: pdfium reports ■ as "n" and ○ as "£"."""
    texts = [e.text for e in brief.elements]
    assert not any(t.startswith(("n ", "£")) or "£" in t for t in texts)
    assert sum(t.startswith("■ ") for t in texts) > 50
    assert "○ 바이든 대통령, AI 행정명령 통해 안전하고 신뢰할 수 있는 AI 개발과 활용 추진" in texts


@pytest.mark.parametrize(
    ("font", "expected"),
    [("ABCDEF+Wingdings-Regular", "■ 첫째\n■ 둘째\nn은 글자"), ("Wingdings 2", "• 첫째\n• 둘째\nn은 글자")],
)
def test_a_dingbat_font_is_read_by_its_glyphs_at_either_code(
    monkeypatch: pytest.MonkeyPatch, font: str, expected: str
) -> None:
    """Wingdings' ■ comes as "n" or as U+F06E; Wingdings 2 draws other glyphs at those codes (a plain bullet)."""
    from geungeo.ingest import pdf_layout

    text = "n 첫째\n\uf06e 둘째\nn은 글자"
    dingbats = {0, text.index("\uf06e")}

    def font_info(_page: object, index: int, buffer: ctypes.Array[ctypes.c_char], *_: object) -> int:
        buffer.value = font.encode() if index in dingbats else b"ABCDEF+KoPubWorldDotumLight"
        return len(buffer.value)

    monkeypatch.setattr(pdf_layout.pdfium_c, "FPDFText_GetFontInfo", font_info)
    assert pdf_layout._dingbats_read(types.SimpleNamespace(raw=None), text) == expected  # type: ignore[arg-type]


def test_gold_evidence_is_on_its_gold_page(brief: Document) -> None:
    questions = [json.loads(line) for line in (QUESTIONS / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    gold = [(q["gold"][0]["page"], q["evidence"]) for q in questions if q["gold"][0]["doc"] == BRIEF]
    assert len(gold) == 9
    for page, evidence in gold:
        assert squash(evidence) in squash(_page_text(brief, page)), (page, evidence)


def test_running_headers_are_dropped_and_text_is_nfc(brief: Document) -> None:
    texts = [e.text for e in brief.elements]
    assert not any(t.startswith("1. 정책/법제 2. 기업/산업") or t.startswith("SPRi AI Brief") for t in texts)
    assert all(t == nfc(t) for t in texts)


def test_encrypted_pdf_is_refused(tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter()
    writer.add_blank_page(200, 200)
    writer.encrypt("secret")  # RC4: needs no extra crypto package
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as fh:
        writer.write(fh)
    with pytest.raises(LoaderError, match="encrypted PDF"):
        load_file(locked)


def test_binary_file_renamed_pdf_is_a_one_line_error(tmp_path: Path) -> None:
    fake = tmp_path / "photo.pdf"
    fake.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(LoaderError, match="not a readable PDF") as err:
        load_file(fake)
    assert "\n" not in str(err.value) and "photo.pdf" in str(err.value)


def test_nfd_file_name_gives_nfc_source(tmp_path: Path) -> None:
    need_shared()
    nfd = tmp_path / unicodedata.normalize("NFD", BRIEF)
    shutil.copyfile(CORPUS / "pdf" / BRIEF, nfd)
    assert load_file(nfd)[0].source == BRIEF


def test_wrapped_lines_join_and_bullets_start_paragraphs() -> None:
    lines = ["첫 문단은 여기서 ", "이어진다", "∙ 글머리 문단이 ", "다음 줄로 이어지고 ", "■ 새 글머리", "끝"]
    assert paragraphs(lines) == ["첫 문단은 여기서 이어진다", "∙ 글머리 문단이 다음 줄로 이어지고", "■ 새 글머리", "끝"]


def _page(lines: list[tuple[str, float, float]], rows: list[int] | None = None) -> PageLayout:
    """A page of ``lines`` (text, left and right edge in points), 10 pt high, one below the other (or at ``rows``,
    counted from the top, in this content order)."""
    text, boxes = "", []
    for row, (line, left, right) in zip(rows or range(len(lines)), lines, strict=True):
        top = 800.0 - 14.0 * row
        width = (right - left) / max(len(line), 1)
        boxes += [(left + i * width, top - 10.0, left + (i + 1) * width, top) for i in range(len(line))]
        boxes += [(right, top - 10.0, right, top)] * 2
        text += line + "\r\n"
    return PageLayout(PageChars(text, boxes))


def test_a_line_wrapped_at_the_right_edge_without_a_space_joins_the_next() -> None:
    items = _page(
        [
            ("■ 빌 게이츠가 공식 블로그를 통해 AI 에이전트가 컴퓨터", 74.0, 546.0),  # wrapped: no space kept
            ("사용방식을 바꿀 것이라는 전망을 제시", 88.0, 400.0),
            ("∙ (교육) 에이전트가 1대 1 가정교사의 역할을 맡아 교육 경험을 제공", 80.0, 546.0),  # full, then a bullet
            ("∙ (생산성) 사업계획 작성을 지원", 80.0, 300.0),
            ("짧은 제목 줄", 66.0, 200.0),  # short: a line of its own
            ("다음 문단", 66.0, 250.0),
        ]
    ).items()
    assert paragraphs([str(i) for i in items]) == [
        "■ 빌 게이츠가 공식 블로그를 통해 AI 에이전트가 컴퓨터 사용방식을 바꿀 것이라는 전망을 제시",
        "∙ (교육) 에이전트가 1대 1 가정교사의 역할을 맡아 교육 경험을 제공",
        "∙ (생산성) 사업계획 작성을 지원",
        "짧은 제목 줄",
        "다음 문단",
    ]


def test_a_line_whose_next_line_lies_above_it_ends_its_paragraph() -> None:
    """pdfium ends a line with a space where its text runs on; a box's label printed above the box comes after the
    box's last line in content order and must not be glued to it ("… 점을 제시 KEY Contents")."""
    lines = [
        ("■ 법원은 기각 이유로 유사성을 입증하기 어렵다는 점을 제시 ", 80.0, 546.0),
        ("KEY Contents", 80.0, 160.0),  # printed above the box
        ("○ 예술가들의 소송, 저작권 미등록으로 기각 ", 66.0, 400.0),
        ("되었다", 66.0, 120.0),  # the next line down: the paragraph runs on
    ]
    items = _page(lines, rows=[1, 0, 3, 4]).items()
    assert paragraphs([str(i) for i in items]) == [
        "■ 법원은 기각 이유로 유사성을 입증하기 어렵다는 점을 제시",
        "KEY Contents",
        "○ 예술가들의 소송, 저작권 미등록으로 기각 되었다",
    ]


def test_the_brief_keeps_its_box_labels_out_of_sentences(brief: Document) -> None:
    point = "■ 법원은 기각 이유로 고소장에 제시된 상당수 작품이 저작권청에 등록되지 않았으며"
    quoted = [e.text for e in brief.elements if e.page == 7 and e.text.startswith(point)]
    assert quoted and quoted[0].endswith("점을 제시")
    assert not any("KEY Contents" in e.text and e.text != "KEY Contents" for e in brief.elements)


def test_the_brief_quotes_whole_sentences_where_its_lines_wrap(brief: Document) -> None:
    sentence = (
        "■ 빌 게이츠 마이크로소프트 창업자가 2023년 11월 9일 공식 블로그를 통해 AI 에이전트가 컴퓨터 사용방식과 "
        "소프트웨어 산업을 완전히 변화시킬 것이라는 전망을 제시"
    )
    assert sentence in [e.text for e in brief.elements if e.page == 16]


def test_pages_of_text_only_join_their_wrapped_lines_too(brief: Document) -> None:
    """Pages 7 and 15 have no table or figure; their lines wrapped at the right edge (mid-word in "연평균") join as on
    the pages that have (before, only pages with a table or figure joined them: a quoted clause stopped at "연평")."""
    rate = "2027년 2,510억 달러로 연평 균 성장률 31.4%를 기록하며 급성장할 것으로 예상"
    assert any(e.text.startswith("■ 시장조사기관 IDC는") and e.text.endswith(rate) for e in brief.elements if e.page == 15)
    court = "판사는 2023년 10월 30일 미드저니 (Midjourney), 스태빌리티AI(Stability AI)"
    assert any(court in e.text for e in brief.elements if e.page == 7)


def test_lines_repeated_at_page_edges_are_furniture() -> None:
    pages = [["SPRi AI Brief |", f"제목 {n}", "가", "나", "같은 본문 줄", "다", "라", str(n)] for n in range(1, 7)]
    furniture = running_furniture(pages)
    assert "SPRi AI Brief |" in furniture and "#" in furniture  # "#": the page numbers
    assert "같은 본문 줄" not in furniture and "제목 #" in furniture
    assert running_furniture(pages[:2]) == set()


def test_each_article_headline_is_a_heading(brief: Document) -> None:
    """The brief sets each article's headline (pages 4-21) in larger type than its body: a heading element, not
    the start of a paragraph; body lines stay paragraphs."""
    headings = {e.page: e.text for e in brief.elements if e.category == "heading" and e.page and 4 <= e.page <= 21}
    assert sorted(headings) == list(range(4, 22))
    assert headings[7] == "미국 법원, 예술가들이 생성 AI 기업에 제기한 저작권 소송 기각"
    page_7 = [e for e in brief.elements if e.page == 7]
    assert page_7[0].category == "heading" and all(e.category != "heading" for e in page_7[1:])
    assert not any(headings[7] in e.text for e in page_7[1:])


def test_contents_entries_naming_a_headline_are_headings(brief: Document) -> None:
    """Page 2 lists the articles with their page numbers: an entry naming a headline of another page is a heading
    (it points there and states nothing); group titles and entries naming no heading stay paragraphs."""
    page_2 = {e.text: e.category for e in brief.elements if e.page == 2}
    assert page_2["▹ 미국 법원, 예술가들이 생성 AI 기업에 제기한 저작권 소송 기각 4"] == "heading"
    assert sum(category == "heading" and text.startswith("▹") for text, category in page_2.items()) == 18
    assert page_2["1. 정책/법제"] == "paragraph" and page_2["▹CES 2024 19"] == "paragraph"
