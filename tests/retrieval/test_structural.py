"""The structural shortcut: parsing "학칙 제15조"-style requests and answering them from the store."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from geungeo.engine import Engine, build_engine
from geungeo.retrieval.structural import (
    StructuralAnswer,
    StructuralLookup,
    StructuralRequest,
    _detail,
    parse_structural,
)
from geungeo.settings import Settings
from geungeo.text.normalize import squash
from tests.conftest import CORPUS, QUESTIONS, need_shared
from tests.ingest.test_hwpx import STRUCTURAL_GOLD_ERRATA, cell, para, table, write_hwpx

# --- parsing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("교원인사규정", StructuralRequest("overview", "교원인사규정", exact_name=True)),
        ("교원인사규정 개요", StructuralRequest("overview", "교원인사규정")),
        ("교원인사규정 목차 보여줘", StructuralRequest("overview", "교원인사규정")),
        ("학칙 제15조", StructuralRequest("article", "학칙", article="제15조")),
        ("근로기준법 제60조 내용", StructuralRequest("article", "근로기준법", article="제60조")),
        ("근로기준법 제 60 조", StructuralRequest("article", "근로기준법", article="제60조")),
        ("근로기준법 60조 알려줘", StructuralRequest("article", "근로기준법", article="제60조")),
        ("근로기준법 제60조(연차 유급휴가)", StructuralRequest("article", "근로기준법", article="제60조")),
        ("근로기준법 제60조 제2항", StructuralRequest("article", "근로기준법", article="제60조", paragraph=2)),
        ("근로기준법 제2조 1항 3호", StructuralRequest("article", "근로기준법", article="제2조", paragraph=1, item=3)),
        ("근로기준법 제2조제3호", StructuralRequest("article", "근로기준법", article="제2조", item=3)),
        ("[교원인사규정 제8조]", StructuralRequest("article", "교원인사규정", article="제8조")),
        ("교육과정운영위원회규정제3조", StructuralRequest("article", "교육과정운영위원회규정", article="제3조")),
        ("근로기준법시행령 제3조를 보여주세요", StructuralRequest("article", "근로기준법시행령", article="제3조")),
        ("학칙에서 제15조", StructuralRequest("article", "학칙", article="제15조")),
        ("제43조의 2", StructuralRequest("article", article="제43조의2")),
        ("근로기준법 제4장", StructuralRequest("chapter", "근로기준법", chapter="제4장")),
        ("민법 제1편 제4장에 있는 조문들", StructuralRequest("chapter", "민법", chapter="제1편 제4장")),
        ("방문판매 등에 관한 법률 제7장 전체", StructuralRequest("chapter", "방문판매 등에 관한 법률", chapter="제7장")),
        ("학칙 별표 2", StructuralRequest("attachment", "학칙", attachment="별표 2")),
        ("학칙 별표2-1", StructuralRequest("attachment", "학칙", attachment="별표 2-1")),
        ("서식 2", StructuralRequest("attachment", attachment="서식 2")),
        ("학칙 별지 제1호 서식", StructuralRequest("attachment", "학칙", attachment="별지 1")),
        ("겸임교원규정 전문", StructuralRequest("full", "겸임교원규정")),
        ("학칙 전체 내용", StructuralRequest("full", "학칙")),
        ("3-1-24", StructuralRequest("overview", code="3-1-24")),
        ("3-1-5 제8조", StructuralRequest("article", code="3-1-5", article="제8조")),
        ("교원인사규정(3-1-5) 전문", StructuralRequest("full", "교원인사규정", "3-1-5")),
        ("근로기준법에 대해 알려줘", StructuralRequest("overview", "근로기준법에 대해", exact_name=True)),
        # a plain request after a phrase ending like a title: structural only for a stored title
        ("등록금 반환 기준 알려줘", StructuralRequest("overview", "등록금 반환 기준", exact_name=True)),
        ("교원인사규정 보여줘", StructuralRequest("overview", "교원인사규정", exact_name=True)),
        # asked whether a document exists: its overview, when the name is one's
        ("장애학생 지원 규정 있나요?", StructuralRequest("overview", "장애학생 지원 규정", exact_name=True)),
        ("근로기준법 있어?", StructuralRequest("overview", "근로기준법", exact_name=True)),
        # asked what a document says: its overview (the search found nothing to quote for "근로기준법이 뭐야")
        ("근로기준법이 뭐야", StructuralRequest("overview", "근로기준법", exact_name=True)),
        ("명예교수규정은 어떤 내용이야?", StructuralRequest("overview", "명예교수규정", exact_name=True)),
        ("교원인사규정에는 뭐가 나와 있어?", StructuralRequest("overview", "교원인사규정", exact_name=True)),
        ("휴학규정 주요 내용 알려줘", StructuralRequest("overview", "휴학규정", exact_name=True)),
        ("근로기준법 제60조(연차 유급휴가(연차))", StructuralRequest("article", "근로기준법", article="제60조")),
        # a reference asked as a question: its text is the answer
        ("근로기준법 제60조는 뭐야?", StructuralRequest("article", "근로기준법", article="제60조")),
        ("근로기준법 제60조 제2항은 무슨 내용이에요?", StructuralRequest("article", "근로기준법", article="제60조", paragraph=2)),
        ("근로기준법 제60조의 내용은?", StructuralRequest("article", "근로기준법", article="제60조")),
        ("학칙 별표 1은 뭐예요?", StructuralRequest("attachment", "학칙", attachment="별표 1")),
        ("민법 제3장에는 뭐가 나와 있어?", StructuralRequest("chapter", "민법", chapter="제3장")),
        ("제43조가 뭐지?", StructuralRequest("article", article="제43조")),
        # several articles: listed, or a span
        (
            "근로기준법 제60조랑 제61조 보여줘",
            StructuralRequest("article", "근로기준법", article="제60조", series=("제60조", "제61조")),
        ),
        (
            "근로기준법 제60조, 제60조의 2",
            StructuralRequest("article", "근로기준법", article="제60조", series=("제60조", "제60조의2")),
        ),
        (
            "근로기준법 제60조부터 제62조까지",
            StructuralRequest("article", "근로기준법", article="제60조", series=("제60조", "제62조"), span=True),
        ),
        ("학칙 제3조~제5조", StructuralRequest("article", "학칙", article="제3조", series=("제3조", "제5조"), span=True)),
    ],
)
def test_parse_structural(query: str, expected: StructuralRequest) -> None:
    assert parse_structural(query) == expected


def test_compared_articles_ask_for_their_texts_only_when_asked_to() -> None:
    compared = "근로기준법 제60조와 제61조의 차이는?"
    assert parse_structural(compared) is None  # a question for the answer graph (a model explains the difference)
    expected = StructuralRequest("article", "근로기준법", article="제60조", series=("제60조", "제61조"))
    assert parse_structural(compared, comparisons=True) == expected
    assert parse_structural("연차와 월차의 차이는?", comparisons=True) is None


def test_parse_normalises_nfd_input() -> None:
    assert parse_structural(unicodedata.normalize("NFD", "학칙 제15조 보여줘")) == parse_structural("학칙 제15조")
    assert parse_structural(unicodedata.normalize("NFD", "교원인사규정")) == parse_structural("교원인사규정")


@pytest.mark.parametrize(
    "query",
    [
        "학칙에서 휴학은 몇 번까지?",
        "근로기준법 제60조에 따르면 연차휴가는 며칠인가요",
        "근로기준법 제60조와 제61조의 차이",
        "연차휴가는 뭐야?",
        "근로기준법에서 연차휴가는 무슨 내용이야?",
        "근로기준법 제60조 위반하면 뭐야?",
        "연차휴가 며칠이에요",
        "휴학 신청",
        "휴학 신청서 양식 있어?",
        "교통사고로 입원 중인데요. 치료비라도 먼저 받을 방법 없나요?",
        "전문",
        "",
    ],
)
def test_real_questions_are_not_structural(query: str) -> None:
    assert parse_structural(query) is None


# --- lookups on a small store -------------------------------------------------------------------

LAW = """---
제목: {title}
시행일자: 2025-01-01
---

# {title}

## 제1장 총칙 <개정 2020.1.1>

##### 제1조 (목적)

{purpose}

##### 제2조 (정의)

**①** 이 법에서 사용하는 용어의 뜻은 다음과 같다.

  1. "근로자"란 임금을 목적으로 근로를 제공하는 사람을 말한다.

  2. "사용자"란 사업주를 말한다.

**②** 그 밖의 용어는 대통령령으로 정한다.

## 제4장 근로시간과 휴식

##### 제50조 (근로시간)

1주간의 근로시간은 휴게시간을 제외하고 40시간을 초과할 수 없다.

##### 제60조 (연차 유급휴가)

**①** 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.

**②** {long}

**③** 휴가는 근로자가 청구한 시기에 주어야 한다.

##### 제60조의2 (휴가의 특례)

특례는 대통령령으로 정한다.

## 제5장 여성과 소년

##### 제64조 (최저 연령)

15세 미만인 사람은 근로자로 사용하지 못한다.

## 부칙

부칙 <제1호,2025.1.1>

제1조 (시행일) 이 법은 공포한 날부터 시행한다.
"""
# No spaces and no sentence ends: the splitter must hard-cut it, with overlapping parts.
LONG = "".join(f"{n:03d}번째일" for n in range(90))


def _write_law(dir_: Path, title: str, purpose: str) -> Path:
    path = dir_ / f"{title}.md"
    path.write_text(LAW.format(title=title, purpose=purpose, long=LONG), "utf-8")
    return path


def _sample_regulation(dir_: Path) -> Path:
    return write_hwpx(
        dir_ / "샘플규정.hwpx",
        para("샘플규정"),
        para("제1조 (목적) 이 규정은 샘플을 정한다."),
        para("[별표 1] 수당 기준"),
        table(cell("직급", 0, 0) + cell("금액", 0, 1), cell("교수", 1, 0) + cell("100", 1, 1)),
        para("[별지 제2호 서식] 신청서"),
        para("[별표 3-1] 평정표(일반용)"),
        table(cell("영역", 0, 0) + cell("배점", 0, 1), cell("교육", 1, 0) + cell("25", 1, 1)),
        para("[별표 3-2] 평정표(산학협력중점교원)"),
        table(cell("영역", 0, 0) + cell("배점", 0, 1), cell("산학", 1, 0) + cell("15", 1, 1)),
    )


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    docs = tmp_path / "docs"
    docs.mkdir()
    _write_law(docs, "근로기준법", "이 법은 근로조건의 기준을 정함을 목적으로 한다.")
    _write_law(docs, "근로기준법 시행령", "이 영은 근로기준법에서 위임된 사항을 정함을 목적으로 한다.")
    _sample_regulation(docs)
    eng = build_engine(Settings(data_dir=tmp_path / "data", embed_provider="fake", chunk_size=200, chunk_overlap=30))
    report = eng.ingest([docs])
    assert report.documents == 3 and not report.failed
    yield eng
    eng.close()


def _ask(engine: Engine, query: str) -> StructuralAnswer:
    answer = StructuralLookup(engine.store).answer(query)
    assert answer is not None, query
    return answer


def test_article_is_returned_whole_and_cited(engine: Engine) -> None:
    answer = _ask(engine, "근로기준법 제2조 보여줘")
    assert answer.found and answer.kind == "article"
    assert answer.text.split("\n")[0] == "근로기준법 제2조(정의)"
    for line in ("① 이 법에서 사용하는", '1. "근로자"란 임금을', '2. "사용자"란 사업주를', "② 그 밖의 용어는"):
        assert line in answer.text
    (citation,) = answer.citations
    assert (citation.label, citation.doc, citation.code, citation.article) == ("[근로기준법 제2조]", "근로기준법", None, "제2조")
    assert [c.meta["article"] for c in engine.store.get(citation.chunk_ids)] == ["제2조"]


def test_split_article_is_joined_without_repeating_the_overlap(engine: Engine) -> None:
    answer = _ask(engine, "근로기준법 제60조")
    assert len(answer.citations[0].chunk_ids) > 2  # the long 항 was cut into overlapping parts
    body = squash(answer.text)
    assert squash(LONG) in body and all(body.count(f"{n:03d}번째일") == 1 for n in range(90))
    assert body.index("①사용자는") < body.index(squash(LONG)) < body.index("③휴가는")


def test_a_paragraph_or_an_item_is_returned_alone_under_its_article(engine: Engine) -> None:
    second = _ask(engine, "근로기준법 제2조 제2항")
    assert second.found and second.text == "근로기준법 제2조(정의)\n\n② 그 밖의 용어는 대통령령으로 정한다."
    assert second.citations[0].label == "[근로기준법 제2조]"
    item = _ask(engine, "근로기준법 제2조 제1항 제2호")  # the 호 under the sentence that leads its list
    assert item.text.split("\n")[2:] == ["① 이 법에서 사용하는 용어의 뜻은 다음과 같다.", '2. "사용자"란 사업주를 말한다.']
    first = _ask(engine, "근로기준법 제2조 제1호").text.split("\n")[-1]
    assert first == '1. "근로자"란 임금을 목적으로 근로를 제공하는 사람을 말한다.'
    plain = _ask(engine, "근로기준법 제50조 제1항")  # an article without numbered 항 is its own 제1항
    assert "40시간을 초과할 수 없다" in plain.text
    split = _ask(engine, "근로기준법 제60조 제2항")  # a 항 cut over several chunks comes back whole, alone
    assert squash(LONG) in squash(split.text) and "①" not in split.text and "③" not in split.text
    missing = _ask(engine, "근로기준법 제60조 제9항")
    assert not missing.found and "제60조 제9항" in missing.message and "①, ②, ③" in missing.message
    assert not _ask(engine, "근로기준법 제2조 제1항 제7호").found


def test_a_paragraph_that_runs_on_from_the_title_line_and_items_without_a_space() -> None:
    body = "제3조(휴학) ① 휴학은 다음과 같다.\n1.일반휴학\n2.군입대휴학: 복무기간 1.5년 이내\n② 휴학은 통산 3년으로 한다."
    assert _detail(body, 1, None) == "① 휴학은 다음과 같다.\n1.일반휴학\n2.군입대휴학: 복무기간 1.5년 이내"
    assert _detail(body, 2, None) == "② 휴학은 통산 3년으로 한다."
    assert _detail(body, 1, 2) == "① 휴학은 다음과 같다.\n2.군입대휴학: 복무기간 1.5년 이내"
    assert _detail(body, 3, None) is None and _detail(body, 1, 5) is None


def test_addendum_article_1_is_never_the_statute_article_1(engine: Engine) -> None:
    answer = _ask(engine, "근로기준법 제1조")
    assert "근로조건의 기준을 정함" in answer.text and "시행일" not in answer.text


def test_spacing_and_longest_name(engine: Engine) -> None:
    assert "이 영은" in _ask(engine, "근로기준법시행령 제1조").text
    assert "이 영은" in _ask(engine, "근로기준법 시행령 제1조").text
    assert "이 법은" in _ask(engine, "근로기준법 제1조").text


def test_branch_article_and_nfd_query(engine: Engine) -> None:
    answer = _ask(engine, unicodedata.normalize("NFD", "근로기준법 제60조의2"))
    assert answer.found and "특례는 대통령령으로" in answer.text


def test_chapter_lists_its_articles_in_order(engine: Engine) -> None:
    answer = _ask(engine, "근로기준법 제4장에 있는 조문들")
    assert answer.found and answer.kind == "chapter"
    assert [c.article for c in answer.citations] == ["제50조", "제60조", "제60조의2"]
    assert "제4장 근로시간과 휴식" in answer.text and "제64조" not in answer.text


def test_overview_and_full_text(engine: Engine) -> None:
    overview = _ask(engine, "근로기준법")
    assert overview.kind == "overview" and overview.text.startswith("근로기준법 개요")
    lines = overview.text.split("\n")
    assert "[제1장 총칙]" in lines  # amendment notes dropped from chapter names
    titles = [line.split(":")[0] for line in lines if line.startswith("- ")]
    assert titles == [
        "- 제1조(목적)",
        "- 제2조(정의)",
        "- 제50조(근로시간)",
        "- 제60조(연차 유급휴가)",
        "- 제60조의2(휴가의 특례)",
        "- 제64조(최저 연령)",
    ]
    full = _ask(engine, "근로기준법 전문")
    assert full.kind == "full" and "제1조 (시행일) 이 법은 공포한 날부터" in full.text  # 부칙 included
    assert squash(full.text).count(squash(LONG)) == 1


def test_attachments(engine: Engine) -> None:
    table_answer = _ask(engine, "샘플규정 별표 1")
    assert table_answer.found and "교수 | 100" in table_answer.text
    assert table_answer.citations[0].label == "[샘플규정 별표 1]"
    assert "신청서" in _ask(engine, "샘플규정 서식 2").text  # 서식 and 별지 are one family
    missing = _ask(engine, "샘플규정 별표 4")
    assert not missing.found and "별표 1" in missing.message and "별지 2" in missing.message


def test_an_attachment_divided_into_parts_is_those_parts(engine: Engine) -> None:
    """"교원인사규정 별표 2" answered "no 별표 2" where the regulation has 별표 2-1 and 별표 2-2."""
    answer = _ask(engine, "샘플규정 별표 3")
    assert answer.found and [c.label for c in answer.citations] == ["[샘플규정 별표 3-1]", "[샘플규정 별표 3-2]"]
    assert "교육 | 25" in answer.text and "산학 | 15" in answer.text
    assert [c.label for c in _ask(engine, "샘플규정 별표 3-2").citations] == ["[샘플규정 별표 3-2]"]


def test_several_articles_each_whole_and_cited(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    span = _ask(engine, "근로기준법 제50조부터 제64조까지")  # before: 제64조 alone
    assert [c.label for c in span.citations] == [f"[근로기준법 {a}]" for a in ("제50조", "제60조", "제60조의2", "제64조")]
    assert span.text.index("제50조(근로시간)") < span.text.index("제60조의2(휴가의 특례)") < span.text.index("15세 미만")
    listed = _ask(engine, "근로기준법 제64조랑 제2조, 제99조")
    assert [c.label for c in listed.citations] == ["[근로기준법 제64조]", "[근로기준법 제2조]"]
    assert listed.text.endswith("(제99조: '근로기준법'에 없습니다 / not in 근로기준법)")
    assert not _ask(engine, "근로기준법 제98조, 제99조").found
    monkeypatch.setattr("geungeo.retrieval.structural._MAX_SERIES", 2)
    too_many = _ask(engine, "근로기준법 제1조부터 제64조까지")
    assert not too_many.found and "ask for its chapter" in too_many.message


def test_the_articles_a_question_cites_in_the_document_it_names(engine: Engine) -> None:
    lookup = StructuralLookup(engine.store)
    cited = lookup.cited_articles("근로기준법 제60조제2항에 따르면 1년 미만이면 며칠이고 제2조의 근로자는 누구?")
    assert [[c.meta["article"] for c in chunks][:1] for chunks in cited] == [["제60조"], ["제2조"]]
    assert len(cited[0]) > 2  # every chunk of the long article
    assert lookup.cited_articles("근로기준법 시행령 제1조의 목적")[0][0].meta["doc"] == "근로기준법 시행령"
    for none in ("근로기준법상 3조원 규모", "제60조에 따르면", "근로기준법과 소득세법 제60조", "근로기준법 제99조"):
        assert lookup.cited_articles(none) == [], none


def test_missing_article_names_the_nearest(engine: Engine) -> None:
    answer = _ask(engine, "근로기준법 제61조")
    assert not answer.found and answer.kind == "article"
    assert answer.message == "'근로기준법'에 제61조가 없습니다 / no 제61조 in 근로기준법; nearest: 제60조, 제60조의2, 제64조"
    assert answer.text == answer.message


def test_missing_chapter_lists_the_chapters(engine: Engine) -> None:
    answer = _ask(engine, "근로기준법 제9장")
    assert not answer.found and "제9장이 없습니다" in answer.message and "제4장 근로시간과 휴식" in answer.message


def test_unknown_document_is_named_with_suggestions(engine: Engine) -> None:
    answer = _ask(engine, "근로기분법 제1조")
    assert not answer.found
    assert "'근로기분법' 문서를 찾을 수 없습니다" in answer.message and "근로기준법" in answer.message
    assert not _ask(engine, "없는규정 전문").found


def test_documents_cited_by_name_that_the_store_does_not_hold(engine: Engine) -> None:
    lookup = StructuralLookup(engine.store)
    assert lookup.unheld("소득세법상 퇴직소득세율은?") == (["소득세법"], [], False)
    assert lookup.unheld("「고용보험법」 제40조에 따른 구직급여는?")[0] == ["고용보험법"]
    missing, near, beside = lookup.unheld("근로기준법 시행규칙 제3조에 따르면 뭘 내야 해?")
    assert missing == ["근로기준법 시행규칙"] and "근로기준법 시행령" in near and not beside
    assert lookup.unheld("근로기준법과 소득세법상 퇴직금 차이")[::2] == (["소득세법"], True)
    for held in ("근로기준법상 연차는?", "근로기준법 시행령 제3조에 따르면", "근기법상 연차는?", "샘플규정 제1조에 따른"):
        assert lookup.unheld(held) == ([], [], False), held  # 근기법: a shortening of 근로기준법
    for plain in ("신청 방법상 문제는?", "같은 법 제3조에 따르면", "시행령 제3조에 따르면", "이 규정 제5조", "계약서상 금액"):
        assert lookup.unheld(plain)[0] == [], plain
    assert _ask(engine, "근기법 제60조").citations[0].label == "[근로기준법 제60조]"
    unknown = _ask(engine, "근로기준법 시행규칙 제1조")  # before: 근로기준법 제1조, the name read as 근로기준법
    assert not unknown.found and "'근로기준법 시행규칙' 문서를 찾을 수 없습니다" in unknown.message


def test_unknown_bare_title_and_questions_go_to_search(engine: Engine) -> None:
    lookup = StructuralLookup(engine.store)
    assert lookup.answer("휴학 규정") is None
    assert lookup.answer("근로기준법에 대해 알려줘") is None
    assert lookup.answer("근로기준법에서 연차휴가는 몇 일?") is None
    assert lookup.answer("휴가 지급 기준 알려줘") is None  # before: "'휴가 지급 기준' 문서를 찾을 수 없습니다"
    assert _ask(engine, "근로기준법 보여줘").found and not _ask(engine, "없는규정 목차").found
    # asked whether a document exists: its overview, or a search when no document has the name
    assert _ask(engine, "근로기준법 시행령 있나요?").kind == "overview"
    assert lookup.answer("연차휴가 규정이 있나요?") is None
    # asked what a document says: its overview, or a search when no document has the name
    assert _ask(engine, "근로기준법이 뭐야").kind == "overview"
    assert lookup.answer("연차휴가 규정은 뭐야?") is None


def test_place_without_a_document_name(engine: Engine) -> None:
    assert "교수 | 100" in _ask(engine, "별표 1").text  # only one document has it
    ambiguous = _ask(engine, "제1조")
    assert not ambiguous.found
    assert all(name in ambiguous.message for name in ("근로기준법,", "근로기준법 시행령", "샘플규정"))
    assert not _ask(engine, "제999조").found


def test_lookup_sees_documents_ingested_later(engine: Engine, tmp_path: Path) -> None:
    lookup = StructuralLookup(engine.store)
    before = lookup.answer("최저임금법 제1조")
    assert before is not None and not before.found
    more = tmp_path / "more"
    more.mkdir()
    engine.ingest([_write_law(more, "최저임금법", "이 법은 최저임금을 정한다.")])
    later = lookup.answer("최저임금법 제1조")
    assert later is not None and later.found and "최저임금을 정한다" in later.text


def test_lookup_sees_a_document_renamed_in_place(engine: Engine, tmp_path: Path) -> None:
    """A document written again under another title, with as many chunks as before, is known by its new title:
    the lookup's list of documents follows the documents, not the number of chunks."""
    lookup = StructuralLookup(engine.store)
    count = engine.store.count()
    renamed = tmp_path / "docs" / "근로기준법.md"
    purpose = "이 법은 근로조건의 기준을 정함을 목적으로 한다."
    renamed.write_text(LAW.format(title="근로조건법", purpose=purpose, long=LONG), "utf-8")
    before = lookup.answer("근로기준법 제1조")
    assert before is not None and before.found
    engine.ingest([renamed])
    assert engine.store.count() == count  # the same number of chunks: nothing else tells the change
    now = lookup.answer("근로조건법 제1조")
    assert now is not None and now.found and "근로조건법" in now.text


# --- the shared corpus --------------------------------------------------------------------------

# Requests beyond the gold file that the shortcut must also answer on the real book.
EXTRA = [
    {
        "id": "extra-1",
        "question": "학칙 제15조",
        "gold": [{"code": "2-1-1"}],
        "must_contain": ["제15조(입학절차) ① 입학이 허가된"],
    },
    {"id": "extra-2", "question": "학칙 별표 2", "gold": [{"code": "2-1-1"}], "must_contain": ["국어국문학과 | 문학사"]},
    {"id": "extra-3", "question": "학칙 서식 2", "gold": [{"code": "2-1-1"}], "must_contain": ["수 료 증 서"]},
    {"id": "extra-4", "question": "3-1-24", "gold": [{"code": "3-1-24"}], "must_contain": ["교원연구년제규정(3-1-24) 개요"]},
    {"id": "extra-5", "question": "3-1-5 제8조", "gold": [{"code": "3-1-5"}], "must_contain": ["제8조(교원의 자격) ① 본 대학교"]},
    {"id": "extra-6", "question": "사립학교법 제1조", "gold": [{"doc": "사립학교법"}], "must_contain": ["사립학교의 특수성"]},
    {"id": "extra-7", "question": "대학원학칙 제1조", "gold": [{"code": "2-1-2"}], "must_contain": ["대학원의 교육목적"]},
]


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StructuralLookup, list[dict]]]:
    """The whole 규정집 and the statutes structural.jsonl names, ingested once (fake embedder)."""
    need_shared()
    gold = [json.loads(line) for line in (QUESTIONS / "structural.jsonl").read_text("utf-8").splitlines() if line.strip()]
    laws = sorted({g["doc"] for q in gold for g in q["gold"] if "code" not in g})
    data = tmp_path_factory.mktemp("structural") / "data"
    engine = build_engine(Settings(data_dir=data, embed_provider="fake"))
    report = engine.ingest([*sorted((CORPUS / "regulations").glob("*.hwpx")), *(CORPUS / "laws" / f"{d}.md" for d in laws)])
    assert not report.failed
    yield StructuralLookup(engine.store), gold
    engine.close()


def _problem(lookup: StructuralLookup, q: dict) -> str | None:
    """What is wrong with the answer to a gold line (None when nothing is)."""
    answer = lookup.answer(q["question"])
    if answer is None or not answer.found:
        return f"{q['id']} {q['question']!r}: {answer.message if answer else 'not structural'}"
    gold = q["gold"][0]
    cited = answer.citations[0]
    if cited.code != gold.get("code") or ("doc" in gold and squash(cited.doc) != squash(gold["doc"])):
        return f"{q['id']}: answered from {cited.doc}({cited.code}), gold {gold}"
    missing = [m for m in q["must_contain"] if squash(m) not in squash(answer.text)]
    if q["id"] in STRUCTURAL_GOLD_ERRATA:  # the gold quotes the regulations printed after this one
        texts = [lookup.answer(f"{code} 전문") for code in STRUCTURAL_GOLD_ERRATA[q["id"]]]
        elsewhere = squash(" ".join(t.text for t in texts if t is not None))
        return None if missing and all(squash(m) in elsewhere for m in missing) else f"{q['id']}: errata changed: {missing}"
    return f"{q['id']} {q['question']!r}: missing {missing}" if missing else None


@pytest.mark.slow
def test_every_structural_gold_line_is_answered(real: tuple[StructuralLookup, list[dict]]) -> None:
    lookup, gold = real
    problems = [p for q in [*gold, *EXTRA] if (p := _problem(lookup, q))]
    assert not problems, "\n".join(problems)
