"""Loader protocol and the registry that maps file suffixes to loaders.

A loader is pure: a path in, :class:`~geungeo.types.Document` objects out (one file may hold
many documents). It raises :class:`~geungeo.errors.LoaderError` with a one-line reason for
anything it cannot read; the pipeline reports that and goes on with the rest of the batch.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from geungeo.errors import LoaderError
from geungeo.ingest.unpacking import DEFAULT_MAX_UNPACKED_BYTES, UNPACKED_LIMIT, check_zip, is_zip
from geungeo.text.normalize import nfc
from geungeo.types import Document


class Loader(Protocol):
    """Turns one file into documents."""

    def __call__(self, path: Path) -> list[Document]: ...


# What loaders and chunking emit, versioned: a file already ingested is parsed again when this changes
# (2: tables as structured entities in Markdown, PDF tables and figures, page images; 3: PDF lines wrapped without a
# space joined; 4: PDF lines in larger type and contents entries naming them as heading elements, chunks naming
# their headings; 5: dingbat-font bullets read as the glyphs they draw; 6: PDF pages of text only join their
# wrapped lines too; 7: a PDF line whose next line lies above it ends its paragraph; 8: a table cell spanning columns
# is written in its first column and leaves the others empty, so every cell stays under its own column; 9: an
# article title holding parentheses of its own, "제26조(입시 연장(야간, 주말) 근로 수당)", is read whole; 10: an HWP
# plan's contents lines naming its headings are headings, as a PDF's are; 11: a line break inside an HWP or HWPX
# paragraph is the space it wraps unless the next line opens with a mark of its own; 12: a table cell holding one word
# written letter-spaced, "구 분", is that word).
FORMAT_VERSION = 12

LOADERS: dict[str, Callable[[], Loader]] = {}
_BUILTIN_MODULES = ("text", "hwpx", "hwp", "pdf", "office", "html", "image")


def loader(*suffixes: str) -> Callable[[Callable[[], Loader]], Callable[[], Loader]]:
    """Register a loader factory for file suffixes (``".md"``); built-ins use the same door."""

    def deco(factory: Callable[[], Loader]) -> Callable[[], Loader]:
        for suffix in suffixes:
            LOADERS[suffix.lower()] = factory
        return factory

    return deco


def _register_builtins() -> None:
    for name in _BUILTIN_MODULES:
        importlib.import_module(f"geungeo.ingest.{name}")


def supported_suffixes() -> list[str]:
    """File suffixes some loader accepts."""
    _register_builtins()
    return sorted(LOADERS)


def source_name(path: Path) -> str:
    """The NFC file name, used as a document's source and as the title of untitled files."""
    return nfc(path.name)


def load_file(path: Path, *, max_unpacked_bytes: int = DEFAULT_MAX_UNPACKED_BYTES) -> list[Document]:
    """Load one file with the loader registered for its suffix.

    Raises LoaderError for a missing, empty, unknown-type or unreadable file, and for one that would
    inflate past ``max_unpacked_bytes`` (a zip container's members, a compressed stream).
    """
    _register_builtins()
    shown = nfc(str(path))
    if not path.exists():
        raise LoaderError(shown, "no such file")
    if not path.is_file():
        raise LoaderError(shown, "not a regular file")
    suffix = path.suffix.lower()
    factory = LOADERS.get(suffix)
    if factory is None:
        raise LoaderError(shown, f"unsupported file type '{suffix or '(none)'}' (supported: {', '.join(sorted(LOADERS))})")
    if path.stat().st_size == 0:
        raise LoaderError(shown, "empty file")
    if is_zip(path):
        check_zip(path, shown, max_unpacked_bytes)
    bound = UNPACKED_LIMIT.set(max_unpacked_bytes)
    try:
        docs = factory()(path)
    except LoaderError:
        raise
    except Exception as exc:  # a third-party parser failing on a broken file
        raise LoaderError(shown, f"cannot read {suffix[1:].upper()} file ({type(exc).__name__}: {exc})") from exc
    finally:
        UNPACKED_LIMIT.reset(bound)
    docs = [d for d in docs if any(e.text.strip() for e in d.elements)]
    if not docs:
        raise LoaderError(shown, "no text found (scanned or empty document?)")
    return docs
