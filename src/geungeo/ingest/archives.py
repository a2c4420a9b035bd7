"""Archives of documents (``.tar``, ``.tar.gz``, ``.tar.xz``, ``.tar.bz2``, ``.zip``): ingested as the folder they hold.

An archive is unpacked once, streamed member by member, into ``data_dir/archives/<name>-<hash of its path>``
(again when its content changes) and ingested from there like any folder, so a run killed during the
ingestion resumes with the documents not yet written (the folder stays), and a run killed during the
unpacking starts the unpacking over (it happens in a ``.partial`` folder renamed when complete).

Only regular files are unpacked, never outside the folder (tarfile's ``data`` filter: ``..`` refused, a
leading ``/`` dropped; no links or devices), names too long for a file system are shortened, and the
members together may not inflate past ``GEUNGEO_MAX_UNPACKED_MB`` nor number more than :data:`MAX_MEMBERS`.
"""

from __future__ import annotations

import hashlib
import shutil
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO

from geungeo.errors import LoaderError
from geungeo.ingest.page_images import content_key
from geungeo.ingest.unpacking import check_zip
from geungeo.text.normalize import nfc

SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".zip")
MAX_MEMBERS = 200_000
NAME_BYTES = 240  # a file name's bytes (ext4 and most others take 255)
STAMP = ".archive-sha256"  # in the unpacked folder: the content it was unpacked from (hidden, so never ingested)


def is_archive(path: Path) -> bool:
    """Whether ``path`` names an archive of documents (by its suffix: a DOCX or HWPX is a zip too, but not this)."""
    return path.name.lower().endswith(SUFFIXES)


def unpacked(path: Path, root: Path, limit: int) -> Path:
    """The folder under ``root`` holding the members of the archive at ``path``, unpacked again when its content
    changed. The folder is named by where the archive is, not by its content, so the documents of an updated
    archive keep their ids: the unchanged ones are skipped, the changed ones replaced."""
    digest = content_key(path)
    stem = next(path.name[: -len(s)] for s in SUFFIXES if path.name.lower().endswith(s))
    where = hashlib.sha256(nfc(str(path.resolve())).encode()).hexdigest()[:16]
    folder = root / f"{nfc(stem)}-{where}"
    stamp = folder / STAMP
    if stamp.is_file() and stamp.read_text("ascii") == digest:
        return folder
    partial, old = folder.with_name(folder.name + ".partial"), folder.with_name(folder.name + ".old")
    for leftover in (partial, old):
        shutil.rmtree(leftover, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        if path.name.lower().endswith(".zip"):
            _unzip(path, partial, limit)
        else:
            _untar(path, partial, limit)
        (partial / STAMP).write_text(digest, "ascii")
        if folder.exists():
            folder.rename(old)
        partial.rename(folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return folder


def _untar(path: Path, dest: Path, limit: int) -> None:
    try:
        with tarfile.open(path) as tar:  # "r:*": any compression, read as a stream of members
            for member in _bounded(tar, path.name, limit):
                safe = tarfile.data_filter(member, str(dest))  # ".." refused, a leading "/" dropped
                source = tar.extractfile(member)
                if source is not None:
                    _write(dest, PurePosixPath(safe.name).parts, source)
    except tarfile.FilterError as exc:
        raise LoaderError(path.name, f"a member points outside the archive ({exc})") from exc
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise LoaderError(path.name, f"broken archive ({exc})") from exc


def _bounded(tar: tarfile.TarFile, shown: str, limit: int) -> Iterator[tarfile.TarInfo]:
    """The regular files of ``tar`` while they stay within ``limit`` bytes and :data:`MAX_MEMBERS` files."""
    total = count = 0
    for member in tar:
        if not member.isfile():  # links, devices and folders are not documents
            continue
        total, count = total + member.size, count + 1
        if total > limit or count > MAX_MEMBERS:
            raise LoaderError(shown, f"the archive unpacks past {limit >> 20} MB or {MAX_MEMBERS} files")
        yield member


def _unzip(path: Path, dest: Path, limit: int) -> None:
    check_zip(path, path.name, limit)  # declared sizes, before anything is written
    try:
        with zipfile.ZipFile(path) as package:
            members = [m for m in package.infolist() if not m.is_dir()]
            if len(members) > MAX_MEMBERS:
                raise LoaderError(path.name, f"the archive holds more than {MAX_MEMBERS} files")
            for member in members:
                parts = PurePosixPath(_name(member).replace("\\", "/")).parts
                if not parts or parts[0] == "/" or ".." in parts:
                    raise LoaderError(path.name, f"a member points outside the archive: {member.filename!r}")
                with package.open(member) as source:
                    _write(dest, parts, source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise LoaderError(path.name, f"broken archive ({exc})") from exc


def _write(dest: Path, parts: tuple[str, ...], source: IO[bytes]) -> None:
    """Copy ``source`` to ``dest``/``parts``, each part shortened to what a file system takes."""
    target = dest.joinpath(*(_fit(part) for part in parts))
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as out:
        shutil.copyfileobj(source, out)


def _fit(part: str) -> str:
    """``part`` within :data:`NAME_BYTES` bytes of UTF-8: a long Korean title (a statute's full name runs past 255
    bytes) keeps its start, a hash of the whole and its suffix. Titles come from the documents, not their names."""
    raw = part.encode()
    if len(raw) <= NAME_BYTES:
        return part
    suffix = PurePosixPath(part).suffix if len(PurePosixPath(part).suffix) <= 10 else ""
    digest = hashlib.sha1(raw).hexdigest()[:10]
    keep = raw[: NAME_BYTES - len(suffix.encode()) - len(digest) - 1].decode(errors="ignore")
    return f"{keep}-{digest}{suffix}"


def _name(member: zipfile.ZipInfo) -> str:
    """The member's name: zips made on Korean Windows store CP949 names without the UTF-8 flag (read as CP437)."""
    if member.flag_bits & 0x800:
        return member.filename
    try:
        return member.filename.encode("cp437").decode("cp949")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return member.filename
