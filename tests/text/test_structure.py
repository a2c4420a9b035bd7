import pytest

from geungeo.text.structure import (
    division_label,
    normalize_article_refs,
    paragraph_number,
    parse_article_head,
    unwrap_line_breaks,
)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("제8조(휴직) ① 교원이", ("제8조", "휴직", "① 교원이")),
        ("제43조의2 (체불사업주 명단 공개)", ("제43조의2", "체불사업주 명단 공개", "")),
        ("제 60 조 (연차 유급휴가)", ("제60조", "연차 유급휴가", "")),
        ("제64조", ("제64조", None, "")),
        # a title holding parentheses of its own, or written in doubled ones (705 articles of the statute book)
        ("제26조(입시 연장(야간, 주말) 근로 수당) 입시에", ("제26조", "입시 연장(야간, 주말) 근로 수당", "입시에")),
        ("제50조(분사무소(分事務所) 설치의 등기) 법인이", ("제50조", "분사무소(分事務所) 설치의 등기", "법인이")),
        ("제10조((심문기일) ) ① 법원은", ("제10조", "심문기일", "① 법원은")),
        ("제21조(전과(전공) ) ① 전과(전공)는", ("제21조", "전과(전공)", "① 전과(전공)는")),
        # a source that leaves a bracket open: the title ends at the first closing one, as before
        ("제3조의3(정원외 전담(학과) 각 대학원은 둔다.", ("제3조의3", "정원외 전담(학과", "각 대학원은 둔다.")),
    ],
)
def test_article_heads(line: str, expected: tuple[str, str | None, str]) -> None:
    assert parse_article_head(line) == expected


def test_not_an_article_head() -> None:
    assert parse_article_head("이 법은 제60조에 따라") is None


def test_divisions() -> None:
    assert division_label("제2장 근로계약") == ("장", "제2장 근로계약")
    assert division_label("제1편 총칙") == ("편", "제1편 총칙")
    assert division_label("제3절의2 특례") == ("절", "제3절의2 특례")
    assert division_label("제2조(정의)") is None


def test_article_refs_normalised() -> None:
    assert normalize_article_refs("제 60 조, 60조 및 제43조의 2") == ["제60조", "제60조", "제43조의2"]


def test_paragraph_numbers() -> None:
    assert paragraph_number("② 사용자는") == 2
    assert paragraph_number("**③** 삭제") == 3
    assert paragraph_number("1. 근로자") is None


def test_a_line_break_inside_a_paragraph_is_the_space_it_wraps_unless_a_mark_opens_the_next_line() -> None:
    wrapped = "○ 그러나, 디지털 전환(Digital Transformation)\n시대가 도래함에 따라 기존 전자정부의 한계 표출"
    assert unwrap_line_breaks(wrapped) == wrapped.replace("\n", " ")
    assert unwrap_line_breaks("○ 고지서 등을 온라인(공공‧민간)\n으로 받고") == "○ 고지서 등을 온라인(공공‧민간) 으로 받고"
    # a bullet, a list item, a circled 항 or an article opens a line of its own; an empty line stays
    for marked in ("가. 호의 목", "- 세부 과제", "1. 첫째 호", "② 둘째 항", "제3조(정의) 이 규정에서", "※ 참고", "\n빈 줄 뒤"):
        assert unwrap_line_breaks(f"앞 줄\n{marked}") == f"앞 줄\n{marked}"
