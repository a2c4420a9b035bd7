"""A question about what breaking a provision costs is answered by the penalty that names the provision, found through
the link index, not by any 벌칙 article: a follow-up ("위반하면 처벌은?", "어기면 벌금은 얼마예요?") for the provisions the
last answer cited, a question of its own for the duty it describes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from geungeo.answering.models import Answer
from geungeo.engine import build_engine
from geungeo.graph.nodes.routing import is_follow_up
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings
from tests.fixtures import VACATION_LAW

# a 시행령 article implementing 휴가보장법 제2조 (its breach is punished where the 법 article's is), and another
# statute whose 벌칙 article shares every word of the follow-up ("벌금", "위반")
DECREE = """---
제목: 휴가보장법 시행령
시행일자: 2025-01-01
---

# 휴가보장법 시행령

##### 제1조 (목적)

이 영은 「휴가보장법」에서 위임된 사항을 정함을 목적으로 한다.

##### 제2조 (유급휴가의 사용)

**①** 법 제2조제1항에 따른 유급휴가는 근로자가 청구한 시기에 주어야 한다.
"""
PARKING = """---
제목: 주차관리법
시행일자: 2025-01-01
---

# 주차관리법

##### 제1조 (목적)

이 법은 주차장의 관리에 관한 사항을 정함을 목적으로 한다.

##### 제2조 (주차 의무)

주차장 관리자는 주차장을 깨끗하게 관리하여야 한다.

##### 제3조 (벌칙)

제2조를 위반한 자는 500만원 이하의 벌금에 처한다. 위반 행위가 반복되면 벌금을 가중한다.
"""


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QueryRunner]:
    root = tmp_path_factory.mktemp("sanctions")
    docs = root / "docs"
    docs.mkdir()
    for name, text in (("휴가보장법", VACATION_LAW), ("휴가보장법 시행령", DECREE), ("주차관리법", PARKING)):
        (docs / f"{name}.md").write_text(text, "utf-8")
    settings = Settings(data_dir=root / "data", embed_provider="fake", cache_enabled=False)
    engine = build_engine(settings)
    engine.ingest([docs])
    runner = QueryRunner(engine, llm=None)
    yield runner
    runner.close()


@pytest.mark.parametrize(
    ("question", "follow_up"),
    [
        ("어기면 벌금은 얼마예요?", True),  # asks a sanction and names nothing to break
        ("과태료는요?", True),
        ("안 지키면 처벌받나요?", True),
        ("음주운전하면 벌금은 얼마예요?", False),  # names what is punished
    ],
)
def test_a_question_about_sanctions_naming_nothing_to_break_is_a_follow_up(question: str, follow_up: bool) -> None:
    assert is_follow_up(question) is follow_up


def test_the_penalty_for_the_provision_just_cited_answers(runner: QueryRunner) -> None:
    first = runner.run("1년간 80퍼센트 이상 출근하면 연차 유급휴가는 며칠인가요?", conversation_id="leave")
    assert first.citations[0].label == "휴가보장법 제2조"
    answer = runner.run("어기면 벌금은 얼마예요?", conversation_id="leave")
    # before: searched as a new question, the other statute's 벌칙 ("위반 … 벌금 … 벌금") answered it
    assert answer.route == "history_required" and not answer.refused
    assert answer.citations[0].label == "휴가보장법 제4조" and "2천만원 이하의 벌금" in answer.answer
    assert "주차관리법" not in answer.answer


def test_a_decree_article_is_enforced_by_the_penalty_of_the_law_article_it_implements(runner: QueryRunner) -> None:
    runner.run("휴가보장법 시행령 제2조에 따르면 유급휴가는 언제 주어야 하나요?", conversation_id="decree")
    answer = runner.run("위반하면 처벌은?", conversation_id="decree")
    lines = answer.answer.splitlines()  # the sanction asked for first, the duty it enforces after it
    assert "2년 이하의 징역" in lines[1] and "[휴가보장법 제4조]" in lines[1]
    assert any("[휴가보장법 시행령 제2조]" in line for line in lines[2:])


# a duty many articles cite (so expansion does not follow its citers) and its penalty, which names it by number only
REST = """---
제목: 휴식권보장법
시행일자: 2025-01-01
---

# 휴식권보장법

##### 제1조 (목적)

이 법은 근로자의 휴식에 관한 사항을 정함을 목적으로 한다.

##### 제2조 (유급휴가)

사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.

##### 제3조 (휴가의 사용)

제2조에 따른 휴가는 근로자가 청구한 시기에 준다.

##### 제4조 (휴가의 이월)

제2조에 따른 휴가는 다음 해로 이월할 수 있다.

##### 제5조 (휴가 수당)

제2조에 따른 휴가 기간에는 통상임금을 지급한다.

##### 제6조 (휴가의 기록)

사용자는 제2조에 따른 휴가의 사용 기록을 3년간 보존한다.

##### 제7조 (벌칙)

제2조를 위반한 자는 2년 이하의 징역 또는 2천만원 이하의 벌금에 처한다.
"""


def _asked_of(tmp_path: Path, statute: str, question: str) -> Answer:
    """The extractive answer to ``question`` over a store holding the one ``statute`` (Markdown with its 제목)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "statute.md").write_text(statute, "utf-8")
    engine = build_engine(Settings(data_dir=tmp_path / "data", embed_provider="fake", cache_enabled=False))
    engine.ingest([tmp_path / "docs"])
    runner = QueryRunner(engine, llm=None)
    try:
        return runner.run(question)
    finally:
        runner.close()


def test_a_question_about_a_sanction_finds_the_penalty_of_the_duty_it_describes(tmp_path: Path) -> None:
    answer = _asked_of(tmp_path, REST, "연차 유급휴가를 안 주면 벌금은 얼마예요?")
    # before: 제2조 alone, its "80퍼센트" taken for the amount asked; the penalty was never retrieved
    lines = answer.answer.splitlines()
    assert "2천만원 이하의 벌금" in lines[1] and "[휴식권보장법 제7조]" in lines[1]


INSTALMENT = """---
제목: 선불거래법
시행일자: 2025-01-01
---

# 선불거래법

##### 제1조 (목적)

이 법은 선불식 거래의 소비자를 보호함을 목적으로 한다.

##### 제2조 (자산의 신고)

선불거래업자는 선불거래업자의 자산 현황을 매년 공정거래위원회에 신고하여야 한다. 공정거래위원회는 신고를 받은 때 이를 공개한다.

##### 제3조 (자료의 제출)

선불거래업자는 선불거래업자의 거래 기록을 공정거래위원회가 요청하면 공정거래위원회에 제출하여야 한다.

##### 제4조 (시정조치의 제한)

공정거래위원회는 선불거래업자의 위반행위가 끝난 날부터 5년이 지난 경우에는 시정조치를 명하거나 과징금을 부과하지 아니한다.

##### 제10조 (벌칙)

제2조를 위반한 자는 1년 이하의 징역 또는 1천만원 이하의 벌금에 처한다.

##### 제11조 (벌칙)

제2조를 위반하여 거짓으로 신고한 자는 2년 이하의 징역 또는 2천만원 이하의 벌금에 처한다.

##### 제12조 (과태료)

제3조를 위반한 자에게는 500만원 이하의 과태료를 부과한다.

##### 제13조 (과태료)

제3조를 위반하여 거짓 기록을 제출한 자에게는 1천만원 이하의 과태료를 부과한다.
"""


def test_the_penalties_of_duties_do_not_crowd_out_what_a_sanction_question_asks(tmp_path: Path) -> None:
    """"몇 년이 지나면 … 과징금을 못 하게 되나요?" asks about sanctions, so the duties found without its sanction words
    (제2조, 제3조) bring their penalties. Forced among the best passages, their four penalties and the two duties took
    every place and the article that answers (제4조) was left out: refused. The penalties now join after the passages
    chosen, as references of their duty."""
    answer = _asked_of(tmp_path, INSTALMENT, "선불거래업자가 법을 어긴 뒤 몇 년이 지나면 공정거래위원회가 과징금을 못 물리나요?")
    assert any("penalties of" in step.note for step in answer.flow_log)  # the duties and their penalties were sought
    assert not answer.refused and answer.citations[0].label == "선불거래법 제4조"
    penalties = [e for e in answer.evidence if e.label in ("선불거래법 제10조", "선불거래법 제12조")]
    assert penalties and all(e.origin == "reference" for e in penalties)
