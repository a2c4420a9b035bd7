"""The composition root."""

from __future__ import annotations

from pathlib import Path

from threadpoolctl import threadpool_info, threadpool_limits

from geungeo.engine import build_engine
from geungeo.settings import Settings


def _blas_threads() -> set[int]:
    return {int(lib["num_threads"]) for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_an_engine_gives_numpys_blas_the_configured_threads(tmp_path: Path) -> None:
    """A question's matrix work is one query vector against the chunks': BLAS's extra threads only spin after each
    call, taking the second core from Kiwi and ONNX Runtime (ask p50 108–114 ms against 76–80 ms with one thread)."""
    assert _blas_threads()  # NumPy's OpenBLAS is loaded
    with threadpool_limits(limits=2, user_api="blas"):  # what a fresh process on two cores starts with
        build_engine(Settings(data_dir=tmp_path, embed_provider="fake")).close()
        assert _blas_threads() == {1}
        with threadpool_limits(limits=2, user_api="blas"):
            build_engine(Settings(data_dir=tmp_path, embed_provider="fake", blas_threads=0)).close()
            assert _blas_threads() == {2}  # 0 leaves them as they are
