"""What the web UI does, as plain functions (no gradio), over the services of an :class:`ApiState`.

Formatting turns an :class:`~geungeo.answering.models.Answer` into Markdown (the chat bubble, the
citations, the passage panel, the flow log). The actions call the services as the HTTP API does:
answers stream as in ``POST /v1/ask/stream``, uploads are checked and ingested as a background job
(followed until done) as in ``POST /v1/documents``, listing and deletion use the document service.
A service error becomes a :class:`UserError`, shown as one line.
"""

from __future__ import annotations

import html
import logging
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio

from geungeo.answering.models import Answer, EvidenceItem
from geungeo.errors import GeungeoError
from geungeo.ingest import page_images
from geungeo.ingest.pipeline import Progress
from geungeo.interfaces.api.routes.ask import answer_events, error_text
from geungeo.interfaces.api.state import ApiState
from geungeo.interfaces.web import labels
from geungeo.services import Feedback, IngestSummary, Question, StagedUpload
from geungeo.services.documents import upload_name

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


def linked_citations(text: str, answer: Answer) -> str:
    """``text`` with each ``[label]`` of a cited passage made a link that opens it in the passage panel
    (``#cite-N``: the page's script clicks the N-th citation button)."""
    index = {c.label: n for n, c in enumerate(answer.citations[:MAX_CITATIONS])}
    if not index:
        return text

    def link(m: re.Match[str]) -> str:
        n = index.get(m.group(1).strip())
        if n is None:
            return m.group(0)
        return f'<a href="#cite-{n}" class="cite-link" title="{html.escape(m.group(1))}">[{m.group(1)}]</a>'

    return _BRACKETED.sub(link, text)


_BRACKETED = re.compile(r"\[([^\[\]\n]{1,120})\]")


def answer_markdown(answer: Answer) -> str:
    """The chat bubble: the answer (its citations clickable), then its numbered sources (kept with the turn)."""
    text = linked_citations(answer.answer.strip(), answer)
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
    """The live status line while an answer streams: the steps run so far, in words (not the graph's node names)."""
    words = [labels.node_label(s) for s in steps]
    trail = " → ".join(w for i, w in enumerate(words) if i == 0 or w != words[i - 1])
    head = labels.DONE if done else labels.WORKING
    return f"{head}: {trail}" if trail else head


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
class PassageView:
    """What the passage panel shows for one citation."""

    markdown: str
    image: Path | None = None


async def open_passage(state: ApiState, answer: Answer | None, index: int) -> PassageView:
    """The cited passage of citation ``index`` (0-based), with its page image when one was rendered."""
    if answer is None or not 0 <= index < len(answer.citations):
        return PassageView(labels.PASSAGE_EMPTY)
    citation = answer.citations[index]
    chunks = await state.call(state.services.documents.chunks, [citation.chunk_id])
    chunk = chunks[0] if chunks else None
    item = cited_evidence(answer, index) or (EvidenceItem.from_chunk(index + 1, chunk) if chunk else None)
    if item is None:
        return PassageView(f"### {citation.label}\n\n_이 근거는 더 이상 색인에 없습니다 / no longer in the index._")
    relative = getattr(item, "page_image", None) or (chunk.meta.get("page_image") if chunk else None)
    image = page_images.resolve(state.settings.data_dir, relative)
    return PassageView(passage_markdown(item), image)


# --- asking --------------------------------------------------------------------------------------


@dataclass
class StreamUpdate:
    """One step of a streamed answer: the text so far, the nodes run so far, and at the end the Answer."""

    text: str
    steps: list[str] = field(default_factory=list)
    answer: Answer | None = None
    error: str | None = None


def check_question(state: ApiState, question: str, filters: str | None) -> Question:
    """The checked question and filter (None when blank); QueryError for an empty, too long or invalid question or a
    bad filter, EmptyStoreError when nothing is ingested."""
    return state.services.answers.check(question, filters)


async def stream_answer(
    state: ApiState, question: Question | str, conversation_id: str, filters: str | None = None
) -> AsyncIterator[StreamUpdate]:
    """The answer as it streams, through the same path as ``POST /v1/ask/stream``.

    Call :func:`check_question` first (a plain string is checked here). A failure after the stream began ends it
    with ``error`` set. Tokens after a node finished start a new text (a strict regeneration replaces the first draft).
    """
    text, steps, fresh = "", [], False
    try:
        checked = question if isinstance(question, Question) else check_question(state, question, filters)
        async for event in answer_events(state, checked, conversation_id):
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
    except Exception as exc:  # the stream has started: report it in the chat
        yield StreamUpdate(text, list(steps), error=error_text(state, exc))


# --- feedback ------------------------------------------------------------------------------------


_MAX_COMMENT = 10_000


async def send_feedback(state: ApiState, answer: Answer | None, rating: Literal["up", "down"], comment: str = "") -> str:
    """Record a rating (and comment) of ``answer`` in the feedback store of ``POST /v1/feedback``."""
    if answer is None:
        raise UserError(labels.FEEDBACK_NOTHING)
    if len(comment) > _MAX_COMMENT:
        raise UserError(f"comment too long (at most {_MAX_COMMENT:,} characters) / 의견이 너무 깁니다")
    entry = Feedback(answer.question, answer.answer, rating, comment.strip() or None, None, answer.conversation_id)
    stored = await state.call(state.services.feedback.record, entry)
    return f"{labels.FEEDBACK_SAVED} ({rating}, {stored.id[:8]})"


# --- documents -----------------------------------------------------------------------------------


def check_upload(name: str) -> str:
    """The NFC name an upload is saved under; UserError for what ``POST /v1/documents`` rejects (400/415)."""
    try:
        return upload_name(name)
    except GeungeoError as exc:
        raise UserError(str(exc)) from None


def report_markdown(report: IngestSummary) -> str:
    """The ingestion report: one row per file, then the totals."""
    rows = ["| 파일 / File | 문서 / Docs | 청크 / Chunks | 그대로 / Unchanged | 삭제 / Removed | 초 / s | 상태 / Status |",
            "|---|---:|---:|---:|---:|---:|---|"]
    for f in report.files:
        status = f"{labels.FAILED}: {_cell(f.error)}" if f.error else "✓"
        rows.append(f"| {_cell(f.file)} | {f.documents} | {f.chunks} | {f.unchanged} | {f.removed} | "
                    f"{f.seconds:.1f} | {status} |")
    total = (f"**{len(report.files)} 파일 / files · {report.documents} 문서 / documents · {report.chunks} 청크 / chunks "
             f"({report.written_chunks} written, {report.embedded_chunks} embedded) · {report.failed} 실패 / failed · "
             f"{report.seconds:.1f} s**")
    return total + "\n\n" + "\n".join(rows)


async def ingest_uploads(state: ApiState, files: Sequence[tuple[str, Path]], progress: Progress | None = None) -> str:
    """Save uploaded files and ingest them as a background job, as ``POST /v1/documents`` does; follow the job
    (``progress(stage, done, total)``) until it ends and return its report.

    ``files`` pairs each upload's own file name with where it lies now. Every name is checked before
    anything is saved.
    """
    if not files:
        raise UserError(labels.INGEST_NOTHING)
    names = [check_upload(name) for name, _ in files]
    documents = state.services.documents

    def stage() -> list[StagedUpload]:
        staged: list[StagedUpload] = []
        try:
            for name, (_, source) in zip(names, files, strict=True):
                with source.open("rb") as raw:
                    staged.append(documents.stage_upload(raw, name))
        except BaseException:
            for s in staged:
                s.discard()
            raise
        return staged

    try:
        job = state.services.ingest_in_background(await state.call(stage))
        while job.status in ("queued", "running"):
            await anyio.sleep(0.2)
            job = state.services.jobs.get(job.job_id)
            if progress is not None:
                for stage_name, p in job.progress.items():
                    progress(stage_name, p.done, p.total)
    except GeungeoError as exc:
        raise UserError(documents.redact(str(exc))) from None
    if job.result is None:
        raise UserError(f"{labels.FAILED}: {job.error or job.status}")
    return report_markdown(job.result)


async def document_rows(state: ApiState) -> list[list[Any]]:
    """The ingested documents as table rows (title, source, kind, code, chunks, id), as ``GET /v1/documents``."""
    docs = await state.call(state.services.documents.all)
    return [[d.title, d.source, d.kind, d.code or "", d.chunk_count, d.doc_id] for d in docs]


def document_choices(rows: Sequence[Sequence[Any]]) -> list[tuple[str, str]]:
    """(label, doc id) pairs for the delete selector."""
    return [(f"{r[0]} — {r[1]}", str(r[5])) for r in rows]


async def delete_document(state: ApiState, doc_id: str | None) -> str:
    """Delete a document as ``DELETE /v1/documents/{id}`` does (an upload none of whose documents remain goes too)."""
    if not doc_id:
        raise UserError(labels.DELETE_NOTHING)
    try:
        chunks = await state.call(state.services.documents.delete, doc_id, write=True)
    except GeungeoError as exc:
        raise UserError(str(exc)) from None
    return f"✓ 삭제됨 / Deleted {doc_id} ({chunks} chunks)"
