"""What the web UI does, as plain functions: no gradio here, so all of it is testable without a browser.

Formatting turns an :class:`~geungeo.answering.models.Answer` into Markdown (the chat bubble, the
citations, the passage panel, the flow log). The actions go through the HTTP API's own code over
the same :class:`~geungeo.interfaces.api.state.ApiState`: answers stream from the runner as in
``POST /v1/ask/stream``, uploads pass the checks of ``POST /v1/documents`` and the same ingestion
under the same writer lock, listing, deletion and feedback call the API's route functions.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from fastapi import HTTPException
from pydantic import ValidationError

from geungeo.answering.models import Answer, EvidenceItem
from geungeo.errors import GeungeoError
from geungeo.ingest import page_images
from geungeo.ingest.pipeline import IngestReport, Progress
from geungeo.interfaces.api.routes import documents
from geungeo.interfaces.api.routes import feedback as feedback_route
from geungeo.interfaces.api.routes.ask import answer_events, timeout_message, validate
from geungeo.interfaces.api.schemas import AskRequest, FeedbackRequest
from geungeo.interfaces.api.state import ApiState, ApiTimeout
from geungeo.interfaces.web import labels

log = logging.getLogger(__name__)

MAX_CITATIONS = 8
"""Citation buttons under an answer (the rest are still listed in the bubble)."""
MAX_SUGGESTIONS = 3


class UserError(Exception):
    """Something the user can fix (a bad file name or type, nothing selected): shown as one line."""


def new_conversation_id() -> str:
    """A fresh conversation id (one per browser session, until "new conversation")."""
    return f"web-{uuid.uuid4().hex[:12]}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# --- formatting an Answer ------------------------------------------------------------------


def citation_labels(answer: Answer) -> list[str]:
    """Button labels of the answer's citations, numbered: ``[1] 휴가보장법 제2조``."""
    return [f"[{n}] {c.label}" for n, c in enumerate(answer.citations[:MAX_CITATIONS], 1)]


def answer_markdown(answer: Answer) -> str:
    """The chat bubble: the answer, then its numbered sources (kept with the turn in the history)."""
    text = answer.answer.strip()
    if answer.citations:
        sources = " · ".join(f"[{n}] {c.label}" for n, c in enumerate(answer.citations, 1))
        text += f"\n\n<sub>근거 / Sources: {sources}</sub>"
    return text


def warnings_markdown(answer: Answer) -> str:
    """The groundedness warning and any other warning of the answer ('' when there is none)."""
    return "\n\n".join(f"> {w if w.startswith('⚠') else '⚠ ' + w}" for w in answer.warnings)


def flow_log_markdown(answer: Answer) -> str:
    """The flow log: one row per graph node with its seconds, LLM calls and note, and the checks' scores."""
    total = sum(s.seconds for s in answer.flow_log)
    head = [
        f"**{len(answer.flow_log)} 단계 / steps · {total:.2f} s · LLM 호출 / calls {answer.llm_calls} · "
        f"mode {answer.mode} · route {answer.route} · cache {'hit' if answer.cache_hit else 'miss'}**"
    ]
    checks = []
    if answer.sufficiency:
        checks.append(f"sufficiency {answer.sufficiency.score:.2f} ({answer.sufficiency.verdict})")
    if answer.groundedness:
        checks.append(f"groundedness {answer.groundedness.score:.2f} ({answer.groundedness.checked_by})")
    if answer.grade:
        checks.append(f"grade {answer.grade.overall:.2f}")
    if answer.removed_citations:
        checks.append(f"{answer.removed_citations} citation(s) to nothing removed")
    if checks:
        head.append(" · ".join(checks))
    rows = ["| 단계 / Node | 초 / Seconds | LLM | 메모 / Note |", "|---|---:|---:|---|"]
    rows += [f"| {s.node} | {s.seconds:.3f} | {s.llm_calls} | {_cell(s.note)} |" for s in answer.flow_log]
    return "\n\n".join(head) + "\n\n" + "\n".join(rows)


def steps_markdown(steps: Sequence[str], done: bool = False) -> str:
    """The live status line while an answer streams: the graph nodes run so far."""
    trail = " → ".join(steps)
    return f"{'✓' if done else labels.WORKING}: {trail}" if trail else labels.WORKING


def cited_evidence(answer: Answer, index: int) -> EvidenceItem | None:
    """The evidence item the ``index``-th (0-based) citation points at, if the answer carries it."""
    if not 0 <= index < len(answer.citations):
        return None
    chunk_id = answer.citations[index].chunk_id
    return next((e for e in answer.evidence if e.chunk_id == chunk_id), None)


def passage_markdown(item: EvidenceItem) -> str:
    """The passage panel: the citation, where it is (document, article, page) and the evidence text."""
    where = [f"**문서 / Document**: {item.doc}" + (f" ({item.code})" if item.code else "")]
    if item.article:
        where.append(f"**조문 / Article**: {item.article}")
    if item.page is not None:
        where.append(f"**쪽 / Page**: {item.page}")
    parts = [f"### {item.label}", " · ".join(where)]
    if item.header and item.header != item.label:
        parts.append(f"**{item.header}**")
    parts.append(item.text.strip())
    return "\n\n".join(parts)


@dataclass
class Passage:
    """What the passage panel shows for one citation."""

    markdown: str
    image: Path | None = None


async def open_passage(state: ApiState, answer: Answer | None, index: int) -> Passage:
    """The cited passage of citation ``index`` (0-based), with its page image when one was rendered."""
    if answer is None or not 0 <= index < len(answer.citations):
        return Passage(labels.PASSAGE_EMPTY)
    citation = answer.citations[index]
    chunks = await state.call(state.runner.engine.store.get, [citation.chunk_id])
    chunk = chunks[0] if chunks else None
    item = cited_evidence(answer, index) or (EvidenceItem.from_chunk(index + 1, chunk) if chunk else None)
    if item is None:
        return Passage(f"### {citation.label}\n\n_이 근거는 더 이상 색인에 없습니다 / no longer in the index._")
    relative = getattr(item, "page_image", None) or (chunk.meta.get("page_image") if chunk else None)
    image = page_images.resolve(state.settings.data_dir, relative)
    return Passage(passage_markdown(item), image)


# --- asking --------------------------------------------------------------------------------------


@dataclass
class StreamUpdate:
    """One step of a streamed answer: the text so far, the nodes run so far, and at the end the Answer."""

    text: str
    steps: list[str] = field(default_factory=list)
    answer: Answer | None = None
    error: str | None = None


def check_question(state: ApiState, question: str, filters: str | None) -> str | None:
    """The filter to use (None when blank); QueryError for an empty or too long question or a bad filter."""
    wanted = (filters or "").strip() or None
    validate(state, question, wanted)
    return wanted


async def stream_answer(
    state: ApiState, question: str, conversation_id: str, filters: str | None = None
) -> AsyncIterator[StreamUpdate]:
    """The answer as it streams, through the same path as ``POST /v1/ask/stream``.

    Call :func:`check_question` first. A failure after the stream began ends it with ``error`` set.
    Tokens after a node finished start a new text (a strict regeneration replaces the first draft).
    """
    body = AskRequest(question=question, conversation_id=conversation_id, filters=filters)
    text, steps, fresh = "", [], False
    try:
        async for event in answer_events(state, body):
            if event["type"] == "token":
                text = event["text"] if fresh else text + event["text"]
                fresh = False
            elif event["type"] == "node":
                steps.append(str(event["node"]))
                fresh = bool(text)
            elif event["type"] == "answer":
                yield StreamUpdate(text, list(steps), answer=event["answer"])
                return
            yield StreamUpdate(text, list(steps))
    except ApiTimeout:
        yield StreamUpdate(text, list(steps), error=timeout_message(state))
    except GeungeoError as exc:
        yield StreamUpdate(text, list(steps), error=str(exc))
    except Exception as exc:  # the stream has started: report it in the chat
        log.exception("web UI answer stream failed")
        yield StreamUpdate(text, list(steps), error=f"internal error / 내부 오류: {type(exc).__name__}")


# --- feedback ------------------------------------------------------------------------------------


async def send_feedback(state: ApiState, answer: Answer | None, rating: Literal["up", "down"], comment: str = "") -> str:
    """Record a rating (and comment) of ``answer`` in the feedback store of ``POST /v1/feedback``."""
    if answer is None:
        raise UserError(labels.FEEDBACK_NOTHING)
    try:
        body = FeedbackRequest(
            conversation_id=answer.conversation_id,
            question=answer.question,
            answer=answer.answer,
            rating=rating,
            comment=comment.strip() or None,
        )
    except ValidationError as exc:
        raise UserError("; ".join(str(e["msg"]) for e in exc.errors())) from None
    stored = await feedback_route.feedback(body, state)
    return f"{labels.FEEDBACK_SAVED} ({rating}, {stored.id[:8]})"


# --- documents -----------------------------------------------------------------------------------


def check_upload(name: str) -> str:
    """The NFC name an upload is saved under; UserError for what ``POST /v1/documents`` rejects (400/415)."""
    try:
        safe = documents.safe_name(name)
        documents.check_suffix(safe)
    except HTTPException as exc:
        raise UserError(str(exc.detail)) from None
    return safe


def report_markdown(report: IngestReport) -> str:
    """The ingestion report: one row per file, then the totals."""
    rows = ["| 파일 / File | 문서 / Docs | 청크 / Chunks | 그대로 / Unchanged | 삭제 / Removed | 초 / s | 상태 / Status |",
            "|---|---:|---:|---:|---:|---:|---|"]
    for f in report.files:
        status = f"❌ {_cell(f.error)}" if f.error else "✓"
        rows.append(f"| {_cell(Path(f.path).name)} | {f.documents} | {f.chunks} | {f.unchanged} | {f.removed} | "
                    f"{f.seconds:.1f} | {status} |")
    total = (f"**{len(report.files)} 파일 / files · {report.documents} 문서 / documents · {report.chunks} 청크 / chunks "
             f"({report.embedded_chunks} embedded) · {len(report.failed)} 실패 / failed · {report.seconds:.1f} s**")
    return total + "\n\n" + "\n".join(rows)


async def ingest_uploads(state: ApiState, files: Sequence[tuple[str, Path]], progress: Progress | None = None) -> str:
    """Save uploaded files under ``<data_dir>/uploads/`` and ingest them, as ``POST /v1/documents`` does.

    ``files`` pairs each upload's own file name with where it lies now. Every name is checked before
    anything is saved; ``progress(stage, done, total)`` follows the ingestion.
    """
    if not files:
        raise UserError(labels.INGEST_NOTHING)
    names = [check_upload(name) for name, _ in files]
    limit = state.settings.api_max_upload_mb << 20
    folder = documents.uploads_dir(state)

    def work() -> IngestReport:
        paths = []
        for name, (_, source) in zip(names, files, strict=True):
            with source.open("rb") as raw:
                paths.append(documents.save(raw, folder, name, limit))
        return state.runner.engine.ingest(paths, progress=progress)

    try:
        report = await state.call(work, write=True)
    except HTTPException as exc:  # too large
        raise UserError(str(exc.detail)) from None
    return report_markdown(report)


async def document_rows(state: ApiState) -> list[list[Any]]:
    """The ingested documents as table rows (title, source, kind, code, chunks, id), as ``GET /v1/documents``."""
    listing = await documents.list_documents(state)
    return [[d.title, d.source, d.kind, d.code or "", d.chunks, d.doc_id] for d in listing.documents]


def document_choices(rows: Sequence[Sequence[Any]]) -> list[tuple[str, str]]:
    """(label, doc id) pairs for the delete selector."""
    return [(f"{r[0]} — {r[1]}", str(r[5])) for r in rows]


async def delete_document(state: ApiState, doc_id: str | None) -> str:
    """Delete a document as ``DELETE /v1/documents/{id}`` does (an upload none of whose documents remain goes too)."""
    if not doc_id:
        raise UserError(labels.DELETE_NOTHING)
    try:
        deleted = await documents.delete_document(doc_id, state)
    except HTTPException as exc:
        raise UserError(str(exc.detail)) from None
    return f"✓ 삭제됨 / Deleted {deleted.doc_id} ({deleted.chunks} chunks)"
