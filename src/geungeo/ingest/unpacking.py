"""Limits on what a file may inflate to: zip containers (DOCX, PPTX, HWPX …) and raw deflate streams (HWP).

A 2 MB DOCX whose XML part inflates to 2 GiB must be refused before a parser holds it in memory.
Zip members are checked against their declared sizes (Python's ``zipfile`` never inflates a member
past its declared size: a lying header ends in a CRC error, not in more output), deflate streams are
inflated with an output bound. The limit comes from ``GEUNGEO_MAX_UNPACKED_MB``; ``load_file`` sets
it for the loader it calls (:data:`UNPACKED_LIMIT`).
"""

from __future__ import annotations

import zipfile
import zlib
from contextvars import ContextVar
from pathlib import Path
from typing import IO

from geungeo.errors import LoaderError

DEFAULT_MAX_UNPACKED_BYTES = 512 << 20
# The bound of the loader running in this thread (or process); load_file sets it around each call.
UNPACKED_LIMIT: ContextVar[int] = ContextVar("unpacked_limit", default=DEFAULT_MAX_UNPACKED_BYTES)
_ZIP_MAGIC = b"PK\x03\x04"
_READ_STEP = 1 << 20


def is_zip(path: Path) -> bool:
    """Whether the file starts like a zip archive (whatever its suffix says)."""
    with path.open("rb") as fh:
        return fh.read(4) == _ZIP_MAGIC


def check_zip(path: Path, shown: str, limit: int) -> None:
    """LoaderError when a member of the zip, or all of them together, would inflate past ``limit`` bytes."""
    try:
        with zipfile.ZipFile(path) as package:
            infos = package.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise LoaderError(shown, f"broken zip container ({exc})") from exc
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size > limit or total > limit:
            raise LoaderError(
                shown,
                f"unpacks to more than {_mb(limit)} MB ({info.filename}: {_mb(info.file_size)} MB; "
                "GEUNGEO_MAX_UNPACKED_MB) / 압축을 풀면 허용 크기를 넘습니다",
            )


def contains(stream: IO[bytes], needle: bytes, limit: int) -> bool:
    """Whether ``needle`` occurs in the stream, read in steps (never more than ``limit`` bytes)."""
    seen = 0
    tail = b""
    while block := stream.read(_READ_STEP):
        seen += len(block)
        if seen > limit:
            return False
        window = tail + block
        if needle in window:
            return True
        tail = window[-len(needle) :]
    return False


def inflate(data: bytes, shown: str, *, raw: bool = True) -> bytes:
    """Inflate a (raw) deflate stream, refusing output past the current :data:`UNPACKED_LIMIT`."""
    limit = UNPACKED_LIMIT.get()
    inflater = zlib.decompressobj(-15 if raw else 15)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise LoaderError(shown, f"broken compressed stream ({exc})") from exc
    if len(out) > limit or inflater.unconsumed_tail:
        raise LoaderError(
            shown, f"a stream unpacks to more than {_mb(limit)} MB (GEUNGEO_MAX_UNPACKED_MB) / 압축을 풀면 허용 크기를 넘습니다"
        )
    return out


def _mb(n: int) -> str:
    return f"{n / (1 << 20):,.0f}"
