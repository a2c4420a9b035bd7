"""HWPX loader: the shared 규정집 (one document per regulation) and small generated HWPX files."""

from __future__ import annotations

import functools
import json
import re
import time
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from geungeo.errors import LoaderError
from geungeo.ingest import load_file
from geungeo.ingest.hwpx import ContentsEntry, load_hwpx, read_contents
from geungeo.text.normalize import squash
from geungeo.types import Document, Element, Table
from tests.conftest import CORPUS, QUESTIONS, need_shared

BOOK = "규정집9-349(20251202).hwpx"

# The gold of these structural lines names the right regulation but quotes the ones the book
# prints after it (their segmentation ran over the next title lines); the text is checked there.
STRUCTURAL_GOLD_ERRATA = {
    "struct-1-005": ("4-0-35",),  # 등록금심의위원회규정 제5조 ← 연구관리위원회규정 제5조(보고)
    "struct-1-029": ("3-1-129", "3-1-130"),  # 유학생지원센터규정 ← 반도체사업단(회계), 직원상벌(포상…)
    "struct-1-030": ("3-1-121", "3-1-123"),  # 연구윤리센터규정 ← 연구윤리규정, 전동이동장치(안전거리)
}


@functools.cache
def load_book() -> tuple[list[Document], float]:
    """The whole book, parsed once per test session (other modules reuse it), and the seconds it took."""
    started = time.perf_counter()
    docs = load_file(CORPUS / "regulations" / BOOK)
    return docs, time.perf_counter() - started


@pytest.fixture(scope="module")
def parsed() -> tuple[list[Document], float]:
    need_shared()
    return load_book()


@pytest.fixture(scope="module")
def book(parsed: tuple[list[Document], float]) -> dict[str, Document]:
    """Regulations by code."""
    return {d.code or "": d for d in parsed[0]}


@pytest.fixture(scope="module")
def contents() -> list[ContentsEntry]:
    need_shared()
    return read_contents(CORPUS / "regulations" / BOOK)


TABLE_RULE = re.compile(r"^\|(?:---\|)+$", re.M)  # the Markdown line under a table's header row


def articles(doc: Document, label: str) -> list[Element]:
    return [e for e in doc.elements if e.category == "article" and e.article == label]


def full_text(doc: Document) -> str:
    return "\n".join(e.text for e in doc.elements)


def jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in (QUESTIONS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


# --- the regulation book --------------------------------------------------------------------


def test_book_parses_fast(parsed: tuple[list[Document], float]) -> None:
    docs, seconds = parsed
    assert seconds < 60  # ~2.5 s on 2 cores, ~110 MB RSS
    assert len({d.doc_id for d in docs}) == len(docs)


def test_contents_lists_every_code_once(contents: list[ContentsEntry]) -> None:
    # The contents pages print 515 code lines (the brief's "514" is one short), 144 of them 【폐지】.
    assert len(contents) == 515
    assert sum(e.repealed for e in contents) == 144
    assert len({e.code for e in contents}) == len(contents)
    assert ContentsEntry("3-1-5", "교원인사규정", False, "제3편 행정") in contents
    assert ContentsEntry("3-1-14", "시간강사위촉규정", True, "제3편 행정") in contents
    assert contents[0] == ContentsEntry("1-0-1", "학교법인동의학원정관", False, "제1편 학교법인")


def test_every_regulation_in_force_is_its_own_document(
    book: dict[str, Document], contents: list[ContentsEntry]
) -> None:
    in_force = {e.code: e.title for e in contents if not e.repealed}
    missing = sorted(f"{code} {title}" for code, title in in_force.items() if code not in book)
    assert not missing, f"regulations in force with no document: {missing}"
    assert set(book) == set(in_force)
    for code, doc in book.items():
        assert (doc.title, doc.key, doc.kind, doc.source) == (in_force[code], code, "regulation", BOOK)
        assert doc.meta["book"] == BOOK and str(doc.meta["part"]).startswith("제")
        assert any(e.category == "article" for e in doc.elements), f"{code} {doc.title} has no article"
    assert book["2-1-1"].title == "동의대학교학칙"


def test_teacher_personnel_article_1(book: dict[str, Document]) -> None:
    doc = book["3-1-5"]
    (first,) = articles(doc, "제1조")
    assert (
        first.text
        == "제1조(목적) 이 규정은 동의대학교(이하 “본 대학교”라 한다) 교원의 인사에 관한 사항을 규정함을 목적으로 한다."
    )
    assert (first.article_title, first.path) == ("목적", ("제1장 총칙",))
    assert doc.elements[0] is first
    assert doc.meta["part"] == "제3편 행정"


def test_article_text_has_one_line_per_paragraph_and_item(book: dict[str, Document]) -> None:
    (article,) = articles(book["3-1-5"], "제5조")
    lines = article.text.split("\n")
    assert lines[0].startswith("제5조(근무기간) 교원의 근무기간은")
    assert lines[1] == "1. 교수 : 정년까지의 기간 다만, 본인이 원하는 경우에는 계약으로 정하는 기간"
    assert lines[2] == "2. 부교수 : 6년"


@pytest.mark.parametrize(
    ("code", "title", "previous", "opening"),
    [
        ("3-2-39", "원격수업운영규정", "3-2-38", "제1조(목적) 이 규정은「고등교육법」제22조에 의거하여"),
        ("6-0-3", "연구비관리규정", "6-0-2", "제1조(목적) 이 규정은 동의대학교(이하 “본 대학교”라 한다)의 산학연협력"),
        ("3-3-11", "학생교내외행사안전관리규정", "3-3-10", "제1조(목적) 이 규정은 동의대학교 (이하 “본교”라 한다)"),
    ],
)
def test_regulation_printed_right_after_another_ones_addendum(
    book: dict[str, Document], code: str, title: str, previous: str, opening: str
) -> None:
    """No running header of their own: the title line after the 부칙 opens them all the same."""
    doc, before = book[code], book[previous]
    assert doc.title == title
    assert articles(doc, "제1조")[0].text.startswith(opening)
    assert before.elements[-1].category == "addendum"
    assert squash(opening) not in squash(full_text(before))


def test_no_page_furniture_in_any_element(book: dict[str, Document]) -> None:
    running_header = re.compile(r"\d+\s*[—-]\s*\d+\s*[—-]\s*\d+\s*[～~]")
    contents_line = re.compile(r"^.{2,60}\d-\d{1,3}-\d{1,3}$", re.M)
    for doc in book.values():
        for element in doc.elements:
            assert "동의대학교 규정집" not in element.text.split("\n"), doc.code
            assert not running_header.search(element.text), (doc.code, element.text[:80])
            assert not contents_line.search(element.text), (doc.code, element.text[:80])
            assert not re.search(r"[\ue000-\uf8ff\U000f0000-\U000ffffd]", element.text), doc.code


def test_addenda_are_never_articles(book: dict[str, Document]) -> None:
    for doc in book.values():
        categories = [e.category for e in doc.elements]
        if "addendum" in categories:
            assert "article" not in categories[categories.index("addendum") :], doc.code
        for element in doc.elements:
            if element.category == "addendum":
                assert element.article is None and element.text.split("\n")[0].replace(" ", "") == "부칙"
            if element.category == "article":
                assert element.article_title not in {"시행일", "경과조치"}, doc.code


def test_each_article_is_one_element(book: dict[str, Document]) -> None:
    """One element per 조 even when a table sits inside it (the table follows, carrying the 조)."""
    repeated = {
        (code, e.article)
        for code, doc in book.items()
        for e in doc.elements
        if e.category == "article" and len(articles(doc, e.article or "")) > 1
    }
    # The book prints an old 제2조(업무 및 사업) heading right above the current 제2조(업무).
    assert repeated == {("3-2-50", "제2조")}
    refund = book["3-2-33"]
    (article,) = articles(refund, "제3조")
    table = refund.elements[refund.elements.index(article) + 1]
    assert (table.category, table.article) == ("table", "제3조")
    assert table.table is not None and ("∼ 수업일수 1/4", "등록금 전액이월") in table.table.rows
    assert "| ∼ 수업일수 1/4 | 등록금 전액이월 |" in table.text.split("\n")


def test_branch_articles_are_their_own_articles(book: dict[str, Document]) -> None:
    labels = [e.article for e in book["3-1-5"].elements if e.category == "article"]
    assert labels.index("제36조") < labels.index("제36조의2") < labels.index("제36조의3") < labels.index("제37조")
    assert articles(book["3-1-5"], "제2조의2")[0].text.startswith("제2조의2(산학협력중점교원으로의 전환) ①")
    # 제10조2 (분실 및 훼손): a branch printed without 의
    assert articles(book["6-0-15"], "제10조의2")[0].article_title == "분실 및 훼손"


def test_school_rule_attachment_2_is_a_table(book: dict[str, Document]) -> None:
    """The 별표's title lines are its table's caption (tests/ingest/test_tables.py checks the rows)."""
    rule = book["2-1-1"]
    (table2,) = [e for e in rule.elements if e.attachment == "별표 2"]
    lines = table2.text.split("\n")
    assert table2.category == "table" and table2.table is not None
    assert lines[0] == "<별표 2> 2026학년도 학과(전공)별 수여 학위명"
    assert "| 국어국문학과 | 문학사 |  | 물리치료학과 | 물리치료학사 |" in lines
    assert len(table2.table.rows) > 30
    labels = [e.attachment for e in rule.elements if e.category in ("attachment", "table")]
    assert {"별표 1", "별표 2-1", "별지 1"} <= set(labels)


def test_chapter_paths(book: dict[str, Document]) -> None:
    (article,) = articles(book["3-1-5"], "제40조")
    assert article.path == ("제8장 호봉승급의 제한",)
    (deputy,) = articles(book["1-0-1"], "제9조")
    assert deputy.path == ("제2장 자산과 회계", "제2절 회계")


def test_structural_gold_is_in_the_regulation_text(book: dict[str, Document]) -> None:
    checked = 0
    for q in jsonl("structural.jsonl"):
        for gold in q["gold"]:
            if "code" not in gold:
                continue
            doc = book[gold["code"]]
            text = "\n".join(e.text for e in articles(doc, gold["article"])) if q["kind"] == "article" else full_text(doc)
            missing = [m for m in q["must_contain"] if squash(m) not in squash(text)]
            if q["id"] in STRUCTURAL_GOLD_ERRATA:
                assert missing, f"{q['id']}: gold fixed, drop it from the errata"
                elsewhere = squash("\n".join(full_text(book[c]) for c in STRUCTURAL_GOLD_ERRATA[q["id"]]))
                assert all(squash(m) in elsewhere for m in missing), q["id"]
            else:
                assert not missing, (q["id"], gold, missing)
            checked += 1
    assert checked == 25


def test_regulation_questions_gold_articles_and_evidence(book: dict[str, Document]) -> None:
    """Every gold (code, article) exists; evidence is in the regulation (a table's cells and rows read as one run)."""
    hits = total = 0
    for q in jsonl("regulations.jsonl"):
        spans = q.get("evidence_all") or [q.get("evidence")]
        for i, gold in enumerate(q["gold"]):
            total += 1
            doc = book.get(gold["code"])
            ok = doc is not None and bool(articles(doc, gold["article"]))
            evidence = spans[i] if i < len(spans) else None
            if ok and doc is not None and evidence:
                ok = squash(evidence) in squash(TABLE_RULE.sub("", full_text(doc))).replace("|", "")
            hits += ok
    assert (hits, total) == (60, 60)


# --- generated HWPX files ------------------------------------------------------------------------

NS = (
    'xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" '
    'xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph" '
    'xmlns:hh="http://www.hancom.co.kr/hwpml/2011/head"'
)
HEADER = (
    f"<hh:head {NS}><hh:refList><hh:styles>"
    '<hh:style id="0" type="PARA" name="바탕글" engName="Normal"/>'
    '<hh:style id="1" type="PARA" name="개요 1" engName="Outline 1"/>'
    '<hh:style id="2" type="PARA" name="개요 2" engName="Outline 2"/>'
    "</hh:styles></hh:refList></hh:head>"
)


def para(text: str = "", style: int = 0, inner: str = "") -> str:
    return f'<hp:p styleIDRef="{style}"><hp:run>{inner}<hp:t>{escape(text)}</hp:t></hp:run></hp:p>'


def cell(text: str, row: int, col: int, rows: int = 1, cols: int = 1) -> str:
    return (
        f"<hp:tc><hp:subList><hp:p><hp:run><hp:t>{text}</hp:t></hp:run></hp:p></hp:subList>"
        f'<hp:cellAddr colAddr="{col}" rowAddr="{row}"/><hp:cellSpan colSpan="{cols}" rowSpan="{rows}"/></hp:tc>'
    )


def table(*rows: str) -> str:
    body = "".join(f"<hp:tr>{r}</hp:tr>" for r in rows)
    return f'<hp:p><hp:run><hp:tbl rowCnt="{len(rows)}">{body}</hp:tbl></hp:run></hp:p>'


def write_hwpx(path: Path, *paragraphs: str, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/hwp+zip")
        z.writestr("Contents/header.xml", HEADER)
        z.writestr("Contents/section0.xml", f"<hs:sec {NS}>{''.join(paragraphs)}</hs:sec>")
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return path


def test_generic_hwpx_gives_headings_paragraphs_and_merged_tables(tmp_path: Path) -> None:
    running_header = f"<hp:ctrl><hp:header><hp:subList>{para('보고서  1—2—3～')}</hp:subList></hp:header></hp:ctrl>"
    path = write_hwpx(
        tmp_path / "보고서.hwpx",
        para("추진 배경", style=1, inner=running_header),
        para("현황", style=2),
        # a line break wrapping a sentence is the space it wraps; one before a bullet starts the bullet's line
        "<hp:p><hp:run><hp:t>첫 줄은 길게<hp:lineBreak/>이어진다.<hp:lineBreak/>- 둘째<hp:tab/>줄</hp:t></hp:run></hp:p>",
        table(
            cell("구분", 0, 0, rows=2) + cell("2024", 0, 1) + cell("2025", 0, 2),
            cell("10", 1, 1) + cell("20", 1, 2),
            cell("합계 30", 2, 0, cols=3),
        ),
    )
    (doc,) = load_file(path)
    assert (doc.title, doc.kind, doc.source, doc.code) == ("추진 배경", "hwpx", "보고서.hwpx", None)
    assert [(e.category, e.text, e.path) for e in doc.elements] == [
        ("heading", "추진 배경", ()),
        ("heading", "현황", ("추진 배경",)),
        ("paragraph", "첫 줄은 길게 이어진다.\n- 둘째 줄", ("추진 배경", "현황")),
        ("table", "| 구분 | 2024 | 2025 |\n|---|---|---|\n| 구분 | 10 | 20 |\n| 합계 30 |  |  |", ("추진 배경", "현황")),
    ]
    table_ = doc.elements[3].table  # the row-spanning 구분 repeats, the column-spanning 합계 counts once
    assert table_ is not None and (table_.header, table_.rows) == (("구분", "2024", "2025"), (("구분", "10", "20"), ("합계 30",)))


def test_generic_hwpx_without_headings_is_titled_by_file_name(tmp_path: Path) -> None:
    (doc,) = load_hwpx(write_hwpx(tmp_path / "메모.hwpx", para("그냥 문단입니다.")))
    assert (doc.title, [e.category for e in doc.elements]) == ("메모", ["paragraph"])


def test_single_regulation_hwpx_gets_articles_addendum_and_attachment(tmp_path: Path) -> None:
    path = write_hwpx(
        tmp_path / "샘플.hwpx",
        para("샘플규정"),
        para("제1장  총  칙"),
        para("제1조 (목적) 이 규정은 샘플을 정한다."),
        para("제2조 (정의) ① 이 규정에서 쓰는 말은 다음과 같다."),
        para("  1. 가나"),
        para("    가. 다라"),
        para(" 둘째 항", inner='<hp:compose composeText="②"/>'),
        para("제2조의2 (특례) 특례를 둔다."),
        para("부칙 <제1호, 2020. 1. 1.>"),
        para("제1조(시행일) 이 규정은 2020년 1월 1일부터 시행한다."),
        para(" 경과조치", inner='<hp:compose composeText="\U000f028d\U000f0293"/>'),  # glyph-drawn 51
        para("[별표 1] 수당 기준"),
        table(cell("직급", 0, 0) + cell("금액", 0, 1), cell("교수", 1, 0) + cell("100", 1, 1)),
    )
    (doc,) = load_hwpx(path)
    assert (doc.title, doc.kind) == ("샘플규정", "regulation")
    assert [(e.category, e.article, e.attachment) for e in doc.elements] == [
        ("article", "제1조", None),
        ("article", "제2조", None),
        ("article", "제2조의2", None),
        ("addendum", None, None),
        ("table", None, "별표 1"),
    ]
    assert doc.elements[1].text == "제2조(정의) ① 이 규정에서 쓰는 말은 다음과 같다.\n1. 가나\n가. 다라\n② 둘째 항"
    assert doc.elements[1].path == ("제1장 총칙",)
    assert doc.elements[3].text.split("\n") == [
        "부칙 <제1호, 2020. 1. 1.>",
        "제1조(시행일) 이 규정은 2020년 1월 1일부터 시행한다.",
        "(51) 경과조치",
    ]
    assert doc.elements[4].text == "[별표 1] 수당 기준\n| 직급 | 금액 |\n|---|---|\n| 교수 | 100 |"
    assert doc.elements[4].table == Table(("직급", "금액"), (("교수", "100"),), "[별표 1] 수당 기준")


def test_broken_zip_is_a_loader_error(tmp_path: Path) -> None:
    broken = tmp_path / "깨진.hwpx"
    broken.write_bytes(b"PK\x03\x04 not really a zip" * 10)
    with pytest.raises(LoaderError, match="broken zip") as err:
        load_file(broken)
    assert "깨진.hwpx" in str(err.value) and "\n" not in str(err.value)


def test_missing_section_is_a_loader_error(tmp_path: Path) -> None:
    path = tmp_path / "빈.hwpx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/hwp+zip")
    with pytest.raises(LoaderError, match=r"no Contents/section\*\.xml"):
        load_file(path)


def test_encrypted_hwpx_is_refused(tmp_path: Path) -> None:
    manifest = b"<odf:manifest><odf:file-entry><odf:encryption-data/></odf:file-entry></odf:manifest>"
    path = write_hwpx(tmp_path / "잠김.hwpx", para("비밀"), extra={"META-INF/manifest.xml": manifest})
    with pytest.raises(LoaderError, match="encrypted"):
        load_file(path)


def test_broken_section_xml_is_a_loader_error(tmp_path: Path) -> None:
    path = tmp_path / "망가진.hwpx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("Contents/section0.xml", f"<hs:sec {NS}><hp:p><hp:run><hp:t>끝없는")
    with pytest.raises(LoaderError, match=r"broken Contents/section0\.xml"):
        load_file(path)
