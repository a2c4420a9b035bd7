"""Exact dense search (the embedded store's saved matrix) against Chroma's HNSW index, in one run.

    .venv/bin/python benchmarks/dense_exact.py --work benchmarks/.work/f8 [--synthetic 124040]

1. The shared corpus's store (``--work``, as built by ``benchmarks/retrieval.py``), the shared questions' query
   vectors, top 200 (the candidates a retriever gives fusion): each question is searched in two fresh processes per
   mode, and the report counts the questions whose top 200 differ between the two processes, the overlap of HNSW's
   top 200 with the exact one, and the latency of each.
2. ``--asks``: 80 shared questions answered in this process in both modes, with NumPy's BLAS at the machine's
   default threads and at one (``GEUNGEO_BLAS_THREADS``, the default).
3. ``--synthetic N``: N random unit vectors of the same dimension (the statute book has 124,040 chunks), written to a
   throw-away store: latency of both modes over the whole store and inside one document (a named-statute search), and
   HNSW's overlap with the exact top 200 (random vectors are the hard case for HNSW, real ones cluster).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from geungeo.evaluation import load_questions
from geungeo.filters import In
from geungeo.settings import Settings
from geungeo.stores.base import IndexSignature
from geungeo.stores.chroma import ChromaStore
from geungeo.types import Chunk, DocumentRecord, chunk_id

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FILES = ("laws.jsonl", "regulations.jsonl", "documents.jsonl", "unanswerable.jsonl")
TOP = 200
MODES = {"exact": 512, "hnsw": 0}  # GEUNGEO_DENSE_EXACT_MAX_MB of each mode


def percentiles(ms: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def child(work: Path, mode: str, vectors_file: Path, out: Path) -> None:
    """One process: open the store in ``mode`` and write each query's top 200 and the latencies."""
    from geungeo.engine import build_engine

    settings = Settings(data_dir=work / "e5-onnx", embed_provider="e5-onnx", dense_exact_max_mb=MODES[mode])
    store = build_engine(settings).store
    queries = np.load(vectors_file)
    store.dense_search(queries[0], TOP)  # loads the index (the exact matrix or Chroma's graph)
    tops, ms = [], []
    for q in queries:
        started = time.perf_counter()
        hits = store.dense_search(q, TOP)
        ms.append((time.perf_counter() - started) * 1000)
        tops.append([cid for cid, _ in hits])
    out.write_text(json.dumps({"tops": tops, "ms": ms}), "utf-8")


def corpus_part(work: Path, shared: Path) -> list[str]:
    from geungeo.engine import build_engine

    questions = [q.question for f in FILES for q in load_questions(shared / "questions" / f)]
    engine = build_engine(Settings(data_dir=work / "e5-onnx", embed_provider="e5-onnx"))
    vectors = engine.embedder.embed(questions, query=True)
    runs: dict[str, list[dict[str, list]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        vectors_file = Path(tmp) / "queries.npy"
        np.save(vectors_file, vectors)
        for mode in MODES:
            for n in range(2):
                out = Path(tmp) / f"{mode}-{n}.json"
                cmd = [sys.executable, __file__, "--child", mode, "--work", str(work), str(vectors_file), str(out)]
                subprocess.run(cmd, check=True)
                runs.setdefault(mode, []).append(json.loads(out.read_text("utf-8")))
    lines = [
        f"## The shared corpus's store: {engine.store.count():,} chunks, {len(questions)} questions, top {TOP}",
        "",
        "| mode | questions whose top 200 differ between two processes | p50 ms | p95 ms "
        "| top 200 shared with exact (mean, min) | same top 1 as exact |",
        "|---|---|---|---|---|---|",
    ]
    exact = runs["exact"][0]["tops"]
    for mode, (first, second) in runs.items():
        differ = sum(a != b for a, b in zip(first["tops"], second["tops"], strict=True))
        p50, p95 = percentiles(first["ms"] + second["ms"])
        shared_top = [len(set(a) & set(e)) / max(len(e), 1) for a, e in zip(first["tops"], exact, strict=True)]
        same_first = sum(a[:1] == e[:1] for a, e in zip(first["tops"], exact, strict=True)) / len(exact)
        lines.append(
            f"| {mode} | {differ} of {len(exact)} | {p50:.2f} | {p95:.2f} | "
            f"{statistics.mean(shared_top):.3f}, {min(shared_top):.3f} | {same_first:.3f} |"
        )
    return lines


def synthetic_part(n: int, dim: int, doc_chunks: int = 70) -> list[str]:
    """A throw-away store of ``n`` random unit vectors in documents of ``doc_chunks`` chunks."""
    rng = np.random.default_rng(0)
    signature = IndexSignature("synthetic", dim, "synthetic")
    lines = [f"## {n:,} random vectors of dimension {dim} (documents of {doc_chunks} chunks)", ""]
    with tempfile.TemporaryDirectory() as tmp:
        store = ChromaStore(Settings(data_dir=Path(tmp)), signature)
        started = time.perf_counter()
        for d in range(0, n, doc_chunks):
            size = min(doc_chunks, n - d)
            doc_id = f"doc{d // doc_chunks:05d}"
            chunks = [
                Chunk(id=chunk_id(doc_id, i), doc_id=doc_id, ordinal=i, header=doc_id, text="",
                      meta={"doc_id": doc_id}, prev_id=None, next_id=None)
                for i in range(size)
            ]
            record = DocumentRecord(doc_id, doc_id, doc_id, "law", None, doc_id, size)
            vectors = rng.standard_normal((size, dim), dtype=np.float32)
            store.replace_document(record, chunks, vectors, [["x"]] * size)
        written = time.perf_counter() - started
        started = time.perf_counter()
        store.flush()
        built = time.perf_counter() - started
        hnsw = ChromaStore(Settings(data_dir=Path(tmp), dense_exact_max_mb=0), signature)
        queries = rng.standard_normal((100, dim), dtype=np.float32)
        named = In("doc_id", ("doc00042",))
        lines += [
            f"Written in {written:.0f} s; the exact matrix built (read from Chroma, saved) in {built:.1f} s.",
            "",
            "| search | mode | p50 ms | p95 ms | top 200 shared with exact (mean) |",
            "|---|---|---|---|---|",
        ]
        for label, where in (("whole store", None), ("one document", named)):
            results: dict[str, tuple[list[list[str]], list[float]]] = {}
            for mode, s in (("exact", store), ("hnsw", hnsw)):
                s.dense_search(queries[0], TOP, where)
                tops, ms = [], []
                for q in queries:
                    t0 = time.perf_counter()
                    tops.append([cid for cid, _ in s.dense_search(q, TOP, where)])
                    ms.append((time.perf_counter() - t0) * 1000)
                results[mode] = (tops, ms)
            for mode, (tops, ms) in results.items():
                overlap = statistics.mean(
                    len(set(a) & set(e)) / max(len(e), 1) for a, e in zip(tops, results["exact"][0], strict=True)
                )
                p50, p95 = percentiles(ms)
                lines.append(f"| {label} | {mode} | {p50:.2f} | {p95:.2f} | {overlap:.3f} |")
        hnsw.close()
        store.close()
    return lines


def ask_part(work: Path, shared: Path, n: int = 80) -> list[str]:
    """Whole questions (extractive answers, in this process) in both modes, with NumPy's BLAS at the machine's
    default threads and at one (``GEUNGEO_BLAS_THREADS``)."""
    from threadpoolctl import threadpool_limits

    from geungeo.engine import build_engine
    from geungeo.graph.runner import QueryRunner

    questions = [q.question for f in FILES[:3] for q in load_questions(shared / "questions" / f)][:n]
    lines = [
        f"## Whole questions: {len(questions)} shared questions asked in this process, extractive answers",
        "",
        "| BLAS threads | mode | ask p50 ms | ask p95 ms |",
        "|---|---|---|---|",
    ]
    cores = os.cpu_count() or 1
    for blas in (cores, 1):
        for mode, mb in MODES.items():
            with threadpool_limits(limits=cores, user_api="blas"):  # restored after each configuration
                settings = Settings(
                    data_dir=work / "e5-onnx", embed_provider="e5-onnx", dense_exact_max_mb=mb,
                    blas_threads=0 if blas == cores else blas,
                )
                runner = QueryRunner(build_engine(settings), llm=None)
                for q in questions[:3]:
                    list(runner.stream(q, cache_enabled=False))
                ms = []
                for q in questions:
                    started = time.perf_counter()
                    list(runner.stream(q, cache_enabled=False))
                    ms.append((time.perf_counter() - started) * 1000)
                runner.engine.close()
            p50, p95 = percentiles(ms)
            label = f"{blas} (the machine's default)" if blas == cores else f"{blas} (geungeo's default)"
            lines.append(f"| {label} | {mode} | {p50:.0f} | {p95:.0f} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument("--synthetic", type=int, default=0, help="also N random vectors in a throw-away store")
    ap.add_argument("--asks", action="store_true", help="also whole questions in both modes, BLAS threads default and 1")
    ap.add_argument("--child", choices=sorted(MODES), help=argparse.SUPPRESS)
    ap.add_argument("paths", nargs="*", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "dense_exact.md")
    args = ap.parse_args(argv)
    if args.child:
        child(args.work, args.child, *args.paths)
        return 0
    report = [
        "# Exact dense search against Chroma's HNSW index",
        "",
        f"`benchmarks/dense_exact.py`, run {time.strftime('%Y-%m-%d %H:%M')} on this machine (2 cores, shared), both "
        "modes in the same run. `exact`: the embedded store's saved matrix of every vector (the default up to "
        "`GEUNGEO_DENSE_EXACT_MAX_MB`, 512); `hnsw`: Chroma's index (`GEUNGEO_DENSE_EXACT_MAX_MB=0`).",
        "",
        *corpus_part(args.work, args.shared),
    ]
    if args.asks:
        report += ["", *ask_part(args.work, args.shared)]
    if args.synthetic:
        report += ["", *synthetic_part(args.synthetic, 384)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(report) + "\n", "utf-8")
    print("\n".join(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
