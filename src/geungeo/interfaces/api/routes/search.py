"""``POST /v1/search`` (hybrid search hits) and ``GET /v1/structure/{regulation}`` (articles, chapters, attachments)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from geungeo.interfaces.api.routes.ask import ERRORS
from geungeo.interfaces.api.schemas import SearchHit, SearchRequest, SearchResponse, StructureCitation, StructureOut
from geungeo.interfaces.api.state import ApiState, api_state
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
    filters = [body.filters] if isinstance(body.filters, str) else body.filters or []
    hits = await state.call(state.services.search.search, body.query, k=body.k, filters=filters, mode=body.mode)
    return SearchResponse(query=body.query, hits=[_hit(h) for h in hits])


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
    query, result = await state.call(state.services.structure.lookup, regulation, article, chapter, attachment, full)
    citations = [StructureCitation(label=c.label, doc=c.doc, code=c.code, article=c.article, chunk_ids=c.chunk_ids)
                 for c in result.citations]
    return StructureOut(query=query, kind=result.kind, text=result.text, citations=citations)
