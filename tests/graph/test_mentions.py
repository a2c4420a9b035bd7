"""Names a question asks about that no stored passage mentions (``answering.mentions``)."""

from __future__ import annotations

import pytest

from geungeo.answering.mentions import asked_names, unmentioned
from geungeo.retrieval.expansion import Lexicon


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("부산대학교는 일반휴학을 통산 몇 년까지 할 수 있나요?", ["부산대학교"]),  # the topic
        ("한빛대학교는 연차 유급휴가를 며칠 주나요?", ["한빛대학교"]),  # Kiwi's 한빛 + 대학교, one word
        ("서울대의 휴학 규정은?", ["서울대"]),  # the owner of the topic
        ("랭체인 튜토리얼에서 LCEL(LangChain Expression Language)은 어떻게 설명해?", ["LCEL"]),  # not its expansion
        ("쿠팡에서 산 옷 환불은 며칠 안에 해야 돼요?", []),  # where it happened, not what is asked about
        ("카톡 해고 통보는 효력이 있나요?", []),  # modifying another word
        ("한빛대학교에서 일하는데 연차 유급휴가는 며칠인가요?", []),  # told, then asked
        ("김영란법에서 1인당 식사는 얼마까지예요?", []),  # a law's nickname: a document name
        ("Does Busan University allow a leave of absence?", []),  # English: every word is Latin letters
    ],
)
def test_the_names_a_question_asks_about(question: str, names: list[str]) -> None:
    assert asked_names(question) == names


def test_a_name_is_unmentioned_when_a_part_of_it_is_in_no_passage() -> None:
    corpus = {"대학교", "한국", "휴학", "확정기여형", "퇴직연금"}

    def mentioned(term: str) -> bool:
        return term in corpus

    assert unmentioned("한빛대학교는 휴학을 몇 년 할 수 있나요?", mentioned) == ["한빛대학교"]
    # both parts are written somewhere: a word the documents may space otherwise is no unknown name
    assert unmentioned("한국대학교는 휴학을 몇 년 할 수 있나요?", mentioned) == []
    # the parenthesis spells the name out in the documents' words
    assert unmentioned("DC(확정기여형)는 얼마를 넣어야 하나요?", mentioned) == []
    assert unmentioned("XYZ(엑스와이지)는 얼마를 넣어야 하나요?", mentioned) == ["XYZ"]
    # an everyday word of the lexicon holding the name is known to the engine
    lexicon = Lexicon(synonyms={"한빛대학교": ("대학교",)}, audiences={})
    assert unmentioned("한빛대학교는 휴학을 몇 년 할 수 있나요?", mentioned, lexicon) == []
