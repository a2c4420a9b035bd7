"""Answer generation with inline citations, the citation validator and honest refusal."""

from __future__ import annotations

import re

from langgraph.config import get_stream_writer

from geungeo.answering.extractive import Extract
from geungeo.answering.models import CITATION_MARK, REFUSAL, Citation, EvidenceItem, QueryPlan
from geungeo.graph.context import GraphContext, Tracker, Update, emit_tokens
from geungeo.graph.nodes.judging import evidence_items, extract_evidence
from geungeo.graph.state import GraphState
from geungeo.text.language import question_language
from geungeo.text.normalize import squash

GENERATE_PROMPT = (
    "당신은 법령·규정 상담원입니다. 아래 근거 단락에 명시된 내용만으로 질문에 답하세요. "
    "각 주장 끝에 근거의 라벨을 대괄호로 인용하세요(예: [근로기준법 제60조]). 라벨은 근거 목록에 있는 것만 쓰세요. "
    "근거가 질문에 답하지 않으면 '근거 부족'이라고만 말하고 추측하지 마세요. {lang} {style}"
)
STRICT_SUFFIX = " 엄격 모드: 근거 문장에 글자 그대로 있는 내용만 쓰고, 해석·일반 상식·추론을 더하지 마세요."


def validate_citations(answer: str, evidence: list[EvidenceItem]) -> tuple[str, list[Citation], int]:
    """Keep citations that name an evidence item; remove the rest and count them.

    Where several passages share a label (two chunks of one page or one section), a citation points at
    the one that holds the words just before it.
    """
    by_label: dict[str, list[EvidenceItem]] = {}
    for e in evidence:
        by_label.setdefault(squash(e.label), []).append(e)
    cited: dict[str, Citation] = {}
    removed = 0

    def check(m: re.Match[str]) -> str:
        nonlocal removed
        items = by_label.get(squash(m.group(1)))
        if not items:
            removed += 1
            return ""
        item = items[0] if len(items) == 1 else _quoted(answer[: m.start()], items)
        cited.setdefault(item.chunk_id, Citation.of(item))
        return m.group(0)

    cleaned = CITATION_MARK.sub(check, answer)
    return re.sub(r"[ \t]+\n", "\n", cleaned).strip(), list(cited.values()), removed


def _quoted(before: str, items: list[EvidenceItem]) -> EvidenceItem:
    """The passage sharing most words with the claim before a citation (back to the previous citation or line)."""
    claim = re.split(r"\]|\n", before)[-1]
    words = set(claim.split())
    return max(items, key=lambda e: (squash(claim) in squash(e.text), len(words & set(e.text.split()))))


def refusal_text(question: str, evidence: list[EvidenceItem], missing: list[str] | None = None) -> str:
    """ "근거 부족" with the closest passages and, when known, the figure they do not state."""
    near = ", ".join(dict.fromkeys(e.label for e in evidence[:3]))
    if question_language(question) == "en":
        what = f" ({', '.join(m.split(' / ')[1] for m in missing)})" if missing else ""
        tail = f" Closest passages: {near}." if near else ""
        return f"{REFUSAL} (insufficient evidence): the documents do not state this{what}.{tail}"
    what = f"({', '.join(m.split(' / ')[0] for m in missing)}) " if missing else ""
    tail = f" 가장 가까운 조문: {near}." if near else ""
    return f"{REFUSAL}: 등록된 문서에서 이 질문에 답하는 내용{what}을 찾지 못했습니다.{tail}"


def generate(state: GraphState, ctx: GraphContext, tracker: Tracker, *, strict: bool = False, feedback: str = "") -> Update:
    items = evidence_items(state)
    question = state.get("standalone") or state["question"]
    if ctx.extractive:
        done = state.get("extract")  # the judge's extraction over this same evidence
        ex = Extract.from_state(done, items) if done else extract_evidence(question, items, ctx.lexicon, ctx.settings)
        if not ex.answers(ctx.settings.min_evidence_score):
            text = refusal_text(question, items, ex.missing)
            emit_tokens(text)
            return {"answer": text, "refused": True, "citations": [], "removed_citations": 0, "mode": "extractive"}
        lead = "Relevant provisions (quoted from the documents):" if question_language(question) == "en" else "문서에 따르면:"
        text = ex.render(lead)
        emit_tokens(text)
        answer, citations, removed = validate_citations(text, items)
        return {
            "answer": answer,
            "refused": False,
            "citations": [c.model_dump() for c in citations],
            "removed_citations": removed,
            "mode": "extractive",
        }
    plan = QueryPlan.model_validate(state["plan"]) if state.get("plan") else None
    lang = "영어로 답하세요." if question_language(question) == "en" else "한국어로 답하세요."
    style = {"short": "두세 문장으로.", "detailed": "항목별로 자세히.", "normal": ""}.get(
        plan.answer_style if plan else "normal", ""
    )
    system = GENERATE_PROMPT.format(lang=lang, style=style) + (STRICT_SUFFIX if strict else "")
    listing = "\n\n".join(f"[{i.label}]\n{i.text}" for i in items)
    user = f"질문: {question}\n\n근거:\n{listing}" + (f"\n\n개선할 점: {feedback}" if feedback else "")
    writer = get_stream_writer()
    parts: list[str] = []
    for token in ctx.stream(tracker, "generate", system, user):
        parts.append(token)
        writer({"type": "token", "text": token})
    text = "".join(parts).strip()
    if not text:
        tracker.notes.append("empty reply: refusing")
        return {"answer": refusal_text(question, items), "refused": True, "citations": [], "removed_citations": 0, "mode": "llm"}
    answer, citations, removed = validate_citations(text, items)
    refused = REFUSAL in answer[:40] and not citations
    if removed:
        tracker.notes.append(f"{removed} citation(s) to nothing removed")
    return {
        "answer": answer,
        "refused": refused,
        "citations": [c.model_dump() for c in citations],
        "removed_citations": state.get("removed_citations", 0) + removed,
        "mode": "llm",
    }
