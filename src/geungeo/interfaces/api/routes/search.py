"""``POST /v1/search`` (hybrid search hits) and ``GET /v1/structure/{regulation}`` (articles, chapters, attachments)."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query

from geungeo.interfaces.api.routes.ask import ERRORS
from geungeo.interfaces.api.schemas import SearchHit, SearchRequest, SearchResponse, StructureCitation, StructureOut
from geungeo.interfaces.api.state import ApiState, api_state
from geungeo.retrieval.filters import combine, parse_filter
from geungeo.types import Hit

router = APIRouter(tags=["search"])
State = Annotated[ApiState, Depends(api_state)]


def _hit(h: Hit) -> SearchHit:
    m = h.chunk.meta
    page = m.get("page")
    return SearchHit(
        chunk_id=h.chunk.id,
        doc_id=h.chunk.doc_id,
        doc=str(m["doc"]) if m.get("doc") else None,
        code=str(m["code"]) if m.get("code") else None,
        article=str(m["article"]) if m.get("article") else None,
        page=page if isinstance(page, int) and not isinstance(page, bool) else None,
        header=h.chunk.header,
        text=h.chunk.text,
        score=round(h.score, 6),
        ranks=h.ranks,
    )


@router.post("/v1/search", response_model=SearchResponse, responses=ERRORS, summary="Hybrid search (BM25 + dense, fused)")
async def search(body: SearchRequest, state: State) -> SearchResponse:
    """The best ``k`` passages for the query, with their location and fused score."""
    raw = [body.filters] if isinstance(body.filters, str) else body.filters or []
    where = combine(parse_filter(f) for f in raw)
    hits = await state.call(state.runner.engine.search, body.query, k=body.k, where=where, mode=body.mode)
    return SearchResponse(query=body.query, hits=[_hit(h) for h in hits])


def _place(value: str | None, template: str) -> str:
    """``8`` → ``제8조``, ``8의2`` → ``제8조의2`` (a number fills the template; anything else is kept)."""
    if not value:
        return ""
    value = value.strip()
    m = re.fullmatch(r"(\d+)(?:\s*(?:의|-)\s*(\d+))?", value)
    if not m:
        return value
    return template.format(m.group(1)) + (f"의{m.group(2)}" if m.group(2) and "조" in template else "")


def structural_query(regulation: str, article: str | None, chapter: str | None, attachment: str | None, full: bool) -> str:
    """The StructuralLookup query for these parameters, e.g. ``교원인사규정 제8조``."""
    if attachment and re.fullmatch(r"\d+(?:-\d+)?", attachment.strip()):
        attachment = f"별표 {attachment.strip()}"
    place = _place(article, "제{}조") or _place(chapter, "제{}장") or (attachment or "").strip()
    return f"{regulation.strip()} {place or ('전문' if full else '개요')}"


@router.get(
    "/v1/structure/{regulation}",
    response_model=StructureOut,
    responses={**ERRORS, 404: {"model": ERRORS[400]["model"]}},
    summary="An article, chapter, attachment, the full text or an overview of a document",
)
async def structure(
    regulation: str,
    state: State,
    article: Annotated[str | None, Query(description="8, 8의2 or 제8조")] = None,
    chapter: Annotated[str | None, Query(description="4 or 제4장")] = None,
    attachment: Annotated[str | None, Query(description="2 or 별표 2")] = None,
    full: Annotated[bool, Query(description="The whole text")] = False,
) -> StructureOut:
    """Read straight from the store, no model: the request is composed as ``<regulation> <place>``."""
    query = structural_query(regulation, article, chapter, attachment, full)
    result = await state.call(state.structural.answer, query)
    if result is None or not result.found:
        message = result.message if result else f"'{regulation}' 문서를 찾을 수 없습니다 / no document named '{regulation}'"
        raise HTTPException(404, message)
    citations = [StructureCitation(label=c.label, doc=c.doc, code=c.code, article=c.article, chunk_ids=c.chunk_ids)
                 for c in result.citations]
    return StructureOut(query=query, kind=result.kind, text=result.text, citations=citations)
