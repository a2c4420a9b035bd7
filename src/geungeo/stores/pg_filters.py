"""Filters as SQL over the ``chunks`` table, with the semantics of :func:`~geungeo.filters.matches`.

Common fields live in typed, B-tree indexed columns (:data:`COLUMNS`); a predicate uses the
column when its value has the column's type and falls back to the ``meta`` jsonb otherwise
(``meta @> …`` is served by a GIN index), so a value of another type never matches by coercion.
"""

from __future__ import annotations

from psycopg import sql
from psycopg.types.json import Jsonb

from geungeo.filters import And, Eq, Filter, In, Range, Scalar
from geungeo.types import MetaValue

TEXT_COLUMNS = ("doc", "source", "code", "category", "article", "chapter")
INT_COLUMNS = ("page",)
COLUMNS = TEXT_COLUMNS + INT_COLUMNS


def column_value(field: str, value: MetaValue) -> str | int | None:
    """The value stored in ``field``'s column: the meta value when it has the column's type."""
    if isinstance(value, str) and field in TEXT_COLUMNS:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and field in INT_COLUMNS:
        return value
    return None


def fits(field: str, value: MetaValue) -> bool:
    """Whether ``value`` can be compared with ``field``'s column without coercion."""
    return column_value(field, value) is not None


class _Translator:
    """Builds one SQL boolean expression with named placeholders and collects their values."""

    def __init__(self) -> None:
        self.params: dict[str, object] = {}

    def param(self, value: object) -> sql.Placeholder:
        name = f"w{len(self.params)}"
        self.params[name] = value
        return sql.Placeholder(name)

    def __call__(self, f: Filter) -> sql.Composable:
        if isinstance(f, Eq):
            return self._in(f.field, (f.value,))
        if isinstance(f, In):
            return self._in(f.field, f.values)
        if isinstance(f, Range):
            return self._range(f)
        if not f.parts:
            return sql.SQL("TRUE" if isinstance(f, And) else "FALSE")
        joiner = sql.SQL(" AND " if isinstance(f, And) else " OR ")
        return sql.SQL("({})").format(joiner.join(self(p) for p in f.parts))

    def _in(self, field: str, values: tuple[Scalar, ...]) -> sql.Composable:
        typed = [v for v in values if fits(field, v)]
        other = [Jsonb({field: v}) for v in values if not fits(field, v)]
        parts: list[sql.Composable] = []
        if typed:
            parts.append(sql.SQL("{} = ANY({})").format(sql.Identifier(field), self.param(typed)))
        if other:
            parts.append(sql.SQL("meta @> ANY({}::jsonb[])").format(self.param(other)))
        if not parts:
            return sql.SQL("FALSE")
        return parts[0] if len(parts) == 1 else sql.SQL("({})").format(sql.SQL(" OR ").join(parts))

    def _range(self, f: Range) -> sql.Composable:
        if f.field in INT_COLUMNS:
            col = sql.Identifier(f.field)
            parts: list[sql.Composable] = [sql.SQL("{} IS NOT NULL").format(col)]
            parts += [sql.SQL("{} {} {}").format(col, sql.SQL(op), self.param(v))
                      for op, v in ((">=", f.low), ("<=", f.high)) if v is not None]
            return sql.SQL("({})").format(sql.SQL(" AND ").join(parts))
        conds = ['@.type() == "number"'] + [c for c, v in (("@ >= $lo", f.low), ("@ <= $hi", f.high)) if v is not None]
        path = f"$ ? ({' && '.join(conds)})"
        bounds = {"lo": f.low, "hi": f.high}
        return sql.SQL("coalesce(jsonb_path_exists(meta -> {}, {}::jsonpath, {}), FALSE)").format(
            self.param(f.field), self.param(path), self.param(Jsonb(bounds))
        )


def to_sql(where: Filter | None) -> tuple[sql.Composable, dict[str, object]]:
    """A boolean SQL expression over ``chunks`` and its parameters (TRUE without a filter)."""
    if where is None:
        return sql.SQL("TRUE"), {}
    translate = _Translator()
    return translate(where), translate.params
