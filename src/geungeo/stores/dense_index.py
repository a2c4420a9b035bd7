"""Every visible chunk's vector in one saved matrix: exact cosine search, the same ranking in every process.

Chroma's HNSW graph is approximate, and a process that opens the collection does not always get the top 200 another
process got (for 42 of the 219 shared questions the top 200 differed), which moved fused scores and flipped near-ties
at rank 1 (benchmarks/reports/dense_exact.md). Up to a size limit the embedded store therefore searches this matrix
instead. It is derived data like the BM25 index: rebuilt with it for the same catalog generation, in the same chunk
order (so a filter's mask serves both), saved atomically, and memory-mapped when loaded so that processes on one
store share its pages. A rebuild reads from Chroma only the vectors of documents written since the last one, a batch
at a time.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

READ_BATCH = 5000
"""Rows copied, read from the vector store or checked at a time."""

VectorReader = Callable[[Sequence[str]], dict[str, np.ndarray]]
"""Reads the stored vectors of some chunk ids (ids without a vector are left out)."""


class DenseIndex:
    """Unit-length vectors of the chunks ``ids``, row by row; a chunk without a vector has a zero row and is never
    returned."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.generation = -1
        self.ids: list[str] = []
        self.stamps: dict[str, str] = {}  # doc_id → the version of the document its rows were read for
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._present = np.zeros(0, dtype=bool)

    @classmethod
    def saved(cls, directory: Path) -> DenseIndex:
        """The index saved in ``directory`` (memory-mapped), or an empty one when there is none or it is unreadable."""
        index = cls(directory)
        try:
            state = json.loads((directory / "state.json").read_text("utf-8"))
            matrix = np.load(directory / str(state["vectors"]), mmap_mode="r")
            ids, stamps = list(state["ids"]), dict(state["stamps"])
        except (OSError, ValueError, KeyError, TypeError):
            return index
        if matrix.ndim == 2 and len(matrix) == len(ids):
            index._set(int(state["generation"]), ids, stamps, matrix)
        return index

    def covers(self, generation: int, ids: Sequence[str]) -> bool:
        """Whether this index was built for ``generation`` over exactly ``ids``, in that order."""
        return self.generation == generation and self.ids == list(ids)

    def rebuilt(
        self,
        generation: int,
        ids: list[str],
        docs: Sequence[str],
        stamps: dict[str, str],
        dim: int,
        read: VectorReader,
    ) -> DenseIndex:
        """A new index of ``ids`` (chunk i belongs to document ``docs[i]``, whose version is ``stamps``), saved
        atomically in place of this one: rows of documents unchanged since this one was built are copied, the others
        read with ``read``, :data:`READ_BATCH` at a time, straight into the new file (memory stays at one batch
        whatever the store's size). Readers of this index are not disturbed (its file stays mapped until they let
        go)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"vectors-{uuid.uuid4().hex}.npy"  # a fresh file each time: the state is the one thing replaced
        matrix = np.lib.format.open_memmap(self.directory / name, mode="w+", dtype=np.float32, shape=(len(ids), dim))
        old_row = {cid: i for i, cid in enumerate(self.ids)} if self._matrix.shape[1:] == (dim,) else {}
        todo: list[int] = []
        for start in range(0, len(ids), READ_BATCH):
            rows = range(start, min(start + READ_BATCH, len(ids)))
            kept = [
                (i, old_row[ids[i]])
                for i in rows
                if ids[i] in old_row and docs[i] in stamps and self.stamps.get(docs[i]) == stamps[docs[i]]
            ]
            if kept:
                new_rows, old_rows = (np.array(r, dtype=np.int64) for r in zip(*kept, strict=True))
                matrix[new_rows] = self._matrix[old_rows]
            copied = {i for i, _ in kept}
            todo += [i for i in rows if i not in copied]
        for start in range(0, len(todo), READ_BATCH):
            batch = todo[start : start + READ_BATCH]
            fresh = read([ids[i] for i in batch])
            for i in batch:
                if ids[i] in fresh:
                    vector = np.asarray(fresh[ids[i]], dtype=np.float32)
                    matrix[i] = vector / max(float(np.linalg.norm(vector)), 1e-12)
        matrix.flush()
        del matrix
        state = {"generation": generation, "vectors": name, "ids": ids, "stamps": stamps}
        tmp = self.directory / f"state-{uuid.uuid4().hex}.tmp"
        tmp.write_text(json.dumps(state), "utf-8")
        os.replace(tmp, self.directory / "state.json")
        for stale in self.directory.glob("vectors-*.npy"):  # mapped files stay readable to those holding them
            if stale.name != name:
                stale.unlink(missing_ok=True)
        index = DenseIndex(self.directory)
        index._set(generation, ids, stamps, np.load(self.directory / name, mmap_mode="r"))
        return index

    def _set(self, generation: int, ids: list[str], stamps: dict[str, str], matrix: np.ndarray) -> None:
        self.generation, self.ids, self.stamps, self._matrix = generation, ids, stamps, matrix
        self._present = np.zeros(len(ids), dtype=bool)
        for start in range(0, len(ids), READ_BATCH):  # a batch at a time: no temporary of the matrix's size
            self._present[start : start + READ_BATCH] = np.any(matrix[start : start + READ_BATCH] != 0, axis=1)

    def batches(self) -> Iterator[tuple[list[str], np.ndarray]]:
        """(ids, rows) of the index, :data:`READ_BATCH` rows at a time (a chunk without a vector has a zero row)."""
        for start in range(0, len(self.ids), READ_BATCH):
            yield self.ids[start : start + READ_BATCH], np.asarray(self._matrix[start : start + READ_BATCH])

    def search(self, vector: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        """(id, cosine) of the best k chunks among those ``mask`` allows; ties go to the earlier chunk."""
        allowed = self._present if mask is None else self._present & mask
        rows = np.flatnonzero(allowed)
        if k <= 0 or not len(rows):
            return []
        query = np.asarray(vector, dtype=np.float32)
        query = query / max(float(np.linalg.norm(query)), 1e-12)
        if len(rows) * 4 < len(self.ids):  # a narrow filter: score its rows only
            scores = np.asarray(self._matrix[rows] @ query)
        else:
            scores = np.asarray(self._matrix @ query)[rows]
        k = min(k, len(rows))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.lexsort((best, -scores[best]))]
        return [(self.ids[int(rows[i])], float(scores[i])) for i in best]
