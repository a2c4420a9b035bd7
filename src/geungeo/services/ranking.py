"""Training the learned reranker on the ingested corpus (``geungeo train-ranker``)."""

from __future__ import annotations

from pathlib import Path

from geungeo.engine import Engine
from geungeo.errors import ConfigError
from geungeo.ingest.pipeline import Progress
from geungeo.retrieval.ranker_training import TrainingReport, train_ranker


class RankerService:
    """Trains a ranker from the store's own passages (no question sets, no LLM) and writes the model file."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def default_path(self) -> Path:
        return self.engine.settings.data_dir / "ranker.txt"

    def train(
        self, path: Path | None = None, *, limit: int = 4000, seed: int = 0, progress: Progress | None = None
    ) -> tuple[Path, TrainingReport]:
        """Train on up to ``limit`` generated queries and write the LightGBM text model to ``path``."""
        target = (path or self.default_path()).expanduser()
        if target.is_dir():
            raise ConfigError(f"{target}: is a directory; give the model file's path / 모델 파일 경로를 주세요")
        if self.engine.store.count() == 0:
            raise ConfigError("the store is empty: run `geungeo ingest PATH` first / 먼저 문서를 색인하세요")
        report = train_ranker(self.engine.retriever, limit=limit, seed=seed, progress=progress)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        partial.write_text(report.model, "utf-8")
        partial.replace(target)
        return target, report
