"""Plain value types shared by every layer: loaders, chunking, stores, retrieval."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Category = Literal["title", "heading", "paragraph", "table", "list", "article", "addendum", "attachment", "figure"]
DocKind = Literal["law", "regulation", "pdf", "hwp", "hwpx", "docx", "pptx", "html", "text"]
MetaValue = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Element:
    """One structural unit a loader found in a file, in reading order.

    ``path`` is the heading path above the element (``("제2장 학사", "제3절 휴학")``).
    Statute-like documents emit one ``article`` element per 조, with ``article`` set to the
    normalised number (``제43조의2``) and ``article_title`` to its title; 부칙 text comes as
    ``addendum`` elements and 별표/서식 as ``attachment`` elements named by ``attachment``.
    """

    text: str
    category: Category = "paragraph"
    page: int | None = None
    path: tuple[str, ...] = ()
    article: str | None = None
    article_title: str | None = None
    attachment: str | None = None


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


@dataclass(slots=True)
class Hit:
    """A retrieved chunk with its fused score and each retriever's rank and score."""

    chunk: Chunk
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
