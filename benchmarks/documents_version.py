"""How long the PostgreSQL store takes to read its documents' version, which every search reads.

``PostgresStore.documents_version`` tells a reader (a server, another process) whether the documents changed since it
derived its list of documents, their vectors and names; a search reads it once (``ChunkStore.one_read``), where it
read it once for each of them before. This run fills an
embedded PostgreSQL with as many documents as the shared statute book holds (1,720 by default, two chunks each), then
reads the version with the store's query and with the query it replaced (an md5 of every complete document's id,
hash and time of writing, sorted), interleaved, in the same run. It also checks that the store's version changes on
a write, a rewrite and a delete, and stays when nothing is written. Then it runs hybrid searches over the same store
(a fake embedder: the vectors of the filled documents), counting the version's reads per search and timing the
searches with one read against a read per look-up (``one_read`` made a no-op), interleaved.

    python benchmarks/documents_version.py [--documents 1720] [--reads 500]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import platform
import statistics
import time
from pathlib import Path

from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.settings import Settings
from geungeo.stores import pg_queries
from geungeo.stores.postgres import PostgresStore
from geungeo.testing.fakes import FakeEmbedder
from geungeo.testing.postgres import embedded_postgres
from geungeo.testing.store_contract import DIM, SIGNATURE, make_doc

REPORT = Path(__file__).parent / "reports" / "documents_version.md"
DIGEST = (  # the query before: the same documents, sorted and hashed as one string
    "SELECT coalesce(md5(string_agg(doc_id || ':' || content_hash || ':' || ingested_at::text, ',' ORDER BY doc_id)), '') "
    "FROM documents WHERE state = 'complete'"
)


def _ms(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def _searches(store: PostgresStore, n: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Search times and version reads per search, with one read per search and with a read per look-up."""
    retriever = HybridRetriever(store, FakeEmbedder(DIM), Settings(store_url="postgresql://unused", embed_provider="fake"))
    reads = [0]
    version = store.documents_version

    def counted() -> str:
        reads[0] += 1
        return version()

    store.documents_version = counted  # type: ignore[method-assign]
    queries = [(f"법{i} 휴직", FakeEmbedder(DIM).embed([f"법{i} 휴직"], query=True)[0]) for i in range(n)]
    ways = {"one read per search (now)": store.one_read, "a read per look-up (before)": _each_look_up}
    times: dict[str, list[float]] = {name: [] for name in ways}
    counts: dict[str, int] = dict.fromkeys(ways, 0)
    for query, vector in queries:
        for name, scope in ways.items():
            store.one_read = scope  # type: ignore[method-assign]
            before = reads[0]
            t0 = time.perf_counter()
            retriever.search(query, k=10, vector=vector)
            times[name].append(time.perf_counter() - t0)
            counts[name] += reads[0] - before
    del store.one_read, store.documents_version  # type: ignore[method-assign]
    return times, {name: count / n for name, count in counts.items()}


def _each_look_up() -> contextlib.AbstractContextManager[None]:
    """No read scope: each derived value reads the version itself (as before ``one_read``)."""
    return contextlib.nullcontext()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--documents", type=int, default=1720)
    parser.add_argument("--reads", type=int, default=500)
    parser.add_argument("--searches", type=int, default=200)
    args = parser.parse_args()
    with embedded_postgres() as url:
        store = PostgresStore(Settings(store_url=url, collection="version_bench"), SIGNATURE)
        try:
            for i in range(args.documents):
                store.replace_document(*make_doc(f"doc{i:05d}", 2, title=f"법{i}", seed=i))
            queries = {
                "md5 of the sorted documents (before)": DIGEST,
                "count and sum of xmin (now)": pg_queries.DOCUMENTS_VERSION,
            }
            times: dict[str, list[float]] = {name: [] for name in queries}
            for _ in range(args.reads):  # interleaved, so that both see the same load
                for name, query in queries.items():
                    t0 = time.perf_counter()
                    store._rows(query)
                    times[name].append(time.perf_counter() - t0)
            versions = [store.documents_version()]
            versions.append(store.documents_version())  # nothing written
            store.replace_document(*make_doc("doc-new", 2, title="새 법", seed=args.documents))
            versions.append(store.documents_version())  # a write
            store.replace_document(*make_doc("doc00000", 2, title="법0", seed=0))
            versions.append(store.documents_version())  # the same document written again
            store.delete_document("doc-new")
            versions.append(store.documents_version())  # a delete
            search_times, reads_per_search = _searches(store, args.searches)
        finally:
            store.close()
    checks = {
        "unchanged when nothing is written": versions[0] == versions[1],
        "changed by a write": versions[2] != versions[1],
        "changed by the same document written again": versions[3] != versions[2],
        "changed by a delete": versions[4] != versions[3],
    }
    before, now = (_ms(t) for t in times.values())
    lines = [
        "# Reading the documents' version (PostgreSQL store)",
        "",
        f"Run {dt.datetime.now():%Y-%m-%d %H:%M} on {platform.machine()}, {os.cpu_count()} CPUs (shared), "
        f"`python benchmarks/documents_version.py --documents {args.documents} --reads {args.reads}`: an embedded "
        f"PostgreSQL with {args.documents:,} documents of two chunks each, {args.reads} reads of each query, interleaved.",
        "",
        "| query | p50 ms | p95 ms |",
        "|---|---|---|",
        *(f"| {name} | {p50:.2f} | {p95:.2f} |" for name, (p50, p95) in zip(times, (before, now), strict=True)),
        "",
        f"The store's query takes {now[0] / before[0]:.2f}× the time of the one it replaced at p50 "
        f"({now[1] / before[1]:.2f}× at p95).",
        "",
        f"Hybrid searches over the same store ({args.searches}, a fake embedder), each read as one version or with a "
        "read per look-up, interleaved:",
        "",
        "| search | version reads per search | p50 ms | p95 ms |",
        "|---|---|---|---|",
        *(
            f"| {name} | {reads_per_search[name]:.1f} | {_ms(t)[0]:.2f} | {_ms(t)[1]:.2f} |"
            for name, t in search_times.items()
        ),
        "",
        "| check of the store's version | result |",
        "|---|---|",
        *(f"| {name} | {'yes' if ok else 'NO'} |" for name, ok in checks.items()),
        "",
    ]
    REPORT.write_text("\n".join(lines), "utf-8")
    print("\n".join(lines))
    if not all(checks.values()):
        raise SystemExit("the documents' version missed a change")


if __name__ == "__main__":
    main()
