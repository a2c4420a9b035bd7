"""One filter language for every store: frozen dataclasses, a pure evaluator, a parser.

``matches`` is the semantics (and the oracle in the store contract tests); each store
translates a :data:`Filter` to its own query language.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from geungeo.errors import QueryError
from geungeo.text.normalize import nfc
from geungeo.text.structure import normalize_article_refs
from geungeo.types import DocumentRecord, MetaValue

Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True)
class Eq:
    field: str
    value: Scalar


@dataclass(frozen=True, slots=True)
class In:
    field: str
    values: tuple[Scalar, ...]


@dataclass(frozen=True, slots=True)
class Range:
    """Inclusive range; either bound may be open."""

    field: str
    low: int | float | None = None
    high: int | float | None = None


@dataclass(frozen=True, slots=True)
class And:
    parts: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class Or:
    parts: tuple[Filter, ...]


Filter = Eq | In | Range | And | Or

FILTER_FIELDS = ("doc", "doc_id", "code", "kind", "source", "category", "article", "attachment", "page", "addendum")
_NUMERIC = frozenset({"page"})
_BOOLEAN = frozenset({"addendum"})


def matches(meta: Mapping[str, MetaValue], f: Filter) -> bool:
    """Whether a chunk's metadata satisfies the filter (missing fields never match)."""
    if isinstance(f, Eq):
        return meta.get(f.field) == f.value
    if isinstance(f, In):
        return meta.get(f.field) in f.values
    if isinstance(f, Range):
        v = meta.get(f.field)
        if not isinstance(v, int | float) or isinstance(v, bool):
            return False
        return (f.low is None or v >= f.low) and (f.high is None or v <= f.high)
    if isinstance(f, And):
        return all(matches(meta, p) for p in f.parts)
    return any(matches(meta, p) for p in f.parts)


def _value(field: str, raw: str) -> Scalar:
    raw = nfc(raw.strip())
    if field in _NUMERIC:
        try:
            return int(raw)
        except ValueError as exc:
            raise QueryError(f"filter {field}: '{raw}' is not a number") from exc
    if field in _BOOLEAN:
        return raw.lower() in ("1", "true", "yes", "y")
    if field == "article":
        refs = normalize_article_refs(raw)
        return refs[0] if refs else raw
    return raw


def parse_filter(expr: str) -> Filter:
    """Parse ``field=value``, ``field=a,b`` (any of) or ``page=3..5`` (range)."""
    field, sep, raw = expr.partition("=")
    field = field.strip()
    if not sep or not raw.strip():
        raise QueryError(f"filter '{expr}': expected field=value, e.g. doc=근로기준법 or page=3..5")
    if field not in FILTER_FIELDS:
        raise QueryError(f"filter '{expr}': unknown field '{field}' (known: {', '.join(FILTER_FIELDS)})")
    if ".." in raw and field in _NUMERIC:
        low, _, high = raw.partition("..")
        lo = int(low) if low.strip() else None
        hi = int(high) if high.strip() else None
        return Range(field, lo, hi)
    if "," in raw:
        return In(field, tuple(_value(field, part) for part in raw.split(",")))
    return Eq(field, _value(field, raw))


def combine(filters: Iterable[Filter]) -> Filter | None:
    """AND of the given filters; None when there are none."""
    parts = tuple(filters)
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else And(parts)


# The filter fields every chunk of a document shares, and the document record's attribute holding each.
_DOCUMENT_FIELDS = {"doc": "title", "doc_id": "doc_id", "code": "code", "kind": "kind", "source": "source"}


def check_documents(f: Filter, documents: Sequence[DocumentRecord]) -> None:
    """QueryError when ``f`` asks for a document-level value (``doc=근로기준번``, ``kind=hwpx``) that no stored
    document has, naming the close ones: a typo in a filter would otherwise look like "근거 부족"."""
    for field, value in _document_conditions(f):
        known = {str(v) for d in documents if (v := getattr(d, _DOCUMENT_FIELDS[field])) is not None}
        if str(value) not in known:
            close = difflib.get_close_matches(str(value), sorted(known), n=3, cutoff=0.6)
            hint = f"; 비슷한 값 / did you mean: {', '.join(close)}" if close else ""
            raise QueryError(f"filter {field}={value}: no stored document has it / 해당하는 문서가 없습니다{hint}")


def _document_conditions(f: Filter) -> Iterator[tuple[str, Scalar]]:
    if isinstance(f, Eq) and f.field in _DOCUMENT_FIELDS:
        yield f.field, f.value
    elif isinstance(f, In) and f.field in _DOCUMENT_FIELDS:
        yield from ((f.field, v) for v in f.values)
    elif isinstance(f, And | Or):
        for part in f.parts:
            yield from _document_conditions(part)
