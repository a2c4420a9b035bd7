"""The exact dense index: rows copied or read in batches, chunks without vectors never returned, stable ties."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from geungeo.stores import dense_index
from geungeo.stores.dense_index import DenseIndex


def _reader(vectors: dict[str, np.ndarray], calls: list[list[str]]) -> dense_index.VectorReader:
    def read(ids: object) -> dict[str, np.ndarray]:
        asked = list(ids)  # type: ignore[call-overload]
        calls.append(asked)
        return {i: vectors[i] for i in asked if i in vectors}

    return read


def test_a_rebuild_reads_a_batch_at_a_time_and_copies_unchanged_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dense_index, "READ_BATCH", 3)
    rng = np.random.default_rng(0)
    ids = [f"a-{i}" for i in range(5)] + [f"b-{i}" for i in range(4)]
    docs = [cid[0] for cid in ids]
    vectors = {cid: rng.normal(size=4).astype(np.float32) for cid in ids}
    calls: list[list[str]] = []
    first = DenseIndex(tmp_path / "dense").rebuilt(1, ids, docs, {"a": "v1", "b": "v1"}, 4, _reader(vectors, calls))
    assert sorted(c for call in calls for c in call) == sorted(ids) and max(len(c) for c in calls) == 3
    calls.clear()
    vectors.update({cid: rng.normal(size=4).astype(np.float32) for cid in ids if cid.startswith("b")})
    second = first.rebuilt(2, ids, docs, {"a": "v1", "b": "v2"}, 4, _reader(vectors, calls))
    assert sorted(c for call in calls for c in call) == [f"b-{i}" for i in range(4)]  # document a unchanged: its rows copied
    for cid in ids:
        top = second.search(vectors[cid], 1)
        assert top[0][0] == cid and top[0][1] == pytest.approx(1.0, abs=1e-5)
    assert DenseIndex.saved(tmp_path / "dense").covers(2, ids)
    assert len(list((tmp_path / "dense").glob("vectors-*.npy"))) == 1  # the first file is gone


def test_a_chunk_without_a_vector_is_never_returned_and_ties_go_to_the_earlier_chunk(tmp_path: Path) -> None:
    same = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    vectors = {"c": same, "a": same, "b": np.array([0.0, 1.0, 0.0], dtype=np.float32)}
    index = DenseIndex(tmp_path / "dense").rebuilt(1, ["c", "a", "b", "gone"], ["d"] * 4, {"d": "v"}, 3,
                                                   _reader(vectors, []))
    assert [cid for cid, _ in index.search(same, 10)] == ["c", "a", "b"]
    assert [cid for cid, _ in index.search(same, 10, np.array([False, True, True, True]))] == ["a", "b"]
