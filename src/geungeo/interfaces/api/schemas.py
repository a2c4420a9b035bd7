"""Request and response bodies of the HTTP API (the answer itself is :class:`geungeo.answering.models.Answer`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ErrorBody(BaseModel):
    error: str = Field(description="What went wrong, for the user (Korean and English).")


class AskRequest(BaseModel):
    question: str = Field(description="The question, Korean or English.", examples=["연차 유급휴가는 며칠인가요?"])
    conversation_id: str | None = Field(None, max_length=200, description="Continue this conversation (multi-turn).")
    filters: str | None = Field(None, description="One metadata filter: doc=근로기준법, code=3-1-5 or page=3..5.")


class SearchRequest(BaseModel):
    query: str = Field(description="Question or keywords.")
    k: int = Field(10, ge=1, le=200, description="Number of hits.")
    filters: list[str] | str | None = Field(None, description="field=value filters, ANDed (doc, code, article, page…).")
    mode: Literal["hybrid", "dense", "sparse"] = "hybrid"


class SearchHit(BaseModel):
    chunk_id: str
    doc_id: str
    doc: str | None
    code: str | None
    article: str | None
    page: int | None
    header: str
    text: str
    score: float
    ranks: dict[str, int]


class SearchResponse(BaseModel):
    query: str
    hits: list[SearchHit]


class DocumentOut(BaseModel):
    doc_id: str
    title: str
    source: str
    kind: str
    code: str | None
    chunks: int
    ingested_at: float


class DocumentList(BaseModel):
    documents: list[DocumentOut]


class Deleted(BaseModel):
    doc_id: str
    chunks: int


class StructureCitation(BaseModel):
    label: str
    doc: str
    code: str | None
    article: str | None
    chunk_ids: list[str]


class StructureOut(BaseModel):
    query: str = Field(description="The structural query the parameters composed, e.g. 교원인사규정 제8조.")
    kind: Literal["overview", "article", "chapter", "attachment", "full"]
    text: str
    citations: list[StructureCitation]


class FeedbackRequest(BaseModel):
    conversation_id: str | None = Field(None, max_length=200)
    question: str = Field(max_length=20_000)
    answer: str = Field(max_length=100_000)
    rating: Literal["up", "down"]
    comment: str | None = Field(None, max_length=10_000)
    correction: str | None = Field(
        None, max_length=100_000, description="The right answer as you would write it: a proposal until a reviewer accepts it."
    )


class FeedbackOut(BaseModel):
    id: str
    stored: bool = True
    correction_id: int | None = Field(None, description="Set when the feedback proposed a correction (#N to review).")
    correction_status: Literal["proposed", "accepted", "rejected"] | None = Field(
        None, description="A proposal is used as evidence (검수 답변 #N) only after a reviewer accepts it."
    )


class CorrectionOut(BaseModel):
    id: int
    question: str
    text: str
    status: Literal["proposed", "accepted", "rejected"]
    created: float
    proposed_by: str = ""
    reviewed_by: str = ""
    reviewed_at: float | None = None


class Health(BaseModel):
    status: Literal["ok"]
    documents: int
    chunks: int
    embedder: str
    llm: str


# --- OpenAI-compatible chat completions ------------------------------------------------------


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """The message text (text parts of a multi-part message joined)."""
        if isinstance(self.content, list):
            return "".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return self.content or ""


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, max_tokens… are accepted and ignored

    model: str = "geungeo"
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    user: str | None = Field(None, max_length=200, description="Names the conversation (else: derived from the turns).")
