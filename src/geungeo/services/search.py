"""Search: the best passages for a query, with metadata filters."""

from __future__ import annotations

from collections.abc import Iterable

from geungeo.engine import Engine
from geungeo.filters import check_documents, combine, parse_filter
from geungeo.retrieval.hybrid import Mode
from geungeo.services.inputs import user_query, valid_text
from geungeo.types import Hit


class SearchService:
    """Hybrid (or dense, or sparse) search over the engine's store."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def search(self, query: str, *, k: int | None = None, filters: Iterable[str] = (), mode: Mode = "hybrid") -> list[Hit]:
        """Top-``k`` hits; QueryError for an empty, too long or invalid query or a bad filter."""
        q = user_query(query, self.engine.settings.max_query_chars)
        where = combine(parse_filter(valid_text(f, what="filter")) for f in filters)
        if where is not None:
            check_documents(where, self.engine.store.documents())
        return self.engine.search(q, k=k, where=where, mode=mode)
