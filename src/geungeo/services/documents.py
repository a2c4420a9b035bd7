"""Documents: list, ingest (files and uploads), delete; what the store holds.

Uploads are saved under ``<data_dir>/uploads/`` with their own (NFC) file name, which must be a plain
name: no directories, no ``..``, nothing absolute, no hidden files. Re-uploading a name replaces the file
and ingestion is incremental. An uploaded file goes when its last document is deleted, and at once when
none of it could be ingested. Reports and errors name files, never absolute server paths.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import BinaryIO

from pydantic import BaseModel

from geungeo.engine import Engine
from geungeo.errors import InvalidInputError, NotFoundError, TooLargeError, UnsupportedFileError
from geungeo.ingest.base import supported_suffixes
from geungeo.ingest.pipeline import IngestReport, Progress, WriteGuard
from geungeo.services.inputs import redact_paths
from geungeo.text.normalize import nfc
from geungeo.types import Chunk, DocumentRecord

_BLOCK = 1 << 20


class FileSummary(BaseModel):
    """What happened to one file: its name, what it gave, the error if it failed."""

    file: str
    documents: int
    chunks: int
    unchanged: int
    removed: int
    error: str | None
    seconds: float


class IngestSummary(BaseModel):
    """An ingestion run as a user sees it (file names only)."""

    files: list[FileSummary]
    documents: int
    chunks: int
    written_chunks: int
    embedded_chunks: int
    skipped: int
    failed: int
    seconds: float


@dataclass(frozen=True)
class StoreStats:
    """What the store holds."""

    documents: int
    chunks: int
    by_kind: dict[str, tuple[int, int]]  # kind -> (documents, chunks)
    size_bytes: int
    embedder: str
    interrupted: int


@dataclass(frozen=True)
class StagedUpload:
    """An upload saved beside its final place, waiting for ingestion (``part`` is moved to ``target``)."""

    name: str
    part: Path
    target: Path

    def discard(self) -> None:
        self.part.unlink(missing_ok=True)


def upload_name(raw: str | None) -> str:
    """The NFC file name if it is a plain, visible name of a readable type; InvalidInputError or UnsupportedFileError."""
    name = nfc(raw or "").strip()
    bad = (
        not name
        or name.startswith(".")
        or any(c in name for c in "/\\:\x00")
        or any(ord(c) < 32 for c in name)
        or any(0xD800 <= ord(c) <= 0xDFFF for c in name)
        or PurePosixPath(name).is_absolute()
        or bool(PureWindowsPath(name).drive)
        or len(name.encode("utf-8", "surrogatepass")) > 255
    )
    if bad:
        shown = (raw or "").encode("utf-8", "replace").decode()[:120]
        raise InvalidInputError(f"invalid file name '{shown}': give a plain name like 규정.hwpx / 잘못된 파일 이름입니다")
    suffix = Path(name).suffix.lower()
    known = supported_suffixes()
    if suffix not in known:
        raise UnsupportedFileError(
            f"unsupported file type '{suffix or name}' (supported: {', '.join(known)}) / 지원하지 않는 파일 형식입니다"
        )
    return name


class DocumentService:
    """The documents of one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.settings = engine.settings

    @property
    def uploads(self) -> Path:
        return self.settings.data_dir / "uploads"

    # --- reading ---------------------------------------------------------------------------------

    def all(self) -> list[DocumentRecord]:
        """Every ingested document, by code then title."""
        return sorted(self.engine.store.documents(), key=lambda d: (d.code or "", d.title))

    def counts(self) -> tuple[int, int]:
        """(documents, chunks) in the store."""
        store = self.engine.store
        return len(store.documents()), store.count()

    def is_empty(self) -> bool:
        return self.engine.store.count() == 0

    def chunks(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks with these ids (the ones still there)."""
        return self.engine.store.get(list(ids))

    def stats(self) -> StoreStats:
        store = self.engine.store
        docs = store.documents()
        by_kind: dict[str, tuple[int, int]] = {}
        for d in docs:
            n, c = by_kind.get(d.kind, (0, 0))
            by_kind[d.kind] = (n + 1, c + d.chunk_count)
        return StoreStats(len(docs), store.count(), by_kind, store.size_on_disk(), store.signature.embedder,
                          len(store.pending()))

    def matching(self, targets: Iterable[str]) -> list[DocumentRecord]:
        """The documents whose id, file name, title or code is one of ``targets``."""
        wanted = {nfc(t).strip() for t in targets}
        return [d for d in self.engine.store.documents() if wanted & {d.doc_id, d.source, d.title, d.code}]

    def flush(self) -> None:
        """Make pending writes visible to readers (so that no reader has to rebuild a stale index)."""
        self.engine.store.flush()

    # --- writing ---------------------------------------------------------------------------------

    def delete(self, doc_id: str) -> int:
        """Remove a document's chunks (its chunk count); an uploaded file none of whose documents remain goes too."""
        store = self.engine.store
        record = store.get_document(doc_id)
        if record is None:
            raise NotFoundError(f"no document '{doc_id}' / 문서를 찾을 수 없습니다")
        chunks = store.delete_document(doc_id)
        store.flush()
        if record.origin:
            self._remove_orphan_upload(Path(record.origin))
        return chunks

    def delete_matching(self, targets: Iterable[str]) -> tuple[list[DocumentRecord], int]:
        """Delete the documents :meth:`matching` names (NotFoundError when none does): them and their chunk count."""
        targets = list(targets)
        docs = self.matching(targets)
        if not docs:
            raise NotFoundError(f"no document matches {', '.join(sorted(set(targets)))} / 일치하는 문서가 없습니다")
        return docs, sum(self.delete(d.doc_id) for d in docs)

    def ingest(
        self, paths: Iterable[Path], progress: Progress | None = None, write_guard: WriteGuard | None = None
    ) -> IngestReport:
        """Ingest files and folders (incremental); ``write_guard`` is held around each store write."""
        return self.engine.ingest(paths, progress=progress, write_guard=write_guard)

    def stage_upload(self, source: BinaryIO, name: str) -> StagedUpload:
        """Copy an upload beside ``<uploads>/name`` (TooLargeError past ``api_max_upload_mb``); :meth:`ingest_uploads`
        puts it in place."""
        name = upload_name(name)
        folder = self.uploads
        folder.mkdir(parents=True, exist_ok=True)
        target = (folder / name).resolve()
        if target.parent != folder.resolve():
            raise InvalidInputError(f"invalid file name '{name}' / 잘못된 파일 이름입니다")
        limit = self.settings.api_max_upload_mb << 20
        part = folder / f".{uuid.uuid4().hex}.part"
        size = 0
        try:
            with part.open("wb") as out:
                while block := source.read(_BLOCK):
                    size += len(block)
                    if size > limit:
                        raise TooLargeError(
                            f"file too large: over {limit >> 20} MB (GEUNGEO_API_MAX_UPLOAD_MB) / 파일이 너무 큽니다"
                        )
                    out.write(block)
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        return StagedUpload(name, part, target)

    def ingest_uploads(
        self,
        staged: Sequence[StagedUpload],
        progress: Progress | None = None,
        write_guard: WriteGuard | None = None,
        *,
        isolated: bool = False,
    ) -> IngestReport:
        """Put staged uploads in place and ingest them (``isolated``: parsed and embedded in an ingestion process);
        a file none of whose documents could be stored is removed."""
        try:
            for upload in staged:
                os.replace(upload.part, upload.target)
            targets = [u.target for u in staged]
            report = self.engine.ingest(targets, progress=progress, write_guard=write_guard, isolated=isolated)
        except BaseException:
            for upload in staged:
                upload.discard()
                self._remove_orphan_upload(upload.target)
            raise
        for result in report.failed:
            self._remove_orphan_upload(Path(result.path))
        return report

    def _remove_orphan_upload(self, path: Path) -> None:
        """Remove ``path`` if it lies in the uploads folder and no stored document comes from it."""
        try:
            resolved = path.resolve()
        except OSError:
            return
        if resolved.parent != self.uploads.resolve():
            return
        origin = nfc(str(resolved))
        if not any(d.origin == origin for d in self.engine.store.documents()):
            resolved.unlink(missing_ok=True)

    # --- reporting -------------------------------------------------------------------------------

    def summary(self, report: IngestReport) -> IngestSummary:
        """The report with file names only and errors without server paths."""
        files = [
            FileSummary(file=Path(f.path).name, documents=f.documents, chunks=f.chunks, unchanged=f.unchanged,
                        removed=f.removed, error=self.redact(f.error) if f.error else None, seconds=round(f.seconds, 3))
            for f in report.files
        ]
        return IngestSummary(files=files, documents=report.documents, chunks=report.chunks,
                             written_chunks=report.written_chunks, embedded_chunks=report.embedded_chunks,
                             skipped=len(report.skipped),
                             failed=len(report.failed), seconds=round(report.seconds, 3))

    def redact(self, message: str) -> str:
        """``message`` without the server's folders (the uploads folder, the data directory, the working directory)."""
        data = self.settings.data_dir
        return redact_paths(message, self.uploads.resolve(), self.uploads, data.resolve(), data, Path.cwd())
