"""Image loader: PNG, JPEG and TIFF files read by OCR (:mod:`geungeo.ingest.ocr`), one document a file.

Every frame of a multi-page TIFF is a page. Without Tesseract the file is rejected with that reason.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageSequence, UnidentifiedImageError

from geungeo.errors import LoaderError
from geungeo.ingest import ocr
from geungeo.ingest.base import Loader, loader, source_name
from geungeo.text.normalize import nfc
from geungeo.types import Document, Element, MetaValue


def load_image(path: Path) -> list[Document]:
    """One document: each page's OCR paragraphs in Tesseract's reading order."""
    name = source_name(path)
    reason = ocr.unavailable_reason()
    if reason is not None:
        raise LoaderError(nfc(str(path)), f"an image needs OCR but {reason}")
    try:
        image = Image.open(path)
    except (UnidentifiedImageError, OSError) as exc:
        raise LoaderError(nfc(str(path)), f"not a readable image ({exc})") from exc
    elements: list[Element] = []
    with image:
        pages = 0
        for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
            pages = number
            page = frame.convert("RGB") if frame.mode not in {"L", "RGB"} else frame.copy()
            result = ocr.ocr_image(page, label=f"{name} p.{number}")
            elements += [
                Element(text, "paragraph", page=number, ocr_confidence=result.confidence) for text in result.paragraphs
            ]
    meta: dict[str, MetaValue] = {"file_name": name, "pages": pages}
    return [Document(source=name, title=name, kind="image", elements=elements, meta=meta)]


@loader(".png", ".jpg", ".jpeg", ".tif", ".tiff")
def _factory() -> Loader:
    return load_image
