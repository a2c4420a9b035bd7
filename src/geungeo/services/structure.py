"""Structure lookups: an article, chapter, attachment, the full text or the outline of a document, without a model."""

from __future__ import annotations

import re

from geungeo.engine import Engine
from geungeo.errors import NotFoundError
from geungeo.retrieval.structural import StructuralAnswer
from geungeo.services.inputs import user_query


def _place(value: str | None, template: str) -> str:
    """``8`` → ``제8조``, ``8의2`` → ``제8조의2`` (a number fills the template; anything else is kept)."""
    if not value:
        return ""
    value = value.strip()
    m = re.fullmatch(r"(\d+)(?:\s*(?:의|-)\s*(\d+))?", value)
    if not m:
        return value
    return template.format(m.group(1)) + (f"의{m.group(2)}" if m.group(2) and "조" in template else "")


def structural_query(regulation: str, article: str | None = None, chapter: str | None = None,
                     attachment: str | None = None, full: bool = False) -> str:
    """The structural query for these parameters, e.g. ``교원인사규정 제8조``."""
    if attachment and re.fullmatch(r"\d+(?:-\d+)?", attachment.strip()):
        attachment = f"별표 {attachment.strip()}"
    place = _place(article, "제{}조") or _place(chapter, "제{}장") or (attachment or "").strip()
    return f"{regulation.strip()} {place or ('전문' if full else '개요')}"


class StructureService:
    """Reads documents by their structure, straight from the store (the engine's one :class:`StructuralLookup`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def lookup(self, regulation: str, article: str | None = None, chapter: str | None = None,
               attachment: str | None = None, full: bool = False) -> tuple[str, StructuralAnswer]:
        """The query composed from the parameters and its answer; NotFoundError when nothing matches."""
        query = user_query(structural_query(regulation, article, chapter, attachment, full),
                           self.engine.settings.max_query_chars)
        result = self.engine.structural.answer(query)
        if result is None or not result.found:
            raise NotFoundError(
                result.message if result else f"'{regulation}' 문서를 찾을 수 없습니다 / no document named '{regulation}'"
            )
        return query, result
