"""The answer graph end to end over a real store, with the one scripted chat model for the LLM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from geungeo.answering.models import REFUSAL
from geungeo.engine import build_engine
from geungeo.errors import QueryError
from geungeo.graph.nodes.routing import is_follow_up, new_subject
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings
from geungeo.testing.fake_llm import Garbage, ScriptedChatModel
from tests.fixtures import VACATION_LAW as LAW
from tests.fixtures import vacation_law_store

GOOD = {
    "router": {"route": "rag_required", "needs_retrieval": True},
    "planner": {
        "normalized_query": "연차 유급휴가 일수",
        "intent": "lookup",
        "answer_style": "short",
        "sub_queries": [{"text": "연차 유급휴가 일수", "priority": 1, "variations": ["연차휴가 15일"]}],
    },
    "rerank": {"order": [0, 1, 2]},
    "judge": {"score": 0.9, "verdict": "sufficient", "missing": []},
    "generate": "1년간 80퍼센트 이상 출근하면 15일의 유급휴가를 받습니다 [휴가보장법 제2조] [없는법 제9조]",
    "grounding": {"score": 0.95, "unsupported": []},
    "grader": {"completeness": 0.9, "relevance": 0.9, "clarity": 0.9, "accuracy": 0.9, "feedback": ""},
    "suggest": {"questions": ["출산휴가는 며칠인가요?"]},
}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return vacation_law_store(tmp_path_factory.mktemp("graph"))


def _runner(data_dir: Path, llm: Any = None, **settings: Any) -> QueryRunner:
    base = Settings(data_dir=data_dir, embed_provider="fake", cache_enabled=False, **settings)
    return QueryRunner(build_engine(base), llm=llm)


@pytest.fixture
def runner(data_dir: Path) -> Iterator[QueryRunner]:
    r = _runner(data_dir)
    yield r
    r.close()


def _nodes(answer: Any) -> list[str]:
    return [s.node for s in answer.flow_log]


# --- extractive mode (no LLM: the default) -------------------------------------------------


def test_extractive_answer_cites_the_article(runner: QueryRunner) -> None:
    answer = runner.run("1년 일하면 연차 유급휴가 며칠 받아요?")
    assert not answer.refused and answer.mode == "extractive" and answer.llm_calls == 0
    assert "15일" in answer.answer and "[휴가보장법 제2조]" in answer.answer
    assert [c.label for c in answer.citations] == ["휴가보장법 제2조"]
    assert {c.chunk_id for c in answer.citations} <= {e.chunk_id for e in answer.evidence}
    assert _nodes(answer)[:3] == ["cache_lookup", "router", "planner"] and "generate" in _nodes(answer)
    assert answer.groundedness and answer.groundedness.checked_by == "extractive"
    assert answer.suggestions


def test_extractive_refuses_when_documents_do_not_say(runner: QueryRunner) -> None:
    answer = runner.run("주택 임대차 보증금은 언제 돌려받나요?")
    assert answer.refused and answer.answer.startswith(REFUSAL) and not answer.citations


def test_a_refusal_that_found_nothing_suggests_nothing(runner: QueryRunner) -> None:
    answer = runner.run("오늘 서울 날씨 어때요?")
    assert answer.refused and "찾지 못했습니다" in answer.answer and answer.suggestions == []


def test_extractive_refusal_names_the_empty_store(tmp_path: Path) -> None:
    empty = _runner(tmp_path)
    try:
        answer = empty.run("1년 일하면 연차 유급휴가 며칠 받아요?")
    finally:
        empty.close()
    assert answer.refused and answer.answer.startswith(REFUSAL) and "저장된 문서가 없습니다" in answer.answer


def test_structural_request_is_answered_from_the_store(runner: QueryRunner) -> None:
    answer = runner.run("휴가보장법 제2조")
    assert answer.route == "structural" and answer.llm_calls == 0
    assert "15일의 유급휴가" in answer.answer and "1개월 개근" in answer.answer
    assert answer.structured.confidence == 1.0  # the asked article quoted whole, not a guess at 0.5
    assert "공포한 날" not in runner.run("휴가보장법 제1조").answer  # never the 부칙's 제1조
    events = list(runner.stream("휴가보장법 제2장"))
    streamed = "".join(e["text"] for e in events if e["type"] == "token")
    assert streamed.split() == events[-1]["answer"].answer.split() and "제4조" in streamed
    assert [c.label for c in events[-1]["answer"].citations] == ["휴가보장법 제4조"]


def test_a_reference_asked_as_a_question_gets_its_text(runner: QueryRunner) -> None:
    answer = runner.run("휴가보장법 제2조는 무슨 내용이에요?")  # before: searched, and quoted what cites 제2조
    assert answer.route == "structural" and "15일의 유급휴가" in answer.answer and "1개월 개근" in answer.answer


def test_articles_a_question_cites_come_first_in_its_evidence(runner: QueryRunner) -> None:
    answer = runner.run("휴가보장법 제3조에서 1년간 80퍼센트 이상 출근한 근로자의 휴가는?")  # its words are 제2조's
    assert answer.evidence[0].label == "휴가보장법 제3조" and any("cited: 제3조" in s.note for s in answer.flow_log)


def test_compared_articles_are_shown_side_by_side_without_a_model(data_dir: Path) -> None:
    extractive = _runner(data_dir)
    with_model = _runner(data_dir, llm=ScriptedChatModel(GOOD))
    try:
        shown = extractive.run("휴가보장법 제2조와 제3조의 차이는?")
        explained = with_model.run("휴가보장법 제2조와 제3조의 차이는?")
    finally:
        extractive.close()
        with_model.close()
    assert shown.route == "structural" and [c.label for c in shown.citations] == ["휴가보장법 제2조", "휴가보장법 제3조"]
    assert explained.route != "structural"  # the model explains the difference from the evidence


def test_a_question_citing_only_documents_not_stored_is_refused_with_their_names(runner: QueryRunner) -> None:
    answer = runner.run("근로기준법상 연차 유급휴가는 며칠인가요?")  # before: 휴가보장법 제2조, as if it were the law
    assert answer.refused and not answer.citations and "retrieve" not in _nodes(answer)
    assert answer.answer == f"{REFUSAL}: '근로기준법'은 등록된 문서에 없습니다."
    english = runner.run("How many days of annual leave does 「근로기준법」 give?")
    assert english.refused and "'근로기준법' is not among the stored documents" in english.answer
    near = runner.run("휴가보장법 시행령 제2조에 따르면 휴가는 며칠인가요?")
    assert near.refused and "(비슷한 이름: 휴가보장법)" in near.answer
    mixed = runner.run("휴가보장법과 근로기준법상 연차 유급휴가는 며칠인가요?")
    assert not mixed.refused and "[휴가보장법 제2조]" in mixed.answer and any("근로기준법" in w for w in mixed.warnings)
    assert not runner.run("휴보법상 연차 유급휴가는 며칠인가요?").refused  # a shortening of 휴가보장법


def test_a_question_about_a_name_no_document_mentions_is_refused_naming_it(runner: QueryRunner) -> None:
    # before: 휴가보장법 제2조 quoted as if it were 한빛대학교's rule
    answer = runner.run("한빛대학교는 연차 유급휴가를 며칠 주나요?")
    assert answer.refused and not answer.citations and "retrieve" not in _nodes(answer)
    assert answer.answer == f"{REFUSAL}: 등록된 문서 어디에도 '한빛대학교'에 관한 내용이 없습니다."
    # a name that only tells where, or one the documents write, leaves the question to the documents
    assert not runner.run("한빛대학교에서 일하는데 연차 유급휴가는 며칠인가요?").refused
    assert not runner.run("휴가보장법은 연차 유급휴가를 며칠 주나요?").refused


def test_greeting_gets_a_direct_reply_without_retrieval(runner: QueryRunner) -> None:
    answer = runner.run("안녕하세요!")
    assert answer.route == "simple" and "retrieve" not in _nodes(answer) and not answer.evidence


def test_follow_up_is_joined_to_the_previous_question(runner: QueryRunner) -> None:
    runner.run("출산휴가는 며칠인가요?", conversation_id="c1")
    answer = runner.run("그럼 위반하면 처벌은?", conversation_id="c1")
    assert answer.route == "history_required"
    assert any("제4조" in c.label for c in answer.citations)


def test_a_turn_naming_only_a_place_reads_it_in_the_document_of_the_last_answer(runner: QueryRunner) -> None:
    def turn(question: str) -> Any:
        return runner.run(question, conversation_id="places")

    assert turn("휴가보장법 제2조 보여줘").route == "structural"
    # before: "그럼 제3조는?" was searched, "제4조도 보여줘" too (any document's 제4조), "다음 조문은?" was a question
    for question, label in (("그럼 제3조는?", "제3조"), ("다음 조문은?", "제4조"), ("그 앞 조문은?", "제3조")):
        answer = turn(question)
        assert answer.route == "structural" and [c.label for c in answer.citations] == [f"휴가보장법 {label}"], question
    part = turn("제1항만 보여줘")  # a 항 alone: of the article the last answer cited (제3조)
    assert part.route == "structural" and "90일의 출산전후휴가" in part.answer and "15일" not in part.answer
    missing = turn("제9조도 보여줘")
    assert missing.refused and "'휴가보장법'에 제9조가 없습니다" in missing.answer
    turn("1년 일하면 연차 유급휴가 며칠 받아요?")  # an answer with [휴가보장법 제2조] in its text
    among = turn("그 중에 제1항은 뭐야?")  # "그 중에": in what the last answer cited
    assert among.route == "structural" and "15일의 유급휴가" in among.answer and "1개월 개근" not in among.answer
    assert [c.label for c in turn("제4조도 보여줘").citations] == ["휴가보장법 제4조"]
    assert runner.run("제4조도 보여줘").route == "rag_required"  # outside a conversation there is no last answer


@pytest.mark.parametrize(
    ("question", "follow_up"),
    [
        ("3년 근무하면요?", True),  # what changes, no predicate of its own
        ("상가는요?", True),
        ("편입생의 경우는요?", True),
        ("위반하면 처벌은?", True),  # a short topic alone
        ("1년 안 된 신입은?", True),  # its figures and "안" name nothing: 신입 alone
        ("그 조문 원문 보여줘", True),  # a determiner pointing back
        ("해당 규정은 언제 시행돼요?", True),
        ("근거 조문 보여줘", True),  # the last answer's source
        ("출처 좀 알려줘", True),
        ("그럼 출산휴가는?", True),
        ("출산전후휴가는 며칠 주어야 하나요?", False),  # a complete question
        ("주택 임대차 계약이 묵시적으로 갱신되면 임대차 기간은?", False),  # ends on its topic, but says enough
        ("이혼하면 재산분할은 어떻게 하나요?", False),
        ("저 회사원인데요 연차휴가는 며칠인가요?", False),  # 저: the speaker, not "that"
    ],
)
def test_follow_ups_are_told_from_complete_questions_without_an_llm(question: str, follow_up: bool) -> None:
    assert is_follow_up(question) is follow_up


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("그럼 육아휴직은요?", "육아휴직"),  # a new subject in place of the earlier one
        ("상가는요?", "상가"),
        ("무면허 운전도요?", "무면허 운전"),
        ("3년 근무하면요?", ""),  # a changed circumstance
        ("군대 가는 경우는?", ""),  # a circumstance said by a verb: before, "군대 가는 경우" was the new subject
        ("아픈 경우는요?", ""),
        ("위반하면 처벌은?", ""),  # what breaking it costs
        ("그 조문 원문은요?", ""),  # pointing back
        ("출산전후휴가는 며칠 주어야 하나요?", ""),
    ],
)
def test_a_follow_up_naming_a_new_subject_is_told_from_other_follow_ups(question: str, subject: str) -> None:
    assert new_subject(question) == subject


def test_an_elliptical_follow_up_is_answered_from_the_provision_of_the_turn_before(runner: QueryRunner) -> None:
    runner.run("연차 유급휴가는 며칠인가요?", conversation_id="c-elliptical")
    answer = runner.run("1년이 안 되면요?", conversation_id="c-elliptical")
    assert answer.route == "history_required" and "연차" in answer.plan.normalized_query  # type: ignore[union-attr]
    assert answer.citations[0].label == "휴가보장법 제2조" and "1개월 개근 시 1일" in answer.answer


def test_a_turn_nothing_bears_on_alone_is_read_again_as_a_follow_up(runner: QueryRunner) -> None:
    # "못 채우면 어떻게 돼?" has no marker of a follow-up and names nothing: read alone it was answered by whatever
    # shared its verb, or refused
    runner.run("연차 유급휴가는 며칠인가요?", conversation_id="c-unmarked")
    second = runner.run("못 채우면 어떻게 돼?", conversation_id="c-unmarked")
    assert second.route == "history_required" and "연차" in second.plan.normalized_query  # type: ignore[union-attr]
    assert not second.refused and second.citations[0].label == "휴가보장법 제2조"
    # the next such turn carries the same topic: the turn before was read as a follow-up too
    third = runner.run("안 나가면 어떻게 돼?", conversation_id="c-unmarked")
    assert third.route == "history_required" and "연차" in third.plan.normalized_query  # type: ignore[union-attr]
    # a question asked on its own is not read again: nothing bears on it, with or without the conversation
    assert runner.run("못 채우면 어떻게 돼?").route == "rag_required"


def test_a_follow_up_asking_for_the_text_shows_the_provision_the_last_answer_cited(runner: QueryRunner) -> None:
    runner.run("연차 유급휴가는 며칠인가요?", conversation_id="c-show")
    shown = runner.run("그 조문 원문 보여줘", conversation_id="c-show")
    assert shown.route == "structural" and shown.answer.startswith("휴가보장법 제2조(연차 유급휴가)")
    assert [c.label for c in shown.citations] == ["휴가보장법 제2조"]
    # the next follow-up still reads the first question's topic, not "조문 원문"
    third = runner.run("1년이 안 되면요?", conversation_id="c-show")
    assert "연차" in third.plan.normalized_query and "원문" not in third.plan.normalized_query  # type: ignore[union-attr]
    assert "1개월 개근 시 1일" in third.answer


def test_asking_for_the_source_of_an_answer_that_cited_nothing_is_told_so(runner: QueryRunner) -> None:
    assert runner.run("우주 정거장 건설 비용은 얼마인가요?", conversation_id="c-none").refused
    shown = runner.run("근거 조문 보여줘", conversation_id="c-none")  # before: "근거 조문" searched, noise quoted
    assert shown.refused and not shown.citations and "cited no provision" in shown.answer


def test_a_follow_up_is_answered_only_by_clauses_about_what_the_conversation_asked(runner: QueryRunner) -> None:
    assert runner.run("우주 정거장 건설 비용은 얼마인가요?", conversation_id="c-topic").refused
    # before: "1년" alone quoted 휴가보장법 제2조, which says nothing of a space station
    assert runner.run("1년 걸리면요?", conversation_id="c-topic").refused
    runner.run("연차 유급휴가는 며칠인가요?", conversation_id="c-topic-2")
    assert "1개월 개근 시 1일" in runner.run("1년이 안 되면요?", conversation_id="c-topic-2").answer


def test_a_follow_up_naming_a_new_subject_is_answered_about_it_not_the_old_one(runner: QueryRunner) -> None:
    runner.run("연차 유급휴가는 며칠인가요?", conversation_id="c-subject")
    swapped = runner.run("그럼 출산휴가는요?", conversation_id="c-subject")
    # before: 제2조 (연차) quoted first, its words carried from the first turn outranking the new subject's article
    assert [c.label for c in swapped.citations] == ["휴가보장법 제3조"] and "90일의 출산전후휴가" in swapped.answer


def test_a_follow_up_telling_a_circumstance_by_a_verb_is_answered_about_the_earlier_subject(runner: QueryRunner) -> None:
    runner.run("연차 유급휴가는 며칠인가요?", conversation_id="c-circumstance")
    # before: "1년 안 된 경우" was read as a new subject that no clause states: "nothing found"
    answer = runner.run("1년 안 된 경우는?", conversation_id="c-circumstance")
    assert not answer.refused and [c.label for c in answer.citations] == ["휴가보장법 제2조"]


_RULES = {
    "교원인사규정": "##### 제35조 (정년)\n\n교원의 정년은 65세로 하며, 정년 전에 명예퇴직할 수 있다.\n\n"
    "##### 제36조 (명예퇴직)\n\n교원의 명예퇴직은 따로 정한다.",
    "직원인사규정": "##### 제36조 (정년)\n\n일반직 직원의 정년은 60세로 한다.",
    "교원및직원의보수규정": "##### 제2조 (적용)\n\n정년제 교원은 연봉제를 적용한다.",
}


def test_a_follow_up_naming_a_new_subject_searches_it_in_place_of_the_old_one(tmp_path: Path) -> None:
    """"교원 정년은 몇 살이야?" then "직원은?": searched with "교원" beside "직원", the answer quoted the 보수규정, whose
    title names 직원 and whose clause speaks of 교원 and 정년; the 직원인사규정 says what was asked."""
    (tmp_path / "docs").mkdir()
    for title, text in _RULES.items():
        (tmp_path / "docs" / f"{title}.md").write_text(f"---\n제목: {title}\n---\n\n# {title}\n\n{text}\n", "utf-8")
    engine = build_engine(Settings(data_dir=tmp_path / "data", embed_provider="fake"))
    engine.ingest([tmp_path / "docs"])
    engine.close()
    runner = _runner(tmp_path / "data")
    try:
        runner.run("교원 정년은 몇 살이야?", conversation_id="c-replace")
        swapped = runner.run("직원은?", conversation_id="c-replace")
        assert [c.label for c in swapped.citations][:1] == ["직원인사규정 제36조"] and "60세" in swapped.answer
        # a follow-up naming what the last answer's provisions speak of asks about them, the subject kept
        runner.run("교원 정년은 몇 살이야?", conversation_id="c-keep")
        kept = runner.run("명예퇴직은요?", conversation_id="c-keep")
        assert "교원" in kept.plan.normalized_query  # type: ignore[union-attr]
    finally:
        runner.close()


def test_each_asked_question_is_a_sub_query_unless_it_has_no_search_term(runner: QueryRunner) -> None:
    two = runner.run("연차 유급휴가는 며칠인가요? 출산휴가는 며칠인가요?").plan
    assert two and [sq.text for sq in two.sub_queries][1:] == ["연차 유급휴가는 며칠인가요?", "출산휴가는 며칠인가요?"]
    follow_up = runner.run("출산휴가를 쓸 수 있나요? 얼마까지 받을 수 있어요?").plan
    assert follow_up and [sq.text for sq in follow_up.sub_queries] == ["출산휴가를 쓸 수 있나요? 얼마까지 받을 수 있어요?"]


def test_english_question_is_answered_in_english(runner: QueryRunner) -> None:
    answer = runner.run("How many days of paid annual leave after one year?")
    assert answer.answer.startswith(("Relevant provisions", REFUSAL))


def test_bad_queries_are_clear_errors(runner: QueryRunner) -> None:
    with pytest.raises(QueryError, match="empty"):
        runner.run("   ")
    with pytest.raises(QueryError, match="too long"):
        runner.run("가" * 100_000)


def test_stream_yields_nodes_then_tokens_then_the_answer(runner: QueryRunner) -> None:
    events = list(runner.stream("연차 유급휴가는 며칠?"))
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "answer" and "token" in kinds
    first_token = kinds.index("token")
    assert "node" in kinds[:first_token]
    streamed = "".join(e["text"] for e in events if e["type"] == "token")
    assert streamed.split() == events[-1]["answer"].answer.split()


def test_semantic_cache_hit_and_invalidation(data_dir: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    law = docs / "휴가보장법.md"
    law.write_text(LAW, "utf-8")
    settings = Settings(data_dir=tmp_path / "data", embed_provider="fake")
    engine = build_engine(settings)
    engine.ingest([docs])
    runner = QueryRunner(engine, llm=None)
    first = runner.run("연차 유급휴가는 며칠?")
    assert not first.cache_hit and not first.refused
    second = runner.run("연차 유급휴가는 며칠?")
    assert second.cache_hit and second.answer == first.answer and _nodes(second) == ["cache_lookup", "remember"]
    law.write_text(LAW.replace("15일", "20일"), "utf-8")
    engine.ingest([docs])
    third = runner.run("연차 유급휴가는 며칠?")
    assert not third.cache_hit and "20일" in third.answer
    runner.close()


def test_an_accepted_correction_is_preferred_and_replaces_the_cached_answer(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "휴가보장법.md").write_text(LAW, "utf-8")
    engine = build_engine(Settings(data_dir=tmp_path / "data", embed_provider="fake"))
    engine.ingest([docs])
    runner = QueryRunner(engine, llm=None)
    question = "연차 유급휴가는 며칠?"
    assert runner.run(question).answer == runner.run(question).answer  # the second one from the cache
    text = "연차 유급휴가는 1년간 80퍼센트 이상 출근하면 15일이며, 3년 이상 근속하면 가산휴가가 붙습니다."
    n = runner.corrections.propose(question, text).id
    assert runner.run(question).cache_hit  # a proposal changes nothing …
    runner.review_correction(n, True, by="검토자")  # … until a reviewer accepts it
    answer = runner.run(question)
    assert not answer.cache_hit and answer.evidence[0].origin == "correction" and answer.evidence[0].label == f"검수 답변 #{n}"
    assert answer.citations[0].label == f"검수 답변 #{n}" and "가산휴가" in answer.answer
    assert any(e.origin == "retrieval" for e in answer.evidence)  # the documents still back it
    unrelated = runner.run("출산전후휴가는 며칠인가요?")
    assert all(e.origin != "correction" for e in unrelated.evidence)
    off = runner.run(question, corrections_enabled=False, cache_enabled=False)
    assert all(e.origin != "correction" for e in off.evidence)
    runner.close()


# --- with the scripted chat model ------------------------------------------------------------


def test_llm_flow_validates_citations_and_counts_calls(data_dir: Path) -> None:
    llm = ScriptedChatModel(GOOD)
    runner = _runner(data_dir, llm)
    answer = runner.run("연차 며칠?")
    runner.close()
    assert answer.mode == "llm" and not answer.refused
    assert [c.label for c in answer.citations] == ["휴가보장법 제2조"]
    assert answer.removed_citations == 1 and "[없는법 제9조]" not in answer.answer
    assert answer.llm_calls == len(llm.calls) and llm.count("generate") == 1
    assert answer.suggestions == ["출산휴가는 며칠인가요?"]
    assert answer.plan and answer.plan.planned_by == "llm"


def test_judge_loop_stops_at_max_iterations(data_dir: Path) -> None:
    rounds = [{"score": 0.2, "verdict": "insufficient", "missing": [aspect]} for aspect in ("벌칙", "징역", "과태료", "몰수")]
    llm = ScriptedChatModel({**GOOD, "judge": rounds})
    runner = _runner(data_dir, llm, max_iterations=3)
    answer = runner.run("연차 며칠?")
    runner.close()
    assert _nodes(answer).count("retrieve") == 3 and llm.count("judge") == 3


@pytest.mark.parametrize(
    "judged",
    [
        {"score": 0.2, "verdict": "insufficient", "missing": []},  # nothing named to look for
        Garbage,  # unusable verdict: the fallback names nothing either
    ],
)
def test_judge_loop_does_not_search_again_for_nothing(data_dir: Path, judged: object) -> None:
    llm = ScriptedChatModel({**GOOD, "judge": judged})
    runner = _runner(data_dir, llm, max_iterations=3)
    answer = runner.run("연차 며칠?")
    runner.close()
    assert _nodes(answer).count("retrieve") == 1 and _nodes(answer).count("generate") == 1


def test_judge_loop_stops_when_the_missing_aspects_were_already_searched(data_dir: Path) -> None:
    llm = ScriptedChatModel({**GOOD, "judge": {"score": 0.2, "verdict": "insufficient", "missing": ["벌칙", "징역"]}})
    runner = _runner(data_dir, llm, max_iterations=3)
    answer = runner.run("연차 며칠?")
    runner.close()
    assert _nodes(answer).count("retrieve") == 2 and llm.count("judge") == 2  # round 3 would repeat round 2


def test_strict_regeneration_stops_at_max_retries_then_warns(data_dir: Path) -> None:
    llm = ScriptedChatModel({**GOOD, "grounding": {"score": 0.1, "unsupported": ["30일"]}})
    runner = _runner(data_dir, llm, max_retries=1)
    answer = runner.run("연차 며칠?")
    runner.close()
    assert _nodes(answer).count("regenerate") == 1 and llm.count("generate") == 2
    assert answer.warnings and "30일" in answer.warnings[0]
    strict = llm.calls[
        [n for n, _ in llm.calls].index("generate", llm.calls.index(next(c for c in llm.calls if c[0] == "grounding")))
    ]
    assert "엄격" in str(strict[1][0].content)


def test_refuse_policy_turns_an_ungrounded_answer_into_a_refusal(data_dir: Path) -> None:
    llm = ScriptedChatModel({**GOOD, "grounding": {"score": 0.1, "unsupported": ["x"]}})
    runner = _runner(data_dir, llm, hallucination_on_fail="refuse")
    answer = runner.run("연차 며칠?")
    runner.close()
    assert answer.refused and answer.answer.startswith(REFUSAL)


def test_low_grade_gets_one_improved_answer(data_dir: Path) -> None:
    low = {"completeness": 0.2, "relevance": 0.5, "clarity": 0.5, "accuracy": 0.5, "feedback": "일수를 밝히세요"}
    llm = ScriptedChatModel({**GOOD, "grader": low})
    runner = _runner(data_dir, llm)
    answer = runner.run("연차 며칠?")
    runner.close()
    assert _nodes(answer).count("improve") == 1 and llm.count("generate") == 2
    assert "일수를 밝히세요" in str(llm.calls[-2][1][-1].content) or "일수를 밝히세요" in str(
        [m.content for n, msgs in llm.calls if n == "generate" for m in msgs]
    )


@pytest.mark.parametrize("failure", [TimeoutError("slow"), Garbage])
def test_llm_failure_in_every_node_still_answers(data_dir: Path, failure: Any) -> None:
    llm = ScriptedChatModel({}, default=failure)
    runner = _runner(data_dir, llm, llm_max_retries=1, llm_timeout_s=5)
    answer = runner.run("연차 유급휴가는 며칠?")
    runner.close()
    assert answer.answer  # every node fell back; the answer is a refusal or the fallback text, never an exception
    assert any("fallback" in s.note or "failed" in s.note for s in answer.flow_log)


def test_router_branches_with_llm(data_dir: Path) -> None:
    llm = ScriptedChatModel(
        {
            **GOOD,
            "router": [  # the first question has no history: rules route it, no call
                {"route": "history_required", "standalone_question": "출산휴가 위반 시 벌칙은?"},
                {"route": "simple", "needs_retrieval": False},
            ],
            "simple": "안녕하세요!",
        }
    )
    runner = _runner(data_dir, llm)
    runner.run("출산휴가는 며칠?", conversation_id="t")
    follow = runner.run("그거 어기면?", conversation_id="t")
    chit = runner.run("오늘 기분 어때?", conversation_id="t")
    runner.close()
    planner_inputs = [str(msgs[-1].content) for node, msgs in llm.calls if node == "planner"]
    assert follow.route == "history_required" and "출산휴가 위반 시 벌칙은?" in planner_inputs[-1]
    assert chit.route == "simple" and chit.answer == "안녕하세요!"
    assert llm.count("router") == 2


def test_a_one_off_question_writes_no_checkpoint_and_a_conversation_turn_writes_one(
    runner: QueryRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question outside a conversation is not kept, so none of its steps is written to the conversation store
    (each step's state written and deleted again cost a fifth of an extractive answer's time); a conversation's
    turn is written once, when the graph ends, not after each of its steps (25 writes before)."""
    written: list[str] = []

    def recording(method: Any) -> Any:
        def write(config: Any, *args: Any, **kwargs: Any) -> Any:
            written.append(config["configurable"]["thread_id"])
            return method(config, *args, **kwargs)

        return write

    for name in ("put", "put_writes"):
        monkeypatch.setattr(runner.checkpointer, name, recording(getattr(runner.checkpointer, name)))
    once = runner.run("연차 유급휴가는 며칠인가요?")
    assert written == [] and once.citations
    kept = runner.run("연차 유급휴가는 며칠인가요?", conversation_id="keep-me")
    assert written == ["keep-me"] and len(kept.flow_log) > 5 and kept.answer == once.answer  # once, at its end
    assert "keep-me" in {c.config["configurable"]["thread_id"] for c in runner.checkpointer.list(None)}


# --- layering ------------------------------------------------------------------------------


def _imports(package: str) -> dict[str, set[str]]:
    """Each module of ``geungeo.<package>`` and the geungeo modules it imports (anywhere in the file)."""
    import ast

    root = Path(__file__).parents[2] / "src" / "geungeo" / package
    found: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        found[str(path.relative_to(root.parent))] = {n for n in names if n.startswith("geungeo")}
    return found


def test_one_answer_path_and_no_upward_imports() -> None:
    """graph never imports agent (the runner finds other modes in a registry); answering imports neither."""
    for module, names in _imports("graph").items():
        assert not any(n.startswith("geungeo.agent") for n in names), module
    for module, names in _imports("answering").items():
        assert not any(n.startswith(("geungeo.agent", "geungeo.graph", "geungeo.interfaces")) for n in names), module
    for module, names in _imports("agent").items():
        assert not any(n.startswith("geungeo.graph.nodes") for n in names), module


def test_answer_modes_are_registered_from_above_and_imported_on_first_use() -> None:
    from geungeo.errors import ConfigError
    from geungeo.graph import modes

    modes.register_mode("lazy-agent", "geungeo.agent:run_agent")
    from geungeo.agent import run_agent

    assert modes.answer_mode("lazy-agent") is run_agent and modes.answer_mode("agent") is run_agent
    with pytest.raises(ConfigError, match="not available"):
        modes.answer_mode("oracle")
