"""``POST /v1/documents`` (upload; ingested as a background job), ``GET /v1/documents``, ``DELETE /v1/documents/{doc_id}``.

The rules for upload names and what happens to the files are the document service's
(:mod:`geungeo.services.documents`); this router only translates.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, File, UploadFile

from geungeo.interfaces.api.routes.ask import ERRORS
from geungeo.interfaces.api.schemas import Deleted, DocumentList, DocumentOut, ErrorBody
from geungeo.interfaces.api.state import ApiState, api_state
from geungeo.services import Job, StagedUpload
from geungeo.services.documents import upload_name

router = APIRouter(tags=["documents"])
State = Annotated[ApiState, Depends(api_state)]


@router.post(
    "/v1/documents",
    status_code=202,
    response_model=Job,
    responses={**ERRORS, 413: {"model": ErrorBody}, 415: {"model": ErrorBody}},
    summary="Upload documents; they are ingested in the background (follow GET /v1/jobs/{job_id})",
)
async def upload(files: Annotated[list[UploadFile], File(description="One or more files (multipart field 'files').")],
                 state: State) -> Job:
    """Check and save each file, then queue their ingestion: ``202`` with the job, whose ``result`` (per file what
    happened) comes with ``status: done`` at ``GET /v1/jobs/{job_id}``."""
    documents = state.services.documents
    for f in files:  # every name is checked before anything is saved
        upload_name(f.filename)

    def stage() -> list[StagedUpload]:
        staged: list[StagedUpload] = []
        try:
            for f in files:
                staged.append(documents.stage_upload(f.file, f.filename or ""))
        except BaseException:
            for s in staged:
                s.discard()
            raise
        return staged

    staged = await state.call(stage)
    return state.services.ingest_in_background(staged)


@router.get("/v1/documents", response_model=DocumentList, responses=ERRORS, summary="List ingested documents")
async def list_documents(state: State) -> DocumentList:
    docs = await state.call(state.services.documents.all)
    return DocumentList(documents=[
        DocumentOut(doc_id=d.doc_id, title=d.title, source=d.source, kind=d.kind, code=d.code, chunks=d.chunk_count,
                    ingested_at=d.ingested_at)
        for d in docs
    ])


@router.delete(
    "/v1/documents/{doc_id}", response_model=Deleted, responses={**ERRORS, 404: {"model": ErrorBody}}, summary="Delete a document"
)
async def delete_document(doc_id: str, state: State) -> Deleted:
    """Remove the document's chunks; an uploaded file none of whose documents remain is removed too."""
    chunks = await state.call(state.services.documents.delete, doc_id, write=True)
    return Deleted(doc_id=doc_id, chunks=chunks)
