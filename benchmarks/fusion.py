"""Fusion benchmark: z-score fusion against reciprocal rank fusion, and the weights of the two rankings, each with a
split-half estimate.

Runs the hybrid retriever's own code (``HybridRetriever.search``) over grids of fusion settings on the shared gold
questions and writes ``benchmarks/reports/fusion.md``:

- **methods**: recall@5 per question file for every setting (RRF: k × sparse weight; z-score: candidates × sparse
  weight; dense weight 1), and a split-half estimate of how each method does on questions its setting was not chosen
  on: the questions are split at random into halves 300 times, the best setting of each method is picked on one half
  (mean of the per-file R@5) and scored on the other. The grid's best is optimistic; the held-out mean is what to
  expect on questions kept aside;
- **weights**: z-score fusion at the default candidate count with the sparse ranking weighted 0.75–2 against the
  dense one, with the lexicon on and off: R@1 / R@5 / R@10 and MRR per file, and the split-half estimate of the
  weight picked by MRR. With ``--scale DIR`` (the data directory of the whole statute book, as ``retrieval.py
  --scale`` or ``scale.py`` ingests it) the same grid runs on the statute questions over that store.

    .venv/bin/python benchmarks/fusion.py    # needs the store of benchmarks/retrieval.py
    .venv/bin/python benchmarks/fusion.py --scale benchmarks/.work/scale-e5-onnx-int8

Each question's sparse and dense rankings are retrieved once, at the deepest candidate count of the grids, and cut to
each setting's count, so a grid costs fusion time only.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from geungeo.engine import Engine, build_engine
from geungeo.evaluation import Question, first_correct_rank, load_questions
from geungeo.filters import Filter
from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.services.evaluation import gold_ingested
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FILES = ("laws.jsonl", "regulations.jsonl", "documents.jsonl")
SPARSE_WEIGHTS = (1.0, 1.25, 1.5, 2.0)
METHODS: dict[str, list[dict[str, Any]]] = {
    "rrf": [
        {"fusion": "rrf", "rrf_k": k, "sparse_weight": w, "candidate_k": 100} for k in (10, 20, 40, 60) for w in SPARSE_WEIGHTS
    ],
    "zscore": [{"fusion": "zscore", "candidate_k": n, "sparse_weight": w} for n in (50, 100, 200, 300) for w in SPARSE_WEIGHTS],
}
WEIGHTS = (0.75, 1.0, 1.25, 1.5, 2.0)
LEXICON = {"lexicon on": True, "lexicon off": False}
DEPTH = max(c["candidate_k"] for configs in METHODS.values() for c in configs)
TOP = 10
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
    """For one setting: the rank of each question's first gold hit in the top ``TOP`` (None: not there)."""

    setting: dict[str, Any]
    ranks: dict[str, int | None]

    def recall(self, ids: Sequence[str], k: int) -> float:
        return sum(1 for i in ids if (r := self.ranks[i]) is not None and r <= k) / len(ids)

    def mrr(self, ids: Sequence[str]) -> float:
        return sum(1 / r for i in ids if (r := self.ranks[i]) is not None) / len(ids)


class Grid:
    """Runs settings over one engine's questions; their vectors and the store's searches are made once for all grids."""

    def __init__(self, engine: Engine, questions: Sequence[Question]) -> None:
        self.engine, self.questions = engine, list(questions)
        self.store = RecordedStore(engine.store)
        self.vectors = {q.id: engine.retriever.embed_query(q.question) for q in questions}

    def run(self, configs: Sequence[dict[str, Any]]) -> list[Outcome]:
        """Each setting of ``configs`` over the questions."""
        out = []
        for config in configs:
            settings = self.engine.settings.model_copy(update=config)
            retriever = HybridRetriever(self.store, self.engine.embedder, settings)  # type: ignore[arg-type]
            ranks = {
                q.id: first_correct_rank(q, [h.chunk for h in retriever.search(q.question, k=TOP, vector=self.vectors[q.id])])
                for q in self.questions
            }
            outcome = Outcome(config, ranks)
            out.append(outcome)
            print(f"  {config}: R@5 {outcome.recall(list(ranks), 5):.3f}", file=sys.stderr, flush=True)
        return out


def macro_recall(outcome: Outcome, ids: Sequence[str], file_of: dict[str, str]) -> float:
    """Mean over question files of R@5 on ``ids``."""
    per_file: dict[str, list[str]] = defaultdict(list)
    for i in ids:
        per_file[file_of[i]].append(i)
    return statistics.fmean(outcome.recall(v, 5) for v in per_file.values())


def held_out(outcomes: Sequence[Outcome], ids: list[str], measure: Callable[[Outcome, Sequence[str]], float]) -> float:
    """Mean held-out ``measure`` of the setting picked by it on the other half, over random half splits."""
    rng = random.Random(0)
    scores = []
    for _ in range(SPLITS):
        shuffled = ids[:]
        rng.shuffle(shuffled)
        train, test = shuffled[: len(ids) // 2], shuffled[len(ids) // 2 :]
        best = max(outcomes, key=lambda o: measure(o, train))
        scores.append(measure(best, test))
    return statistics.fmean(scores)


def _label(setting: dict[str, Any]) -> str:
    if setting["fusion"] == "rrf":
        return f"rrf k {setting['rrf_k']}, sparse ×{setting['sparse_weight']}"
    return f"zscore {setting['candidate_k']} candidates, sparse ×{setting['sparse_weight']}"


def _default_mark(setting: dict[str, Any], settings: Settings, keys: Sequence[str]) -> str:
    return " (default)" if all(setting.get(k) == getattr(settings, k) for k in keys) else ""


def render_methods(grid: dict[str, list[Outcome]], questions: Sequence[Question], settings: Settings) -> list[str]:
    ids = [q.id for q in questions]
    file_of = {q.id: q.file for q in questions}
    by_file = {f: [q.id for q in questions if q.file == f] for f in FILES}
    lines = [
        "## Methods: z-score against RRF",
        "",
        f"Each method's best setting picked on a random half of the questions and scored on the other half, {SPLITS} "
        "splits (mean macro R@5 = mean of the three files' R@5):",
        "",
        "| method | held-out macro R@5 |",
        "|---|---|",
    ]
    lines += [f"| {m} | {held_out(o, ids, lambda x, s: macro_recall(x, s, file_of)):.3f} |" for m, o in grid.items()]
    lines += ["", "| setting | " + " | ".join(FILES) + " | macro |", "|---|---|---|---|---|"]
    for outcomes in grid.values():
        for o in outcomes:
            cells = [f"{o.recall(v, 5):.3f}" for v in by_file.values()]
            mark = _default_mark(o.setting, settings, ("fusion", "candidate_k", "sparse_weight"))
            name = f"**{_label(o.setting)}**{mark}" if mark else _label(o.setting)
            lines.append(f"| {name} | " + " | ".join(cells) + f" | {macro_recall(o, ids, file_of):.3f} |")
    return lines


def _cell(o: Outcome, ids: Sequence[str]) -> str:
    return f"{o.recall(ids, 1):.3f} / **{o.recall(ids, 5):.3f}** / {o.recall(ids, 10):.3f} · {o.mrr(ids):.3f}"


def render_weights(
    title: str,
    grid: dict[str, list[Outcome]],
    questions: Sequence[Question],
    settings: Settings,
    extra: dict[str, list[str]] | None = None,
) -> list[str]:
    """The weights table of one store (``extra``: more columns, a name and its question ids) and its split-half."""
    ids = [q.id for q in questions]
    groups = {f: [q.id for q in questions if q.file == f] for f in FILES if any(q.file == f for q in questions)}
    if len(groups) > 1:
        groups["all"] = ids
    groups.update(extra or {})
    lines = [
        f"## Weights: {title}",
        "",
        "Z-score fusion, dense weight 1; cells R@1 / **R@5** / R@10 · MRR (MRR@10).",
        "",
        "| lexicon | sparse weight | " + " | ".join(f"{g} (n {len(v)})" for g, v in groups.items()) + " |",
        "|---|---|" + "---|" * len(groups),
    ]
    for lexicon, outcomes in grid.items():
        for o in outcomes:
            mark = " (default)" if o.setting["sparse_weight"] == settings.sparse_weight and o.setting["query_expansion"] else ""
            cells = " | ".join(_cell(o, v) for v in groups.values())
            lines.append(f"| {lexicon} | ×{o.setting['sparse_weight']}{mark} | {cells} |")
    lines += [
        "",
        f"Split-half ({SPLITS} random halves): the weight with the best MRR on one half, scored on the other.",
        "",
        "| lexicon | held-out MRR of the picked weight | MRR at ×1 (nothing picked) | MRR at the best weight (picked on all) |",
        "|---|---|---|---|",
    ]
    for lexicon, outcomes in grid.items():
        equal = next(o for o in outcomes if o.setting["sparse_weight"] == 1.0)
        best = max(o.mrr(ids) for o in outcomes)
        lines.append(f"| {lexicon} | {held_out(outcomes, ids, Outcome.mrr):.3f} | {equal.mrr(ids):.3f} | {best:.3f} |")
    return lines


def weight_grid(grid: Grid) -> dict[str, list[Outcome]]:
    base = {"fusion": "zscore", "candidate_k": grid.engine.settings.candidate_k}
    return {
        name: grid.run([{**base, "sparse_weight": w, "query_expansion": on} for w in WEIGHTS]) for name, on in LEXICON.items()
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--scale", type=Path, help="data directory of the whole statute book's store (weights grid only)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "fusion.md")
    args = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    base = Settings()
    settings = base.model_copy(update={"data_dir": args.work / base.embed_provider})
    questions = [q for f in FILES for q in load_questions(args.shared / "questions" / f) if q.answerable and not q.structural]
    engine = build_engine(settings)
    if engine.store.count() == 0:
        raise SystemExit(f"no store at {settings.data_dir}: run benchmarks/retrieval.py first")
    chunks = engine.store.count()
    grid = Grid(engine, questions)
    methods = {name: grid.run(configs) for name, configs in METHODS.items()}
    weights = weight_grid(grid)
    engine.close()
    by_file = ", ".join(f"{f} {sum(q.file == f for q in questions)}" for f in FILES)
    lines = [
        "# Fusion benchmark",
        "",
        f"Run {started}, `benchmarks/fusion.py`, embedder `{settings.embed_provider}`"
        f"{f' ({settings.embed_precision})' if settings.embed_provider == 'e5-onnx' else ''}, store "
        f"`{settings.data_dir}` ({chunks:,} chunks), {len(questions)} answerable questions ({by_file}), matching "
        "rules of `shared/README.md`.",
        "",
        *render_weights("the shared corpus", weights, questions, settings),
        "",
    ]
    if args.scale is not None:
        scale = build_engine(base.model_copy(update={"data_dir": args.scale}))
        laws = [q for q in questions if q.file == "laws.jsonl"]
        documents = scale.store.documents()
        present = [q.id for q in laws if gold_ingested(q, documents)]
        absent = [q.id for q in laws if q.id not in present]
        title = f"the whole statute book (`{args.scale}`, {scale.store.count():,} chunks), statute questions"
        extra = {"gold document in the book": present}
        lines += [*render_weights(title, weight_grid(Grid(scale, laws)), laws, settings, extra), ""]
        lines += [
            f"The book holds every statute (법률), no 시행령 and not the Constitution: {len(absent)} of the {len(laws)} "
            f"questions have no gold document in it ({', '.join(absent)}), so they count as misses in the first column "
            "and are left out of the second, as `geungeo eval` leaves out a question whose gold document is not "
            "ingested. The split-half rows are over all of them.",
            "",
        ]
        scale.close()
    lines += render_methods(methods, questions, settings)
    report = "\n".join(lines) + "\n"
    args.out.write_text(report, "utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
