"""After generation: groundedness check (strict regeneration), answer grade (one improvement) and
follow-up suggestions, checked in one round, and the cache write."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Literal

from pydantic import BaseModel

from geungeo.answering.generation import is_refusal, refusal_text
from geungeo.answering.models import Answer, Grade, Groundedness
from geungeo.answering.sentences import Extract
from geungeo.graph.context import GraphContext, Tracker, Update
from geungeo.graph.nodes.generation import generate
from geungeo.graph.state import GraphState, earlier_questions, evidence_items


def _listing(state: GraphState) -> str:
    return "\n\n".join(f"[{i.label}] {i.text[:1200]}" for i in evidence_items(state))


def grounding(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """Groundedness, answer grade and follow-up suggestions at once: three independent LLM calls, one round.

    The grade and the suggestions are drafted beside the groundedness check rather than after it;
    when the check fails and the answer is regenerated, the new answer is checked (and graded) again.
    """
    trackers = (tracker.child(), tracker.child(), tracker.child())
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = [
            pool.submit(check_grounding, state, ctx, trackers[0]),
            pool.submit(grade, state, ctx, trackers[1]),
            pool.submit(suggest, state, ctx, trackers[2]),
        ]
        update: Update = {}
        for future in futures:
            update.update(future.result())
    for t in trackers:
        tracker.merge(t)
    return update


def check_grounding(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """Are the answer's claims in the evidence? (LLM judge; extractive answers are quotes.)"""
    if state.get("refused"):
        return {"groundedness": Groundedness(score=1.0, checked_by="skipped")}
    extractive = ctx.extractive or state.get("mode") == "extractive"
    if extractive or not ctx.settings.hallucination_check_enabled:
        checked_by = "extractive" if extractive else "skipped"
        return {"groundedness": Groundedness(score=1.0, checked_by=checked_by)}
    user = f"근거:\n{_listing(state)}\n\n답변:\n{state.get('answer', '')}"
    verdict, ok = ctx.ask_json(
        tracker, "grounding", user, Groundedness, Groundedness(score=1.0, checked_by="skipped")
    )
    if ok:
        verdict.checked_by = "llm"
    return {"groundedness": verdict}


def after_grounding(state: GraphState, ctx: GraphContext) -> Literal["regenerate", "flag", "improve", "cache_store"]:
    g = state.get("groundedness") or Groundedness()
    failed = _failed(g, ctx)
    if failed and ctx.settings.hallucination_on_fail == "regenerate" and state.get("regenerations", 0) < ctx.settings.max_retries:
        return "regenerate"
    if failed:
        return "flag"
    return after_review(state, ctx)


def regenerate(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    update = generate(state, ctx, tracker, strict=True)
    update["regenerations"] = state.get("regenerations", 0) + 1
    return update


def flag(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """A still-ungrounded answer: refuse, or keep it with a visible warning naming the unsupported claims."""
    g = state.get("groundedness") or Groundedness()
    question = state.get("standalone") or state["question"]
    if ctx.settings.hallucination_on_fail == "refuse":
        return {"answer": refusal_text(question, evidence_items(state)), "refused": True, "citations": []}
    issues = "; ".join(g.unsupported[:5]) or "일부 주장이 근거와 맞지 않습니다"
    warning = f"⚠ 근거 확인 실패(groundedness {g.score:.2f}): {issues}"
    return {"warnings": [*state.get("warnings", []), warning]}


def grade(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    if ctx.extractive or state.get("mode") == "extractive" or not ctx.settings.answer_grader_enabled or state.get("refused"):
        return {}
    question = state.get("standalone") or state["question"]
    verdict, ok = ctx.ask_json(
        tracker,
        "grader",
        f"질문: {question}\n\n답변:\n{state.get('answer', '')}",
        Grade,
        Grade(completeness=1, relevance=1, clarity=1, accuracy=1),
    )
    return {"grade": verdict} if ok else {}


def after_review(state: GraphState, ctx: GraphContext) -> Literal["improve", "cache_store"]:
    g = state.get("grade")
    if g and not state.get("improved") and g.overall < ctx.settings.answer_grade_threshold:
        return "improve"
    return "cache_store"


def improve(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """One rewrite after a low grade, itself checked for groundedness: a rewrite that fails the check is
    dropped and the answer that passed stays (the rewrite never carries the first answer's score)."""
    grade = state.get("grade")
    feedback = grade.feedback if grade else ""
    update = generate(state, ctx, tracker, feedback=feedback or "더 완전하고 명확하게")
    checked = check_grounding({**state, **update}, ctx, tracker)
    verdict = checked.get("groundedness") or Groundedness()
    if _failed(verdict, ctx):
        tracker.notes.append(f"rewrite not grounded ({verdict.score:.2f}): kept the checked answer")
        return {"improved": True}
    return {**update, **checked, "improved": True}


def _failed(g: Groundedness, ctx: GraphContext) -> bool:
    return g.checked_by == "llm" and g.score < ctx.settings.min_groundedness


class _Suggestions(BaseModel):
    questions: list[str]


def suggest(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """2–3 next questions about passages that were retrieved but not cited (none after a refusal that found nothing
    bearing on the question: the passages it retrieved are no lead either)."""
    if not ctx.settings.suggestions_enabled:
        return {"suggestions": []}
    items = evidence_items(state)
    done = state.get("extract")
    if state.get("refused") and done is not None and not Extract.from_state(done, items).covered:
        return {"suggestions": []}
    cited = {c.chunk_id for c in state.get("citations", [])}
    others = [i for i in items if i.chunk_id not in cited and i.article] or items
    rules = list(dict.fromkeys(f"{i.label} 내용" for i in others))[:3]  # each one a structural request
    if ctx.extractive or state.get("llm_failure") or not items:
        return {"suggestions": rules}
    listing = "\n".join(f"- {i.header}" for i in items)
    reply, ok = ctx.ask_json(
        tracker,
        "suggest",
        f"질문: {state['question']}\n조문:\n{listing}",
        _Suggestions,
        _Suggestions(questions=rules),
    )
    return {"suggestions": reply.questions[:3] if ok and reply.questions else rules}


def cache_store(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """Only a standalone question's cited, non-refused answer that passed a grounding check is remembered."""
    g = state.get("groundedness") or Groundedness()
    if ctx.cache is None or state.get("refused") or state.get("warnings") or not state.get("citations"):
        return {}
    if earlier_questions(state) or state.get("llm_failure"):
        return {}
    if g.checked_by == "skipped" or g.score < ctx.settings.min_groundedness or is_refusal(state.get("answer", "")):
        return {}
    ctx.cache.store_answer(state["question"], answer_from_state(state), state.get("filters"), ctx.answer_writer)
    tracker.notes.append("stored")
    return {}


def answer_from_state(state: GraphState) -> Answer:
    """The Answer contract out of a finished state."""
    cached = state.get("cached_answer")
    if state.get("cache_hit") and cached:
        answer = cached.model_copy(deep=True)
        answer.cache_hit = True
        answer.question = state["question"]
        answer.flow_log = []
        return answer
    return Answer(
        question=state["question"],
        answer=state.get("answer", ""),
        refused=bool(state.get("refused")),
        route=state.get("route", "rag_required"),
        mode=state.get("mode", "extractive"),
        citations=state.get("citations", []),
        evidence=state.get("evidence", []),
        plan=state.get("plan"),
        sufficiency=state.get("sufficiency"),
        groundedness=state.get("groundedness"),
        grade=state.get("grade"),
        suggestions=state.get("suggestions", []),
        warnings=state.get("warnings", []),
        removed_citations=state.get("removed_citations", 0),
    )
