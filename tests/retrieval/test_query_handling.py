"""Query-side retrieval helpers: document names in questions, the synonym lexicon, stop terms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geungeo.errors import ConfigError
from geungeo.retrieval.expansion import load_lexicon, query_terms
from geungeo.retrieval.scope import DocumentScope, aliases
from geungeo.types import DocumentRecord


def _doc(doc_id: str, title: str, code: str | None = None) -> DocumentRecord:
    return DocumentRecord(doc_id, f"{title}.md", title, "law", code, "h", 1)


SCOPE = DocumentScope.build(
    [
        _doc("lsa", "근로기준법"),
        _doc("lsa-dec", "근로기준법 시행령"),
        _doc("temp", "기간제 및 단시간근로자 보호 등에 관한 법률"),
        _doc("civil", "민법"),
        _doc("rules", "동의대학교학칙", "2-1-1"),
        _doc("grad", "동의대학교대학원학칙", "2-1-2"),
        _doc("pdf", "SPRI_AI_Brief_2023년12월호_F.pdf"),
        _doc("graft", "부정청탁 및 금품등 수수의 금지에 관한 법률"),
        _doc("elderly", "고용상 연령차별금지 및 고령자고용촉진에 관한 법률"),
        _doc("emergency", "응급의료에 관한 법률"),
    ]
)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("근로기준법에 따르면 연차는 며칠?", {"lsa"}),
        ("근로기준법 시행령 제3조", {"lsa-dec"}),  # the longer name wins where they overlap
        ("기간제 및 단시간근로자 보호법에 따라 차별 시정", {"temp"}),  # shortened legal name
        ("민법상 상속 순위", {"civil"}),
        ("학칙 제15조", {"rules"}),  # the university prefix is optional
        ("동의대학교대학원학칙에 따르면 휴학은", {"grad"}),
        ("대학원학칙 휴학", {"grad"}),
        ("규정 2-1-1 의 목적", {"rules"}),
        ("SPRI AI Brief 2023년 12월호", set()),  # not the file name as written
        ("휴가는 며칠?", set()),
    ],
)
def test_named_documents(query: str, expected: set[str]) -> None:
    assert SCOPE.named(query) == expected


@pytest.mark.parametrize(
    ("query", "absent"),
    [
        ("소득세법상 퇴직소득세율은?", ["소득세법"]),
        ("「국가를 당사자로 하는 계약에 관한 법률」 제5조에 따른 계약", ["국가를 당사자로 하는 계약에 관한 법률"]),
        ("고등교육법 시행령 제4조에 따르면", ["고등교육법 시행령"]),
        ("근로기준법 시행규칙 제3조", ["근로기준법 시행규칙"]),
        ("교원복무지침상 겸직 허가", ["교원복무지침"]),
        ("근로기준법상 연차", []),
        ("근로기준법 시행령 제3조에 따르면", []),
        ("근기법상 연차", []),  # its letters in order: a shortening of 근로기준법
        ("청탁금지법상 외부강의 사례금", []),  # loosely: of 부정청탁 및 금품등 수수의 금지에 관한 법률
        ("고령자고용촉진법 제2조제1호의 고령자", []),  # inside the stored title
        ("대학원학칙상 휴학", []),
        ("신청 방법상 문제", []),  # two syllables: a word, not a title
        ("같은 법 제3조에 따르면", []),
        ("시행령 제3조에 따르면", []),
        ("계약서상 금액", []),
        ("난민법상 난민 인정 요건", ["난민법"]),  # not 민법, whose name it ends with
    ],
)
def test_documents_cited_by_name_that_the_store_does_not_hold(query: str, absent: list[str]) -> None:
    assert SCOPE.absent(query) == absent


def test_a_title_means_a_stored_document_it_is_or_shortens() -> None:
    assert SCOPE.holds("동의대학교 학칙") == {"rules"}
    assert SCOPE.holds("근기법") == {"lsa"}  # not 근로기준법 시행령, which does not end alike
    assert SCOPE.holds("근로기준법 시행령") == {"lsa-dec"}
    assert SCOPE.holds("고등교육법 시행령") == SCOPE.holds("청탁금지법") == set()  # a title lookup wants it strict
    assert SCOPE.holds("고령자고용촉진법") == {"elderly"}  # its letters in order from the first
    assert SCOPE.holds("의료법") == set() and SCOPE.absent("의료법 제17조") == []  # inside 응급의료법: not shown, not refused
    assert SCOPE.named("근기법상 연차는?") == {"lsa"} and SCOPE.named("소득세법상 세율") == set()  # searched in it


def test_aliases_ignore_spacing_and_suffixes() -> None:
    assert "파견근로자보호법" in aliases("파견근로자 보호 등에 관한 법률")
    assert "학칙" in aliases("동의대학교학칙")
    assert "report" in aliases("report.pdf")


def test_lexicon_maps_everyday_words_to_legal_terms() -> None:
    lex = load_lexicon()
    terms = query_terms("사장이 몇 달째 월급을 안 줘요", lex)
    assert "임금" in terms and "사용자" in terms and "월급" in terms
    assert "하다" not in terms and "있다" not in query_terms("받을 수 있나요", lex)
    assert lex.audience("휴학생인데 장학금 받을 수 있나요") == "student"
    assert lex.audience("교수님 연구년 신청") == "faculty"
    assert lex.audience("오늘 날씨") is None
    assert query_terms("월급 안 줘요") == [t for t in query_terms("월급 안 줘요") if t != "임금"]


def test_custom_lexicon_file_and_clear_error(tmp_path: Path) -> None:
    custom = tmp_path / "lex.json"
    custom.write_text(json.dumps({"synonyms": {"칼퇴": ["소정근로시간"]}}, ensure_ascii=False), "utf-8")
    assert "소정" in " ".join(query_terms("칼퇴 가능?", load_lexicon(str(custom))))
    broken = tmp_path / "broken.json"
    broken.write_text("{oops", "utf-8")
    with pytest.raises(ConfigError, match=r"broken\.json"):
        load_lexicon(str(broken))
