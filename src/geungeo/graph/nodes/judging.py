"""Sufficiency judge (corrective RAG loop) and the optional web-search fallback."""

from __future__ import annotations

from typing import Literal

import httpx

from geungeo.answering.generation import agreement, extract_evidence
from geungeo.answering.models import EvidenceItem, Sufficiency
from geungeo.graph.context import GraphContext, Tracker, Update
from geungeo.graph.nodes.retrieval import next_queries
from geungeo.graph.nodes.routing import read_as_follow_up
from geungeo.graph.state import GraphState, earlier_questions, evidence_items

__all__ = ["after_judge", "agreement", "judge", "web_search"]


def judge(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    items = evidence_items(state)
    question = state.get("standalone") or state["question"]
    if ctx.extractive or not tracker.llm_usable():
        ex = extract_evidence(
            question,
            items,
            ctx.lexicon,
            ctx.settings,
            ctx.engine.similarity,
            state.get("topic", ""),
            state.get("subject", ""),
        )
        if not ex.covered and state.get("route") == "rag_required" and earlier_questions(state):
            # Nothing bears on a turn of a conversation read on its own ("안 쓰면 돈으로 받을 수 있어?" after "연차휴가는
            # 며칠?"): it leaves out what the conversation is about, as a follow-up does. Read once more as one.
            tracker.notes.append("nothing bears on the turn alone: read again as a follow-up")
            return {**read_as_follow_up(state, ctx), **REREAD}
        enough = ex.answers(ctx.settings.min_evidence_score)
        tracker.notes.append(f"evidence score {ex.score:.2f} (no LLM: one round)")
        verdict = "sufficient" if enough else "insufficient"
        judged = Sufficiency(score=ex.score, verdict=verdict, missing=ex.missing, judged_by="evidence")
        return {"sufficiency": judged, "extract": ex.to_state()}
    listing = "\n\n".join(f"[{i.label}] {i.text[:800]}" for i in items)
    fallback = Sufficiency(score=0.5 if items else 0.0, verdict="partial" if items else "insufficient")
    reply, _ = ctx.ask_json(tracker, "judge", f"질문: {question}\n\n근거:\n{listing}", Sufficiency, fallback)
    reply.judged_by = "llm"
    return {"sufficiency": reply}


# What a turn read once more from the plan on starts without: the first reading's plan, searches and evidence.
REREAD: Update = {
    "plan": None, "iteration": 0, "queries_done": [], "candidates": [], "leads": [], "evidence": [], "sufficiency": None,
    "extract": None,
}


def after_judge(state: GraphState, ctx: GraphContext) -> Literal["planner", "retrieve", "web_search", "generate"]:
    """Plan again a turn read once more as a follow-up; loop back to retrieval while evidence is insufficient, rounds
    remain and the judge named an aspect not yet searched for (a verdict without one, or an unusable verdict, would
    search again for nothing); else web search or generate."""
    if state.get("plan") is None:
        return "planner"
    suff = state.get("sufficiency") or Sufficiency()
    enough = suff.score >= ctx.settings.min_sufficiency or ctx.extractive or bool(state.get("llm_failure"))
    if not enough and state.get("iteration", 0) < ctx.settings.max_iterations and next_queries(state):
        return "retrieve"
    weak = not enough or len(state.get("evidence", [])) < 3
    if ctx.settings.enable_web_search and ctx.settings.web_search_url and weak:
        return "web_search"
    return "generate"


def web_search(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """Tavily-compatible search: POST {query, max_results} → {results: [{title, url, content}]}."""
    s = ctx.settings
    question = state.get("standalone") or state["question"]
    headers = {"Authorization": f"Bearer {s.web_search_api_key.get_secret_value()}"} if s.web_search_api_key else {}
    try:
        resp = httpx.post(s.web_search_url, json={"query": question, "max_results": 3}, headers=headers, timeout=15)
        resp.raise_for_status()
        results = resp.json().get("results", [])[:3]
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        tracker.notes.append(f"web search failed: {type(exc).__name__}")
        return {}
    evidence = list(state.get("evidence", []))
    for r in results:
        n = len(evidence) + 1
        evidence.append(
            EvidenceItem(
                n=n,
                chunk_id=f"web:{r.get('url', n)}",
                doc_id="web",
                label=str(r.get("title") or r.get("url")),
                doc=str(r.get("url", "")),
                text=str(r.get("content", "")),
                origin="web",
            )
        )
    tracker.notes.append(f"{len(results)} web results")
    return {"evidence": evidence, "extract": None}  # new evidence: extract again
