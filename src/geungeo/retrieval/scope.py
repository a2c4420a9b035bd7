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

from geungeo.stores.base import ChunkStore, UntilChanged
from geungeo.text.normalize import nfc
from geungeo.types import DocumentRecord

_MIN_ALIAS = 3
_DROP_PREFIXES = ("동의대학교",)
_SHORTEN_SUFFIXES = ("에관한법률", "에관한규정", "에관한세칙", "등에관한법률", "법률")
_CODE = re.compile(r"(?<![\d-])(\d{1,2}-\d{1,2}-\d{1,3})(?![\d-])")
# What a statute or regulation's name ends with.
_TITLE_SUFFIX = r"(?:법률|법|시행령|시행규칙|규칙|규정|세칙|학칙|정관|지침|요령|내규|규약)"
_TITLE_FORM = re.compile(f"{_TITLE_SUFFIX}$")
# A name written as a citation, so that it names a document whether or not the store holds it: in 「」, or a word
# ending like a title right before 상 ("소득세법상"), an article ("소득세법 제55조") or "에 따르면/의하면/따른/의한"; a
# 시행령 or 시행규칙 with its 법 before it. Words of two syllables are left out ("방법상", "같은 법 제3조", "동법").
_CITED = re.compile(
    r"「\s*([^」]{2,60}?)\s*」"
    rf"|(?<![가-힣])((?:[가-힣]{{2,30}}법\s?)?[가-힣]{{0,30}}{_TITLE_SUFFIX})"
    r"(?=상(?![가-힣])|\s*제\s*\d+\s*조|\s*에\s*(?:따르면|의하면|따른|의한))"
)


_UNKEYED = re.compile(r"[\s·ㆍ.,()「」『』\"'“”‘’]")  # left out when names are compared


def _key(text: str) -> str:
    return _UNKEYED.sub("", nfc(text))


def name_key(text: str) -> str:
    """A document name as names are compared: NFC, without spaces and punctuation."""
    return _key(text)


def _title_key(title: str) -> str:
    """A document title as names are compared, without its file extension."""
    return _key(re.sub(r"\.(md|txt|pdf|hwp|hwpx|docx|pptx|html?)$", "", title, flags=re.IGNORECASE))


def aliases(title: str) -> set[str]:
    """Spellings of a document title people use (spaces and punctuation ignored)."""
    base = _title_key(title)
    out = {base}
    for prefix in _DROP_PREFIXES:
        if base.startswith(prefix) and len(base) - len(prefix) >= _MIN_ALIAS - 1:
            out.add(base[len(prefix) :])
    for suffix in _SHORTEN_SUFFIXES:
        for name in list(out):
            if name.endswith(suffix) and len(name) - len(suffix) >= _MIN_ALIAS:
                out.add(name[: -len(suffix)] + ("법" if suffix.endswith("법률") else ""))
    return {a for a in out if len(a) >= _MIN_ALIAS - 1}


def _by_alias(titled: Iterable[tuple[str, str]], form: re.Pattern[str] | None = None) -> dict[str, set[str]]:
    """Document ids by each alias of their titles (``(title, id)`` pairs), only aliases matching ``form`` if given."""
    by_alias: dict[str, set[str]] = {}
    for title, doc_id in titled:
        for alias in aliases(title):
            if form is None or form.search(alias):
                by_alias.setdefault(alias, set()).add(doc_id)
    return by_alias


@dataclass(frozen=True)
class Naming:
    """The documents a query names (``ids``) and each name the query writes as a title, as it writes it (``names``:
    "근로기준법", "근기법", "동의대학교 대학원학칙", "3-1-5"; not "등록금", which names 등록금에관한규정 as a word)."""

    ids: set[str]
    names: tuple[str, ...]


@dataclass
class DocumentScope:
    """Finds the documents a query names among the stored ones."""

    by_alias: dict[str, set[str]]
    by_code: dict[str, set[str]]
    titles: frozenset[str] = frozenset()  # the documents' whole titles (:func:`_title_key`)

    @classmethod
    def build(cls, documents: Iterable[DocumentRecord]) -> DocumentScope:
        docs = list(documents)
        by_code: dict[str, set[str]] = {}
        for doc in docs:
            if doc.code:
                by_code.setdefault(doc.code, set()).add(doc.doc_id)
        return cls(_by_alias((doc.title, doc.doc_id) for doc in docs), by_code, frozenset(_title_key(d.title) for d in docs))

    @classmethod
    def of_titles(cls, titles: Iterable[str]) -> DocumentScope:
        """A scope over documents known by their titles alone (a title is its document's id), named only in forms
        that read as titles: ending in 법, 규정, 학칙 … ("등록금" of 등록금에관한규정 is a word, not a name)."""
        titles = list(titles)
        by_alias = _by_alias(((title, title) for title in titles), _TITLE_FORM)
        return cls(by_alias, {}, frozenset(_title_key(t) for t in titles))

    def exact(self, name: str) -> set[str]:
        """Ids of the documents one of whose aliases is exactly ``name`` (not merely inside it)."""
        return set(self.by_alias.get(_key(name), set()))

    def named(self, query: str) -> set[str]:
        """Ids of the documents the query names (empty when it names none)."""
        return self.naming(query).ids

    def naming(self, query: str) -> Naming:
        """The documents the query names, and the names as the query writes them."""
        text = nfc(query)
        kept_at = [i for i, ch in enumerate(text) if not _UNKEYED.match(ch)]  # where each letter of the key stands
        key = "".join(text[i] for i in kept_at)
        spans: list[tuple[int, int, str]] = []
        for alias in self.by_alias:
            start = key.find(alias)
            while start >= 0:
                spans.append((start, start + len(alias), alias))
                start = key.find(alias, start + 1)
        kept = [s for s in spans if not any(o[0] <= s[0] and s[1] <= o[1] and (o[1] - o[0]) > (s[1] - s[0]) for o in spans)]
        found = {doc_id for _, _, alias in kept for doc_id in self.by_alias[alias]}
        # a name as the question writes it, when written as one: a whole title or one ending like a title, not a
        # word it shortens to ("등록금" of 등록금에관한규정, which names the document but is also what is asked about)
        names = [
            text[kept_at[start] : kept_at[end - 1] + 1]
            for start, end, alias in kept
            if alias in self.titles or _TITLE_FORM.search(alias)
        ]
        for code in _CODE.findall(text):
            if code in self.by_code:
                found |= self.by_code[code]
                names.append(code)
        # a name cited in a shortened form ("근기법상", "파견법 제6조"): the document it shortens from its first letter
        for name in _cited_names(query):
            cited = _key(name)
            if any(cited.endswith(alias) for _, _, alias in kept):
                continue
            shortened = self.abbreviated(name, inside=False)
            found |= shortened
            if shortened and not any(alias.endswith(cited) for _, _, alias in kept):  # not the tail of a name found
                names.append(name)
        return Naming(found, tuple(names))

    def abbreviated(self, name: str, *, loose: bool = False, inside: bool = True) -> set[str]:
        """Ids of the documents ``name`` shortens: with ``inside``, a name found inside a stored one's
        ("고령자고용촉진법" in "고용상 연령차별금지 및 고령자고용촉진에 관한 법률", but also "의료법" in 응급의료법), or its
        letters in order, ending alike and, unless ``loose``, starting alike ("근기법" for 근로기준법, not 근로기준법
        시행령; loosely also "청탁금지법" for 부정청탁 및 금품등 수수의 금지에 관한 법률)."""
        key = _key(name)
        if len(key) < _MIN_ALIAS:
            return set()
        found: set[str] = set()
        for alias, ids in self.by_alias.items():
            if (inside and key in alias) or (
                alias[-1] == key[-1] and (loose or alias[0] == key[0]) and _in_order(key, alias)
            ):
                found |= ids
        return found

    def holds(self, name: str) -> set[str]:
        """Ids of the documents a name written as a title means: exactly, ending with a stored name of three letters
        or more ("본교 대학원학칙" is 대학원학칙; "고등교육법 시행령" is not 고등교육법, nor "난민법" 민법) or shortening one
        from its first letter ("근기법"; "의료법" is not 응급의료법)."""
        key = _key(name)
        long_enough = (item for item in self.by_alias.items() if len(item[0]) >= _MIN_ALIAS)
        ending = {doc_id for alias, ids in long_enough if key.endswith(alias) for doc_id in ids}
        return self.exact(name) or ending or self.abbreviated(name, inside=False)

    def absent(self, query: str) -> list[str]:
        """The documents ``query`` cites by name (「소득세법」, "소득세법상", "소득세법 제55조") that the store does not
        hold (:meth:`holds`, or a loose shortening of a stored name: a name people use should not be refused)."""
        return [n for n in _cited_names(query) if not (self.holds(n) or self.abbreviated(n, loose=True))]


def _cited_names(query: str) -> list[str]:
    """The names ``query`` cites as citations do (:data:`_CITED`), each once: three letters or more, not a bare
    suffix ("시행령 제3조")."""
    names = (m.group(1) or m.group(2) for m in _CITED.finditer(nfc(query)))
    cited = [n.strip() for n in names if len(_key(n)) >= _MIN_ALIAS and not re.fullmatch(_TITLE_SUFFIX, _key(n))]
    return list(dict.fromkeys(cited))


def cites_by_name(query: str) -> bool:
    """Whether ``query`` cites a document by name as citations do (in 「」, or before 상, 제N조, 에 따르면 …)."""
    return _CITED.search(nfc(query)) is not None


def _in_order(short: str, long: str) -> bool:
    """Whether the letters of ``short`` appear in ``long`` in the same order."""
    rest = iter(long)
    return all(ch in rest for ch in short)


class StoredDocuments:
    """A store's documents (by code, title) and their name matcher, rebuilt when the store's documents change.

    Shared by retrieval (document scoping) and the structural lookups, so both see the same snapshot.
    """

    def __init__(self, store: ChunkStore) -> None:
        self.store = store
        self._current = UntilChanged(store.read_version, self._build)

    def current(self) -> tuple[list[DocumentRecord], DocumentScope]:
        """The documents now and their matcher, built again only when the store's documents change (its
        :meth:`~geungeo.stores.base.ChunkStore.documents_version`: a document written again under another title is
        seen even with as many chunks as before)."""
        return self._current()

    def _build(self) -> tuple[list[DocumentRecord], DocumentScope]:
        docs = sorted(self.store.documents(), key=lambda d: (d.code or "", d.title, d.doc_id))
        return docs, DocumentScope.build(docs)
