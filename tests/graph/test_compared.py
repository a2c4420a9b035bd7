"""A question comparing two things is searched as a question about each (rules planner), and the best passage of
each part of a question keeps its place among the passages the answer draws on (rerank)."""

from __future__ import annotations

import pytest

from geungeo.answering.models import EvidenceItem
from geungeo.answering.planning import compared, rules_plan
from geungeo.graph.nodes.retrieval import _with_leads
from geungeo.retrieval.expansion import load_lexicon


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("주택과 상가 임대차 기간 차이는?", ["주택 임대차 기간", "상가 임대차 기간"]),
        ("육아휴직과 출산휴가의 차이점은?", ["육아휴직", "출산휴가"]),
        ("정년트랙 교원과 비정년트랙 교원의 임용기간은 어떻게 다른가요?",
         ["정년트랙 교원 임용기간은 어떻게", "비정년트랙 교원 임용기간은 어떻게"]),
        ("집이랑 가게는 계약 갱신을 요구할 수 있는 권리가 각각 어떻게 달라요?",
         ["집 계약 갱신을 요구할 수 있는 권리가 어떻게", "가게 계약 갱신을 요구할 수 있는 권리가 어떻게"]),
        # not comparisons: a noun ending in 과 (학과), the auxiliary 달라 ("보내 달라고"), 하고 as a verb ending
        ("우리 학과 교수를 보내 달라고 요청해 왔는데 파견할 수 있나요?", []),
        ("가게에서 장사하고 있는데 임대차 기간은?", []),
        ("연차와 월차는 며칠인가요?", []),  # two things, but no comparison asked
    ],
)
def test_a_comparison_is_asked_about_each_side(question: str, parts: list[str]) -> None:
    assert compared(question) == parts


def test_the_rules_plan_searches_each_side_of_a_comparison() -> None:
    plan = rules_plan("주택과 상가 임대차 기간 차이는?", load_lexicon(), 5)
    assert [sq.text for sq in plan.sub_queries] == ["주택과 상가 임대차 기간 차이는?", "주택 임대차 기간", "상가 임대차 기간"]
    assert plan.intent == "compare"


def _item(cid: str, score: float) -> EvidenceItem:
    return EvidenceItem(n=0, chunk_id=cid, doc_id="d", label=cid, doc="d", text=cid, score=score)


def test_the_best_passage_of_each_part_takes_the_place_of_the_lowest_other() -> None:
    ranked = [_item(c, s) for c, s in (("a", 0.9), ("b", 0.8), ("c", 0.7), ("d", 0.6), ("e", 0.5))]
    chosen = ranked[:3]
    assert _with_leads(chosen, ranked, ["a"]) == chosen  # already there: nothing changes
    assert [c.chunk_id for c in _with_leads(chosen, ranked, ["e", "a"])] == ["a", "b", "e"]  # c gives way, by score
    assert [c.chunk_id for c in _with_leads(chosen, ranked, ["d", "e"])] == ["a", "d", "e"]
    assert _with_leads(chosen, ranked, ["unknown"]) == chosen
