"""What the answer graph produces: evidence, citations, plan, grades and the final Answer.

Pydantic models, so that LLM outputs are validated against the same classes the API
serialises and the checkpointer stores.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from geungeo.types import Chunk

Intent = Literal["explain", "howto", "troubleshoot", "compare", "lookup"]
Style = Literal["short", "normal", "detailed"]
Origin = Literal["retrieval", "neighbour", "reference", "structural", "web", "correction"]
Route = Literal["simple", "history_required", "rag_required", "structural"]

REFUSAL = "근거 부족"
CITATION_MARK = re.compile(r"\[([^\[\]\n]{2,120})\]")
"""An inline citation in an answer: ``[근로기준법 제60조]`` (group 1 is the label)."""


class EvidenceItem(BaseModel):
    """One passage the answer may cite; ``label`` is how citations name it."""

    n: int
    chunk_id: str
    doc_id: str
    label: str
    doc: str
    code: str | None = None
    article: str | None = None
    article_title: str | None = None
    page: int | None = None
    header: str = ""
    text: str
    score: float = 0.0
    origin: Origin = "retrieval"
    category: str | None = None
    page_image: str | None = None  # relative to the data directory
    table: str | None = None  # the Table entity (JSON) of a table chunk
    ocr_confidence: float | None = None  # the passage was read from a page image by OCR
    headings: list[str] = Field(default_factory=list)  # lines of ``text`` that are headings, not statements
    via: str | None = None  # a reference: the chunk id of the passage that cites it or that it cites

    @classmethod
    def from_chunk(cls, n: int, chunk: Chunk, score: float = 0.0, origin: Origin = "retrieval") -> EvidenceItem:
        m = chunk.meta
        page = m.get("page")
        return cls(
            n=n,
            chunk_id=chunk.id,
            doc_id=chunk.doc_id,
            label=citation_label(chunk),
            doc=str(m.get("doc") or m.get("source") or ""),
            code=str(m["code"]) if m.get("code") else None,
            article=str(m["article"]) if m.get("article") else None,
            article_title=str(m["article_title"]) if m.get("article_title") else None,
            page=int(page) if isinstance(page, int) else None,
            header=chunk.header,
            text=chunk.text,
            score=score,
            origin=origin,
            category=str(m["category"]) if m.get("category") else None,
            page_image=str(m["page_image"]) if m.get("page_image") else None,
            table=str(m["table"]) if m.get("table") else None,
            ocr_confidence=float(c) if isinstance(c := m.get("ocr_confidence"), int | float) else None,
            headings=str(m["headings"]).split("\n") if m.get("headings") else [],
        )


def citation_label(chunk: Chunk) -> str:
    """``근로기준법 제60조``, ``교원인사규정 제8조``, ``X.pdf p.4``, ``학칙 별표 2``, or the header (document › section)."""
    m = chunk.meta
    doc = str(m.get("doc") or m.get("source") or "")
    if m.get("article") and not m.get("addendum"):
        return f"{doc} {m['article']}"
    if m.get("attachment"):
        return f"{doc} {m['attachment']}"
    if m.get("page") is not None:
        return f"{m.get('source') or doc} p.{m['page']}"
    if m.get("addendum"):
        return f"{doc} 부칙"
    return chunk.header or doc  # a section of an HWP/DOCX document: ``디지털 정부혁신 추진계획 › □ 추진 배경``


class Citation(BaseModel):
    """A citation in the answer, resolved to its evidence item."""

    label: str
    doc: str
    code: str | None = None
    article: str | None = None
    page: int | None = None
    chunk_id: str

    @classmethod
    def of(cls, item: EvidenceItem) -> Citation:
        return cls(label=item.label, doc=item.doc, code=item.code, article=item.article, page=item.page, chunk_id=item.chunk_id)


class SubQuery(BaseModel):
    text: str
    priority: int = Field(1, ge=1, le=5)


class QueryPlan(BaseModel):
    """The planner's reading of the question."""

    normalized_query: str
    intent: Intent = "explain"
    answer_style: Style = "normal"
    constraints: list[str] = Field(default_factory=list)
    rewrites: list[str] = Field(default_factory=list)
    sub_queries: list[SubQuery] = Field(default_factory=list, max_length=5)
    audience: str | None = None
    planned_by: Literal["llm", "rules"] = "rules"


class Sufficiency(BaseModel):
    score: float = Field(0.0, ge=0.0, le=1.0)
    verdict: Literal["sufficient", "partial", "insufficient"] = "insufficient"
    missing: list[str] = Field(default_factory=list)
    judged_by: Literal["llm", "evidence"] = "evidence"


class Groundedness(BaseModel):
    score: float = Field(1.0, ge=0.0, le=1.0)
    unsupported: list[str] = Field(default_factory=list)
    checked_by: Literal["llm", "extractive", "skipped"] = "skipped"


class Grade(BaseModel):
    completeness: float = Field(0.0, ge=0.0, le=1.0)
    relevance: float = Field(0.0, ge=0.0, le=1.0)
    clarity: float = Field(0.0, ge=0.0, le=1.0)
    accuracy: float = Field(0.0, ge=0.0, le=1.0)
    feedback: str = ""

    @property
    def overall(self) -> float:
        return (self.completeness + self.relevance + self.clarity + self.accuracy) / 4


class FlowStep(BaseModel):
    """One node run: what it did, how long, how many LLM calls."""

    node: str
    seconds: float
    llm_calls: int = 0
    note: str = ""


class Reference(BaseModel):
    """One row of a structured answer's reference table."""

    label: str
    doc: str
    code: str | None = None
    article: str | None = None
    page: int | None = None
    snippet: str
    chunk_id: str


class PageImage(BaseModel):
    """The rendered page behind a cited PDF page."""

    label: str
    page: int
    path: str  # on this machine
    url: str  # served by the HTTP API: GET /v1/page_images/…
    markdown: str


class EntityReference(BaseModel):
    """A table or figure the answer used."""

    kind: Literal["table", "figure"]
    label: str
    page: int | None = None
    caption: str | None = None
    header: list[str] = Field(default_factory=list)
    rows: list[list[str]] = Field(default_factory=list)
    chunk_id: str


class StructuredAnswer(BaseModel):
    """The synthesis result beside the answer text (the multimodal design's output)."""

    key_points: list[str] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    page_images: list[PageImage] = Field(default_factory=list)
    entity_references: list[EntityReference] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list, description="주의/경고/유의 sentences of the cited evidence (at most 5)")
    confidence: float = Field(0.0, ge=0.0, le=1.0)


class Answer(BaseModel):
    """The output contract of ``run_query``."""

    question: str
    answer: str
    refused: bool = False
    route: Route = "rag_required"
    mode: Literal["extractive", "llm"] = "extractive"
    citations: list[Citation] = Field(default_factory=list)
    evidence: list[EvidenceItem] = Field(default_factory=list)
    plan: QueryPlan | None = None
    sufficiency: Sufficiency | None = None
    groundedness: Groundedness | None = None
    grade: Grade | None = None
    suggestions: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    cache_hit: bool = False
    removed_citations: int = 0
    flow_log: list[FlowStep] = Field(default_factory=list)
    llm_calls: int = 0
    conversation_id: str | None = None
    structured: StructuredAnswer = Field(default_factory=StructuredAnswer)
