from pathlib import Path

import pytest

from geungeo.engine import build_engine
from geungeo.retrieval.fusion import rrf, zscore_fusion
from geungeo.settings import Settings
from tests.fixtures import vacation_law_store


def test_rrf_rewards_agreement() -> None:
    fused = rrf([["a", "b", "c"], ["b", "a", "d"]], k=60)
    assert [i for i, _ in fused][:2] in (["a", "b"], ["b", "a"])
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert {i for i, _ in fused} == {"a", "b", "c", "d"}


def test_rrf_weights() -> None:
    fused = rrf([["a"], ["b"]], k=60, weights=[1.0, 2.0])
    assert fused[0][0] == "b" and fused[0][1] == pytest.approx(2 / 61)


def test_rrf_length_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError):
        rrf([["a"]], weights=[1.0, 2.0])


def test_zscore_keeps_the_margin_that_rrf_levels() -> None:
    # "a" is BM25's clear winner; "b" comes second in BM25 and first in a flat dense ranking.
    sparse = [("a", 30.0), ("b", 10.0), ("c", 9.5), ("d", 9.0)]
    dense = [("b", 0.84), ("d", 0.83), ("a", 0.82), ("c", 0.81)]
    assert rrf([[i for i, _ in sparse], [i for i, _ in dense]], k=60)[0][0] == "b"
    assert zscore_fusion([sparse, dense])[0][0] == "a"


def test_zscore_scores_are_bounded_and_best_first() -> None:
    fused = zscore_fusion([[("a", 3.0), ("b", 2.0), ("c", 1.0)], [("a", 0.9), ("c", 0.5)]])
    assert [i for i, _ in fused] == ["a", "b", "c"]
    assert all(0.0 < s < 1.0 for _, s in fused)
    assert fused[0][1] > 0.5 > fused[-1][1]  # above the average candidate in both rankings; below


def test_zscore_absent_counts_as_the_rankings_lowest() -> None:
    # "x" is missing from the dense ranking: it scores as dense's worst, not as dense's average.
    sparse = [("x", 5.0), ("y", 4.0), ("z", 1.0)]
    dense = [("y", 0.9), ("z", 0.8), ("w", 0.1)]
    fused = dict(zscore_fusion([sparse, dense]))
    assert fused["y"] > fused["x"]
    assert set(fused) == {"x", "y", "z", "w"}


def test_zscore_weights_and_degenerate_rankings() -> None:
    sparse, dense = [("a", 2.0), ("b", 1.0)], [("b", 0.9), ("a", 0.1)]
    assert zscore_fusion([sparse, dense], weights=[2.0, 1.0])[0][0] == "a"
    assert zscore_fusion([sparse, dense], weights=[1.0, 2.0])[0][0] == "b"
    assert zscore_fusion([sparse, dense], weights=[1.0, 0.0])[0][0] == "a"  # weight 0 takes no part
    assert zscore_fusion([[("only", 1.0)], []]) == [("only", 0.5)]  # one score: no spread, average standing
    assert zscore_fusion([[], []]) == []
    with pytest.raises(ValueError):
        zscore_fusion([sparse], weights=[1.0, 2.0])


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return vacation_law_store(tmp_path_factory.mktemp("fusion"))


@pytest.mark.parametrize("fusion", ["zscore", "rrf"])
def test_hybrid_search_fuses_with_the_configured_method(data_dir: Path, fusion: str) -> None:
    engine = build_engine(Settings(data_dir=data_dir, embed_provider="fake", fusion=fusion))
    hits = engine.search("출산전후휴가는 며칠인가요", k=3)
    engine.close()
    assert hits[0].chunk.meta["article"] == "제3조"
    assert {"sparse", "dense"} <= set(hits[0].ranks) and set(hits[0].ranks) == set(hits[0].scores)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    if fusion == "zscore":
        assert all(0.0 < s < 1.0 for s in scores)
    else:
        s = engine.settings
        # at most first in every ranking (the document ranking's too)
        assert scores[0] <= (s.sparse_weight + s.dense_weight + s.document_weight) / (s.rrf_k + 1)
