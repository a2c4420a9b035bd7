"""Statute Markdown (corpus/laws) and plain Markdown/text loading."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from geungeo.errors import LoaderError
from geungeo.ingest import load_file
from tests.conftest import CORPUS, need_shared


@pytest.fixture(scope="module")
def labor_act():  # type: ignore[no-untyped-def]
    need_shared()
    return load_file(CORPUS / "laws" / "근로기준법.md")[0]


def test_title_and_dates_come_from_front_matter(labor_act) -> None:  # type: ignore[no-untyped-def]
    assert labor_act.title == "근로기준법"
    assert labor_act.kind == "law"
    assert labor_act.meta["effective"] == "2027-01-01"
    assert labor_act.meta["ministry"] == "고용노동부"


def test_branch_article_is_its_own_article(labor_act) -> None:  # type: ignore[no-untyped-def]
    arts = {e.article: e for e in labor_act.elements if e.category == "article"}
    assert "제43조의2" in arts and "제43조" in arts
    assert arts["제43조의2"].article_title == "체불사업주 명단 공개"
    assert arts["제43조의2"].text.startswith("제43조의2(체불사업주 명단 공개)")
    assert "제43조의2" not in arts["제43조"].text.split("\n", 1)[0]


def test_paragraphs_and_items_stay_inside_their_article(labor_act) -> None:  # type: ignore[no-untyped-def]
    art = next(e for e in labor_act.elements if e.article == "제60조")
    assert art.article_title == "연차 유급휴가"
    assert art.path == ("제4장 근로시간과 휴식",)
    assert "① 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다." in art.text
    assert "**" not in art.text


def test_addendum_is_kept_apart_from_the_articles(labor_act) -> None:  # type: ignore[no-untyped-def]
    articles = [e for e in labor_act.elements if e.category == "article"]
    addenda = [e for e in labor_act.elements if e.category == "addendum"]
    assert [e.article for e in articles].count("제1조") == 1
    assert next(e for e in articles if e.article == "제1조").article_title == "목적"
    assert addenda and all(e.article is None for e in addenda)
    assert all(e.text.startswith("부칙") for e in addenda)
    assert any("제1조(시행일)" in e.text or "제1조 (시행일)" in e.text for e in addenda)
    # no article element after the first addendum
    first_addendum = labor_act.elements.index(addenda[0])
    assert all(e.category == "addendum" for e in labor_act.elements[first_addendum:])


def test_parts_chapters_sections_form_the_path() -> None:
    need_shared()
    civil = load_file(CORPUS / "laws" / "민법.md")[0]
    art = next(e for e in civil.elements if e.article == "제97조")
    assert art.path == ("제1편 총칙", "제3장 법인", "제5절 벌칙")


def test_plain_markdown_loads_as_headings_and_paragraphs(tmp_path: Path) -> None:
    p = tmp_path / "메모.md"
    p.write_text("# 안내\n\n첫 문단입니다.\n\n## 세부\n\n둘째 문단.\n", "utf-8")
    doc = load_file(p)[0]
    assert doc.kind == "text" and doc.title == "안내"
    assert [(e.category, e.text) for e in doc.elements] == [
        ("heading", "안내"),
        ("paragraph", "첫 문단입니다."),
        ("heading", "세부"),
        ("paragraph", "둘째 문단."),
    ]
    assert doc.elements[-1].path == ("안내", "세부")


def test_nfd_file_name_and_text_come_out_nfc(tmp_path: Path) -> None:
    name = unicodedata.normalize("NFD", "휴가 안내.txt")
    p = tmp_path / name
    p.write_text(unicodedata.normalize("NFD", "연차 휴가는 15일이다."), "utf-8")
    doc = load_file(p)[0]
    assert doc.source == "휴가 안내.txt"
    assert doc.elements[0].text == "연차 휴가는 15일이다."


def test_cp949_text_is_decoded(tmp_path: Path) -> None:
    p = tmp_path / "옛글.txt"
    p.write_bytes("한글 문서".encode("cp949"))
    assert load_file(p)[0].elements[0].text == "한글 문서"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.md", b"", "empty file"),
        ("binary.md", b"\x00\x01\x02\x03" * 100, "binary data"),
        ("table.xyz", b"a,b", "unsupported file type '.xyz'"),
    ],
)
def test_bad_files_give_one_line_errors(tmp_path: Path, name: str, content: bytes, reason: str) -> None:
    p = tmp_path / name
    p.write_bytes(content)
    with pytest.raises(LoaderError) as info:
        load_file(p)
    assert reason in str(info.value) and name in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match="no such file"):
        load_file(tmp_path / "없는파일.md")
