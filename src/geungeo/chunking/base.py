"""Documents to chunks: units (article, page, section) cut to size, with headers and links."""

from __future__ import annotations

from geungeo.chunking.split import Piece, split_elements
from geungeo.chunking.units import Unit, iter_units
from geungeo.types import Chunk, Document, MetaValue, chunk_id


def _meta(doc: Document, unit: Unit, piece: Piece, part: int, parts: int) -> dict[str, MetaValue]:
    """Location metadata; ``table`` is the JSON of the table part the chunk holds (caption, header, its rows);
    ``headings`` the lines of the chunk's text that are headings of the unit (one a line)."""
    e = unit.first
    body = next((el for el in unit.elements if el.category != "heading"), e)  # what the unit holds under its headings
    pages = [el.page for el in unit.elements if el.page is not None]
    meta: dict[str, MetaValue] = {
        "doc_id": doc.doc_id,
        "doc": doc.title,
        "code": doc.code,
        "kind": doc.kind,
        "source": doc.source,
        "chapter": " > ".join(e.path) if e.path else None,
        "article": e.article,
        "article_title": e.article_title,
        "attachment": e.attachment,
        "page": min(pages) if pages else None,
        "category": "table" if piece.only_table or all(el.category == "table" for el in unit.elements) else body.category,
        "addendum": e.category == "addendum",
        "part": part if parts > 1 else None,
        "ocr_confidence": min((c for el in unit.elements if (c := el.ocr_confidence) is not None), default=None),
        "headings": "\n".join(el.text for el in unit.elements if el.category == "heading" and el.text in piece.text)
        or None,
    }
    if piece.table is not None:
        meta["table"] = piece.table.to_json()
    return meta


def chunk_document(doc: Document, *, size: int = 1200, overlap: int = 100) -> list[Chunk]:
    """Cut ``doc`` into chunks that follow its structure.

    An article is one chunk when it fits; a longer one splits at 항 boundaries, and a table
    between rows, each part under the table's caption and header again. Every chunk carries its
    citation header and location metadata (``table``: the rows it holds, as JSON), and knows its
    previous and next chunk.
    """
    drafts: list[tuple[str, str, dict[str, MetaValue]]] = []
    for unit in iter_units(doc):
        pieces = split_elements(unit.elements, size, overlap)
        for i, piece in enumerate(pieces, start=1):
            drafts.append((unit.label, piece.text, _meta(doc, unit, piece, i, len(pieces))))
    doc_id = doc.doc_id
    ids = [chunk_id(doc_id, n) for n in range(len(drafts))]
    return [
        Chunk(
            id=ids[n],
            doc_id=doc_id,
            ordinal=n,
            header=header,
            text=text,
            meta=meta,
            prev_id=ids[n - 1] if n else None,
            next_id=ids[n + 1] if n + 1 < len(ids) else None,
        )
        for n, (header, text, meta) in enumerate(drafts)
    ]
