"""Fusion benchmark: z-score fusion against reciprocal rank fusion, with a held-out estimate.

Runs the hybrid retriever's own code (``HybridRetriever.search``) over a grid of fusion settings
on the shared gold questions and writes ``benchmarks/reports/fusion.md``:

- recall@5 per question file for every setting (RRF: k × sparse weight; z-score: candidates ×
  sparse weight; dense weight 1);
- a split-half estimate of how a method does on questions its setting was not chosen on: the
  questions are split at random into halves 300 times, the best setting of each method is picked
  on one half (mean of the per-file R@5) and scored on the other. The mean held-out score is
  what to expect on the questions kept aside for acceptance; the grid's best is optimistic.

    .venv/bin/python benchmarks/fusion.py    # needs the store of benchmarks/retrieval.py

Each question's sparse and dense rankings are retrieved once, at the deepest candidate count of
the grid, and cut to each setting's count, so the grid costs fusion time only.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from geungeo.engine import Engine, build_engine
from geungeo.evaluation import Question, first_correct_rank, load_questions
from geungeo.filters import Filter
from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FILES = ("laws.jsonl", "regulations.jsonl", "documents.jsonl")
SPARSE_WEIGHTS = (1.0, 1.25, 1.5, 2.0)
GRID: dict[str, list[dict[str, Any]]] = {
    "rrf": [
        {"fusion": "rrf", "rrf_k": k, "sparse_weight": w, "candidate_k": 100} for k in (10, 20, 40, 60) for w in SPARSE_WEIGHTS
    ],
    "zscore": [{"fusion": "zscore", "candidate_k": n, "sparse_weight": w} for n in (50, 100, 200, 300) for w in SPARSE_WEIGHTS],
}
DEPTH = max(c["candidate_k"] for configs in GRID.values() for c in configs)
SPLITS = 300


class RecordedStore:
    """A store whose sparse and dense searches are answered once at ``DEPTH`` and then cut to the asked count;
    everything else goes to the real store."""

    def __init__(self, store: ChunkStore) -> None:
        self._store = store
        self._sparse: dict[tuple[object, ...], list[tuple[str, float]]] = {}
        self._dense: dict[tuple[object, ...], list[tuple[str, float]]] = {}

    def sparse_search(self, terms: Sequence[str], k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        key = (tuple(terms), repr(where))
        if key not in self._sparse:
            self._sparse[key] = self._store.sparse_search(terms, DEPTH, where)
        return self._sparse[key][:k]

    def dense_search(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        key = (np.asarray(vector, dtype=np.float32).tobytes(), repr(where))
        if key not in self._dense:
            self._dense[key] = self._store.dense_search(vector, DEPTH, where)
        return self._dense[key][:k]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@dataclass(frozen=True)
class Outcome:
    """For one setting: whether each question had a gold target in the top 5."""

    setting: dict[str, Any]
    found: dict[str, bool]


def run_grid(engine: Engine, questions: Sequence[Question]) -> dict[str, list[Outcome]]:
    settings = engine.settings
    store = RecordedStore(engine.store)
    vectors = {q.id: engine.retriever.embed_query(q.question) for q in questions}
    out: dict[str, list[Outcome]] = defaultdict(list)
    for method, configs in GRID.items():
        for config in configs:
            retriever = HybridRetriever(store, engine.embedder, settings.model_copy(update=config))  # type: ignore[arg-type]
            found = {}
            for q in questions:
                rank = first_correct_rank(q, [h.chunk for h in retriever.search(q.question, k=5, vector=vectors[q.id])])
                found[q.id] = rank is not None and rank <= 5
            out[method].append(Outcome(config, found))
            print(f"  {method} {config}: {sum(found.values())}/{len(found)}", file=sys.stderr, flush=True)
    return out


def macro_recall(found: dict[str, bool], ids: Sequence[str], file_of: dict[str, str]) -> float:
    """Mean over question files of R@5 on ``ids``."""
    per_file: dict[str, list[bool]] = defaultdict(list)
    for i in ids:
        per_file[file_of[i]].append(found[i])
    return statistics.fmean(sum(v) / len(v) for v in per_file.values())


def held_out(outcomes: Sequence[Outcome], ids: list[str], file_of: dict[str, str], splits: int) -> float:
    """Mean held-out macro R@5 of the setting picked on the other half, over random half splits."""
    rng = random.Random(0)
    scores = []
    for _ in range(splits):
        shuffled = ids[:]
        rng.shuffle(shuffled)
        train, test = shuffled[: len(ids) // 2], shuffled[len(ids) // 2 :]
        best = max(outcomes, key=lambda o: macro_recall(o.found, train, file_of))
        scores.append(macro_recall(best.found, test, file_of))
    return statistics.fmean(scores)


def _label(setting: dict[str, Any]) -> str:
    if setting["fusion"] == "rrf":
        return f"rrf k {setting['rrf_k']}, sparse ×{setting['sparse_weight']}"
    return f"zscore {setting['candidate_k']} candidates, sparse ×{setting['sparse_weight']}"


def render(grid: dict[str, list[Outcome]], questions: Sequence[Question], settings: Settings, started: str) -> str:
    ids = [q.id for q in questions]
    file_of = {q.id: q.file for q in questions}
    by_file = {f: [q.id for q in questions if q.file == f] for f in FILES}
    default = {"fusion": settings.fusion, "candidate_k": settings.candidate_k, "sparse_weight": settings.sparse_weight}
    lines = [
        "# Fusion benchmark",
        "",
        f"Run {started}, `benchmarks/fusion.py`, embedder `{settings.embed_provider}`, {len(ids)} answerable questions "
        f"({', '.join(f'{f} {len(v)}' for f, v in by_file.items())}). Dense weight 1; R@5 by the matching rules of "
        "`shared/README.md`; macro = mean of the three files.",
        "",
        "## Held-out estimate",
        "",
        f"Each method's best setting picked on a random half of the questions and scored on the other half, {SPLITS} "
        "splits (mean macro R@5):",
        "",
        "| method | held-out macro R@5 |",
        "|---|---|",
    ]
    lines += [f"| {m} | {held_out(o, ids, file_of, SPLITS):.3f} |" for m, o in grid.items()]
    lines += ["", "## Every setting", "", "| setting | " + " | ".join(FILES) + " | macro |", "|---|---|---|---|---|"]
    for outcomes in grid.values():
        for o in outcomes:
            cells = [f"{sum(o.found[i] for i in v) / len(v):.3f}" for v in by_file.values()]
            is_default = all(o.setting.get(k) == v for k, v in default.items())
            name = f"**{_label(o.setting)}** (default)" if is_default else _label(o.setting)
            lines.append(f"| {name} | " + " | ".join(cells) + f" | {macro_recall(o.found, ids, file_of):.3f} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "fusion.md")
    args = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    base = Settings()
    settings = base.model_copy(update={"data_dir": args.work / base.embed_provider})
    questions = [q for f in FILES for q in load_questions(args.shared / "questions" / f) if q.answerable and not q.structural]
    engine = build_engine(settings)
    if engine.store.count() == 0:
        raise SystemExit(f"no store at {settings.data_dir}: run benchmarks/retrieval.py first")
    grid = run_grid(engine, questions)
    engine.close()
    report = render(grid, questions, settings, started)
    args.out.write_text(report, "utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
