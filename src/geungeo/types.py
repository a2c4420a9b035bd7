"""Plain value types shared by every layer: loaders, chunking, stores, retrieval."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

Category = Literal["title", "heading", "paragraph", "table", "list", "article", "addendum", "attachment", "figure"]
DocKind = Literal["law", "regulation", "pdf", "hwp", "hwpx", "docx", "pptx", "html", "text", "image"]
MetaValue = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Table:
    """A table as a structured entity: optional caption, one header row and the body rows.

    Loaders build it with :meth:`from_rows` from cell texts (merged cells already resolved);
    :meth:`markdown` is the text rendering that retrieval indexes, and :meth:`to_json` is what
    chunk metadata keeps so answers can point at the table's rows.
    """

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...] = ()
    caption: str | None = None

    @classmethod
    def from_rows(cls, rows: list[list[str]], caption: str | None = None) -> Table | None:
        """The first non-empty row is the header; empty rows are dropped; None when nothing is left."""
        cleaned = [tuple(" ".join(cell.split()) for cell in row) for row in rows]
        cleaned = [row for row in cleaned if any(row)]
        if not cleaned:
            return None
        return cls(header=cleaned[0], rows=tuple(cleaned[1:]), caption=caption or None)

    @property
    def width(self) -> int:
        return max([len(self.header), *(len(r) for r in self.rows)])

    def markdown(self, rows: tuple[tuple[str, ...], ...] | None = None) -> str:
        """A Markdown table (caption line first when there is one); ``rows`` picks a slice of the body."""

        def line(cells: tuple[str, ...]) -> str:
            padded = list(cells) + [""] * (self.width - len(cells))
            return "| " + " | ".join(c.replace("|", "\\|") for c in padded) + " |"

        body = self.rows if rows is None else rows
        lines = [self.caption] if self.caption else []
        lines += [line(self.header), "|" + "---|" * self.width]
        lines += [line(r) for r in body]
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps({"caption": self.caption, "header": self.header, "rows": self.rows}, ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str) -> Table:
        data: dict[str, Any] = json.loads(raw)
        return cls(
            header=tuple(data.get("header") or ()),
            rows=tuple(tuple(r) for r in data.get("rows") or ()),
            caption=data.get("caption"),
        )


@dataclass(frozen=True, slots=True)
class Element:
    """One structural unit a loader found in a file, in reading order.

    ``path`` is the heading path above the element (``("제2장 학사", "제3절 휴학")``).
    Statute-like documents emit one ``article`` element per 조, with ``article`` set to the
    normalised number (``제43조의2``) and ``article_title`` to its title; 부칙 text comes as
    ``addendum`` elements and 별표/서식 as ``attachment`` elements named by ``attachment``.
    A ``table`` element carries its structured :class:`Table` in ``table`` and its Markdown
    rendering in ``text``. Text read from a page image by OCR carries ``ocr_confidence``.
    """

    text: str
    category: Category = "paragraph"
    page: int | None = None
    path: tuple[str, ...] = ()
    article: str | None = None
    article_title: str | None = None
    attachment: str | None = None
    table: Table | None = None
    ocr_confidence: float | None = None  # set when the text was read by OCR: Tesseract's mean word confidence (0–1)


@dataclass(slots=True)
class Document:
    """One logical document: a statute, one regulation of a 규정집, a PDF, an HWP plan.

    A file can hold many documents (the HWPX regulation book holds hundreds). ``key`` tells
    documents of one file apart (the regulation code); ``doc_id`` is derived from source and key.
    """

    source: str
    title: str
    kind: DocKind
    elements: list[Element]
    key: str = ""
    code: str | None = None
    meta: dict[str, MetaValue] = field(default_factory=dict)
    origin: str = ""  # the resolved file path, set by the ingestion pipeline

    @property
    def doc_id(self) -> str:
        from geungeo.text.normalize import stable_id

        return stable_id(self.origin or self.source, self.key)

    @property
    def content_hash(self) -> str:
        from geungeo.text.normalize import content_hash

        parts = [self.title, self.code or "", repr(sorted(self.meta.items()))]
        for e in self.elements:
            parts.append(f"{e.category}|{e.page}|{'/'.join(e.path)}|{e.article}|{e.article_title}|{e.attachment}|{e.text}")
        return content_hash("\n".join(parts))


def chunk_id(doc_id: str, ordinal: int) -> str:
    """The id of a document's ``ordinal``-th chunk."""
    return f"{doc_id}-{ordinal:05d}"


def doc_id_of(chunk: str) -> str:
    """The document id of a chunk id (:func:`chunk_id` read backwards)."""
    return chunk.rsplit("-", 1)[0]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable passage with its header and location.

    ``header`` is the citation label (``근로기준법 제60조(연차 유급휴가)``); ``text`` the body.
    ``meta`` holds flat scalar fields usable in filters: doc, code, kind, source, chapter,
    article, article_title, page, category, addendum, attachment.
    """

    id: str
    doc_id: str
    ordinal: int
    header: str
    text: str
    meta: dict[str, MetaValue]
    prev_id: str | None = None
    next_id: str | None = None

    @property
    def indexed_text(self) -> str:
        """What dense and sparse indexes see: the header gives every chunk its context."""
        return f"{self.header}\n{self.text}" if self.header else self.text

    @property
    def context(self) -> str:
        """Where the chunk sits, beyond its header: document title, section path, table caption, and the
        LLM's one-sentence summary when ingestion wrote one (:mod:`geungeo.chunking.llm_context`)."""
        from geungeo.text.normalize import squash

        seen = squash(f"{self.header}\n{self.text}")
        parts: list[str] = []
        meta = self.meta
        for value in (meta.get("doc"), meta.get("chapter"), _caption(meta.get("table")), meta.get("context_summary")):
            if isinstance(value, str) and value.strip() and squash(value) not in seen:
                parts.append(value.strip())
                seen += squash(value)
        return " › ".join(parts)

    def contextual_text(self) -> str:
        """The indexed text with the context line after the header (contextualised chunk text)."""
        context = self.context
        return f"{self.header}\n{context}\n{self.text}" if context else self.indexed_text


def _caption(table_json: MetaValue) -> str | None:
    return Table.from_json(table_json).caption if isinstance(table_json, str) and table_json else None


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """What a store keeps about an ingested document."""

    doc_id: str
    source: str
    title: str
    kind: str
    code: str | None
    content_hash: str
    chunk_count: int
    origin: str = ""
    ingested_at: float = 0.0


@dataclass(frozen=True, slots=True)
class Link:
    """A citation from a chunk to an article, as the store resolves it when read.

    ``doc`` is the cited document's title as the citation names it (``근로기준법``, the citing document's own
    title for 이 법 / a bare 제N조), ``article`` the cited 조 and ``detail`` its 항/호/목 (``제1항제2호``).
    ``targets`` are the chunks of that article (an article may be split into several); empty while no document
    of that title is ingested (unresolved), filled once one is.
    """

    source: str
    doc: str
    article: str
    detail: str = ""
    targets: tuple[str, ...] = ()

    @property
    def resolved(self) -> bool:
        return bool(self.targets)


@dataclass(slots=True)
class Hit:
    """A retrieved chunk with its fused score and each retriever's rank and score."""

    chunk: Chunk
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
