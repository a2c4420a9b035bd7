"""geungeo's tools, defined once: ``search_documents``, ``get_article``, ``get_document_outline``, ``answer``.

The MCP server exposes them to desktop assistants; the tool-calling agent binds them to its chat model.
Here live their argument schemas (pydantic), their descriptions and their work (:class:`Toolbox`).
Each call returns a :class:`ToolResult`: the JSON-able payload a client sees and the passages it read
(the agent's evidence). A call that cannot be done as asked (unknown article, bad filter, empty query)
raises a :class:`~geungeo.errors.GeungeoError` whose message says why; adapters turn it into their own
error (an MCP tool error, a tool message back to the model).

``answer`` writes a cited answer from passages with :func:`geungeo.answering.generation.compose_answer`, the
answer graph's own answer path: with a chat model, the generation prompt over exactly those passages, citations
validated against them; without one (or when it fails), the extractive answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field, field_validator

from geungeo.answering.generation import Request, compose_answer, drain
from geungeo.answering.models import Answer, EvidenceItem, Origin
from geungeo.engine import Engine
from geungeo.errors import GeungeoError
from geungeo.filters import Filter, combine, parse_filter
from geungeo.retrieval.expansion import Lexicon
from geungeo.retrieval.structural import StructuralAnswer, StructuralLookup
from geungeo.types import Chunk

MAX_TOP_K = 200
_STRUCTURAL_CHUNKS = 40  # passages a chapter or attachment lookup may add as evidence


class ToolFailure(GeungeoError):
    """A tool call that cannot be done as asked; the message (Korean / English) says why."""


# --- argument schemas ----------------------------------------------------------------------------


class SearchArgs(BaseModel):
    query: str = Field(min_length=1, description="What to look for, in Korean legal terms where possible. 검색어.")
    top_k: int = Field(5, ge=1, le=MAX_TOP_K, description="How many passages to return.")
    filters: str | None = Field(
        None, description="Optional metadata filter such as 'doc=근로기준법', 'code=3-1-1' or 'page=3..5'."
    )


class ArticleArgs(BaseModel):
    regulation: str = Field(min_length=1, description="The document's name, e.g. '근로기준법' or '교원인사규정'.")
    article: str = Field(min_length=1, description="The article, e.g. '제60조' (also '제4장', '별표 2').")


class OutlineArgs(BaseModel):
    regulation: str = Field(min_length=1, description="The document's name, e.g. '근로기준법'.")


class AnswerArgs(BaseModel):
    question: str = Field(min_length=1, description="The question to answer (self-contained). 답할 질문.")
    context: list[str] = Field(
        default_factory=list,
        description="Labels (e.g. '근로기준법 제60조') or chunk_ids of the passages to answer from; empty: every passage found.",
    )

    @field_validator("context", mode="before")
    @classmethod
    def _one_string(cls, value: Any) -> Any:
        """Models often send one comma- or newline-separated string."""
        if isinstance(value, str):
            return [part for part in (p.strip() for p in re.split(r"[,\n]", value)) if part]
        return value


DESCRIPTIONS: dict[str, str] = {
    "search_documents": (
        "Search the ingested documents (hybrid BM25 + dense). 문서 검색. "
        "Returns passages with label (how to cite it), doc, code, article, page, header, text, score and chunk_id."
    ),
    "get_article": "The full text of one article with its citation, e.g. regulation '근로기준법', article '제60조'. 조문 조회.",
    "get_document_outline": "The outline (chapters and articles) of one document, e.g. '근로기준법'. 문서 개요.",
    "answer": (
        "A grounded answer with citations, written only from the given passages (or 근거 부족 when they do not say). "
        "근거 기반 답변."
    ),
}
SCHEMAS: dict[str, type[BaseModel]] = {
    "search_documents": SearchArgs,
    "get_article": ArticleArgs,
    "get_document_outline": OutlineArgs,
    "answer": AnswerArgs,
}


# --- results -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    """A chunk a tool read, with its score and how it was found."""

    chunk: Chunk
    score: float = 0.0
    origin: Origin = "retrieval"


@dataclass
class ToolResult:
    """What a tool call gives: the payload a client sees, the passages it read, a note for the flow log."""

    payload: Any
    passages: list[Passage] = field(default_factory=list)
    note: str = ""


def hit_payload(chunk: Chunk, score: float) -> dict[str, Any]:
    """One passage as a search result."""
    return {
        "label": EvidenceItem.from_chunk(0, chunk).label,
        "doc": chunk.meta.get("doc"),
        "code": chunk.meta.get("code"),
        "article": chunk.meta.get("article"),
        "page": chunk.meta.get("page"),
        "header": chunk.header,
        "text": chunk.text,
        "score": round(score, 6),
        "chunk_id": chunk.id,
    }


class Toolbox:
    """The tools' work over one engine (built lazily when given as a factory, so an MCP handshake is quick).

    ``filters`` is a filter every search keeps (a caller's scope, e.g. ``doc=근로기준법``), combined with
    the filter a call asks for.
    """

    def __init__(
        self,
        engine: Engine | Callable[[], Engine],
        *,
        filters: str | None = None,
    ) -> None:
        self._engine = engine
        self._scope: Filter | None = parse_filter(filters) if filters else None

    @property
    def engine(self) -> Engine:
        if not isinstance(self._engine, Engine):
            self._engine = self._engine()
        return self._engine

    @property
    def structural(self) -> StructuralLookup:
        return self.engine.structural

    def search_documents(self, query: str, top_k: int = 5, filters: str | None = None) -> ToolResult:
        """Hybrid search; hits as payload and passages."""
        if top_k < 1 or top_k > MAX_TOP_K:
            raise ToolFailure(f"top_k must be between 1 and {MAX_TOP_K}")
        where = combine([f for f in (self._scope, parse_filter(filters) if filters else None) if f is not None])
        hits = self.engine.search(query, k=top_k, where=where)
        return ToolResult(
            [hit_payload(h.chunk, h.score) for h in hits],
            [Passage(h.chunk, h.score) for h in hits],
            f"{query!r}{f' [{filters}]' if filters else ''}: {len(hits)} hits",
        )

    def get_article(self, regulation: str, article: str) -> ToolResult:
        """One article (or chapter, attachment) of a document, read from the store."""
        query = f"{regulation} {article}"
        found = self._lookup(query)
        ids = [cid for c in found.citations for cid in c.chunk_ids][:_STRUCTURAL_CHUNKS]
        passages = [Passage(chunk, 1.0, "structural") for chunk in self.engine.store.get(ids)]
        return ToolResult(_structural_payload(found), passages, f"{query}: {found.kind}, {len(passages)} passages")

    def get_document_outline(self, regulation: str) -> ToolResult:
        """A document's chapters and article titles (navigation: no passages)."""
        query = f"{regulation} 개요"
        found = self._lookup(query)
        return ToolResult(_structural_payload(found), [], f"{regulation}: outline")

    def passages(self, context: Sequence[str]) -> list[Passage]:
        """The passages ``context`` names: chunk ids, or labels such as ``근로기준법 제60조`` (looked up)."""
        wanted = [c.strip().strip("[]［］").strip() for c in context if c.strip()]
        by_id = {c.id: c for c in self.engine.store.get(wanted)}
        out: list[Passage] = []
        for entry in wanted:
            if entry in by_id:
                out.append(Passage(by_id[entry], 1.0, "structural"))
                continue
            found = self.structural.answer(entry)
            if found is not None and found.found:
                ids = [cid for c in found.citations for cid in c.chunk_ids][:_STRUCTURAL_CHUNKS]
                out.extend(Passage(chunk, 1.0, "structural") for chunk in self.engine.store.get(ids))
        unique = {p.chunk.id: p for p in reversed(out)}
        return [unique[cid] for cid in dict.fromkeys(p.chunk.id for p in out)]

    def answer(self, question: str, context: Sequence[str], *, llm: BaseChatModel | None, lexicon: Lexicon | None) -> Answer:
        """A cited answer from the passages ``context`` names (nothing found there: 근거 부족)."""
        items = evidence_items(self.passages(context))
        request = Request.over(self.engine, items)
        composed = drain(compose_answer(question, items, llm, self.engine.settings, lexicon, request))
        return composed.to_answer(question, items)

    def _lookup(self, query: str) -> StructuralAnswer:
        found = self.structural.answer(query)
        if found is None:
            raise ToolFailure(f"'{query}': no such document or article in the store / 해당 문서나 조문을 찾을 수 없습니다")
        if not found.found:
            raise ToolFailure(found.message or f"'{query}': not found / 찾을 수 없습니다")
        return found


def _structural_payload(found: StructuralAnswer) -> dict[str, Any]:
    citations = [asdict(c) for c in found.citations]
    labels = " ".join(c["label"] if c["label"].startswith("[") else f"[{c['label']}]" for c in citations)
    return {"text": found.text, "citation": labels, "citations": citations, "message": found.message}


def evidence_items(passages: Sequence[Passage]) -> list[EvidenceItem]:
    """Passages as numbered evidence items (the form citations are validated against)."""
    return [EvidenceItem.from_chunk(n, p.chunk, p.score, p.origin) for n, p in enumerate(passages, start=1)]


# --- langchain tools -----------------------------------------------------------------------------

AnswerFn = Callable[[str, list[str]], tuple[str, Any]]


def langchain_tools(box: Toolbox, answer: AnswerFn, render: Callable[[ToolResult], str]) -> list[StructuredTool]:
    """The four tools as langchain-core tools (``content_and_artifact``: the artifact is the :class:`ToolResult`).

    ``render`` turns a result into the text the model reads; ``answer`` is the caller's answer tool
    (the agent records the request and writes the answer itself, streaming it).
    """

    def wrap(fn: Callable[..., ToolResult]) -> Callable[..., tuple[str, ToolResult]]:
        def run(**kwargs: Any) -> tuple[str, ToolResult]:
            result = fn(**kwargs)
            return render(result), result

        return run

    work: dict[str, Callable[..., tuple[str, Any]]] = {
        "search_documents": wrap(box.search_documents),
        "get_article": wrap(box.get_article),
        "get_document_outline": wrap(box.get_document_outline),
        "answer": lambda question, context=(): answer(question, list(context)),
    }
    return [
        StructuredTool.from_function(
            func=work[name],
            name=name,
            description=DESCRIPTIONS[name],
            args_schema=SCHEMAS[name],
            response_format="content_and_artifact",
        )
        for name in SCHEMAS
    ]
