"""``POST /v1/documents`` (upload and ingest), ``GET /v1/documents``, ``DELETE /v1/documents/{doc_id}``.

Uploads are saved under ``<data_dir>/uploads/`` with their own (NFC) file name, which must be a
plain name: no directories, no ``..``, nothing absolute, no hidden files. Re-uploading a name
replaces the file, and ingestion is incremental, so unchanged documents are skipped.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated, BinaryIO

from fastapi import APIRouter, Depends, File, HTTPException, UploadFile

from geungeo.ingest.base import supported_suffixes
from geungeo.ingest.pipeline import IngestReport
from geungeo.interfaces.api.routes.ask import ERRORS
from geungeo.interfaces.api.schemas import Deleted, DocumentList, DocumentOut, ErrorBody, FileReport, IngestOut
from geungeo.interfaces.api.state import ApiState, api_state
from geungeo.text.normalize import nfc

router = APIRouter(tags=["documents"])
State = Annotated[ApiState, Depends(api_state)]
_CHUNK = 1 << 20


def safe_name(raw: str | None) -> str:
    """The NFC file name if it is a plain, visible file name; 400 otherwise."""
    name = nfc(raw or "").strip()
    bad = (
        not name
        or name.startswith(".")
        or any(c in name for c in '/\\:\x00')
        or any(ord(c) < 32 for c in name)
        or PurePosixPath(name).is_absolute()
        or bool(PureWindowsPath(name).drive)
        or len(name.encode()) > 255
    )
    if bad:
        raise HTTPException(400, f"invalid file name '{raw}': give a plain name like 규정.hwpx / 잘못된 파일 이름입니다")
    return name


def check_suffix(name: str) -> None:
    """415 for a type no loader reads."""
    suffix = Path(name).suffix.lower()
    known = supported_suffixes()
    if suffix not in known:
        raise HTTPException(
            415, f"unsupported file type '{suffix or name}' (supported: {', '.join(known)}) / 지원하지 않는 파일 형식입니다"
        )


def save(source: BinaryIO, folder: Path, name: str, limit: int) -> Path:
    """Copy an upload to ``folder/name`` (via a temporary file; 413 past ``limit`` bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = (folder / name).resolve()
    if target.parent != folder.resolve():
        raise HTTPException(400, f"invalid file name '{name}' / 잘못된 파일 이름입니다")
    part = folder / f".{uuid.uuid4().hex}.part"
    size = 0
    try:
        with part.open("wb") as out:
            while block := source.read(_CHUNK):
                size += len(block)
                if size > limit:
                    mb = limit >> 20
                    raise HTTPException(413, f"file too large: over {mb} MB (GEUNGEO_API_MAX_UPLOAD_MB) / 파일이 너무 큽니다")
                out.write(block)
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)
    return target


def _report(report: IngestReport) -> IngestOut:
    files = [FileReport(file=Path(f.path).name, documents=f.documents, chunks=f.chunks, unchanged=f.unchanged,
                        removed=f.removed, error=f.error, seconds=round(f.seconds, 3)) for f in report.files]
    return IngestOut(files=files, documents=report.documents, chunks=report.chunks, embedded_chunks=report.embedded_chunks,
                     failed=len(report.failed), seconds=round(report.seconds, 3))


def uploads_dir(state: ApiState) -> Path:
    return state.settings.data_dir / "uploads"


@router.post(
    "/v1/documents",
    response_model=IngestOut,
    responses={**ERRORS, 413: {"model": ErrorBody}, 415: {"model": ErrorBody}},
    summary="Upload documents and ingest them",
)
async def upload(files: Annotated[list[UploadFile], File(description="One or more files (multipart field 'files').")],
                 state: State) -> IngestOut:
    """Save each file under ``<data_dir>/uploads/`` and ingest them; the report says per file what happened."""
    names = [safe_name(f.filename) for f in files]
    for name in names:
        check_suffix(name)
    limit = state.settings.api_max_upload_mb << 20

    def work() -> IngestReport:
        paths = [save(f.file, uploads_dir(state), name, limit) for f, name in zip(files, names, strict=True)]
        return state.runner.engine.ingest(paths)

    return _report(await state.call(work, write=True))


@router.get("/v1/documents", response_model=DocumentList, responses=ERRORS, summary="List ingested documents")
async def list_documents(state: State) -> DocumentList:
    docs = await state.call(state.runner.engine.store.documents)
    return DocumentList(documents=[
        DocumentOut(doc_id=d.doc_id, title=d.title, source=d.source, kind=d.kind, code=d.code, chunks=d.chunk_count,
                    ingested_at=d.ingested_at)
        for d in sorted(docs, key=lambda d: (d.code or "", d.title))
    ])


@router.delete(
    "/v1/documents/{doc_id}", response_model=Deleted, responses={**ERRORS, 404: {"model": ErrorBody}}, summary="Delete a document"
)
async def delete_document(doc_id: str, state: State) -> Deleted:
    """Remove the document's chunks; an uploaded file none of whose documents remain is removed too."""
    store = state.runner.engine.store

    def work() -> int | None:
        record = store.get_document(doc_id)
        if record is None:
            return None
        chunks = store.delete_document(doc_id)
        store.flush()
        origin = Path(record.origin) if record.origin else None
        uploads = uploads_dir(state).resolve()
        if origin and origin.parent == uploads and not any(d.origin == record.origin for d in store.documents()):
            origin.unlink(missing_ok=True)
        return chunks

    chunks = await state.call(work, write=True)
    if chunks is None:
        raise HTTPException(404, f"no document '{doc_id}' / 문서를 찾을 수 없습니다")
    return Deleted(doc_id=doc_id, chunks=chunks)


