"""Extractive answering: sentence choice, citation of what retrieval found, the evidence check."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import pytest

from geungeo.answering.clauses import clauses, split_sentences, table_row_sentences
from geungeo.answering.details import asked_details, asks_kinds, states
from geungeo.answering.extractive import extract
from geungeo.answering.models import EvidenceItem
from geungeo.answering.sentences import Extract, Sentence, Similarity
from geungeo.engine import build_engine
from geungeo.graph.nodes.judging import agreement
from geungeo.retrieval.expansion import load_lexicon
from geungeo.settings import Settings
from geungeo.text.structure import ASKS_SANCTION, KINDS_LIST
from tests.fixtures import vacation_law_store


def _item(n: int, label: str, text: str, doc: str = "법") -> EvidenceItem:
    return EvidenceItem(n=n, chunk_id=f"c{n}", doc_id="d", label=label, doc=doc, header=label, text=text)


def missing_details(question: str, evidence: list[EvidenceItem]) -> list[str]:
    return extract(question, evidence, None).missing


EVIDENCE = [
    _item(1, "법 제2조", "제2조(연차) ① 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다."),
    _item(2, "법 제5조", "제5조(고령자) 고령자의 기준은 대통령령으로 정한다."),
    _item(3, "법 부칙", "부칙 <제1호,2025.1.1>\n이 법은 공포한 날부터 시행한다."),
]


def test_sentences_skip_bare_headings() -> None:
    assert split_sentences("부칙 <제1호,2025.1.1>\n이 법은 공포한 날부터 시행한다.") == ["이 법은 공포한 날부터 시행한다."]


def test_best_sentence_per_passage_and_a_score() -> None:
    ex = extract("연차 유급휴가는 며칠?", EVIDENCE, load_lexicon())
    assert ex.sentences[0].item.label == "법 제2조" and ex.score > 0.3 and not ex.missing
    assert "[법 제2조]" in ex.render("문서에 따르면:")


def test_a_figure_the_passages_do_not_state_is_reported_missing() -> None:
    assert missing_details("고령자는 만 몇 세 이상인가요?", EVIDENCE) == ["나이 / age"]
    assert missing_details("연차휴가는 며칠인가요?", EVIDENCE) == []
    assert missing_details("How old must I be?", EVIDENCE) == ["나이 / age"]


def test_table_rows_become_sentences_that_name_their_cells() -> None:
    text = (
        "[별표 2] 학위의 종류\n| 과정 | 학위 |\n|---|---|\n| 학사 | 문학사 |\n| 석사 | 문학석사 \\| 이학석사 |\n"
        "② 그 밖은 총장이 정한다."
    )
    assert split_sentences(text) == [
        "[별표 2] 학위의 종류\n과정: 학사, 학위: 문학사\n과정: 석사, 학위: 문학석사 | 이학석사",  # the title with its rows
        "과정: 학사, 학위: 문학사",
        "과정: 석사, 학위: 문학석사 | 이학석사",
        "② 그 밖은 총장이 정한다.",
    ]


def test_a_table_question_quotes_the_right_row() -> None:
    table = _item(1, "학칙 별표 2", "| 과정 | 학위 |\n|---|---|\n| 학사 | 문학사 |\n| 박사 | 철학박사 |")
    ex = extract("박사과정은 어떤 학위를 받나요?", [table], load_lexicon())
    assert ex.sentences[0].text == "과정: 박사, 학위: 철학박사"


AGI_PAGE = (
    "■ 구글 딥마인드 연구진이 성능과 범용성을 기준으로 범용 AI(AGI)의 수준을 0~5단계로 구분한 프레임워크를 공개\n"
    "<구글 딥마인드의 범용 AI 분류 프레임워크>\n"
    "| 성능 | 특수 AI 예시 | 범용 AI 예시 |\n|---|---|---|\n"
    "| 1단계: 신진(숙련되지 않은 인간) | GOFAI | 챗GPT, 바드 |\n"
    "| 4단계: 거장(숙련된 인간의 99% 이상) | 딥블루, 알파고 | 미달성 |\n"
    "| 5단계: 초인간(인간을 100% 능가) | 알파폴드, 알파제로 | 미달성 |"
)


def test_a_table_is_read_by_the_row_the_question_names() -> None:
    # the page's prose states more of the question's words and answers first; the row naming 알파고 is quoted too
    question = "구글 딥마인드가 만든 AGI 등급표에서 알파고는 몇 단계에 들어가 있고, 그 단계는 어떤 수준을 뜻해?"
    quoted = extract(question, [_item(1, "AI 브리프 p.19", AGI_PAGE)], None).render()
    row = "\n  성능: 4단계: 거장(숙련된 인간의 99% 이상), 특수 AI 예시: 딥블루, 알파고"  # a line of its own
    assert quoted.index("■ 구글 딥마인드") < quoted.index(row)
    assert "1단계" not in quoted and "5단계: 초인간" not in quoted
    # a word every row states, or one naming the document, singles out no row
    for unnamed in ("AGI 분류 프레임워크의 성능 단계는?", "AI 브리프 분류 프레임워크에서 특수 AI 예시는?"):
        assert "성능: 4단계" not in extract(unnamed, [_item(1, "AI 브리프 p.19", AGI_PAGE)], None).render()



def test_a_table_quoted_by_another_row_is_read_by_the_row_the_question_names() -> None:
    """Every row states "단계"; the embedder found the 5단계 row closest to "알파고는 몇 단계야?", and the row naming
    알파고 was quoted after it."""

    def closest_to_5(question: str, texts: Sequence[str]) -> list[float]:
        return [0.9 if "5단계" in t else 0.8 for t in texts]

    quoted = extract("알파고는 몇 단계야?", [_item(1, "AI 브리프 p.19", AGI_PAGE)], None, similarity=closest_to_5).render()
    assert "4단계: 거장" in quoted and "5단계: 초인간" not in quoted


AWARDS = (
    "제4조(장학생 선발대상 및 수혜인원) 수혜인원은 다음과 같다.\n| 수강인원 | 성적우수장학금 |\n|---|---|\n"
    "| 25명 미만 | A 1명 |\n| 25명 이상 50명 미만 | A 1명, B 1명 |\n| 50명 이상 75명 미만 | A 2명, B 2명 |\n"
    "| 75명 이상 | A 2명, B 3명 |"
)
REFUNDS = (
    "| 반환사유 발생일 | 반환 금액 |\n|---|---|\n| 학기 개시일부터 30일까지 | 등록금 5/6 |\n"
    "| 학기 개시일에서 30일이 지난 날부터 60일 까지 | 등록금 3분의 2 해당액 |\n"
    "| 학기 개시일에서 60일이 지난 날부터 90일 까지 | 등록금 2분의 1 해당액 |"
)
TUITION = (
    "③ 9학기 이후의 등록금은 다음과 같이 차등 납부한다.\n| 신청학점수 | 등록금 |\n|---|---|\n"
    "| 1～3학점 | 당해 학기 등록금의 6분의 1 |\n| 4～6학점 | 당해 학기 등록금의 3분의 1 |\n"
    "| 7～9학점 | 당해 학기 등록금의 2분의 1 |\n| 12학점 이상 | 당해 학기 등록금 전액 |"
)
DRUNK = (
    "③ 술에 취한 상태에서 운전한 사람은 다음 각 호의 구분에 따라 처벌한다.\n"
    "1. 혈중알코올농도가 0.2퍼센트 이상인 사람은 2년 이상 5년 이하의 징역\n"
    "2. 혈중알코올농도가 0.08퍼센트 이상 0.2퍼센트 미만인 사람은 1년 이상 2년 이하의 징역\n"
    "3. 혈중알코올농도가 0.03퍼센트 이상 0.08퍼센트 미만인 사람은 1년 이하의 징역"
)


def test_a_table_or_list_is_read_by_the_case_whose_range_holds_the_question_figure() -> None:
    awards = extract("수강인원이 60명이면 성적우수장학금은 몇 명 받나요?", [_item(1, "세칙 제4조", AWARDS)], None).render()
    assert "50명 이상 75명 미만" in awards
    assert all(other not in awards for other in ("25명 미만", "25명 이상 50명", "75명 이상"))
    # the sentence pointing to its table (the closest in meaning, as the embedder found it) keeps its place above the
    # one row
    fees = _item(1, "규정 제7조", TUITION)
    tuition = extract("9번째 학기에 5학점만 들으면 등록금은 얼마 내요?", [fees], None, similarity=closest_when("차등")).render()
    assert "차등 납부한다.\n  신청학점수: 4～6학점, 등록금: 당해 학기 등록금의 3분의 1" in tuition
    assert "1～3학점" not in tuition and "12학점 이상" not in tuition
    # weeks are counted in days
    refund = extract("학기 시작하고 8주 지나서 자퇴하면 등록금 얼마나 돌려받아요?", [_item(1, "규정 제5조", REFUNDS)], None)
    assert "30일이 지난 날부터 60일 까지, 반환 금액: 등록금 3분의 2" in refund.render()
    assert "90일" not in refund.render() and "30일까지" not in refund.render()
    drunk = extract("혈중알코올농도 0.1퍼센트로 운전하면 처벌이 어떻게 돼요?", [_item(1, "법 제148조의2", DRUNK)], None).render()
    assert "2. 혈중알코올농도가 0.08퍼센트 이상" in drunk and "1. 혈중알코올농도가 0.2퍼센트 이상인" not in drunk


def test_a_figure_the_question_states_needs_a_provision_drawing_a_line_on_it() -> None:
    # "만 66세면" sets the case by an age: a passage naming 기초연금 but no age does not answer it
    pension = _item(1, "법 제91조의3", "② 진폐보상연금은 진폐장해연금과 기초연금을 합산한 금액으로 한다.")
    ex = extract("만 66세면 기초연금 받을 수 있나요?", [pension], None)
    assert ex.unbounded == ["66세"] and not ex.answers(0.0)
    aged = _item(2, "법 제3조", "① 기초연금은 65세 이상인 사람으로서 소득인정액이 선정기준액 이하인 사람에게 지급한다.")
    ex = extract("만 66세면 기초연금 받을 수 있나요?", [aged, pension], None)
    assert ex.unbounded == [] and ex.answers(0.0)
    # a score written with a decimal point is one figure, not "2점" after a sentence "… 3."
    review = _item(1, "규정 제5조", "① 강의평가 평가점수는 5.00을 만점으로 하여 산술평균한다.")
    assert extract("강의평가 점수가 3.2점이면 어떻게 되나요?", [review], None).unbounded == ["3.2점"]
    warned = _item(2, "규정 제8조", "② 강의평가 점수가 3.5점 미만인 전임교원에게는 경고장을 발송한다.")
    assert extract("강의평가 점수가 3.2점이면 어떻게 되나요?", [warned, review], None).unbounded == []
    # a figure told before the question sets nothing, and a duration tells the story
    job = _item(1, "법 제32조", "근로자를 모집하는 자는 구직자로부터 그 모집과 관련하여 금품을 받아서는 아니 된다.")
    assert extract("면접 갔더니 30만원을 먼저 내래요. 이런 돈 받아도 되는 건가요?", [job], None).unbounded == []
    goods = _item(1, "법 제16조", "소비자는 재화등의 공급이 이루어지지 아니한 경우 할부금의 지급을 거절할 수 있다.")
    assert extract("배송일이 2주나 지났는데 할부금은 안 내도 되나요?", [goods], None).unbounded == []
    # the graph's state keeps it
    ex = extract("만 66세면 기초연금 받을 수 있나요?", [pension], None)
    assert Extract.from_state(ex.to_state(), [pension]).unbounded == ["66세"]


def test_english_question_scores_on_its_korean_glossary_terms() -> None:
    lexicon = load_lexicon()
    ex = extract("How many days of annual paid leave does a worker get?", EVIDENCE, lexicon)
    assert ex.sentences and ex.sentences[0].item.label == "법 제2조" and ex.score > 0.3
    assert extract("How many days of annual paid leave does a worker get?", EVIDENCE, load_lexicon("", None)).score < ex.score


def test_the_bare_name_of_a_figure_does_not_state_it() -> None:
    named = [_item(1, "법 제4조", "제4조(최저임금액) 최저임금액은 시간·일·주 또는 월을 단위로 정하고 그 금액을 고시한다.")]
    assert missing_details("최저임금이 정확히 얼마예요?", named) == ["금액 / amount"]
    assert missing_details("시간당 최저임금이 정확히 얼마예요?", named) == ["금액 / amount"]  # 시간당: still an amount
    stated = [_item(1, "법 제9조", "제9조(수수료) 재발급 수수료는 5,000원으로 한다.")]
    assert missing_details("재발급 수수료가 얼마예요?", stated) == []
    assert missing_details("신고는 언제까지 해야 하나요?", [_item(1, "법 제3조", "사업자는 지체 없이 신고하여야 한다.")]) == []


def test_a_citation_shared_by_two_passages_points_at_the_one_it_quotes() -> None:
    from geungeo.graph.nodes.generation import validate_citations

    first = _item(1, "계획 › 추진 배경", "디지털 전환이 빨라지고 있다.")
    second = _item(2, "계획 › 추진 배경", "전자증명서를 2021년까지 300종으로 늘린다.")
    answer = "- 전자증명서를 2021년까지 300종으로 늘린다. [계획 › 추진 배경] [없는 문서]"
    text, citations, removed = validate_citations(answer, [first, second])
    assert [c.chunk_id for c in citations] == ["c2"] and removed == 1 and "[없는 문서]" not in text


def test_brackets_quoted_from_the_evidence_are_kept_as_words_not_taken_for_citations() -> None:
    from geungeo.graph.nodes.generation import validate_citations

    leave = _item(1, "법 제22조의2", "2. 가족돌봄휴가 기간은 연간 최장 10일[제3호에 따라 연장되는 경우 20일]로 한다.")
    answer = "- 가족돌봄휴가 기간은 연간 최장 10일[제3호에 따라 연장되는 경우 20일]로 한다. [법 제22조의2] [법 제99조]"
    text, citations, removed = validate_citations(answer, [leave])
    assert "10일[제3호에 따라 연장되는 경우 20일]로 한다." in text
    assert [c.chunk_id for c in citations] == ["c1"] and removed == 1 and "[법 제99조]" not in text


def test_what_a_question_asks_for_is_read_from_its_words_not_substrings() -> None:
    nursing = [_item(1, "법 제75조", "생후 1년 미만의 유아를 가진 근로자가 청구하면 1일 2회 각각 30분 이상의 수유 시간을 준다.")]
    assert missing_details("아기한테 젖 먹이는 직원은 근무 중에 수유 시간을 받을 수 있나요?", nursing) == []  # 아기한테 ≠ 기한
    death = [_item(1, "법 제84조", "사망의 신고는 사망 사실을 안 날부터 신고하여야 한다.")]
    assert missing_details("사망신고 기한이 있나요?", death) == ["기한 / deadline"]
    unpaid = [_item(1, "법 제43조의8", "근로자는 법원에 체불 임금등의 3배 이내의 금액을 지급할 것을 청구할 수 있다.")]
    assert missing_details("몇 달째 임금을 못 받았는데 법원에 더 많이 청구할 수 있나요?", unpaid) == []  # 몇 달째: a story
    seconded = [_item(1, "규정 제36조의3", "교원의 파견 기간은 2년 이내로 한다.")]
    assert missing_details("교원 파견 기간이 최대 얼마예요?", seconded) == []  # a period asked with 얼마, not an amount
    leave = [_item(1, "학칙 제12조", "휴학은 본인의 신청에 따라 총장이 허가한다.")]
    assert missing_details("휴학은 몇 학기까지 할 수 있나요?", leave) == ["기간 / period"]  # a university counts in 학기
    total = [_item(1, "학칙 제13조", "휴학은 통산 6학기를 넘지 못한다.")]
    assert missing_details("휴학은 몇 학기까지 할 수 있나요?", total) == []
    insured = [_item(1, "법 제40조", "이직일 이전 18개월간 피보험 단위기간이 통산하여 180일 이상일 것")]
    assert missing_details("실업급여 받으려면 몇 개월 일해야 하나요?", insured) == []  # 몇 개월: a period, not a count
    assert missing_details("과목은 몇 개까지 들을 수 있나요?", insured) == ["개수 / count"]  # 18개월 counts nothing


def test_a_score_asked_with_how_much_is_a_score() -> None:
    # "점수가 얼마" asks for points, not money: a row stating "100점" answers it
    assert [d.name for d in asked_details("오페라 주역을 맡으면 업적평가 점수가 얼마예요?")] == ["점수 / score"]
    assert [d.name for d in asked_details("평점이 최소 얼마여야 장학금을 받나요?")] == ["점수 / score"]
    assert [d.name for d in asked_details("배점은 대충 얼마예요?")] == ["점수 / score"]  # as "비용은 대충 얼마" is money
    assert [d.name for d in asked_details("장학금은 얼마예요?")] == ["금액 / amount"]
    row = _item(1, "규정 별표 2", "| 평가 기준 | 평가점수 |\n|---|---|\n| 오페라 주역 | 100점 |\n| 전곡 반주 | 50점 |")
    assert extract("오페라 주역을 맡으면 업적평가 점수가 얼마예요?", [row], None).missing == []


def test_a_figure_told_as_the_background_of_a_question_is_not_asked() -> None:
    # "몇 달 밀렸는데": the clause ending in -는데 tells the scene; the question is whether insurance still applies
    assert asked_details("건보료 몇달 밀렷는데 병원가면 보험적용 안되나여?") == []
    assert asked_details("보증금이 얼마인데 돌려받을 수 있나요?") == []
    assert [d.name for d in asked_details("밀린 건보료는 몇 달 안에 내야 하나요?")] == ["기간 / period"]
    assert [d.name for d in asked_details("몇 달 밀렸는데, 분할납부는 몇 번까지 되나요?")] == ["횟수 / times"]
    assert asked_details("몇 달짜리 학습지 계약은 중간에 끊을 수 있어?") == []  # 몇 달짜리: describes the contract
    # a sentence that tells (no question mark, no asking ending) before the one that asks: "며칠" is "a few days"
    assert asked_details("할머니 장례 때문에 수업을 며칠 빠져야 해요ㅠ 출석으로 인정받을 수 있나요?") == []
    assert asked_details("거절했는데 며칠 뒤 똑같은 부탁을 또 하네요. 이럴 땐 어떻게 해야 하나요?") == []
    asking = asked_details("연차는 며칠인가요. 그리고 수당은 얼마?")  # each sentence asks
    assert [d.name for d in asking] == ["금액 / amount", "일수 / days"]
    assert [d.name for d in asked_details("연차는 며칠이에요. 수당도 나오나요?")] == ["일수 / days"]  # 며칠 + copula
    assert [d.name for d in asked_details("반품은 며칠 안에 해야 돼요. 알려주세요.")] == ["일수 / days"]  # "tell me"


def test_a_period_asked_in_years_is_not_stated_in_days() -> None:
    # "14일 이내에 해당 조치를 하여야" is a time limit for something else, not how many years a record is kept
    action = [_item(1, "법 제17조", "⑨ 요청이 있는 때에는 교육장은 14일 이내에 해당 조치를 하여야 한다.")]
    assert missing_details("생활기록부에 적히면 졸업 후 몇 년 동안 보존되나요?", action) == ["기간 / period"]
    kept = [_item(1, "법 제41조", "청구권은 3년간 행사하지 아니하면 시효로 소멸한다.")]
    assert missing_details("보상금을 청구할 권리는 몇 년 지나면 사라지나요?", kept) == []
    months = [_item(1, "법 제9조", "해외체류 등으로 3개월 이상 2년 이하의 범위에서 운행할 수 없는 경우")]
    assert missing_details("몇 달 동안 차를 못 쓰면 면제받나요?", months) == []


def test_how_much_after_a_word_for_money_asks_an_amount() -> None:
    card = [
        _item(
            1,
            "학생증발급규정 제5조",
            "학생증의 재발급 절차는 다음 각 호와 같다.\n1. 재학생은 입학 후 1학기 초 학과 사무실에 증명사진을 제출한다.",
        )
    ]
    # 얼마나 after 비용 is an amount: a procedure with a number in it ("1학기") does not answer it
    assert missing_details("학생증을 잃어버렸는데 재발급 받으려면 비용이 얼마나 드나요?", card) == ["금액 / amount"]
    fee = [_item(1, "규정 제7조", "1～3학점을 등록하는 학생은 당해 학기 등록금의 6분의 1을 납부한다.")]
    assert missing_details("3학점만 듣는다면 등록금을 얼마나 내야 하나요?", fee) == []  # a share states an amount
    leave = [_item(1, "규정 제5조", "휴학 기간은 1년으로 한다.")]
    assert missing_details("휴학하면 얼마나 쉴 수 있나요?", leave) == []  # 얼마나 without money: still a period
    assert missing_details("휴가 기간 동안 월급은 얼마나 나오나요?", leave) == ["금액 / amount"]


def test_how_much_after_a_period_asks_an_amount_over_it() -> None:
    # "몇 달 동안" asks the period, "얼마만큼" how much is cut over it: a clause stating only the period does not answer
    cut = [_item(1, "법 제80조", "③ 정직은 1개월 이상 3개월 이하의 기간으로 하고 보수는 전액을 감한다.")]
    question = "징계로 월급이 깎이면 몇 달 동안 얼마만큼 줄어드나요?"
    assert missing_details(question, cut) == ["금액 / amount"]
    share = [_item(1, "법 제80조", "④ 감봉은 1개월 이상 3개월 이하의 기간 동안 보수의 3분의 1을 감한다.")]
    assert missing_details(question, share) == []
    assert [d.name for d in asked_details("얼마 동안 쉴 수 있나요?")] == ["수량 / quantity"]  # 얼마 before 동안: a period


ID_CARD = (
    "제24조(주민등록증의 발급 등) ① 시장ㆍ군수 또는 구청장은 관할 구역에 주민등록이 된 자 중 17세 이상인 자에 대하여 "
    "주민등록증을 발급한다. 다만, 「장애인복지법」 제2조제2항에 따른 장애인 중 시각장애인이 신청하는 경우 시각장애인용 점자 "
    "주민등록증을 발급할 수 있다.\n"
    "④ 제1항에 따라 주민등록증을 발급받을 나이가 된 사람은 시장ㆍ군수 또는 구청장에게 주민등록증의 발급을 신청하여야 한다.\n"
    "⑤ 주민등록증을 발급받지 아니한 17세 이상의 재외국민이 국내에 30일 이상 거주할 목적으로 입국하는 때에는 "
    "주민등록증의 발급을 신청하여야 한다."
)
INHERITANCE = (
    "제1019조(승인, 포기의 기간) ① 상속인은 상속개시있음을 안 날로부터 3월내에 단순승인이나 한정승인 또는 포기를 할 수 있다.\n"
    "② 상속인은 제1항의 승인 또는 포기를 하기 전에 상속재산을 조사할 수 있다.\n"
    "④ 제1항에도 불구하고 미성년자인 상속인이 상속채무가 상속재산을 초과하는 상속을 성년이 되기 전에 단순승인한 경우에는 "
    "성년이 된 후 상속채무 초과사실을 안 날부터 3개월 내에 상속 포기에 갈음하여 한정승인을 할 수 있다."
)


def closest_when(word: str) -> Similarity:
    """A similarity (as the embedder gives it) putting the clauses with ``word`` closest to any question."""

    def similarity(question: str, texts: Sequence[str]) -> list[float]:
        return [0.9 if word in t else 0.8 for t in texts]

    return similarity


def test_a_clause_building_on_another_paragraph_is_answered_by_that_paragraph() -> None:
    # ④ states most of the question's words ("나이") but leaves the age to ①, which states it; ⑤ states an age too
    # and is the closest in meaning (as the embedder found it), but of a special case
    ex = extract("주민등록증 발급 대상 나이", [_item(1, "주민등록법 제24조", ID_CARD)], None, similarity=closest_when("재외국민"))
    quoted = ex.render()
    assert "17세 이상인 자에 대하여 주민등록증을 발급한다" in quoted and not ex.missing
    assert quoted.index("① 시장") < quoted.index("④ 제1항에 따라")


LICENCE = (
    "제82조(운전면허의 결격사유) ① 다음 각 호의 어느 하나에 해당하는 사람은 운전면허를 받을 수 없다.\n"
    "1. 18세 미만(원동기장치자전거의 경우에는 16세 미만)인 사람\n"
    "2. 교통상의 위험과 장해를 일으킬 수 있는 정신질환자\n"
    "6. 제1종 대형면허 또는 제1종 특수면허를 받으려는 경우로서 19세 미만이거나 자동차의 운전경험이 1년 미만인 사람"
)


def test_a_list_item_giving_the_asked_figure_is_read_with_the_first_item_giving_it() -> None:
    # 6호 states the question's words ("면허", "자동차") and is the closest in meaning, but is the special case of a
    # list that states the general one first: 1호, with an age too, is quoted before it
    question = "오토바이 면허는 몇 살부터 딸 수 있나요? 일반 자동차 면허랑 나이 기준이 다른가요?"
    ex = extract(question, [_item(1, "도로교통법 제82조", LICENCE)], None, similarity=closest_when("대형면허"))
    quoted = ex.render()
    assert "1. 18세 미만(원동기장치자전거의 경우에는 16세 미만)인 사람" in quoted and not ex.missing
    assert quoted.index("1. 18세") < quoted.index("6. 제1종")
    assert "2. 교통상의" not in quoted  # an item stating no age stays out
    # a list item stating no figure asked for is quoted alone
    assert "1. 18세" not in extract("대형면허 운전경험 기준", [_item(1, "도로교통법 제82조", LICENCE)], None).render()


LEAVE_OF_ABSENCE = (
    "제5조(휴학기간) ① 일반 휴학자의 휴학기간은 1년을 원칙으로 한다.\n"
    "④ 창업휴학자의 휴학은 1년 단위로 실시하며, 최대 2년까지 허가한다.\n"
    "⑤ 학기포기휴학자의 휴학기간은 6개월로 한다.\n"
    "⑥ 육아휴학자의 휴학은 1년 단위로 실시하며, 최대 3년까지 허가한다."
)


def test_a_later_paragraph_giving_the_asked_figure_is_read_with_the_first_paragraph_giving_it() -> None:
    # ④ and ⑥ state the question's words ("휴학", "최대"), each of a special case: ①, the general case, comes first
    quoted = extract("휴학은 최대 몇 년까지 할 수 있어?", [_item(1, "휴학규정 제5조", LEAVE_OF_ABSENCE)], None).render()
    assert "① 일반 휴학자의 휴학기간은 1년을 원칙으로 한다." in quoted
    assert quoted.index("① 일반") < quoted.index("④ 창업휴학자")
    # a question naming the special case ("창업휴학") is answered by it alone
    named = extract("창업휴학은 최대 몇 년까지 할 수 있어?", [_item(1, "휴학규정 제5조", LEAVE_OF_ABSENCE)], None).render()
    assert "④ 창업휴학자" in named and "① 일반" not in named


GRADES = (
    "제3조(성적분류와 분포비율) 성적 분류와 분포비율은 다음과 같이 한다.\n"
    "| 등급 | 평점 | 성적분포 |\n|---|---|---|\n"
    "| A+ | 4.5 | 30% 이하 |\n| A0 | 4.0 | 30% 이하 |\n| B+ | 3.5 | 40% 이하 |\n| B0 | 3.0 | 40% 이하 |"
)


def test_a_grade_table_is_read_by_the_grade_the_question_names() -> None:
    # "A+" was no word of the question (read as the English article "a", a stopword): a passage retrieval ranks
    # first, stating only "평점", answered it
    average = _item(1, "학점은행제운영에관한규정 제19조", "제19조(학위수여) 평점 평균이 2.0점 이상이어야 한다.")
    evidence = [average, _item(2, "성적평가규정 제3조", GRADES)]
    quoted = extract("A+는 평점이 몇 점이야?", evidence, None).render()
    assert quoted.startswith("- 등급: A+, 평점: 4.5")
    assert "A0" not in quoted and "B+" not in quoted


def test_a_special_case_is_quoted_with_the_rule_it_departs_from() -> None:
    # ④ (the minor's special case) shares most words with the question; ①, the rule it departs from, answers it
    question = "상속채무가 상속재산을 초과하면 상속 포기는 언제까지 해야 하나요?"
    ex = extract(question, [_item(1, "민법 제1019조", INHERITANCE)], None)
    quoted = ex.render()
    assert "안 날로부터 3월내에 단순승인이나 한정승인 또는 포기를 할 수 있다" in quoted
    assert "④ 제1항에도 불구하고" in quoted


def test_figures_written_the_way_the_documents_write_them() -> None:
    trip = [_item(1, "규정 제4조", "제4조(여비의 계산) 여비는 일일 4시간 미만은 일만원, 4시간 이상은 이만원을 지급한다.")]
    assert missing_details("시내 출장 여비는 얼마 받나요?", trip) == []
    relief = [_item(1, "법 제82조", "② 구제의 신청은 부당노동행위가 있은 날부터 3월 이내에 이를 행하여야 한다.")]
    assert missing_details("부당노동행위 구제신청은 기한이 있나요?", relief) == []
    closing = [_item(1, "규정 제4조", "③ 신청은 매 학기 말일까지 한다.")]
    assert missing_details("신청 마감 기한이 언제예요?", closing) == []
    # a period set elsewhere ("이의신청 기간 내에") is a time limit, weakly
    appeal = [_item(1, "성적평가규정 제7조", "② 성적에 이의가 있는 학생은 이의신청 기간 내에 이의 신청할 수 있다.")]
    assert missing_details("성적 이의신청은 언제까지 할 수 있나요?", appeal) == []
    wages = [_item(1, "최저임금법 제5조의2", "② 임금 총액을 그 임금 산정기간 동안의 총근로시간 수로 나눈 금액")]
    assert missing_details("최저임금은 매년 언제까지 정해야 하나요?", wages) == ["기한 / deadline"]


def test_a_time_limit_after_which_a_right_lapses_states_a_deadline() -> None:
    for text in (
        "① 시정을 신청할 수 있다. 다만, 차별적 처우가 있은 날부터 6개월이 지난 때에는 그러하지 아니하다.",
        "② 그 사실을 안 날부터 1년이 경과하면 소멸한다.",
        "③ 이 권리는 3년간 행사하지 아니하면 소멸시효가 완성한다.",
    ):
        assert missing_details("신청은 언제까지 해야 하나요?", [_item(1, "법 제9조", text)]) == []


def test_a_term_counted_from_a_day_states_until_when() -> None:
    term = [_item(1, "위원회규정 제4조", "① 위원회의 임기는 위원 위촉일로부터 1년간으로 한다.")]
    assert missing_details("위원 임기 몇년이에여? 위촉되면 언제까지 하는거임", term) == []
    # a period for doing something, counted from a day, is no term ending on a date
    refund = [_item(1, "법 제17조", "1. 계약내용에 관한 서면을 받은 날부터 7일 이내에 청약철회를 할 수 있다.")]
    assert missing_details("환불은 언제까지 받아요?", refund) == []  # "7일 이내" is a time limit
    period = [_item(1, "법 제17조", "1. 계약내용에 관한 서면을 받은 날부터 7일")]
    assert missing_details("환불은 언제까지 받아요?", period) == ["기한 / deadline"]


def test_a_figure_asked_in_thousands_is_asked_by_its_counter() -> None:
    names = [d.name for d in asked_details("정보주체 몇 만 명 이상이면 영향평가를 받아야 하나요?")]
    assert names == ["인원 / headcount"]
    assert [d.name for d in asked_details("과태료는 몇 백만 원이에요?")] == ["금액 / amount"]
    assert [d.name for d in asked_details("몇 천 미터 떨어져야 하나요?")] == ["거리 / distance"]
    rule = "① 공공기관의 장은 대통령령으로 정하는 기준에 해당하는 개인정보파일의 영향평가를 하여야 한다."
    delegated = [_item(1, "법 제33조", rule)]
    assert missing_details("영향평가는 정보주체 몇 만 명 이상 개인정보파일부터예요?", delegated) == ["인원 / headcount"]


def test_a_figure_asked_for_this_year_is_stated_only_by_a_clause_naming_a_year() -> None:
    # this year's rate is set by that year's decree; the statute only bounds it
    question = "올해 직장인 건강보험료율이 정확히 몇 %예요?"
    bound = "① 직장가입자의 보험료율은 1천분의 80의 범위에서 대통령령으로 정한다. <개정 2012.2.1>"  # the amendment dates nothing
    assert missing_details(question, [_item(1, "법 제73조", bound)]) == ["올해의 비율 / rate for this year"]
    dated = "2025년 직장가입자의 보험료율은 1만분의 709로 한다."
    assert missing_details(question, [_item(1, "영 제44조", dated)]) == []
    deadline = asked_details("이번 2학기 등록금 납부 마감일이 정확히 몇 월 며칠이에요?")
    assert all(d.dated and d.name.startswith("이번 2학기의") for d in deadline) and deadline
    # this term told as the story before the question dates nothing asked
    story = asked_details("이번 학기에 처음 강사로 임용됐는데 과목을 더 맡아 달래요. 강사는 한 학기에 몇 시간까지 하나요?")
    assert [d.name for d in story] == ["시간 / hours"]
    # nor this term as the condition of the question: the refund is a rule, not this term's figure
    condition = asked_details("이번 학기에 휴학하면 등록금 얼마 돌려받아요?")
    assert [d.name for d in condition] == ["금액 / amount"] and not condition[0].dated


def test_money_asked_for_is_stated_as_a_share_only_of_money() -> None:
    question = "마이크로디그리 과정을 다 이수하면 장학금이나 장려금 같은 게 얼마 나오나요?"
    assert [d.name for d in asked_details(question)] == ["금액 / amount"]  # "얼마 나오나요" is not "얼마나"
    credits = [_item(1, "규정 제7조", "② 타 학과 교과목을 전체 이수학점의 50% 이상 취득하여야 이수 기준을 충족한다.")]
    assert missing_details(question, credits) == ["금액 / amount"]
    fees = [_item(1, "장학규정 제5조", "③ 과정을 이수한 학생에게는 등록금의 50%를 장학금으로 지급한다.")]
    assert missing_details(question, fees) == []
    # a share answers "얼마" when the question asks no money: "수업시간의 1/3 이내"
    hours = [_item(1, "학칙 제40조", "② 결석은 수업시간의 1/3 이내로 한다.")]
    assert missing_details("한 학기에 결석은 최대 얼마까지 되나요?", hours) == []


def test_a_prison_term_is_stated_by_a_sentence_not_by_a_period_of_another_kind() -> None:
    question = "술 마시고 운전하다 사람을 숨지게 하면 최소 몇 년형을 받나요?"
    assert [d.name for d in asked_details(question)] == ["형량 / prison term"] and ASKS_SANCTION.search(question)
    licence = "6. 다음 각 목의 경우에는 운전면허가 취소된 날부터 2년"
    assert missing_details(question, [_item(1, "도로교통법 제82조", licence)]) == ["형량 / prison term"]
    sentence = "① 음주로 사람을 사망에 이르게 한 사람은 무기 또는 3년 이상의 징역에 처한다."
    assert missing_details(question, [_item(1, "법 제5조의11", sentence)]) == []
    indefinite = "② 위반한 자의 자격은 무기한 정지한다."  # 무기한 is no life sentence
    assert missing_details(question, [_item(1, "법 제9조", indefinite)]) == ["형량 / prison term"]
    assert [d.name for d in asked_details("사기죄 형량이 어느 정도예요?")] == ["형량 / prison term"]


def test_a_clause_stating_the_asked_figure_leads_when_the_answering_clause_states_none() -> None:
    question = "정보공개 청구하면 며칠 안에 답해야 하나요?"
    ended = _item(1, "법 제11조의2", "① 공공기관은 같은 정보공개 청구가 반복되면 그 청구를 종결 처리할 수 있다.")
    decided = _item(2, "법 제11조", "① 공공기관은 정보공개의 청구를 받은 날부터 10일 이내에 공개 여부를 결정하여야 한다.")
    ex = extract(question, [ended, decided], None)
    assert ex.sentences[0].item.label == "법 제11조" and not ex.missing


def test_a_time_limit_leads_over_an_event_named_in_its_place() -> None:
    # "관리할 수 있을 때까지" says until an event, not within what time; "3월내에" is the time limit asked for
    question = "상속을 포기하려면 언제까지 해야 하나요?"
    keeps = _item(1, "민법 제1044조", "① 상속을 포기한 자는 상속인이 관리할 수 있을 때까지 그 재산의 관리를 계속하여야 한다.")
    limit = _item(2, "민법 제1019조", "① 상속인은 상속개시를 안 날로부터 3월내에 단순승인이나 한정승인 또는 포기를 할 수 있다.")
    ex = extract(question, [keeps, limit], None)
    assert [s.item.label for s in ex.sentences][:2] == ["민법 제1019조", "민법 제1044조"] and not ex.missing
    # with no time limit stated anywhere, the event is the answer and nothing is missing
    only = extract(question, [keeps], None)
    assert [s.item.label for s in only.sentences] == ["민법 제1044조"] and not only.missing


def test_a_range_of_provisions_is_not_a_deadline() -> None:
    # "제3항부터 제5항까지" names provisions; it does not say until when
    text = "⑦ 제1항 및 제3항부터 제5항까지에 따른 교섭대표노동조합의 결정에 이의가 있으면 신청할 수 있다."
    ranged = [_item(1, "법 제29조의2", text)]
    assert missing_details("교섭대표노동조합 결정에 이의 신청 기한이 있나요?", ranged) == ["기한 / deadline"]


def test_a_figure_about_something_else_does_not_answer_and_a_lower_passage_may() -> None:
    question = "사외이사 겸직은 교원 1인당 몇 곳까지 허가되나요?"
    board = _item(1, "정관 제32조", "제32조(이사회) 사외이사 겸직 허가와 교원의 이사회 출석은 이사 3명 이상이 확인한다.")
    unrelated = _item(2, "정관 제34조", "이사회를 소집하고자 할 때에는 적어도 회의 7일전에 통지하여야 한다.")
    assert missing_details(question, [board, unrelated]) == ["개수 / count"]
    rule = _item(3, "겸직규정 제4조", "1. 사외이사 겸직 허가 기업체는 교원 1인당 1개 회사로 한다.")
    ex = extract(question, [board, unrelated, rule], None)
    assert not ex.missing and any(s.item.label == "겸직규정 제4조" for s in ex.sentences)  # and quoted
    assert extract(question, [board, unrelated, rule], None, passages=2).missing == ["개수 / count"]


def test_a_supporting_provision_is_quoted_when_it_covers_enough_and_adds_to_the_answer() -> None:
    question = "연구년 교원의 보수 지급 기준과 신청 자격은?"
    rule = _item(1, "규정 제6조", "연구년 교원의 보수는 지급 기준에 따라 지급한다.")
    same = _item(2, "규정 제7조", "연구년 교원의 보수 지급 기준은 따로 정한다.")  # says nothing the first does not
    more = _item(3, "규정 제3조", "연구년 신청 자격은 6년 이상 근무한 교원으로 한다.")  # adds 신청, 자격

    def labels(**kwargs: float) -> list[str]:
        return [s.item.label for s in extract(question, [rule, same, more], None, **kwargs).sentences]  # type: ignore[arg-type]

    assert labels() == ["규정 제6조", "규정 제3조"]
    assert labels(quote_coverage=0.95) == ["규정 제6조"]
    assert labels(passages=2) == ["규정 제6조"]  # only the best passages support


def test_a_supporting_clause_sharing_only_a_verb_with_the_question_is_not_quoted() -> None:
    question = "재단이 사직서를 쓰라고 압박하면 따라야 하나요?"
    rule = _item(1, "사립학교법 제56조", "② 교원은 재단의 권고에 의하여 사직을 당하지 아니한다.")
    ledger = _item(2, "시행령 제22조", "3. 임금대장은 마지막으로 써 넣은 날부터 기산한다.")  # "쓰다" in another sense
    register = _item(3, "규정 제4조", "사직서는 이사장에게 제출한다.")  # adds 사직서, a word of what is asked
    assert [s.item.label for s in extract(question, [rule, ledger], None).sentences] == ["사립학교법 제56조"]
    labels = [s.item.label for s in extract(question, [rule, ledger, register], None).sentences]
    assert labels == ["사립학교법 제56조", "규정 제4조"]


def test_agreement_reads_the_best_retrieved_score_of_either_fusion() -> None:
    def scored(score: float, origin: str = "retrieval") -> EvidenceItem:
        return _item(1, "법 제1조", "본문").model_copy(update={"score": score, "origin": origin})

    neighbour = scored(5.0, "neighbour")  # added context, not a retrieval result
    assert agreement([scored(0.8), scored(0.6), neighbour], Settings(fusion="zscore")) == 0.8
    # first in one of the rankings (sparse, dense and, at half weight, document): 1 of 2.5
    assert agreement([scored(1 / 21), neighbour], Settings(fusion="rrf", rrf_k=20)) == pytest.approx(0.4)
    assert agreement([scored(1 / 21)], Settings(fusion="rrf", rrf_k=20, document_weight=0)) == 0.5  # one of two
    assert agreement([scored(1.2)], Settings(fusion="zscore")) == 1.0
    assert agreement([], Settings()) == 0.0


def test_no_sentence_sharing_a_word_with_the_question_is_no_answer_whatever_retrieval_says() -> None:
    evidence = [_item(1, "휴가보장법 제2조", "사용자는 근로자에게 15일의 유급휴가를 주어야 한다.")]
    ex = extract("주택 임대차 보증금은 언제 돌려받나요?", evidence, None, agreement=1.0)
    assert ex.score == 0.25 and not ex.answers(0.2)


def _answer(question: str, evidence: list[EvidenceItem], **request: object) -> tuple[str, list[str], bool]:
    """The extractive answer's text, cited labels and refusal flag, through the one answer path."""
    from geungeo.answering.generation import Request, compose_answer, drain

    composed = drain(compose_answer(question, evidence, None, Settings(), load_lexicon(), Request(**request)))  # type: ignore[arg-type]
    return composed.answer, [c.label for c in composed.citations], composed.refused


LEAVE = _item(
    1,
    "법 제60조",
    "제60조(연차 유급휴가)\n① 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다. <개정 2012.2.1>\n"
    "② 사용자는 1년간 80퍼센트 미만 출근한 근로자에게 1개월 개근 시 1일의 유급휴가를 주어야 한다.\n"
    "③ 유급휴가는 근로자가 청구한 시기에 주어야 한다.",
)


def test_the_answer_is_the_answering_clause_not_the_whole_article() -> None:
    text, labels, refused = _answer("1년간 80퍼센트 이상 출근하면 유급휴가가 며칠인가요?", [LEAVE])
    assert not refused and labels == ["법 제60조"]
    assert "15일의 유급휴가를 주어야 한다. [법 제60조]" in text
    assert "1개월 개근" not in text and "청구한 시기" not in text and "<개정" not in text


def test_clauses_of_one_provision_are_rendered_in_the_order_it_states_them() -> None:
    first = _item(
        1,
        "법 제60조",
        "① 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.\n"
        "④ 사용자는 3년 이상 계속하여 근로한 근로자에게는 1일을 가산한 유급휴가를 주어야 한다.",
    )
    later = _item(2, "법 제62조", "사용자는 근로자대표와의 서면 합의에 따라 연차 유급휴가일을 갈음할 수 있다.")
    # the answering clause (④) was chosen first and ① joined it: the reader still meets ① first, the other provision after
    chosen = [
        Sentence(first, "④ 사용자는 3년 이상 계속하여 근로한 근로자에게는 1일을 가산한 유급휴가를 주어야 한다.", 0.5),
        Sentence(later, "사용자는 근로자대표와의 서면 합의에 따라 연차 유급휴가일을 갈음할 수 있다.", 0.3),
        Sentence(first, "① 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.", 0.4),
        Sentence(first, "과정: 학사, 학위: 문학사", 0.1),  # not found verbatim in its passage: last
    ]
    lines = Extract(chosen, 0.5, []).render().splitlines()
    assert lines[0].startswith("- ① ") and lines[1].startswith("  ④ ") and lines[1].index("④") < lines[1].index("과정: 학사")
    assert lines[1].endswith("[법 제60조]") and lines[2].endswith("[법 제62조]")


def test_a_reports_points_quoted_from_one_page_stay_on_lines_of_their_own() -> None:
    page = _item(
        1,
        "brief.pdf p.7",
        "■ 법원은 저작권 침해 소송을 기각\n∙ 예술가 3인이 소송을 제기\n■ 판사는 기각 이유로 저작권 미등록을 제시",
    )
    chosen = [
        Sentence(page, "■ 판사는 기각 이유로 저작권 미등록을 제시", 0.5),
        Sentence(page, "■ 법원은 저작권 침해 소송을 기각", 0.4),
    ]
    assert Extract(chosen, 0.5, []).render().splitlines() == [
        "- ■ 법원은 저작권 침해 소송을 기각",
        "  ■ 판사는 기각 이유로 저작권 미등록을 제시 [brief.pdf p.7]",
    ]


def test_a_clause_that_leads_a_list_brings_its_items() -> None:
    leave = _item(
        1,
        "정관 제44조",
        "제44조(휴직) ① 교원이 다음 각 호의 어느 하나에 해당하는 사유로 휴직을 원하는 경우 임용권자는 휴직을 명할 수 있다.\n"
        "1. 질병으로 장기 요양이 필요할 때\n2. 병역 복무를 위하여 징집 또는 소집된 때\n"
        "3. 만 8세 이하의 자녀를 양육하기 위하여 필요한 때",
    )
    other = _item(2, "정관 제45조", "제45조(휴직기간) 교원의 휴직 기간은 3년 이내로 한다.")
    text, labels, _ = _answer("교원이 휴직할 수 있는 경우는?", [leave, other])
    assert labels[0] == "정관 제44조"
    first = text.split("[정관 제44조]")[0]
    assert all(case in first for case in ("1. 질병으로", "2. 병역 복무를", "3. 만 8세 이하의"))


def test_a_single_item_is_quoted_under_its_lead_sentence() -> None:
    rule = _item(
        1,
        "규정 제12조",
        "① 전임교원은 다음 각 호의 조건에서 타 대학에 출강할 수 있다.\n1. 사전에 총장의 승인을 받을 것\n"
        "2. 출강 시간은 한 학기 책임수업시간의 1/3 이내일 것",
    )
    ex = extract("전임교원 타 대학 출강 시간은 한 학기에 최대 얼마까지인가요?", [rule], None)
    assert not ex.missing  # "얼마" names no unit: 1/3 answers it
    assert ex.sentences[0].text.endswith("2. 출강 시간은 한 학기 책임수업시간의 1/3 이내일 것")
    assert ex.sentences[0].text.startswith("① 전임교원은 다음 각 호의")


def test_two_paragraphs_are_never_one_sentence() -> None:
    run_in = "① 최저임금액(최저임금으로 정한 금액을 말한다. 이하 같다)은 시간으로 정한다.② 최저임금은 매년 고시한다."
    assert split_sentences(run_in) == [
        "① 최저임금액(최저임금으로 정한 금액을 말한다. 이하 같다)은 시간으로 정한다.",
        "② 최저임금은 매년 고시한다.",
    ]


def test_at_most_two_supporting_provisions_each_cited_once() -> None:
    question = "연구년 교원의 보수, 여비, 숙박비, 항공료, 보험료 지급 기준은?"
    kinds = ["보수", "여비", "숙박비", "항공료", "보험료"]
    evidence = [_item(n, f"규정 제{n}조", f"연구년 교원의 {kind} 지급 기준은 따로 정한다.") for n, kind in enumerate(kinds, 1)]
    evidence.insert(0, _item(6, "규정 제1조", "연구년 교원의 보수와 여비의 지급 기준은 총장이 정한다."))  # 제1조 again
    text, labels, _ = _answer(question, evidence)
    assert labels[0] == "규정 제1조" and len(labels) == 3 and len(set(labels)) == 3
    assert all(text.count(f"[{label}]") == 1 for label in labels)


def test_a_refusal_says_why() -> None:
    empty, _, refused = _answer("연차휴가는 며칠인가요?", [], store_empty=True)
    assert refused and empty.startswith("근거 부족") and "저장된 문서가 없습니다" in empty
    nothing, _, refused = _answer("연차휴가는 며칠인가요?", [])
    assert refused and "관련된 내용을 찾지 못했습니다" in nothing
    unrelated, _, refused = _answer("주택 임대차 보증금은 언제 돌려받나요?", [EVIDENCE[0]])
    assert refused and "관련된 내용을 찾지 못했습니다" in unrelated
    article = EVIDENCE[1].model_copy(update={"article": "제5조"})
    unstated, _, refused = _answer("고령자의 기준은 만 몇 세 이상인가요?", [article])
    assert refused and "관련 조문(법 제5조)" in unstated and "나이" in unstated
    # a page of a report is no 조문
    page = _item(1, "보고서 p.3", "고령자의 기준은 관계 부처가 함께 정한다.").model_copy(update={"page": 3})
    unstated, _, refused = _answer("고령자의 기준은 만 몇 세 이상인가요?", [page])
    assert refused and "관련 내용(보고서 p.3)" in unstated


def test_reference_numbers_are_not_figures() -> None:
    cited = [_item(1, "법 제4조", "④ 제1항제4호의 고령자는 「고령자고용촉진법」 제2조제1호에 따른다. <개정 2020.5.26>")]
    assert missing_details("고령자는 만 몇 세 이상인가요?", cited) == ["나이 / age"]
    assert missing_details("고령자 지원금은 얼마인가요?", cited) == ["금액 / amount"]
    assert (
        missing_details(
            "아이가 몇 살까지 육아휴직을 쓸 수 있나요?",
            [_item(1, "법 제19조", "만 8세 이하의 자녀를 양육하기 위하여 육아휴직을 신청할 수 있다.")],
        )
        == []
    )


def test_a_proviso_is_quoted_with_the_sentence_it_qualifies() -> None:
    text = (
        "① 근로자는 차별적 처우를 받은 경우 노동위원회에 그 시정을 신청할 수 있다. "
        "다만, 차별적 처우가 있은 날부터 6개월이 지난 때에는 그러하지 아니하다. (개정 2020.5.26.)\n"
        "② 시정신청을 하는 때에는 차별적 처우의 내용을 구체적으로 명시하여야 한다."
    )
    assert split_sentences(text) == [
        "① 근로자는 차별적 처우를 받은 경우 노동위원회에 그 시정을 신청할 수 있다. "
        "다만, 차별적 처우가 있은 날부터 6개월이 지난 때에는 그러하지 아니하다.",
        "② 시정신청을 하는 때에는 차별적 처우의 내용을 구체적으로 명시하여야 한다.",
    ]


def test_a_sentence_opening_with_a_connective_is_quoted_with_the_one_it_goes_on_from() -> None:
    # "또한, 모집중지 학과를 …" was quoted alone as the answer to "복수전공 신청 자격은 뭐예요?"
    text = (
        "② 간호학과, 한의학과의 상호 복수전공은 제외한다. 또한, 모집중지 학과를 복수전공 대상으로 신청할 수 없다.\n"
        "④ 복수전공은 1회에 한하여 변경할 수 있다. 그러나 재신청은 할 수 없다."
    )
    assert split_sentences(text) == [
        "② 간호학과, 한의학과의 상호 복수전공은 제외한다. 또한, 모집중지 학과를 복수전공 대상으로 신청할 수 없다.",
        "④ 복수전공은 1회에 한하여 변경할 수 있다. 그러나 재신청은 할 수 없다.",
    ]
    # a word that only starts like one is not a connective
    assert len(split_sentences("① 학생은 등록하여야 한다. 그리고자 하는 자는 신청한다.")) == 2


def test_another_paragraph_of_the_answering_article_states_the_figure() -> None:
    article = _item(
        1,
        "규정 제4조",
        "① 교원은 학기 중에 해외 기업 방문이나 공동연구 협의를 위한 국외 출장을 갈 수 있다.\n"
        "② 수업기간 중의 출장은 휴일을 포함하여 7일 이내로 한다.",
    ).model_copy(update={"article": "제4조"})
    ex = extract("교원이 학기 중에 해외 기업 방문이나 공동연구 협의로 출장을 가면 며칠까지 가능한가요?", [article], None)
    assert not ex.missing and any("7일 이내" in s.text for s in ex.sentences)
    vote = [_item(1, "법 제41조", "쟁의행위는 조합원의 직접ㆍ비밀ㆍ무기명투표에 의한 조합원 과반수의 찬성으로 결정한다.")]
    assert missing_details("파업하려면 찬성이 얼마나 나와야 하나요?", vote) == []  # a share written in words


def test_a_note_beside_the_answer_on_a_page_does_not_state_its_figure() -> None:
    page = _item(
        1,
        "브리프 p.14",
        "∙ 구글은 2023년 2월 앤스로픽에 5억 5,000만 달러를 투자한 바 있음\n"
        "∙ 구글은 차세대 LLM 제미니를 포함한 자체 AI 시스템을 개발했으며, 2024년 제미니를 출시할 계획",
    ).model_copy(update={"page": 14})
    # a page gathers unrelated notes: the month of another event is not the month asked
    assert missing_details("구글 제미니는 2024년 몇 월에 출시돼?", [page]) == ["달 / month"]
    # a note that bears on the question states it
    dated = page.model_copy(update={"text": page.text.replace("2024년 제미니", "2024년 3월 제미니")})
    assert missing_details("구글 제미니는 2024년 몇 월에 출시돼?", [dated]) == []


def test_a_question_asking_for_the_cases_is_answered_by_the_clause_that_lists_them() -> None:
    from geungeo.answering.details import asks_cases

    pay = _item(
        1,
        "정관 제47조",
        "① 휴직된 교원에 대하여는 다음 각 호의 구분에 따라 봉급의 일부를 지급한다. 다만, 공무상 질병으로 휴직한 경우에는 "
        "전액을 지급한다.\n1. 휴직 기간이 1년 이하인 경우: 봉급의 70퍼센트",
    )
    grounds = _item(
        2,
        "법 제59조",
        "① 교원이 다음 각 호의 어느 하나에 해당하는 사유로 휴직을 원하면 임용권자는 휴직을 명할 수 있다.\n"
        "1. 신체ㆍ정신상의 장애로 장기요양이 필요한 경우\n2. 병역의 복무를 위하여 징집된 경우",
    )
    answer = extract("교원이 휴직할 수 있는 경우는?", [pay, grounds], None)
    assert answer.sentences[0].item.label == "법 제59조" and "징집된 경우" in answer.sentences[0].text
    # 경우 that sets the scene asks for what follows it, not for a list of cases
    assert asks_cases("어떤 경우에 휴직할 수 있나요?") and asks_cases("약관 심사청구 자격")
    assert not asks_cases("휴직한 경우 봉급은 얼마나 받나요?") and not asks_cases("계약이 끝난 경우에는 어떻게 되나요?")
    assert extract("휴직한 경우 봉급은 얼마나 받나요?", [pay, grounds], None).sentences[0].item.label == "정관 제47조"
    # asked with a particle of place ("사유에는 무엇이"), answered by a regulation's lead ("다음 각호에 해당하는 사유는")
    assert asks_cases("출석 인정 사유에는 무엇이 있나요?") and asks_cases("장학생 자격으로는 뭐가 필요해요?")
    procedure = _item(1, "규정 제7조", "① 출석인정 사유는 발생일로부터 7일 이내에 신청하면 학사지원팀에서 승인 처리한다.")
    listed = "다음 각호에 해당하는 사유는 출석인정으로 한다.\n1. 직계 가족의 사망\n2. 질병, 부상 또는 출산"
    grounds = _item(2, "규정 제3조", listed)
    answer = extract("출석 인정 사유에는 무엇이 있나요?", [procedure, grounds], None)
    assert answer.sentences[0].item.label == "규정 제3조" and "2. 질병, 부상 또는 출산" in answer.sentences[0].text


def test_a_delegated_figure_is_not_answered_by_a_figure_another_article_states_about_something_else() -> None:
    question = "국회의원 선거에 출마할 수 있는 최소 나이는 몇 살인가요?"
    delegating = _item(1, "헌법 제41조", "③ 국회의원의 선거구와 비례대표제 기타 선거에 관한 사항은 법률로 정한다.")
    text = "④ 대통령으로 선거될 수 있는 자는 국회의원의 피선거권이 있고 선거일 현재 40세에 달하여야 한다."
    president = _item(2, "헌법 제67조", text)
    assert extract(question, [delegating, president], None).missing == ["나이 / age"]
    # the instrument it delegates to does answer: a 시행령 stating the figure
    text = "① 이 법은 대통령령으로 정하는 보증금액을 초과하는 임대차에 대하여는 적용하지 아니한다."
    law = _item(1, "법 제2조", text, doc="상가법")
    text = "① 법 제2조제1항 단서에서 대통령령으로 정하는 보증금액이란 서울특별시는 9억원을 말한다."
    decree = _item(2, "시행령 제2조", text, doc="상가법 시행령")
    assert extract("상가법이 적용되는 보증금액은 얼마 이하인가요?", [law, decree], None).missing == []


def _reference(n: int, label: str, text: str, doc: str, via: str) -> EvidenceItem:
    return _item(n, label, text, doc).model_copy(update={"origin": "reference", "via": via})


# 근로기준법 제37조 sets a cap and leaves the rate to the 시행령, whose 제17조 states it.
INTEREST = (
    "① 사용자는 임금을 지급하지 아니한 경우 연 100분의 40 이내의 범위에서 대통령령으로 정하는 이율에 따른 지연이자를 "
    "지급하여야 한다."
)
RATE = "법 제37조제1항에서 \"대통령령으로 정하는 이율\"이란 연 100분의 20을 말한다."


def test_a_delegated_figure_is_quoted_from_the_instrument_that_implements_the_provision() -> None:
    question = "밀린 임금의 지연이자는 연 몇 %인가요?"
    law = _item(1, "근로기준법 제37조", INTEREST, doc="근로기준법")
    monthly = "④ 사용자는 임금을 매월 1회 이상 지급하여야 한다."
    others = [_item(n, f"근로기준법 제{n}조", monthly, "근로기준법") for n in range(2, 7)]
    decree = _reference(7, "근로기준법 시행령 제17조", RATE, "근로기준법 시행령", via="c1")
    answer = extract(question, [law, *others, decree], None)
    assert [s.item.label for s in answer.sentences[:2]] == ["근로기준법 제37조", "근로기준법 시행령 제17조"]
    assert "연 100분의 20" in answer.render() and answer.missing == []
    # only the instrument linked to the answering provision counts: one linked to another passage does not
    elsewhere = decree.model_copy(update={"via": "c2"})
    assert "근로기준법 시행령 제17조" not in [s.item.label for s in extract(question, [law, *others, elsewhere], None).sentences]


def test_a_provision_stating_its_own_figure_is_not_answered_from_a_linked_instrument() -> None:
    # the provision does not delegate: what it states answers, the linked article is not quoted for the figure
    law = _item(1, "법 제60조", "① 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.", doc="법")
    decree = _reference(2, "법 시행령 제30조", "법 제60조에 따른 휴가는 연 15일로 본다.", "법 시행령", via="c1")
    answer = extract("연차휴가는 며칠인가요?", [law, decree], None)
    assert [s.item.label for s in answer.sentences] == ["법 제60조"] and answer.missing == []


DUTY = _item(
    1, "공인중개사법 제18조의4", "중개보조원은 중개의뢰인에게 본인이 중개보조원이라는 사실을 미리 알려야 한다.", "공인중개사법"
)
FINES = (
    "② 다음 각 호의 어느 하나에 해당하는 자에게는 500만원 이하의 과태료를 부과한다.\n"
    "1. 제18조의3을 위반하여 표시ㆍ광고를 한 자\n"
    "2. 제18조의4를 위반하여 중개의뢰인에게 본인이 중개보조원이라는 사실을 미리 알리지 아니한 사람"
)


def test_a_question_about_sanctions_quotes_the_penalty_for_breaking_the_answering_provision() -> None:
    duty = DUTY.model_copy(update={"article": "제18조의4"})
    fines = _reference(2, "공인중개사법 제51조", FINES, "공인중개사법", via="c1").model_copy(update={"article": "제51조"})
    answer = extract("중개보조원이 자기 신분을 안 밝히면 어떤 제재를 받나요?", [duty, fines], None)
    # the sanction asked about first, then the duty it enforces
    assert [s.item.label for s in answer.sentences] == ["공인중개사법 제51조", "공인중개사법 제18조의4"]
    assert "2. 제18조의4를 위반하여" in answer.render() and "1. 제18조의3" not in answer.render()
    # a question that does not ask about sanctions is answered by the duty alone
    assert [s.item.label for s in extract("중개보조원은 신분을 밝혀야 하나요?", [duty, fines], None).sentences] == [
        "공인중개사법 제18조의4"
    ]
    # nor is a penalty quoted that enforces another article
    other = fines.model_copy(update={"text": FINES.replace("제18조의4", "제18조의5")})
    assert "공인중개사법 제51조" not in [s.item.label for s in extract("안 밝히면 제재는?", [duty, other], None).sentences]


def test_a_korean_numeral_inside_a_word_states_no_figure() -> None:
    # "연구원" is not 9원 and "30일분의" is not 1분의: the figure must be a word of its own
    staff = _item(1, "교통관리규정 제4조", "④ 다음 각 호의 자는 차량을 등록한다.\n1. 교직원(산학협력단 소속 직원/연구원 포함)")
    assert extract("교직원 정기주차 등록하면 주차비가 얼마예요?", [staff], None).missing == ["금액 / amount"]
    pay = _item(1, "법 제8조", "③ 퇴직금은 계속근로기간 1년에 대하여 30일분의 평균임금으로 계산한 금액으로 한다.")
    assert extract("퇴직금에서 세금은 몇 % 떼 가나요?", [pay], None).missing == ["비율 / rate"]
    # a numeral that is a word, or digits with several units, is still a figure
    fee = _item(1, "규정 제3조", "① 재발급 수수료는 오천 원으로 하고, 연체료는 1억 5천만원을 넘지 못한다.")
    assert extract("재발급 수수료는 얼마예요?", [fee], None).missing == []
    share = _item(1, "규정 제5조", "① 결석이 수업시간의 삼분의 일을 넘으면 학점을 주지 아니한다.")
    assert extract("결석은 수업시간의 몇 %까지 되나요?", [share], None).missing == []


def test_a_penalty_figure_answers_only_a_question_about_the_penalty() -> None:
    duty = _item(1, "법 제8조", "① 공직자는 직무와 관련하여 음식물을 제공받아서는 아니 된다.")
    text = "① 제8조를 위반하여 음식물을 제공받은 공직자는 3년 이하의 징역 또는 3천만원 이하의 벌금에 처한다."
    penalty = _item(2, "법 제22조", text)
    # the duty's figure is not the fine: a question about a meal's price is not answered by it
    assert extract("공직자에게 음식물은 1인당 얼마까지 제공할 수 있나요?", [duty, penalty], None).missing == ["금액 / amount"]
    # a question about the sanction is
    assert extract("음식물을 제공받은 공직자의 벌금은 얼마인가요?", [duty, penalty], None).missing == []


# 청소년 보호법 제29조: the question's words ("출입", "업소") are in ②; what it means ("부모와 같이 가면") is ④.
ENTRY = _item(
    1,
    "청소년 보호법 제29조",
    "② 청소년 출입ㆍ고용금지업소의 업주와 종사자는 출입자의 나이를 확인하여 청소년이 그 업소에 출입하지 못하게 하여야 한다.\n"
    "④ 제2항에도 불구하고 청소년이 친권자등을 동반할 때에는 대통령령으로 정하는 바에 따라 출입하게 할 수 있다. "
    "다만, 대통령령으로 정하는 업소의 경우에는 출입할 수 없다.",
)


def test_the_clause_quoted_from_a_provision_is_the_one_closest_in_meaning() -> None:
    question = "청소년 출입이 금지된 업소라도 부모와 같이 가면 들어갈 수 있나요?"
    assert extract(question, [ENTRY], None).sentences[0].text.startswith("②")  # by word coverage alone

    def meaning(_question: str, texts: Sequence[str]) -> list[float]:
        return [0.9 if "동반" in t else 0.8 for t in texts]

    answer = extract(question, [ENTRY], None, similarity=meaning)
    assert answer.sentences[0].text.startswith("④")
    assert answer.sentences[1].text.startswith("②")  # the clause stating more of the question's words, quoted too
    # the provision is still the one retrieval ranks first: meaning chooses among its clauses, not among provisions
    other = _item(2, "청소년 보호법 제30조", "청소년유해업소의 업주는 청소년이 출입하는 경우 부모와 같이 왔는지 확인한다.")
    assert extract(question, [ENTRY, other], None, similarity=meaning).sentences[0].item.label == "청소년 보호법 제29조"


def test_meaning_chooses_among_all_clauses_of_the_first_provision_that_share_a_word_with_the_question() -> None:
    """A clause saying the asked thing in other words ("월급이 깎이는" for 감봉) shares few words with the question, so
    it fell below the coverage floor and was never compared by meaning; inside the provision retrieval ranks first,
    every clause sharing a word with the question is now."""
    question = "청소년 출입이 금지된 업소라도 부모와 같이 가면 들어갈 수 있나요?"
    rule = _item(
        1,
        "청소년 보호법 제29조",
        "② 청소년 출입ㆍ고용금지업소의 업주와 종사자는 출입자의 나이를 확인하여 청소년이 그 업소에 출입하지 못하게 하여야 한다.\n"
        "④ 제2항에도 불구하고 친권자등을 동반한 청소년은 대통령령으로 정하는 바에 따라 들일 수 있다.\n"
        "⑤ 그 밖에 필요한 사항은 대통령령으로 정한다.",
    )

    def meaning(_question: str, texts: Sequence[str]) -> list[float]:
        return [0.95 if "그 밖에" in t else 0.9 if "동반" in t else 0.8 for t in texts]

    answer = extract(question, [rule], None, similarity=meaning)
    assert answer.sentences[0].text.startswith("④")  # shares one word ("청소년"), closest in meaning
    assert not any(s.text.startswith("⑤") for s in answer.sentences)  # shares none: never quoted
    # another provision still needs the coverage floor to be quoted in support
    aside = _item(2, "청소년 보호법 제2조", "청소년이란 19세 미만인 사람을 말한다.")
    assert [s.item.label for s in extract(question, [rule, aside], None, similarity=meaning).sentences] == [
        "청소년 보호법 제29조", "청소년 보호법 제29조"
    ]


def test_the_document_name_the_question_writes_does_not_choose_among_its_clauses() -> None:
    """"소프트웨어교육원 원장 임기": the name picked the regulation and is said of each of its clauses alike; an
    embedder compares each clause with the question, and ④ ("교육원에는 소프트웨어 관련 … 교육 …") shares the name's
    words, ② the asked "임기". Each clause is compared under its document's name, as passages are embedded."""
    question = "소프트웨어교육원 원장 임기"
    text = (
        "② 원장은 조교수 이상 전임교원 중에서 총장이 임명하며, 임기는 2년으로 연임할 수 있다.\n"
        "④ 교육원에는 소프트웨어 관련 일반인 교육에 대한 교육과정 개발을 위하여 산학협력교원 등을 둘 수 있으며, "
        "산학협력교원 등은 원장의 추천에 의하여 총장이 임용한다."
    )
    rule = _item(1, "소프트웨어교육원규정 제3조", text, doc="소프트웨어교육원규정")

    def bigrams(text: str) -> set[str]:
        return {text[i : i + 2] for i in range(len(text) - 1) if " " not in text[i : i + 2]}

    def meaning(question: str, texts: Sequence[str]) -> list[float]:  # shared character pairs, as a crude embedder
        asked = bigrams(question)
        return [len(asked & bigrams(t)) / len(asked) for t in texts]

    assert meaning(question, [text.split("\n")[1]]) > meaning(question, [text.split("\n")[0]])
    assert extract(question, [rule], None, similarity=meaning).sentences[0].text.startswith("② 원장은")


def test_a_list_lead_admitted_by_meaning_does_not_displace_its_item_that_the_words_found() -> None:
    """The lead sentence of a list (a table's, a 조's "다음 각 호") is compared by meaning like any clause of the first
    provision, but when one of its own items bears on the question by its words, that item is quoted, not the whole
    list (a 9th-semester tuition question got the whole tuition table instead of its row)."""
    question = "질병으로 장기 요양이 필요하면 휴직할 수 있나요?"
    text = "① 휴직 사유는 다음 각 호와 같다.\n1. 질병으로 장기 요양이 필요한 때\n2. 병역 복무를 위하여 징집된 때"
    rule = _item(1, "교원인사규정 제8조", text)

    def meaning(_question: str, texts: Sequence[str]) -> list[float]:
        return [0.95 if "질병" in t and "병역" in t else 0.8 for t in texts]  # the whole list is closest

    first = extract(question, [rule], None, similarity=meaning).sentences[0].text
    assert "1. 질병으로 장기 요양이 필요한 때" in first and "2. 병역" not in first


def test_a_provision_delegating_the_figure_in_its_best_covering_clause_still_delegates() -> None:
    question = "국회의원 선거에 출마할 수 있는 최소 나이는 몇 살인가요?"
    assembly = _item(
        1,
        "헌법 제41조",
        "① 국회는 국민의 보통ㆍ평등ㆍ직접ㆍ비밀선거에 의하여 선출된 국회의원으로 구성한다.\n"
        "③ 국회의원의 선거구와 비례대표제 기타 선거에 관한 사항은 법률로 정한다.",
    )
    text = "④ 대통령으로 선거될 수 있는 자는 국회의원의 피선거권이 있고 선거일 현재 40세에 달하여야 한다."
    president = _item(2, "헌법 제67조", text)

    def meaning(_question: str, texts: Sequence[str]) -> list[float]:
        return [0.9 if "구성한다" in t else 0.8 for t in texts]

    answer = extract(question, [assembly, president], None, similarity=meaning)
    assert answer.sentences[0].text.startswith("①") and answer.missing == ["나이 / age"]


def test_an_embedder_that_fails_leaves_the_clause_with_the_most_words(tmp_path: Path) -> None:
    question = "청소년 출입이 금지된 업소라도 부모와 같이 가면 들어갈 수 있나요?"
    assert extract(question, [ENTRY], None, similarity=lambda _q, _t: []).sentences[0].text.startswith("②")
    engine = build_engine(Settings(data_dir=vacation_law_store(tmp_path), embed_provider="fake"))

    def down(*_args: object, **_kwargs: object) -> NoReturn:
        raise ConnectionError("embedding server unreachable")

    engine.embedder.embed = down  # type: ignore[method-assign]
    try:
        assert engine.similarity(question, ["④ 청소년이 친권자등을 동반할 때"]) == []
    finally:
        engine.close()


def test_a_source_line_is_not_quoted_as_what_it_attributes() -> None:
    page = _item(
        1,
        "AI 브리프 p.20",
        "■ 갈릴레오가 LLM 환각 지수를 발표\n∙ 질문과 답변에서 제퍼(Zephyr-7b)가 라마2를 능가\n"
        "☞ 출처: Galileo, LLM Hallucination Index, 2023.11.15.",
    )
    quotable = [c.text for c in clauses(page.text)]
    assert quotable == ["■ 갈릴레오가 LLM 환각 지수를 발표", "∙ 질문과 답변에서 제퍼(Zephyr-7b)가 라마2를 능가"]
    answer = extract("LLM Hallucination Index에서 라마2를 능가한 모델은?", [page], None)
    assert "제퍼" in answer.sentences[0].text


def test_a_passage_heading_is_context_not_the_answer() -> None:
    """A PDF page's headline covers the question's words best but states nothing asked: the clause that answers is
    quoted, and the headline's words still count half for the clauses under it."""
    headline = "미국 법원, 예술가들이 생성 AI 기업에 제기한 저작권 소송 기각"
    text = "\n".join(
        [
            headline,
            "■ 미국 캘리포니아 북부지방법원은 미드저니를 대상으로 예술가 3인이 제기한 저작권 침해 소송을 기각",
            "■ 오릭 판사는 판결문에서 소송을 기각한 핵심 이유로 예술가들의 저작권 미등록을 제시",
        ]
    )
    question = "미국에서 예술가들이 이미지 AI 기업을 고소했다가 기각됐다던데 판사가 든 이유가 뭐였어요?"
    page = EvidenceItem(n=1, chunk_id="c1", doc_id="d", label="brief.pdf p.7", doc="brief", text=text, page=7)
    assert extract(question, [page], None).sentences[0].text == headline  # what a page without headings gives
    with_heading = page.model_copy(update={"headings": [headline]})
    assert [c.text for c in clauses(text, [headline])] == text.split("\n")[1:]
    quoted = extract(question, [with_heading], None).sentences[0].text
    assert quoted != headline and quoted.startswith("■ ")


def test_a_supporting_item_of_a_list_is_quoted_with_its_whole_list() -> None:
    """Asked in which cases a 교원 may take leave, the answer's second provision was one 호 of 사립학교법's list (the
    노동조합 전임자 case, closest in meaning): read alone it says that is the one case. Like the answering clause,
    a supporting 호 stating at most one word of the question brings its whole list under the lead."""
    public = _item(
        1,
        "교육공무원법 제44조",
        "제44조(휴직) ① 교육공무원이 다음 각 호의 어느 하나에 해당하는 사유로 휴직을 원하면 임용권자는 휴직을 명할 수 "
        "있다.\n1. 신체상ㆍ정신상의 장애로 장기요양이 필요할 때\n2. 병역 복무를 위하여 징집되거나 소집된 경우\n3. 재직기간 "
        "10년 이상인 교원이 자기개발을 위하여 학습ㆍ연구 등을 하게 된 경우",
    )
    private = _item(
        2,
        "사립학교법 제59조",
        "제59조(휴직) ① 사립학교 교원이 다음 각 호의 어느 하나에 해당하는 사유로 휴직을 원하면 임용권자는 휴직을 명할 수 "
        "있다.\n1. 신체ㆍ정신상의 장애로 장기요양이 필요한 경우\n2. 「교원의 노동조합 설립 및 운영 등에 관한 법률」에 따라 "
        "노동조합 전임자로 종사하게 된 경우",
    )

    def closest_to_the_union_case(question: str, texts: Sequence[str]) -> list[float]:  # the item, not its whole list
        return [0.9 if "노동조합" in t and "신체" not in t else 0.8 for t in texts]

    ex = extract("교원이 휴직할 수 있는 경우는?", [public, private], None, similarity=closest_to_the_union_case)
    assert ex.sentences[0].item.label == "교육공무원법 제44조"
    supporting = [s for s in ex.sentences if s.item.label == "사립학교법 제59조"]
    assert [s.text.split("\n")[1:] for s in supporting] == [
        ["1. 신체ㆍ정신상의 장애로 장기요양이 필요한 경우", private.text.split("\n")[2]]
    ]


def test_a_clause_answering_by_its_heading_alone_is_quoted_under_it() -> None:
    """A slide's title says what its one line answers: "- 테디노트 -" alone does not tell the reader it made the
    tutorial the question names, so the title is quoted above it."""
    title = "랭체인 한국어 튜토리얼"
    slide = EvidenceItem(
        n=1, chunk_id="c1", doc_id="d", label="deck.pptx p.1", doc="deck.pptx", text=f"{title}\n- 테디노트 -",
        page=1, headings=[title],
    )
    quoted = extract("랭체인 한국어 튜토리얼 발표자료 만든 사람", [slide], None).sentences[0]
    assert quoted.text == f"{title}\n- 테디노트 -"
    # a clause stating the question's words itself is quoted as it stands
    page = slide.model_copy(update={"text": f"{title}\n발표자는 테디노트이며 튜토리얼을 만든 사람이다"})
    assert extract("튜토리얼 만든 사람", [page], None).sentences[0].text == "발표자는 테디노트이며 튜토리얼을 만든 사람이다"


def test_a_heading_is_the_context_of_the_clauses_below_it_only() -> None:
    """A contents page is all headings under an issue line: the line above them gets none of their words."""
    text = "2023년 12월호 브리프\n▹ IDC, AI 소프트웨어 매출 전망 12\nn IDC는 AI 소프트웨어 매출이 크게 늘 것으로 예측"
    first, second = clauses(text, ["▹ IDC, AI 소프트웨어 매출 전망 12"])
    assert (first.text, first.context) == ("2023년 12월호 브리프", "")
    assert second.context == "▹ IDC, AI 소프트웨어 매출 전망 12"


def test_a_list_item_that_shares_one_word_with_the_question_brings_its_whole_list() -> None:
    """Which 호 answers is a matter of meaning here: 1호 (공급되지 아니한 경우) is what "물건이 안 와요" means, 2호
    shares the word 할부. Quoting 2호 alone was a wrong answer; the whole list lets the reader see 1호."""
    article = _item(
        1,
        "할부거래법 제16조",
        "제16조(소비자의 항변권) ① 소비자는 다음 각 호의 어느 하나에 해당하는 사유가 있는 경우에는 할부거래업자에게 그 "
        "할부금의 지급을 거절할 수 있다.\n1. 재화등의 전부 또는 일부가 공급 시기까지 소비자에게 공급되지 아니한 경우\n"
        "2. 할부계약이 취소ㆍ해제 또는 해지된 경우\n3. 재화등의 하자로 인하여 계약의 목적을 달성할 수 없는 경우",
    )
    first = extract("배송일이 지났는데 물건이 안 와요. 할부 남은 거 안 내도 되나요?", [article], None).sentences[0]
    assert "1. 재화등의 전부 또는 일부가" in first.text and "2. 할부계약이" in first.text and "3. 재화등의 하자" in first.text
    # an item that states two of the question's words is the answer, quoted alone under its lead
    first = extract("할부계약이 해제되면 남은 할부금은 안 내도 되나요?", [article], None).sentences[0]
    assert "2. 할부계약이" in first.text and "1. 재화등의" not in first.text


def test_a_sentence_opening_with_a_reference_is_quoted_whole() -> None:
    """Only an article's own heading is cut from its first sentence; "제8조에 따른 …" and "제44조ㆍ제45조 또는 …" are
    the sentence (they used to be quoted as "에 따른 사업장가입자가 …" and "ㆍ제45조 또는 …")."""
    article = "제9조(지역가입자)\n제8조에 따른 사업장가입자가 아닌 자로서 18세 이상 60세 미만인 자는 당연히 지역가입자가 된다."
    assert [c.text for c in clauses(article)] == [article.split("\n")[1]]
    penalty = "제44조ㆍ제45조 또는 제66조를 위반한 자는 1년 이하의 징역에 처한다."
    assert [c.text for c in clauses(f"제152조\n{penalty}")] == [penalty]
    assert [c.text for c in clauses("제3조 ① 총장은 매년 계획을 세운다.")] == ["① 총장은 매년 계획을 세운다."]
    mutatis = "제49조 및 제50조는 사망의 신고에 준용한다."
    assert [c.text for c in clauses(mutatis)] == [mutatis]


PENSION = (
    "제13조(임의계속가입자)\n① 다음 각 호의 어느 하나에 해당하는 자는 가입을 신청하면 임의계속가입자가 될 수 있다.\n"
    "1. 국민연금 가입자였던 자로서 60세가 된 자. 다만, 다음 각 목의 어느 하나에 해당하는 자는 제외한다.\n"
    "가. 연금보험료를 납부한 사실이 없는 자\n나. 노령연금 수급권을 취득한 자\n"
    "2. 특수직종근로자로서 노령연금 급여를 지급받지 않는 사람"
)


def test_a_mok_is_quoted_under_its_ho_and_a_ho_leading_mok_brings_them() -> None:
    by_words = {c.words: c for c in clauses(PENSION)}
    lead = "① 다음 각 호의 어느 하나에 해당하는 자는 가입을 신청하면 임의계속가입자가 될 수 있다."
    first = "1. 국민연금 가입자였던 자로서 60세가 된 자. 다만, 다음 각 목의 어느 하나에 해당하는 자는 제외한다."
    mok = by_words["나. 노령연금 수급권을 취득한 자"]
    assert mok.text == f"{lead}\n{first}\n나. 노령연금 수급권을 취득한 자" and mok.context == f"{lead}\n{first}"
    assert by_words[first].text == f"{lead}\n{first}\n가. 연금보험료를 납부한 사실이 없는 자\n나. 노령연금 수급권을 취득한 자"
    second = "2. 특수직종근로자로서 노령연금 급여를 지급받지 않는 사람"
    assert by_words[second].text == f"{lead}\n{second}"  # no 목 of 1호 under 2호
    # a 호 that only names its 목's subject brings them too
    titled = "① 응시자격은 다음과 같다.\n1. 석사학위과정\n가. 외국어시험 : 2차수 이상인 자\n2. 박사학위과정"
    master = {c.words: c.text for c in clauses(titled)}["1. 석사학위과정"]
    assert master == "① 응시자격은 다음과 같다.\n1. 석사학위과정\n가. 외국어시험 : 2차수 이상인 자"
    question = "연금보험료를 한 번도 안 낸 사람은 60세 넘어 임의계속가입을 못 하나요?"
    answer = extract(question, [_item(1, "국민연금법 제13조", PENSION)], None)
    assert f"{first}\n가. 연금보험료를 납부한 사실이 없는 자" in answer.sentences[0].text


def test_a_ho_that_is_only_a_title_keeps_its_body_on_the_next_line() -> None:
    """The 규정집 prints a titled 호's text on the line after its title ("1. 석사학위과정" then what applies to it):
    that line belongs to the 호, not to a paragraph of its own that names no 과정."""
    rule = (
        "제7조(시험과목) 시험과목은 다음 각 호와 같다.\n1. 석사학위과정\n외국어시험은 영어로 하며, 종합시험은 2과목으로 한다."
        "\n2. 박사학위과정\n외국어시험은 영어로 하며, 종합시험은 3과목으로 한다.\n② 세부사항은 따로 정한다."
    )
    by_words = {c.words: c.text for c in clauses(rule)}
    lead = "시험과목은 다음 각 호와 같다."
    doctor = "2. 박사학위과정\n외국어시험은 영어로 하며, 종합시험은 3과목으로 한다."
    assert by_words[doctor] == f"{lead}\n{doctor}"
    assert set(by_words) == {lead, "1. 석사학위과정\n외국어시험은 영어로 하며, 종합시험은 2과목으로 한다.", doctor,
                             "② 세부사항은 따로 정한다."}
    # an item that says something itself ends there: the next plain line is not its body
    closed = clauses("다음 각 호의 서류를 낸다.\n1. 신청서 1부.\n서류는 총무과에 낸다.")
    assert "서류는 총무과에 낸다." in {c.text for c in closed}
    # a body that begins by citing an article is still the 호's body; an article's own head line is not
    cited = clauses("다음 각 호의 사람으로 한다.\n1. 추천위원\n제3조에 따라 위촉된 사람\n제9조(임기) 임기는 2년으로 한다.")
    assert "1. 추천위원\n제3조에 따라 위촉된 사람" in {c.words for c in cited}
    assert not any("임기" in c.words and "추천위원" in c.words for c in cited)
    # two titled 호 with the same body are both quoted whole under one lead, in the provision's order
    same = "다음 각 호와 같다.\n1. 석사\n영어로 한다.\n2. 박사\n영어로 한다."
    item = _item(1, "세칙 제7조", same)
    quoted = [Sentence(item, c.text, 0.5) for c in clauses(same) if c.words.startswith(("2.", "1."))]
    assert Extract(quoted[::-1], 0.5, []).render() == (
        "- 다음 각 호와 같다.\n  1. 석사\n  영어로 한다.\n  2. 박사\n  영어로 한다. [세칙 제7조]"
    )
    answer = extract("박사과정 종합시험은 몇 과목인가요?", [_item(1, "세칙 제7조", rule)], None)
    assert answer.sentences[0].text == f"{lead}\n{doctor}"


def test_items_of_one_list_are_rendered_under_one_lead() -> None:
    lead = "④ 가족돌봄휴직 및 가족돌봄휴가의 사용기간과 분할횟수 등은 다음 각 호에 따른다."
    text = f"{lead}\n1. 가족돌봄휴직 기간은 연간 최장 90일로 할 것\n2. 가족돌봄휴가 기간은 연간 최장 10일로 할 것"
    item = _item(1, "법 제22조의2", text)
    second, first = (Sentence(item, f"{lead}\n{line}", 0.5) for line in text.split("\n")[2:0:-1])
    rendered = Extract([second, first], 0.5, []).render()
    assert rendered.count(lead) == 1
    assert rendered.index("1. 가족돌봄휴직") < rendered.index("2. 가족돌봄휴가")  # in the order the provision states them
    whole = Sentence(item, text, 0.5)
    assert Extract([second, whole], 0.5, []).render() == f"- {text.replace(chr(10), chr(10) + '  ')} [법 제22조의2]"


def test_a_clause_after_a_list_or_a_new_hang_starts_its_own_line() -> None:
    """Clauses of one provision share its bullet; one quoted after a list's last item, or one opening a 항, goes
    on a line of its own ("… 날부터 7일 ② 소비자는 …" read as part of 2호)."""
    lead = "① 소비자는 다음 각 호의 기간 이내에 청약철회등을 할 수 있다."
    item = "2. 서면을 받지 아니한 경우에는 주소를 안 날부터 7일"
    text = f"{lead}\n1. 서면을 받은 날부터 7일\n{item}\n② 소비자는 다음 경우에는 청약철회등을 할 수 없다. 다만, 예외가 있다."
    provision = _item(1, "법 제17조", text)
    second = "② 소비자는 다음 경우에는 청약철회등을 할 수 없다. 다만, 예외가 있다."
    quoted = [Sentence(provision, f"{lead}\n{item}", 0.5), Sentence(provision, second, 0.4)]
    assert Extract(quoted, 0.5, []).render() == f"- {lead}\n  {item}\n  {second} [법 제17조]"
    # two sentences of one 항 stay one paragraph
    one = _item(2, "법 제3조", "① 가는 나에게 준다. 이 경우 다는 라에 따른다. 그 밖은 따로 정한다.")
    plain = [Sentence(one, "① 가는 나에게 준다. 이 경우 다는 라에 따른다.", 0.5), Sentence(one, "그 밖은 따로 정한다.", 0.4)]
    assert Extract(plain, 0.5, []).render() == "- ① 가는 나에게 준다. 이 경우 다는 라에 따른다. 그 밖은 따로 정한다. [법 제3조]"


def test_a_point_written_with_a_dash_gets_one_bullet() -> None:
    point = _item(1, "계획 › 과제", "- 내부망과 외부망을 논리적 망분리 구조로 전환(21년)")
    rendered = Extract([Sentence(point, point.text, 0.5)], 0.5, []).render()
    assert rendered == "- 내부망과 외부망을 논리적 망분리 구조로 전환(21년) [계획 › 과제]"


def test_a_grade_point_average_states_a_score_and_a_letter_grade_does_not() -> None:
    text = "조기졸업은 6개 학기 이상 등록한 자 중 취득한 학업 성적의 평점평균이 4.30 이상인 자로 한다."
    rule = _item(1, "조기졸업규정 제3조", text)
    assert extract("조기졸업하려면 평점 몇 점 이상이어야 해?", [rule], None).missing == []
    # "B+등급" is a grade, not a score: asked for 몇 점, the answer is left to the reader, not guessed
    retake = _item(1, "재수강규정 제4조", "① 재수강 과목의 성적 취득상한은 B+등급을 원칙으로 한다.")
    assert extract("재수강하면 성적은 최대 몇 점까지 받을 수 있어?", [retake], None).missing == ["점수 / score"]


def test_an_item_of_a_list_cut_into_two_parts_is_quoted_under_its_lead() -> None:
    """A long article is cut into parts; the second opens mid-list ("11. …"). Its items mean nothing without the lead
    in the first part, which states the penalty ("… 20만원 이하의 벌금 … 에 처한다")."""
    lead = "다음 각 호의 어느 하나에 해당하는 사람은 20만원 이하의 벌금이나 구류 또는 과료에 처한다."
    first = EvidenceItem(
        n=1, chunk_id="law-00156", doc_id="d", label="도로교통법 제156조", doc="도로교통법", header="",
        text=f"제156조(벌칙)\n{lead}\n1. 제5조를 위반하여 교통안전시설이 표시하는 신호를 따르지 아니한 차마의 운전자",
    )  # fmt: skip
    rest = "11. 제44조제1항을 위반하여 술에 취한 상태에서 자전거등을 운전한 사람\n12. 제46조를 위반하여 공동 위험행위를 한 사람"
    second = first.model_copy(update={"n": 2, "chunk_id": "law-00157", "text": rest})
    answer = extract("술에 취해 자전거를 운전하면 벌금은?", [second, first], None)
    assert answer.sentences[0].text == f"{lead}\n11. 제44조제1항을 위반하여 술에 취한 상태에서 자전거등을 운전한 사람"
    # without the earlier part at hand, the item is quoted as it stands
    alone = extract("술에 취해 자전거를 운전하면 벌금은?", [second], None)
    assert alone.sentences[0].text.startswith("11. 제44조제1항을")


def test_a_sentence_pointing_to_a_table_below_brings_its_rows() -> None:
    """The 규정집 prints an article's tables after its last 항; "… 산출 방법은 다음과 같다." points to the table."""
    article = (
        "제3조(납부방법) ① 등록금은 매학기 납부하여야 한다.\n"
        "② 휴학을 한 자가 복학을 하는 경우에 납부하여야 할 금액의 산출 방법은 다음과 같다.\n"
        "③ 군입대 휴학자의 등록금은 복학시 전액 대체 인정한다.\n"
        "| 휴 학 일 | 대체 인정 금액 |\n|---|---|\n| ∼ 수업일수 1/4 | 등록금 전액이월 |\n| 수업일수 1/2 초과 | 전액 납부 |"
    )
    by_words = {c.words: c.text for c in clauses(article)}
    pointer = "② 휴학을 한 자가 복학을 하는 경우에 납부하여야 할 금액의 산출 방법은 다음과 같다."
    assert by_words[pointer] == (
        f"{pointer}\n휴 학 일: ∼ 수업일수 1/4, 대체 인정 금액: 등록금 전액이월\n"
        "휴 학 일: 수업일수 1/2 초과, 대체 인정 금액: 전액 납부"
    )
    third = "③ 군입대 휴학자의 등록금은 복학시 전액 대체 인정한다."
    assert by_words[third] == third
    # a pointer with a list of its own keeps its list, and the table is left to the rows
    listed = "① 범위는 다음과 같다.\n1. 석사학위과정\n| 과정 | 점수 |\n|---|---|\n| 석사 | 600 |"
    assert {c.text for c in clauses(listed)} >= {"① 범위는 다음과 같다.\n1. 석사학위과정", "과정: 석사, 점수: 600"}


def test_an_attachment_title_line_brings_the_rows_of_its_table() -> None:
    """A 별표's title line names the table below it: it is quoted with the rows ("고급 과정 과목은?" was answered by
    the title alone, a name that says nothing of what the table holds)."""
    title = "[별표 2] 외국인 유학생 한국어 강좌 고급 과정"
    attachment = f"{title}\n| 교과목명 | 학점/시간 |\n|---|---|\n| 중급시사한국어 | 2/2 |\n| 고급시사한국어 | 2/2 |"
    rows = "교과목명: 중급시사한국어, 학점/시간: 2/2\n교과목명: 고급시사한국어, 학점/시간: 2/2"
    assert {c.words: c.text for c in clauses(attachment)}[title] == f"{title}\n{rows}"
    item = _item(1, "규정 별표 2", attachment, doc="외국인유학생의한국어강좌이수및학점인정에관한규정")
    assert extract("외국인 유학생 한국어 고급 과정 과목은?", [item], None).sentences[0].text == f"{title}\n{rows}"


def test_a_header_of_two_rows_names_each_column_under_its_label() -> None:
    """The loaders write a cell spanning columns in its first column and leave the others empty; the second header
    row (it repeats the corner cell that spans both) names each column under the first row's label above it."""
    scores = ["| 과정 | TOEIC | TOEFL |  | TEPS |", "|---|---|---|---|---|", "| 과정 | TOEIC | CBT | IBT | TEPS |"]
    assert table_row_sentences([*scores, "| 석사 | 600 | 160 | 60 | 480 |"]) == [
        "과정: 석사, TOEIC: 600, TOEFL CBT: 160, TOEFL IBT: 60, TEPS: 480"
    ]
    credits = ["| 졸업학점 | 학년별 수료학점 |  |  |", "|---|---|---|---|", "| 졸업학점 | 1 | 2 | 3 |", "| 140 이상 | 35 | 70 |"]
    assert table_row_sentences(credits) == ["졸업학점: 140 이상, 학년별 수료학점 1: 35, 학년별 수료학점 2: 70"]
    # a label over a column the second row leaves empty names it alone
    plan = ["| 과제 | 2019 |  |  | 부처 |", "|---|---|---|---|---|", "| 과제 | 상 | 하 |  | 부처 |",
            "| 혁신 | 착수 |  | 점검 | 행안부 |"]
    assert table_row_sentences(plan) == ["과제: 혁신, 2019 상: 착수, 2019: 점검, 부처: 행안부"]
    # a header of three rows: each half-year under its year under the schedule
    schedule = ["| 과제 | 일정 |  |  |  | 부처 |", "|---|---|---|---|---|---|", "| 과제 | 2019 |  | 2020 |  | 부처 |",
                "| 과제 | 상 | 하 | 상 | 하 | 부처 |", "| 혁신 |  | 착수 | 확산 |  | 행안부 |"]
    assert table_row_sentences(schedule) == ["과제: 혁신, 일정 2019 하: 착수, 일정 2020 상: 확산, 부처: 행안부"]
    # a body row that happens to repeat the corner cell does not join the header
    repeated = ["| 구분 | 값 |", "|---|---|", "| 구분 | 1 |", "| 합계 | 2 |"]
    assert table_row_sentences(repeated) == ["구분, 값: 1", "구분: 합계, 값: 2"]


def test_an_amount_in_a_table_whose_header_names_its_unit_is_stated() -> None:
    """A cell under "금액(원)" states an amount though the cell holds only the number ("50,000")."""
    amount = next(d for d in asked_details("수당은 얼마야?"))
    assert states(amount, "구분: 감사수당, 금액(원): 50,000, 지급기준: 1일")
    assert states(amount, "구분: 감사수당, 금액: 50,000")  # a header naming money: a sum in thousands is in 원
    assert states(amount, "구분: 연구보조비 Ⅰ, 지급대상: 교수, 지급액: 904,000")
    assert not states(amount, "구분: 감사수당, 인원: 50,000")  # a number under another header is no amount
    assert not states(amount, "구분: 감사수당, 금액: 5")
    days = next(d for d in asked_details("며칠이야?"))
    assert states(days, "구분: 연수, 기간(일): 30")


def test_a_figure_in_a_table_whose_header_counts_its_unit_is_stated() -> None:
    """"경조사 휴가는 며칠이야?" was refused over 별표 1, whose rows give the days under "일 수" (a header written
    letter-spaced, as 규정집 tables often are): "구 분: 결 혼, 대 상: 본인, 일 수: 5"."""
    days = next(d for d in asked_details("경조사 휴가는 며칠이야?"))
    assert states(days, "구 분: 결 혼, 대 상: 본인, 일 수: 5")
    assert states(days, "구분: 결혼, 휴가일수: 5, 비고: 연속 사용")
    assert not states(days, "수업일수: 3분의 1")  # a share of the days, not a number of them
    times = next(d for d in asked_details("몇 번까지 신청할 수 있어?"))
    assert states(times, "구분: 재수강, 횟수: 2")
    table = "<별표 1> 경조사별 휴가일수표\n| 구 분 | 대 상 | 일 수 |\n|---|---|---|\n| 결 혼 | 본인 | 5 |\n| 사 망 | 부모 | 5 |"
    leave = _item(1, "교직원복무규정 별표 1", table, "교직원복무규정")
    answer = extract("경조사 휴가는 며칠이야?", [leave], None)
    assert answer.missing == [] and any("일 수: 5" in s.text for s in answer.sentences)


def test_a_figure_of_the_article_the_answering_document_names_answers() -> None:
    """The answering regulation leaves the amount to an article of another regulation it names ("지급 금액은 …
    교원및직원의수당규정 제29조 기준을 따른다"); that article's row states it, so the answer quotes it instead of
    refusing. An article of a document nobody names does not answer for it."""
    rule = EvidenceItem(
        n=1, chunk_id="a", doc_id="audit", label="내부감사규정 제8조의2", doc="내부감사규정", article="제8조의2",
        header="내부감사규정 제8조의2(수당)",
        text="제8조의2(수당) 감사인 및 간사에 대해 수당을 지급할 수 있으며 지급 금액은 본 대학교 교원및직원의수당규정 "
        "제29조 기준을 따른다.",
    )
    table = "| 구분 | 대상 | 금액(원) |\n|---|---|---|\n| 감사수당 | 감사인 및 간사 | 50,000 |\n| 회의수당 | 외부위원 | 200,000 |"
    rates = EvidenceItem(
        n=2, chunk_id="b", doc_id="pay", label="교원및직원의수당규정 제29조", doc="교원및직원의수당규정", article="제29조",
        header="교원및직원의수당규정 제29조(각종 수당 등에 관한 지급기준)", text=table,
    )
    question = "감사인 및 간사 수당은 얼마야?"
    answer = extract(question, [rule, rates], None)
    assert answer.missing == [] and any("금액(원): 50,000" in s.text for s in answer.sentences)
    unnamed = rule.model_copy(update={"text": "제8조의2(수당) 감사인 및 간사에 대해 수당을 지급할 수 있다."})
    assert extract(question, [unnamed, rates], None).missing == ["금액 / amount"]
    another = rule.model_copy(update={"text": rule.text.replace("제29조", "제29조의2")})  # names another article
    assert extract(question, [another, rates], None).missing == ["금액 / amount"]


def test_a_figure_of_the_document_the_answering_provision_defers_to_answers() -> None:
    """"①「강사료지급규정」에 의하여 강사료를 지급한다": the amounts are in that regulation's 별표, whose row for 겸임교원
    answers. A document cited in another provision of the same regulation is not deferred to."""
    text = "①「강사료지급규정」에 의하여 강사료를 지급한다.\n② 겸임교원에게는 겸임수당을 지급할 수 있다. 지급액은 총장이 정한다."
    rule = _item(1, "겸임교원규정 제10조", text, doc="겸임교원규정")
    table = "| 직명 | 시간당 강사료(원) |\n|---|---|\n| 교수, 부교수 | 15,000 |\n| 겸임교원 | 42,000 |"
    rates = _item(2, "강사료지급규정 별표 1", table, doc="강사료지급규정")
    question = "겸임교원 시간당 강사료는 얼마예요?"
    answer = extract(question, [rule, rates], None)
    assert answer.missing == [] and "직명: 겸임교원, 시간당 강사료(원): 42,000" in answer.render()
    elsewhere = rule.model_copy(update={"text": rule.text.replace("「강사료지급규정」에 의하여 ", "")})
    citing = _item(3, "겸임교원규정 제2조", "직명은 「강사료지급규정」에 따른다.", doc="겸임교원규정")
    assert extract(question, [elsewhere, rates, citing], None).missing == ["금액 / amount"]
    # an article of the document cited, not the document as a whole ("1년 일하면 유급휴가 며칠?" was answered with
    # another law's "5일" because 근로기준법 제60조 ⑥ cites "「남녀고용평등…법」 제19조제1항에 따른 육아휴직")
    article = rule.model_copy(update={"text": rule.text.replace("」에 의하여", "」 제3조에 의하여")})
    assert extract(question, [article, rates], None).missing == ["금액 / amount"]


def test_a_question_naming_a_document_is_answered_from_it() -> None:
    theft = _item(1, "형법 제329조", "타인의 재물을 절취한 자는 6년 이하의 징역 또는 1천만원 이하의 벌금에 처한다.", doc="형법")
    weighing = _item(
        2, "행정절차법 제40조의4", "행정청은 계획을 수립할 때에는 관련된 여러 이익을 정당하게 형량하여야 한다.", doc="행정절차법"
    )
    theft = theft.model_copy(update={"header": "형법 제329조(절도)"})
    ex = extract("형법상 절도죄 형량은?", [theft, weighing], None)
    assert [s.item.label for s in ex.sentences] == ["형법 제329조"]
    # a word that is also a shortened title ("등록금" of 등록금에관한규정) names no document
    fee = _item(1, "등록금에관한규정 제7조", "초과 학기 등록금은 수강 학점에 따라 낸다.", doc="등록금에관한규정")
    leave = _item(2, "휴학규정 제10조", "학기 포기 휴학자의 등록금은 반환하지 않는다.", doc="휴학규정")
    assert {s.item.label for s in extract("휴학하면 등록금은 반환되나요?", [fee, leave], None).sentences} >= {"휴학규정 제10조"}


def test_a_blank_form_is_quoted_only_when_the_form_is_asked_about() -> None:
    form = _item(1, "연구노트관리규정 별지 1", "연구노트 열람 신청서\n신청일 : 20 년 월 일\n신청자 : (서명)", "연구노트관리규정")
    rule = _item(2, "연구노트관리규정 제9조", "② 연구노트의 열람은 열람일 7일 전까지 신청한다.", "연구노트관리규정")
    assert [s.item.label for s in extract("연구노트 열람 신청일은 언제까지예요?", [form, rule], None).sentences] == [
        "연구노트관리규정 제9조"
    ]
    asked = extract("연구노트 열람 신청서 양식에는 뭘 적나요?", [form, rule], None)
    assert asked.sentences[0].item.label == "연구노트관리규정 별지 1"


def test_a_follow_up_is_answered_by_clauses_about_its_topic_or_stating_all_its_own_words() -> None:
    childcare = _item(1, "법 제19조", "② 육아휴직의 기간은 1년 이내로 한다.")
    annual = _item(2, "법 제60조", "① 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 연차 유급휴가를 주어야 한다.")
    form = _item(3, "규정 제8조", "③ 보고서는 신청일 일주일 전까지 제출한다.")

    def labels(question: str, topic: str) -> list[str]:
        return [s.item.label for s in extract(question, [childcare, annual, form], None, topic=topic).sentences]

    # a new subject, stated whole: "그럼 육아휴직은?" after a question about 연차 휴가
    assert labels("그럼 육아휴직은? 연차 휴가", "연차 휴가")[0] == "법 제19조"
    # a changed circumstance shared only by a clause about something else: not an answer
    assert "규정 제8조" not in labels("일주일에 10시간 일하면요? 주휴수당", "주휴수당")
    # named as the new subject, it is what the answer states: the old subject's clause is no answer to it
    swapped = extract("그럼 육아휴직은요? 연차 휴가", [annual, childcare], None, topic="연차 휴가", subject="육아휴직")
    assert [s.item.label for s in swapped.sentences] == ["법 제19조"]


def test_a_decree_clause_is_enforced_by_the_penalty_for_the_law_article_it_implements_only() -> None:
    decree = _item(
        1, "휴가법 시행령 제2조", "① 법 제2조제1항에 따른 휴가는 「소득세법」 제4조의 소득과 관계없이 청구한 시기에 준다.",
        doc="휴가법 시행령",
    ).model_copy(update={"article": "제2조"})
    other = _item(2, "휴가법 제8조", "제4조를 위반한 자는 500만원 이하의 벌금에 처한다.", doc="휴가법")
    own = _item(3, "휴가법 제9조", "제2조를 위반한 자는 2년 이하의 징역에 처한다.", doc="휴가법")
    labels = [s.item.label for s in extract("휴가를 청구한 시기에 안 주면 처벌은?", [decree, other, own], None).sentences]
    # 제9조 punishes the 법 article the decree implements ("법 제2조"); 제8조's 제4조 is the 소득세법's, not the 법's
    assert labels[0] == "휴가법 제9조" and "휴가법 제8조" not in labels


def test_a_question_asking_what_befalls_a_breach_quotes_the_penalty_for_the_provision_stating_the_figure() -> None:
    def article(n: int, number: str, text: str) -> EvidenceItem:
        return _item(n, f"법 {number}", text).model_copy(update={"article": number})

    order = article(1, "제43조", "① 법무부장관은 차별행위를 한 자에게 시정명령을 할 수 있다.")
    appeal = article(2, "제44조", "① 시정명령을 받은 당사자는 송달받은 날부터 30일 이내에 행정소송을 제기할 수 있다.")
    fine = article(3, "제50조", "① 제44조에 따라 확정된 시정명령을 이행하지 아니한 자는 3천만원 이하의 과태료에 처한다.")
    question = "법무부 시정명령을 받았어요. 불복하려면 기한이 있나요? 그리고 그냥 안 따르면 어떤 불이익이 있나요?"
    labels = [s.item.label for s in extract(question, [order, appeal, fine], None).sentences]
    # the fine punishes breaking 제44조, the provision stating the time limit asked, not 제43조 that answers first
    assert labels == ["법 제50조", "법 제44조", "법 제43조"]
    # found only as the article citing 제44조 (a reference linked to it), the fine is quoted all the same
    cited = fine.model_copy(update={"origin": "reference", "via": appeal.chunk_id})
    assert [s.item.label for s in extract(question, [order, appeal, cited], None).sentences] == labels
    # asking whether a disadvantage may be imposed is not asking about a sanction
    assert ASKS_SANCTION.search(question)
    assert not ASKS_SANCTION.search("노조를 만들려 한다는 이유로 불이익을 줘도 되나요?")


def test_the_provision_drawing_the_line_on_the_questions_figure_answers_first() -> None:
    # "직원이 4명뿐인" sets the case by a headcount: the first passage draws no line on it, the second does (people
    # counted in 인, as older statutes write it)
    seconded = _item(1, "법 제34조", "파견 사업장에서 계약직 근로자에게 이 법을 적용할 때에는 사용사업주를 사업주로 본다.")
    scope = _item(2, "기간제법 제3조", "① 이 법은 상시 5인 이상의 근로자를 사용하는 모든 사업 또는 사업장에 적용한다.")
    question = "직원이 4명뿐인 사업장에서 계약직 근로자로 일하는데 이 법이 적용되나요?"
    assert extract(question, [seconded], None).unbounded == ["4명"]
    ex = extract(question, [seconded, scope], None)
    assert ex.unbounded == [] and ex.answers(0.0) and ex.sentences[0].item.label == "기간제법 제3조"
    # the unit of a rate sets no case: "1명당" is not a headcount to draw a line on
    room = _item(1, "령 제58조", "기숙사 침실의 넓이는 1인당 2.5제곱미터 이상으로 한다.")
    assert extract("기숙사 방 크기 1명당 기준", [room], None).unbounded == []


def test_a_special_case_drawn_for_the_questions_figure_is_read_after_the_rule_on_the_other_side_of_the_line() -> None:
    # ② holds "4명" and answers first; alone it hides that the law applies in full from five people up (①)
    scope = _article(
        1,
        "기간제법 제3조",
        "① 이 법은 상시 5인 이상의 근로자를 사용하는 모든 사업 또는 사업장에 적용한다.\n"
        "② 상시 4인 이하의 근로자를 사용하는 사업 또는 사업장에 대하여는 대통령령으로 정하는 바에 따라 이 법의 일부 규정을 "
        "적용할 수 있다.\n"
        "③ 국가 및 지방자치단체의 기관에 대하여는 상시 사용하는 근로자의 수와 관계없이 이 법을 적용한다.",
    )
    question = "직원이 4명뿐인 작은 가게에서 계약직으로 일하는데 이 법이 여기에도 그대로 적용되나요?"
    texts = [s.text[:1] for s in extract(question, [scope], None).sentences]
    assert texts == ["①", "②"]
    # a figure the rule itself holds ("직원이 7명") is answered by ① alone
    assert [s.text[:1] for s in extract("직원이 7명인 가게에도 이 법이 적용되나요?", [scope], None).sentences] == ["①"]
    # an earlier 항 bounding the headcount about something the question does not say is not the rule ② departs from
    report = _article(
        1,
        "법 제9조",
        "① 사업주는 상시 5인 이상을 고용하면 고용노동부장관에게 신고하여야 한다.\n"
        "② 상시 4인 이하의 근로자를 사용하는 사업 또는 사업장에 대하여는 이 법의 일부 규정을 적용할 수 있다.",
    )
    assert [s.text[:1] for s in extract(question, [report], None).sentences] == ["②"]


def test_a_question_naming_the_kind_of_sanction_is_not_answered_by_another_kind() -> None:
    # "과태료 얼마까지" asks for an administrative fine: a conviction's 벌금 of the same amount is another sanction
    duty = _article(1, "법 제17조", "사용자는 근로계약을 체결하는 때에는 근로조건을 서면으로 명시하여야 한다.")
    fine = _article(2, "법 제114조", "다음 각 호의 어느 하나에 해당하는 자는 500만원 이하의 벌금에 처한다.\n1. 제17조 위반자")
    question = "사장이 근로조건을 서면으로 안 써줬어요. 과태료 얼마까지 나오나요?"
    ex = extract(question, [duty, fine], None)
    assert "벌금" not in ex.render() and ex.missing == ["금액 / amount"]
    levy = _article(3, "법 제116조", f"{LEVY}\n1. 제17조를 위반한 자")
    answer = extract(question, [duty, fine, levy], None).render()
    assert answer.startswith(f"- {LEVY}") and "벌금" not in answer
    # "벌금" names no kind: people call any fine so
    assert "500만원 이하의 벌금" in extract("근로조건을 서면으로 안 써주면 벌금 얼마예요?", [duty, fine], None).render()
    # the kind named punishes another provision that bears on the question: its penalty answers
    fixed = _article(4, "기간제법 제17조", "사용자는 기간제근로자와 계약할 때 근로조건을 서면으로 명시하여야 한다.", "기간제법")
    fixed_levy = _article(5, "기간제법 제24조", f"{LEVY}\n2. 제17조를 위반한 자", "기간제법")
    question = "기간제 계약직인데 근로조건을 서면으로 안 써줬어요. 과태료 얼마까지 나오나요?"
    answer = extract(question, [duty, fine, fixed, fixed_levy], None).render()
    assert answer.startswith(f"- {LEVY}") and "[기간제법 제24조]" in answer


LEVY = "다음 각 호의 어느 하나에 해당하는 자에게는 500만원 이하의 과태료를 부과한다."


def _article(n: int, label: str, text: str, doc: str = "법") -> EvidenceItem:
    return _item(n, label, text, doc).model_copy(update={"article": label.split()[-1]})


def test_an_article_title_holding_parentheses_is_not_quoted_as_part_of_its_text() -> None:
    """"제26조(입시 연장(야간, 주말) 근로 수당) 입시에 …" was quoted as "근로 수당) 입시에 …": the heading was cut at
    the title's inner closing bracket."""
    article = "제26조(입시 연장(야간, 주말) 근로 수당) 입시에 동원된 교직원에 대하여는 예산의 범위 안에서 수당을 지급할 수 있다."
    assert [c.text for c in clauses(article)] == ["입시에 동원된 교직원에 대하여는 예산의 범위 안에서 수당을 지급할 수 있다."]


def test_a_document_s_title_line_is_not_quoted() -> None:
    """A plan's first page opens with its title; quoted in support it said nothing but the document's name."""
    doc = "디지털 정부혁신 추진계획"
    evidence = [
        _item(1, f"{doc} › Ⅱ. 추진과제", "○ 6대 우선 추진과제의 조속한 추진을 통해 디지털 전환을 위한 로드맵을 수립한다.", doc),
        _item(2, doc, f"{doc}\n2019. 10. 29.\n관계부처 합동", doc),
    ]
    quoted = [s.text for s in extract("디지털 정부혁신 추진계획의 6대 과제는?", evidence, None).sentences]
    assert quoted and doc not in quoted


def test_the_article_a_question_names_answers_it() -> None:
    """"형법 제347조 처벌은?" quoted 제352조 ("제347조 … 의 미수범은 처벌한다"), which states both its words, and not 제347조,
    which states its penalty but neither word."""
    evidence = [
        EvidenceItem(
            n=1, chunk_id="c1", doc_id="d", label="형법 제347조", doc="형법", header="형법 제347조(사기)", article="제347조",
            text="제347조(사기) ① 사람을 기망하여 재물의 교부를 받은 자는 10년 이하의 징역 또는 2천만원 이하의 벌금에 처한다.",
        ),
        EvidenceItem(
            n=2, chunk_id="c2", doc_id="d", label="형법 제352조", doc="형법", header="형법 제352조(미수범)", article="제352조",
            text="제352조(미수범) 제347조 내지 제348조의2의 미수범은 처벌한다.",
        ),
    ]
    quoted = extract("형법 제347조 처벌은?", evidence, None).sentences
    assert quoted[0].item.label == "형법 제347조" and "10년 이하의 징역" in quoted[0].text


def test_a_question_asking_for_conditions_is_answered_by_the_article_titled_by_them() -> None:
    # "추대 조건" asks the conditions: 제2조(자격) sets them in prose (no list of 호), 제6조 ranks first for "추대"
    rules = "명예교수규정"

    def article(n: int, head: str, text: str) -> EvidenceItem:
        item = _item(n, f"{rules} {head.split('(')[0]}", f"{head} {text}", rules)
        return item.model_copy(update={"header": f"{rules}(3-1-9) {head}", "article_title": head[head.index("(") + 1 : -1]})

    award = article(1, "제6조(추대 및 추대기간)", "① 명예교수에 추대된 자에게는 추대장을 수여한다.")
    terms = article(
        2,
        "제2조(자격)",
        "명예교수로 추대할 수 있는 자는 본 대학교에서 전임교원으로 17년 이상 재직하고 정년으로 퇴직한 교수로 한다.",
    )
    assert extract("명예교수 추대 조건", [award, terms], None).sentences[0].item is terms
    # asked something else of the same articles, retrieval's first answers
    assert extract("명예교수 추대장은 누가 받나요?", [award, terms], None).sentences[0].item is award


def test_a_question_asking_for_kinds_is_answered_by_the_clause_naming_them() -> None:
    """"교원 징계의 종류는?" quoted ① of 제61조(징계의 사유 및 종류), the grounds with their 호, and never ② naming the
    kinds; "몇 가지야?" was refused for a count no clause writes as a number."""
    law = "사립학교법"
    text = (
        "제61조(징계의 사유 및 종류) ① 사립학교 교원이 다음 각 호의 어느 하나에 해당할 때에는 해당 교원의 임용권자는"
        " 징계의결을 요구하여야 한다.\n1. 교원의 본분에 어긋나는 행위를 하였을 때\n2. 직무상의 의무를 위반하였을 때\n"
        "② 징계는 파면, 해임, 강등, 정직, 감봉, 견책으로 한다.\n"
        "③ 강등은 하위의 직위에 임명하고 3개월간 직무에 종사하지 못한다."
    )
    item = _item(1, f"{law} 제61조", text, law).model_copy(
        update={"header": f"{law} 제61조(징계의 사유 및 종류)", "article": "제61조"}
    )
    for question in ("교원 징계의 종류는?", "교원 징계는 몇 가지야?", "교원 징계는 어떤 단계로 나뉘어?"):
        answer = extract(question, [item], None)
        assert answer.missing == [], question
        assert any("파면, 해임, 강등" in s.text for s in answer.sentences), question
    # asked something else of the article, the kinds are not what answers
    grounds = extract("교원 징계 사유는?", [item], None).sentences[0]
    assert "본분" in grounds.text and "파면" not in grounds.text


def test_kinds_questions_and_clauses_are_told_apart() -> None:
    asking = ("휴학의 종류는?", "학생 징계는 몇 가지야?", "어떤 단계로 나뉘어?", "직위는 어떻게 구분돼?")
    assert all(asks_kinds(q) for q in asking)
    assert not any(asks_kinds(q) for q in ("구분소유자가 몇 명 이상이면?", "나눠서 내기로 한 물건값", "징계 사유는?"))
    naming = (
        "징계는 파면ㆍ해임ㆍ강등ㆍ정직ㆍ감봉ㆍ견책(譴責)으로 구분한다.",
        "실업급여는 구직급여와 취업촉진 수당으로 구분한다.",
        "보험급여의 종류는 다음 각 호와 같다.",
        "휴학은 다음 각호와 같이 구분한다.",
        "교원의 직위는 교수, 부교수 및 조교수로 하되, 이를 정년제와 비정년제로 구분한다.",
    )
    assert all(KINDS_LIST.search(t) for t in naming)
    other = ("위원은 교수, 부교수, 조교수 중에서 임명한다.", "휴직 기간은 1년으로 한다.", "위원회는 위원장과 위원으로 한다.")
    assert not any(KINDS_LIST.search(t) for t in other)


def test_a_table_quoted_whole_under_its_caption_is_read_by_the_row_the_question_names() -> None:
    """"조부모가 돌아가시면 경조사 휴가 며칠?" quoted the whole 휴가일수표 under its caption, every row of it, when one
    row alone names 조부모."""
    table = (
        "<별표 1> 경조사별 휴가일수표\n| 구분 | 대상 | 일수 |\n|---|---|---|\n| 결혼 | 본인 | 5 |\n"
        "| 사망 | 배우자, 본인 및 배우자의 부모 | 5 |\n| 사망 | 본인 및 배우자의 조부모ㆍ외조부모 | 3 |\n| 출산 | 배우자 | 20 |"
    )
    leave = _item(1, "교직원복무규정 별표 1", table, "교직원복무규정")
    (quoted,) = extract("조부모가 돌아가시면 경조사 휴가 며칠?", [leave], None).sentences
    assert "조부모ㆍ외조부모, 일수: 3" in quoted.text and "결혼" not in quoted.text and "출산" not in quoted.text
    # the rows a word of the question names when it names several ("사망"), not the others
    (quoted,) = extract("사망하면 경조사 휴가 며칠?", [leave], None).sentences
    assert quoted.text.count("사망") == 2 and "결혼" not in quoted.text and "출산" not in quoted.text


def test_a_word_the_question_splits_and_a_table_cell_writes_whole_is_stated_by_the_cell() -> None:
    """Kiwi reads "조교수" as 조 + 교수 in "조교수 연구보조비 얼마 받아?" and as one word in a table cell: the 교수 rows
    stated more of the question's words than the 조교수 ones, and "지급액: 816,000" no amount (no 원)."""
    table = (
        "<별표 1> 교원연구보조비\n| 구분 | 지급대상 | 지급액 |\n|---|---|---|\n| 연구보조비 Ⅰ | 교수 | 904,000 |\n"
        "| 연구보조비 Ⅰ | 부교수 | 858,000 |\n| 연구보조비 Ⅰ | 조교수 | 816,000 |"
    )
    pay = _item(1, "교원연구보조비지급규정 별표 1", table, "교원연구보조비지급규정")
    answer = extract("조교수 연구보조비 얼마 받아?", [pay], None)
    assert answer.missing == [] and "816,000" in answer.sentences[0].text
    assert all("904,000" not in s.text for s in answer.sentences)


def test_a_word_the_question_writes_whole_and_a_passage_splits_is_stated_by_the_passage() -> None:
    """Kiwi reads "부정행위하면" as one word and "부정행위에 대한" after "시험시간 중" as 부정 + 행위: the university's
    own rule stated only "시험" of the question, and a statute's clause on another examination answered it."""
    rule = _item(1, "시험규정 제5조", "제5조(처벌) 시험시간 중 부정행위에 대한 처벌 사항은 내규를 따른다.", "시험규정")
    other = _item(
        2, "교육공무원법 제11조의2", "③ 부정행위를 한 사람이 공무원인 경우 공개전형 시험을 실시하는 기관의 장은 징계를 요구한다."
    )
    answer = extract("시험 부정행위하면 어떻게 돼?", [rule, other], None)
    assert answer.sentences[0].item.label == "시험규정 제5조"
    assert {"시험", "부정행위"} <= answer.sentences[0].covers


def test_the_major_ones_a_plan_names_state_a_count() -> None:
    """"디지털 정부혁신 추진과제는 몇 개야?" was refused over "6대 우선 추진과제의 조속한 추진을 통해 …"."""
    plan = EvidenceItem(
        n=1, chunk_id="c1", doc_id="d", label="디지털 정부혁신 추진계획", doc="디지털 정부혁신 추진계획", header="",
        text="○ 6대 우선 추진과제의 조속한 추진을 통해 낡은 체제를 극복할 계기를 마련",
    )
    answer = extract("디지털 정부혁신 추진과제는 몇 개야?", [plan], None)
    assert not answer.missing and "6대 우선 추진과제" in answer.render()
    (count,) = asked_details("추진과제는 몇 개야?")
    assert states(count, "공무원 1인당 2대의 컴퓨터")
    assert not states(count, "제6대 총장으로 임명") and not states(count, "3대학 학생")


def test_a_clause_sharing_only_verbs_with_the_question_does_not_bear_on_it() -> None:
    """"안 쓰면 돈으로 받을 수 있어?" was answered (confidence 0.48) by a clause about foreign surnames for its "쓰다"."""
    surname = _item(
        1, "가족관계의 등록 등에 관한 법률 제96조",
        "① 외국의 성을 쓰는 국적취득자가 그 성을 쓰지 아니하고 새로이 성ㆍ본을 정하고자 하는 경우에는 허가를 받아야 한다.",
    )
    answer = extract("안 쓰면 돈으로 받을 수 있어?", [surname], None)
    assert not answer.covered and not answer.answers(0.0)
    # a noun shared with it bears
    assert extract("외국 성을 쓰면 어떻게 돼?", [surname], None).covered


def test_who_holds_an_office_now_is_not_stated_by_the_rule_saying_who_may() -> None:
    """"지금 소장님이 누구세요? 연락드리고 싶어서요." was answered by "소장은 … 교원 중에서 총장이 임명한다": who may hold
    the office, not who does; a telephone number states a contact."""
    rule = _item(1, "연구소규정 제7조", "제7조(소장) 소장은 이 대학교 조교수 이상의 교원 중에서 총장이 임명한다.", "연구소규정")
    answer = extract("연구소 지금 소장님이 누구세요? 연락드리고 싶어서요.", [rule], None)
    assert answer.missing == ["현직자·연락처 / current holder or contact"]
    contact = next(d for d in asked_details("학생상담센터 연락처 알려줘"))
    assert states(contact, "구분: 학생상담센터, 전화번호: 051-890-1234")
    assert not asked_details("위원장은 누가 맡아?")  # who holds it by the rule: the rule answers
    assert not asked_details("지금 누가 신청할 수 있어?")  # who may, now: the rule answers
