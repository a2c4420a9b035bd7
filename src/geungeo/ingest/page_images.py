"""PDF pages rendered once to PNG at ingestion, for answers that cite a page.

An image lies at ``<data_dir>/page_images/<sha256 of the file>/p<N>.png`` (150 dpi), and
chunks keep that path relative to the data directory in their ``page_image`` meta. Keying by
content means a re-ingested, renamed or copied file reuses its images and a changed file gets
new ones; a page whose PNG exists is never rendered again (a store rebuild keeps them too).
PNGs are written to a temporary name and renamed, so an interrupted run leaves no half image.
Images of deleted or changed files are not removed: delete ``page_images/`` to reclaim the
space (the next ingestion of a changed document renders its pages again).
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import pypdfium2

from geungeo.types import Chunk

DPI = 150
FOLDER = "page_images"
META_KEY = "page_image"

log = logging.getLogger(__name__)


def content_key(path: Path) -> str:
    """sha256 of the file's bytes."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def render_pages(path: Path, data_dir: Path, *, dpi: int = DPI) -> dict[int, str]:
    """Page number (1-based) → PNG path relative to ``data_dir``; renders only missing pages.

    A file pdfium cannot open or render gives no (or fewer) images and a logged warning: page
    images are an extra, never a reason to fail an ingestion.
    """
    try:
        key = content_key(path)
        pdf = pypdfium2.PdfDocument(path)
    except (OSError, pypdfium2.PdfiumError) as exc:
        log.warning("%s: no page images (%s)", path.name, exc)
        return {}
    images: dict[int, str] = {}
    try:
        for index in range(len(pdf)):
            relative = f"{FOLDER}/{key}/p{index + 1}.png"
            target = data_dir / relative
            if not target.is_file():
                _render(pdf[index], target, dpi)
            images[index + 1] = relative
    except (OSError, pypdfium2.PdfiumError) as exc:
        log.warning("%s: page images stop at page %d (%s)", path.name, len(images), exc)
    finally:
        pdf.close()
    return images


def _render(page: pypdfium2.PdfPage, target: Path, dpi: int) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}.part")
    page.render(scale=dpi / 72).to_pil().save(partial, format="PNG", dpi=(dpi, dpi))
    os.replace(partial, target)


def resolve(data_dir: Path, relative: object) -> Path | None:
    """The PNG a chunk's ``page_image`` names, if it exists inside ``data_dir`` (never a path outside it)."""
    if not isinstance(relative, str) or not relative.strip():
        return None
    root = data_dir.resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root / FOLDER) or path.suffix.lower() != ".png" or not path.is_file():
        return None
    return path


def attach(chunks: list[Chunk], images: dict[int, str]) -> None:
    """Record on each chunk the image of its page (None for a chunk without a page)."""
    for chunk in chunks:
        page = chunk.meta.get("page")
        chunk.meta[META_KEY] = images.get(page) if isinstance(page, int) else None
