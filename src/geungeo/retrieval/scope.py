"""Which documents a query names: "근로기준법에 따르면 …", "동의대학교대학원학칙상 …", "3-1-5".

People name the statute or regulation they mean in a large share of questions. Spotting the
name (spaces ignored, common suffixes optional) lets retrieval add a ranking restricted to
that document, without an LLM. When names overlap ("학칙" inside "대학원학칙"), only the
longest name found at a place in the query counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from geungeo.text.normalize import nfc
from geungeo.types import DocumentRecord

if TYPE_CHECKING:
    from geungeo.stores.base import ChunkStore

_MIN_ALIAS = 3
_DROP_PREFIXES = ("동의대학교",)
_SHORTEN_SUFFIXES = ("에관한법률", "에관한규정", "에관한세칙", "등에관한법률", "법률")
_CODE = re.compile(r"(?<![\d-])(\d{1,2}-\d{1,2}-\d{1,3})(?![\d-])")


def _key(text: str) -> str:
    return re.sub(r"[\s·ㆍ.,()「」『』\"'“”‘’]", "", nfc(text))


def name_key(text: str) -> str:
    """A document name as names are compared: NFC, without spaces and punctuation."""
    return _key(text)


def aliases(title: str) -> set[str]:
    """Spellings of a document title people use (spaces and punctuation ignored)."""
    base = _key(re.sub(r"\.(md|txt|pdf|hwp|hwpx|docx|pptx|html?)$", "", title, flags=re.IGNORECASE))
    out = {base}
    for prefix in _DROP_PREFIXES:
        if base.startswith(prefix) and len(base) - len(prefix) >= _MIN_ALIAS - 1:
            out.add(base[len(prefix) :])
    for suffix in _SHORTEN_SUFFIXES:
        for name in list(out):
            if name.endswith(suffix) and len(name) - len(suffix) >= _MIN_ALIAS:
                out.add(name[: -len(suffix)] + ("법" if suffix.endswith("법률") else ""))
    return {a for a in out if len(a) >= _MIN_ALIAS - 1}


@dataclass
class DocumentScope:
    """Finds the documents a query names among the stored ones."""

    by_alias: dict[str, set[str]]
    by_code: dict[str, set[str]]

    @classmethod
    def build(cls, documents: Iterable[DocumentRecord]) -> DocumentScope:
        by_alias: dict[str, set[str]] = {}
        by_code: dict[str, set[str]] = {}
        for doc in documents:
            for alias in aliases(doc.title):
                by_alias.setdefault(alias, set()).add(doc.doc_id)
            if doc.code:
                by_code.setdefault(doc.code, set()).add(doc.doc_id)
        return cls(by_alias, by_code)

    def exact(self, name: str) -> set[str]:
        """Ids of the documents one of whose aliases is exactly ``name`` (not merely inside it)."""
        return set(self.by_alias.get(_key(name), set()))

    def named(self, query: str) -> set[str]:
        """Ids of the documents the query names (empty when it names none)."""
        key = _key(query)
        spans: list[tuple[int, int, str]] = []
        for alias in self.by_alias:
            start = key.find(alias)
            while start >= 0:
                spans.append((start, start + len(alias), alias))
                start = key.find(alias, start + 1)
        kept = [s for s in spans if not any(o[0] <= s[0] and s[1] <= o[1] and (o[1] - o[0]) > (s[1] - s[0]) for o in spans)]
        found = {doc_id for _, _, alias in kept for doc_id in self.by_alias[alias]}
        for code in _CODE.findall(nfc(query)):
            found |= self.by_code.get(code, set())
        return found


class StoredDocuments:
    """A store's documents (by code, title) and their name matcher, rebuilt when the store's documents change.

    Shared by retrieval (document scoping) and the structural lookups, so both see the same snapshot.
    """

    def __init__(self, store: ChunkStore) -> None:
        self.store = store
        self._cache: tuple[list[DocumentRecord], DocumentScope] | None = None

    def current(self) -> tuple[list[DocumentRecord], DocumentScope]:
        """The documents now (each record names its content and time of writing, so a document written again under
        another title is seen even with as many chunks as before) and their matcher, built again only on a change."""
        docs = sorted(self.store.documents(), key=lambda d: (d.code or "", d.title, d.doc_id))
        if self._cache is None or self._cache[0] != docs:
            self._cache = (docs, DocumentScope.build(docs))
        return self._cache
