"""Citations between articles: which document and article each citation names."""

from __future__ import annotations

from geungeo.text.references import Reference, document_references, parent_title, sibling_paragraphs
from geungeo.types import Chunk


def _doc(title: str, *articles: tuple[str, str], kind: str = "law", addendum: str = "") -> list[Chunk]:
    chunks = [
        Chunk(f"{title}-{n}", title, n, f"{title} {article}", text,
              {"doc": title, "kind": kind, "article": article, "addendum": False})
        for n, (article, text) in enumerate(articles)
    ]
    if addendum:
        chunks.append(Chunk(f"{title}-b", title, len(chunks), "부칙", addendum,
                            {"doc": title, "kind": kind, "article": "제1조", "addendum": True}))
    return chunks


def _cited(title: str, *articles: tuple[str, str], kind: str = "law") -> list[tuple[str, str, str]]:
    return [(r.doc, r.article, r.detail) for r in document_references(title, kind, _doc(title, *articles, kind=kind))]


def test_decree_cites_its_statute() -> None:
    assert parent_title("근로기준법 시행령") == "근로기준법" and parent_title("근로기준법") is None
    decree = ("제17조", "법 제37조제1항에서 \"대통령령으로 정하는 이율\"이란 연 100분의 20을 말한다.")
    assert _cited("근로기준법 시행령", decree) == [("근로기준법", "제37조", "제1항")]
    # 이 영 is the decree itself, 동법 its statute, 규칙 the statute's 시행규칙
    assert _cited("근로기준법 시행령", ("제2조", "이 영 제5조, 동법 제3조 및 규칙 제2조에 따른다.")) == [
        ("근로기준법 시행령", "제5조", ""), ("근로기준법", "제3조", ""), ("근로기준법 시행규칙", "제2조", "")]


def test_statute_cites_its_decree_and_itself() -> None:
    assert _cited("근로기준법", ("제37조", "대통령령으로 정한다. 영 제17조와 제36조에 따른 기간")) == [
        ("근로기준법 시행령", "제17조", ""), ("근로기준법 시행령", "제36조", "")]
    assert _cited("민법", ("제841조", "제840조제6호의 사유는 이 법 제2조의2와 다르다.")) == [
        ("민법", "제840조", "제6호"), ("민법", "제2조의2", "")]


def test_named_documents_and_same_law() -> None:
    text = "「고령자고용촉진법」 제2조제1호에 따른 고령자와 같은 법 제3조, 제4조부터 제6조까지의 사업. 제9조에 따라"
    assert _cited("근로기준법", ("제10조", text)) == [
        ("고령자고용촉진법", "제2조", "제1호"), ("고령자고용촉진법", "제3조", ""), ("고령자고용촉진법", "제4조", ""),
        ("고령자고용촉진법", "제6조", ""), ("근로기준법", "제9조", "")]
    # 같은 법 with no title named before it, in a 시행령: the statute it implements
    assert _cited("최저임금법 시행령", ("제3조", "같은 법 제5조")) == [("최저임금법", "제5조", "")]
    assert _cited("민법", ("제1조", "「가사소송법」 시행령 제2조 및 공인중개사법 시행규칙 제3조")) == [
        ("가사소송법 시행령", "제2조", ""), ("공인중개사법 시행규칙", "제3조", "")]


def test_regulations_name_each_other_by_title_and_by_defined_names() -> None:
    got = _cited(
        "교원인사규정",
        ("제1조", "이 규정은 「고등교육법」(이하 \"법\"이라 한다) 및 학칙 제36조에 따라 정한다."),
        ("제2조", "법 제14조의 교원은 이 규정 제1조와 교원및직원의수당규정 제3조를 따른다. 규정 제5조"),
        kind="regulation",
    )
    assert got == [("학칙", "제36조", ""), ("고등교육법", "제14조", ""), ("교원인사규정", "제1조", ""),
                   ("교원및직원의수당규정", "제3조", ""), ("교원인사규정", "제5조", "")]


def test_addenda_and_self_citations_are_not_links() -> None:
    chunks = _doc("민법", ("제3조", "제3조제2항의 경우와 제4조"), addendum="제5조의 개정규정은 공포한 날부터 시행한다.")
    assert document_references("민법", "law", chunks) == [Reference("민법-0", "민법", "제4조", "")]


def test_lists_run_through_details_and_remarks() -> None:
    text = ("「형법」 제258조의2(특수상해)ㆍ제261조 또는 「민법」 제909조의2(「민법」 제927조의2제1항에 따라 준용되는 "
            "경우를 포함한다), 제931조제2항ㆍ제3항, 제932조. 「고용보험 및 산업재해보상보험의 보험료징수 등에 관한 법률」"
            "(이하 \"징수법\"이라 한다) 제5조. 「국민건강보험법」에 따른 공단에 같은 법 제50조. 제3조 위반 제4조")
    assert [(d, a) for d, a, _ in _cited("도로교통법", ("제93조", text))] == [
        ("형법", "제258조의2"), ("형법", "제261조"), ("민법", "제909조의2"), ("민법", "제927조의2"), ("민법", "제931조"),
        ("민법", "제932조"), ("고용보험 및 산업재해보상보험의 보험료징수 등에 관한 법률", "제5조"), ("국민건강보험법", "제50조"),
        ("도로교통법", "제3조"), ("도로교통법", "제4조")]


def test_a_paragraph_names_the_paragraphs_of_its_own_article_it_builds_on() -> None:
    assert sibling_paragraphs("④ 제1항에 따라 주민등록증을 발급받을 나이가 된 사람은") == [1]
    assert sibling_paragraphs("② 전항의 방식에 의한 유언봉서는") == [1]
    assert sibling_paragraphs("⑤ 제2항 및 제3항에 따라 제4조제1항의 신고를") == [2, 3]  # 제4조제1항: another article
    assert sibling_paragraphs("③ 같은 조 제1항에 따른") == []
    assert sibling_paragraphs("제1항에 따른 신고") == []  # not a 항 itself: nothing of its own article to name
    # departing ("에도 불구하고") from a paragraph, as against building on it
    text = "④ 제1항에도 불구하고 미성년자인 상속인이 제2항의 조사를 마친 경우에는"
    assert sibling_paragraphs(text) == [1, 2]
    assert sibling_paragraphs(text, departing=True) == [1]
    assert sibling_paragraphs("③ 제1항 본문에도 불구하고", departing=True) == [1]
