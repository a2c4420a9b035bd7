"""A persisted BM25 index (bm25s) over Kiwi terms, rebuilt from the catalog when stale.

bm25s indexes a static corpus, so the index is derived data: it is rebuilt after a batch
of writes and saved with the catalog generation it reflects. Filters become a weight mask
over the indexed chunks, evaluated with :func:`geungeo.filters.matches`.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from geungeo.filters import And, Eq, Filter, In, Or, matches
from geungeo.types import MetaValue

log = logging.getLogger(__name__)


class Bm25Index:
    """BM25 over chunk terms with metadata-filtered retrieval."""

    def __init__(self, directory: Path, *, k1: float, b: float) -> None:
        self.directory = directory
        self.k1, self.b = k1, b
        self.generation = -1
        self.ids: list[str] = []
        self.metas: list[dict[str, MetaValue]] = []
        self._retriever: object | None = None
        self._mask = lru_cache(maxsize=64)(self._vector_mask)
        self._weights = lru_cache(maxsize=64)(lambda where: self._mask(where).astype(np.float32))
        self._columns: dict[str, np.ndarray] = {}

    def _state_file(self) -> Path:
        return self.directory / "state.json"

    def load(self) -> bool:
        """Load the saved index; False when there is none or it is unreadable."""
        import bm25s

        try:
            state = json.loads(self._state_file().read_text("utf-8"))
            retriever = bm25s.BM25.load(str(self.directory / "index"), mmap=False, show_progress=False, verbosity=0)
        except (OSError, ValueError, KeyError):
            return False
        if state.get("k1") != self.k1 or state.get("b") != self.b:
            return False
        self._use(state["generation"], state["ids"], state["metas"], retriever if state["ids"] else None)
        return True

    def build(
        self, generation: int, ids: list[str], metas: list[dict[str, MetaValue]], terms: list[list[str]]
    ) -> None:
        """Index the given chunks and save atomically (write to a temp dir, then rename)."""
        import bm25s

        retriever = None
        tmp = self.directory.with_name(self.directory.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        if ids:
            retriever = bm25s.BM25(k1=self.k1, b=self.b)
            retriever.index(terms, show_progress=False)
            retriever.save(str(tmp / "index"), show_progress=False)
        state = {"generation": generation, "k1": self.k1, "b": self.b, "ids": ids, "metas": metas}
        (tmp / "state.json").write_text(json.dumps(state, ensure_ascii=False), "utf-8")
        old = self.directory.with_name(self.directory.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if self.directory.exists():
            self.directory.rename(old)
        tmp.rename(self.directory)
        shutil.rmtree(old, ignore_errors=True)
        self._use(generation, ids, metas, retriever)

    def _use(self, generation: int, ids: list[str], metas: list[dict[str, MetaValue]], retriever: object | None) -> None:
        """Search ``retriever`` over these chunks from now on; what was derived from the previous ones is forgotten."""
        self.generation, self.ids, self.metas, self._retriever = generation, ids, metas, retriever
        self._mask.cache_clear()
        self._weights.cache_clear()
        self._columns = {}

    def mask(self, where: Filter) -> np.ndarray:
        """Boolean mask over :attr:`ids` of the chunks matching ``where`` (the last 64 filters are remembered)."""
        return self._mask(where)

    def _vector_mask(self, where: Filter) -> np.ndarray:
        """Boolean mask of the chunks matching ``where``: equality tests on whole columns, ``matches`` for the rest."""
        if isinstance(where, Eq | In):
            values = [where.value] if isinstance(where, Eq) else list(where.values)
            if all(isinstance(v, str) for v in values):
                return np.isin(self._column(where.field), values)
        if isinstance(where, And):
            return np.logical_and.reduce([self._vector_mask(p) for p in where.parts])
        if isinstance(where, Or):
            return np.logical_or.reduce([self._vector_mask(p) for p in where.parts])
        return np.fromiter((matches(m, where) for m in self.metas), dtype=bool, count=len(self.metas))

    def _column(self, field: str) -> np.ndarray:
        """One metadata field of every chunk as strings (missing: a value no filter uses)."""
        if field not in self._columns:
            self._columns[field] = np.array(
                [m[field] if isinstance(m.get(field), str) else "\x00" for m in self.metas], dtype=object
            )
        return self._columns[field]

    def search(self, terms: Sequence[str], k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        """(id, score) of the best k chunks with a positive score."""
        if self._retriever is None or not terms:
            return []
        weights = self._weights(where) if where is not None else None
        if weights is not None and not weights.any():
            return []
        k = min(k, len(self.ids))
        docs, scores = self._retriever.retrieve(  # type: ignore[attr-defined]
            [list(terms)], k=k, show_progress=False, weight_mask=weights, n_threads=1
        )
        return [(self.ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]
