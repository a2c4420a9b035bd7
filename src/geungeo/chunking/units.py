"""Units: the pieces of a document that chunks are cut from, before size limits apply.

A unit is a run of elements that belong together and share one citation label: one article
with the tables inside it, one 부칙 block with its tables, one 별표, one PDF page, one section
of paragraphs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from geungeo.types import Document, Element

STATUTE_KINDS = frozenset({"law", "regulation"})


@dataclass(frozen=True, slots=True)
class Unit:
    """Elements that form one citable passage and the label they are cited by."""

    label: str
    elements: tuple[Element, ...]

    @property
    def first(self) -> Element:
        return self.elements[0]

    @property
    def text(self) -> str:
        return "\n".join(e.text for e in self.elements if e.text.strip())


def doc_label(doc: Document) -> str:
    """``교원인사규정(3-1-5)`` for regulations with a code, else the title."""
    return f"{doc.title}({doc.code})" if doc.code else doc.title


def element_label(doc: Document, e: Element) -> str:
    """The citation label of an element: ``근로기준법 제60조(연차 유급휴가)``, ``X.pdf p.4`` …"""
    base = doc_label(doc)
    if e.article:
        return f"{base} {e.article}" + (f"({e.article_title})" if e.article_title else "")
    if e.attachment:
        return f"{base} {e.attachment}"
    if e.category == "addendum":
        first = e.text.split("\n", 1)[0].strip()
        return f"{base} {first}" if first.startswith("부칙") else f"{base} 부칙"
    if e.page is not None:
        return f"{doc.source} p.{e.page}"
    if doc.kind in STATUTE_KINDS:
        return base
    return f"{base} › {e.path[-1]}" if e.path else base


def _key(doc: Document, e: Element) -> tuple[object, ...]:
    """Elements with equal keys stay in one unit."""
    if e.article or e.attachment:
        return ("a", e.article, e.attachment)
    if e.category == "addendum":
        return ("addendum", id(e))  # each 부칙 block is its own unit
    if e.page is not None:
        return ("page", e.page)
    return ("section", e.path)


def iter_units(doc: Document) -> Iterator[Unit]:
    """Group consecutive elements that share an article, attachment, page or section."""
    run: list[Element] = []
    run_key: tuple[object, ...] | None = None
    for e in doc.elements:
        if not e.text.strip():
            continue
        key = _key(doc, e)
        if run_key and run_key[0] == "addendum" and e.category == "table" and e.path == run[0].path:
            key = run_key  # a table printed in a 부칙 block stays in it
        if run and key != run_key:
            yield Unit(element_label(doc, run[0]), tuple(run))
            run = []
        run.append(e)
        run_key = key
    if run:
        yield Unit(element_label(doc, run[0]), tuple(run))
