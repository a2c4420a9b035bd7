"""The one answer path: evidence → extract or refuse, or generate with citations → validate.

The answer graph's generate / regenerate / improve nodes, the agent's final answer and MCP's ``answer``
tool all write their answer with :func:`compose_answer`; :func:`is_refusal` is the one refusal test and
:func:`word_tokens` the one way a text written all at once is streamed.

When the chat model fails (an error, an unparseable reply, a timeout, the question's deadline passed) the
answer is the extractive one, flagged with :func:`llm_unavailable` in the answer's warnings; it is never a
refusal that blames the documents.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from geungeo.answering.extractive import extract
from geungeo.answering.models import CITATION_MARK, REFUSAL, Answer, Citation, EvidenceItem
from geungeo.answering.sentences import Extract, Similarity
from geungeo.llm.base import stream_text
from geungeo.prompts import load, render, system_message
from geungeo.retrieval.expansion import Lexicon
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore
from geungeo.text.language import question_language
from geungeo.text.normalize import squash
from geungeo.text.particles import particle

GENERATE_PROMPT = "generate"  # prompts/generate.md; a strict regeneration adds prompts/generate_strict.md

_WORD = re.compile(r"\S+\s*")
_REFUSAL_HEAD = 40  # a refusal names itself at the start of the answer


def word_tokens(text: str) -> list[str]:
    """A text produced all at once (extractive, structural, canned, a model's whole reply) as word tokens."""
    return _WORD.findall(text)


def is_refusal(text: str, citations: Sequence[object] = ()) -> bool:
    """Does ``text`` refuse (근거 부족 at its start, citing nothing)?"""
    return REFUSAL in text[:_REFUSAL_HEAD] and not citations


LLM_UNAVAILABLE = "LLM unavailable"


def llm_unavailable(reason: str) -> str:
    """The warning an answer carries when the chat model failed and the extractive answer stands in."""
    return f"{LLM_UNAVAILABLE}: {reason} / LLM을 사용할 수 없어 추출식 답변으로 대체했습니다"


def validate_citations(answer: str, evidence: list[EvidenceItem]) -> tuple[str, list[Citation], int]:
    """Keep citations that name an evidence item; remove the rest and count them.

    Where several passages share a label (two chunks of one page or one section), a citation points at
    the one that holds the words just before it. Brackets quoted from the evidence ("연간 최장 10일[제3호에 따라
    연장되는 경우 20일]") are its words, not citations, and stay as they are.
    """
    by_label: dict[str, list[EvidenceItem]] = {}
    for e in evidence:
        by_label.setdefault(squash(e.label), []).append(e)
    quoted = "\n".join(squash(e.text) for e in evidence)
    cited: dict[str, Citation] = {}
    removed = 0

    def check(m: re.Match[str]) -> str:
        nonlocal removed
        items = by_label.get(squash(m.group(1)))
        if not items:
            if squash(m.group(0)) in quoted:
                return m.group(0)
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


RefusalReason = Literal["empty", "unheld", "unmentioned", "nothing", "unstated", "unbounded", "weak"]
"""Why an answer is 근거 부족: the store holds no documents; the question cites documents the store does not hold;
it asks about a name no stored passage writes; nothing found that bears on the question; related provisions found
that do not state the figure asked for; related provisions found that draw no line on a figure the question states;
related provisions found that do not answer it."""


def refusal_text(
    question: str,
    evidence: Sequence[EvidenceItem],
    missing: list[str] | None = None,
    *,
    reason: RefusalReason | None = None,
    related: Sequence[str] = (),
) -> str:
    """ "근거 부족" with its reason: an empty store, documents cited that the store does not hold (``missing``, with
    the closest stored titles as ``related``), names asked about that no stored passage mentions (``missing``),
    nothing found, or the related provisions found (``related`` labels, else the closest passages) and, when known,
    the figure they do not state or the figures of the question (``missing`` with ``unbounded``) they draw no line
    for."""
    reason = reason or ("unstated" if missing else "weak" if evidence else "nothing")
    shown = list(dict.fromkeys([*related, *(() if related else (e.label for e in evidence))]))[:3]
    near = ", ".join(shown)
    # what was found: articles of a statute or regulation, or passages of a report (a page is no 조문)
    articles = any(e.article for e in evidence if e.label in shown) or not evidence
    found_ko, found_en = ("관련 조문", "related provisions") if articles else ("관련 내용", "related passages")
    en = question_language(question) == "en"
    if reason == "empty":
        if en:
            return f"{REFUSAL} (insufficient evidence): the store is empty; ingest documents first."
        return f"{REFUSAL}: 저장된 문서가 없습니다. 먼저 문서를 색인하세요."
    if reason == "unheld":
        names = ", ".join(f"'{name}'" for name in missing or ())
        if en:
            hint = f"; did you mean {near}?" if near else ""
            return f"{REFUSAL} (insufficient evidence): {names} is not among the stored documents{hint}"
        hint = f" (비슷한 이름: {near})" if near else ""
        return f"{REFUSAL}: {particle(names, '은')} 등록된 문서에 없습니다{hint}."
    if reason == "unmentioned":
        names = ", ".join(f"'{name}'" for name in missing or ())
        if en:
            return f"{REFUSAL} (insufficient evidence): no stored document mentions {names}."
        return f"{REFUSAL}: 등록된 문서 어디에도 {names}에 관한 내용이 없습니다."
    if reason == "nothing" or not near:
        if en:
            return f"{REFUSAL} (insufficient evidence): nothing in the documents bears on this question."
        return f"{REFUSAL}: 등록된 문서에서 이 질문과 관련된 내용을 찾지 못했습니다."
    if reason == "unbounded" and missing:
        figures = ", ".join(missing)
        if en:
            found = f"{found_en} were found ({near})"
            return f"{REFUSAL} (insufficient evidence): {found} but none draws a line for {figures}."
        return f"{REFUSAL}: {found_ko}({near})은 찾았지만 질문의 {figures}에 해당하는 기준은 정하고 있지 않습니다."
    if en:
        what = ", ".join(m.split(" / ")[1] for m in missing) if missing else ""
        stated = f"do not state the {what} asked for" if reason == "unstated" and what else "do not answer it"
        return f"{REFUSAL} (insufficient evidence): {found_en} were found ({near}) but they {stated}."
    what = ", ".join(m.split(" / ")[0] for m in missing) if missing else ""
    stated = f"묻는 {particle(what, '을')} 정하고 있지 않습니다" if reason == "unstated" and what else "이 질문에 답하지 않습니다"
    return f"{REFUSAL}: {found_ko}({near})은 찾았지만 {stated}."


def agreement(items: Sequence[EvidenceItem], settings: Settings) -> float:
    """How strongly retrieval backs the best passage, 0–1. Under z-score fusion its fused score already is that
    (near 1: far above the other candidates in both rankings); under RRF, its score relative to ranking first in
    every list."""
    best = max((i.score for i in items if i.origin not in ("neighbour", "reference")), default=0.0)
    weights = settings.sparse_weight + settings.dense_weight + settings.document_weight
    if settings.fusion == "rrf" and weights > 0:  # first in every ranking: the weights' sum over k + 1
        best /= weights / (settings.rrf_k + 1)
    return min(1.0, best)


def extract_evidence(
    question: str,
    items: Sequence[EvidenceItem],
    lexicon: Lexicon | None,
    settings: Settings,
    similarity: Similarity | None = None,
    topic: str = "",
    subject: str = "",
) -> Extract:
    """The extractive answer and evidence score of ``items`` under the settings' thresholds (``similarity``: how
    a provision's clause to quote is chosen by meaning, ``topic``: what a follow-up is about, ``subject``: what it
    asks about in place of the earlier subject, :func:`geungeo.answering.extractive.extract`)."""
    return extract(
        question, items, lexicon, agreement=agreement(items, settings), similarity=similarity, topic=topic, subject=subject
    )


@dataclass
class Composed:
    """A composed answer: text, validated citations, what it took and what the reader should know."""

    answer: str
    citations: list[Citation]
    refused: bool
    mode: Literal["extractive", "llm"]
    removed: int = 0
    llm_calls: int = 0
    note: str = ""
    warnings: list[str] = field(default_factory=list)
    llm_failure: str = ""  # why the chat model could not write it (then the answer is extractive)

    def to_answer(self, question: str, evidence: list[EvidenceItem]) -> Answer:
        return Answer(
            question=question,
            answer=self.answer,
            refused=self.refused,
            mode=self.mode,
            citations=self.citations,
            evidence=evidence,
            removed_citations=self.removed,
            llm_calls=self.llm_calls,
            warnings=self.warnings,
        )


class Source(Protocol):
    """Where the evidence was found (:class:`geungeo.engine.Engine`): its store, and its embedder's closeness of
    texts to a question."""

    @property
    def store(self) -> ChunkStore: ...

    def similarity(self, question: str, texts: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True)
class Request:
    """How to write one answer: the answer style, strictness, a grader's feedback, a finished extraction."""

    style: Literal["short", "normal", "detailed"] = "normal"
    strict: bool = False
    feedback: str = ""
    extracted: Extract | None = None
    deadline: float | None = None  # time.monotonic() after which no model call starts
    llm_failure: str = ""  # the chat model already failed in this question: do not call it again
    store_empty: bool = False  # the store holds no documents (a refusal says so)
    similarity: Similarity | None = None  # the embedder's closeness of a text to the question (extractive quotes)
    topic: str = ""  # a follow-up's words carried from the turns before: what its answer must be about
    subject: str = ""  # what a follow-up asks about in place of the earlier subject: what its answer must state

    @classmethod
    def over(cls, source: Source, evidence: Sequence[EvidenceItem], **options: Any) -> Request:
        """A request to answer from ``evidence`` found in ``source``: its embedder chooses the clauses an extractive
        answer quotes, and a refusal for lack of evidence says when its store is empty."""
        return cls(store_empty=not evidence and source.store.count() == 0, similarity=source.similarity, **options)


def compose_answer(
    question: str,
    evidence: list[EvidenceItem],
    llm: BaseChatModel | None,
    settings: Settings,
    lexicon: Lexicon | None,
    request: Request = Request(),
) -> Generator[str, None, Composed]:
    """Yield the answer's text pieces as they come; return the :class:`Composed` answer.

    With a chat model: the generation prompt over ``evidence``, its citations validated against it; no
    evidence at all: 근거 부족 without asking the model. Without a model, or when it fails: the extractive
    answer (or 근거 부족 when the evidence does not support one).
    """
    if not evidence:
        text = refusal_text(question, evidence, reason="empty" if request.store_empty else "nothing")
        yield from word_tokens(text)
        return Composed(text, [], True, "llm" if llm is not None else "extractive", note="no passages")
    failure = request.llm_failure
    if llm is not None and not failure and request.deadline is not None and time.monotonic() >= request.deadline:
        failure = "the answer deadline passed"
    if llm is None or failure:
        composed = yield from _extractive(question, evidence, lexicon, settings, request)
        if failure:
            composed.llm_failure = failure
            composed.warnings.append(llm_unavailable(failure))
        return composed
    lang = "영어로 답하세요." if question_language(question) == "en" else "한국어로 답하세요."
    style = {"short": "두세 문장으로.", "detailed": "항목별로 자세히."}.get(request.style, "")
    system = render(GENERATE_PROMPT, lang=lang, style=style) + (" " + load("generate_strict") if request.strict else "")
    listing = "\n\n".join(f"[{i.label}]\n{i.text}" for i in evidence)
    user = f"질문: {question}\n\n근거:\n{listing}" + (f"\n\n개선할 점: {request.feedback}" if request.feedback else "")
    messages = [system_message(GENERATE_PROMPT, system), HumanMessage(user)]
    pieces, info = stream_text(
        llm, messages, retries=settings.llm_max_retries, timeout_s=settings.llm_timeout_s, deadline=request.deadline
    )
    parts: list[str] = []
    for piece in pieces:
        parts.append(piece)
        yield piece
    raw = "".join(parts).strip()
    if not raw:  # the model failed (or said nothing): the extractive answer stands in
        reason = info.failure
        composed = yield from _extractive(question, evidence, lexicon, settings, request)
        composed.llm_calls = info.attempts
        composed.llm_failure = reason
        composed.warnings.append(llm_unavailable(reason))
        composed.note = f"stream failed ({', '.join(info.errors) or 'empty'}): extractive answer"
        return composed
    note = f"stream {'cut short' if info.truncated else 'failed'}: {', '.join(info.errors)}" if not info.ok else ""
    text, citations, removed = validate_citations(raw, evidence)
    return Composed(text, citations, is_refusal(text, citations), "llm", removed, info.attempts, note)


def _extractive(
    question: str,
    evidence: list[EvidenceItem],
    lexicon: Lexicon | None,
    settings: Settings,
    request: Request,
) -> Generator[str, None, Composed]:
    """The extractive answer: the evidence's answering sentences quoted with citations, or 근거 부족."""
    ex = request.extracted or extract_evidence(
        question, evidence, lexicon, settings, request.similarity, request.topic, request.subject
    )
    if not ex.answers(settings.min_evidence_score):
        reason: RefusalReason = (
            "nothing" if not ex.covered else "unstated" if ex.missing else "unbounded" if ex.unbounded else "weak"
        )
        text = refusal_text(question, evidence, ex.missing or ex.unbounded, reason=reason, related=ex.related())
        yield from word_tokens(text)
        return Composed(text, [], True, "extractive", note=f"evidence score {ex.score:.2f}")
    lead = "Relevant provisions (quoted from the documents):" if question_language(question) == "en" else "문서에 따르면:"
    rendered = ex.render(lead)
    yield from word_tokens(rendered)
    text, citations, removed = validate_citations(rendered, evidence)
    return Composed(text, citations, False, "extractive", removed)


def drain(pieces: Generator[str, None, Composed]) -> Composed:
    """Run a composition to its end without streaming; its result."""
    while True:
        try:
            next(pieces)
        except StopIteration as stop:
            result: Composed = stop.value
            return result
