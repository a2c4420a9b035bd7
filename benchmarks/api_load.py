"""HTTP API load: requests/s and latency of ``/v1/search`` and ``/v1/ask`` at 1, 8 and 32 concurrent clients.

    .venv/bin/python benchmarks/api_load.py                        # ~15 s per cell, writes benchmarks/reports/api_load.md
    .venv/bin/python benchmarks/api_load.py --seconds 5 --embedder fake

The server is uvicorn in a background thread of this process (as in ``tests/interfaces/test_api.py``),
over a copy of ``benchmarks/.work/<embedder>/store`` when one exists (else ``../shared/corpus/laws``
ingested with the fake embedder). ``/v1/ask`` runs with a scripted LLM that sleeps ``--llm-delay``
seconds per call, so it measures how well the server overlaps slow LLM calls, not answer quality.
The clients run in a child process (httpx, asyncio), so they do not share the server's GIL.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from geungeo.engine import build_engine
from geungeo.evaluation import load_questions
from geungeo.graph.runner import QueryRunner
from geungeo.interfaces.api import create_app
from geungeo.settings import Settings
from geungeo.testing.server import serving

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT / "benchmarks"))
from answers import scripted_llm  # noqa: E402

FALLBACK_QUESTIONS = ["연차 유급휴가는 며칠인가요?", "개인정보 처리 동의는 어떻게 받나요?", "출산전후휴가 기간"]


def prepare(work: Path, embedder: str, tmp: Path) -> Settings:
    """Settings over a private copy of the benchmark store (or a fresh fake-embedder store of the laws)."""
    source = work / embedder
    data = tmp / "data"
    if (source / "store").is_dir():
        print(f"copying {source / 'store'} …", file=sys.stderr)
        shutil.copytree(source / "store", data / "store")
        return Settings(data_dir=data, embed_provider=embedder, cache_enabled=False, api_timeout_s=600)
    settings = Settings(data_dir=data, embed_provider="fake", cache_enabled=False, api_timeout_s=600)
    print(f"ingesting {SHARED / 'corpus' / 'laws'} with the fake embedder …", file=sys.stderr)
    engine = build_engine(settings)
    engine.ingest([SHARED / "corpus" / "laws"])
    engine.close()
    return settings


def questions() -> list[str]:
    files = [SHARED / "questions" / f"{name}.jsonl" for name in ("laws", "regulations", "documents")]
    found = [q.question for f in files if f.is_file() for q in load_questions(f) if q.answerable and not q.structural]
    return found or FALLBACK_QUESTIONS


# --- the load generator (child process) ----------------------------------------------------


async def _cell(url: str, path: str, bodies: list[dict[str, Any]], clients: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    errors: list[str] = []
    counter = iter(range(10**9))
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as client:
        await client.post(path, json=bodies[0])  # warm-up
        started = time.perf_counter()
        deadline = started + seconds

        async def worker() -> None:
            while time.perf_counter() < deadline:
                n = next(counter)
                body = bodies[n % len(bodies)]
                if "query" in body:  # a new query each time: the query-embedding cache must not answer for the embedder
                    body = {**body, "query": f"{body['query']} ({n})"}
                t0 = time.perf_counter()
                try:
                    r = await client.post(path, json=body)
                    if r.status_code != 200:
                        errors.append(f"{r.status_code} {r.text[:120]}")
                        continue
                except httpx.HTTPError as exc:
                    errors.append(repr(exc))
                    continue
                latencies.append(time.perf_counter() - t0)

        await asyncio.gather(*(worker() for _ in range(clients)))
        elapsed = time.perf_counter() - started
    return {"latencies": latencies, "errors": errors, "elapsed": elapsed}


def run_cell(url: str, path: str, bodies: list[dict[str, Any]], clients: int, seconds: float) -> dict[str, Any]:
    return asyncio.run(_cell(url, path, bodies, clients, seconds))


# --- report --------------------------------------------------------------------------------


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)] if ordered else float("nan")


def row(endpoint: str, clients: int, result: dict[str, Any]) -> str:
    lat = result["latencies"]
    rps = len(lat) / result["elapsed"]
    p50 = statistics.median(lat) if lat else float("nan")
    return f"| `{endpoint}` | {clients} | {len(lat)} | {len(result['errors'])} | {rps:.2f} | {p50:.3f} | {p95(lat):.3f} |"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--embedder", default=None, help="store to reuse: benchmarks/.work/<embedder> (default: the setting)")
    ap.add_argument("--seconds", type=float, default=15.0, help="measuring time per cell")
    ap.add_argument("--clients", default="1,8,32", help="concurrent clients per cell, comma-separated")
    ap.add_argument("--llm-delay", type=float, default=0.5, help="seconds the scripted LLM sleeps per call")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "api_load.md")
    args = ap.parse_args(argv)
    levels = [int(c) for c in args.clients.split(",")]
    texts = questions()
    with tempfile.TemporaryDirectory(prefix="api-load-") as tmp:
        settings = prepare(args.work, args.embedder or Settings().embed_provider, Path(tmp))
        engine = build_engine(settings)
        documents, chunks = len(engine.store.documents()), engine.store.count()
        runner = QueryRunner(engine, llm=scripted_llm(args.llm_delay))
        lines = [
            "# HTTP API load",
            "",
            f"Run {time.strftime('%Y-%m-%d %H:%M')}: embedder `{settings.embed_provider}`, {documents} documents, "
            f"{chunks} chunks; {len(texts)} questions; {args.seconds:g} s per cell after one warm-up request; each "
            "`/v1/search` query is made unique (a counter appended) so that every one is embedded; `/v1/ask` with a scripted LLM "
            f"sleeping {args.llm_delay} s per call (semantic cache off). Server: uvicorn, one process, in a thread of the "
            "benchmark; clients: httpx (asyncio) in a child process, each sending its next request when the last returns.",
            "",
            "| endpoint | clients | requests | errors | req/s | p50 s | p95 s |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        cells = [("/v1/search", [{"query": q, "k": 10} for q in texts]), ("/v1/ask", [{"question": q} for q in texts])]
        try:
            spawn = multiprocessing.get_context("spawn")  # the clients' process does not inherit the server's threads
            with serving(create_app(settings, runner), keep_alive_s=30) as url, ProcessPoolExecutor(1, mp_context=spawn) as pool:
                for path, bodies in cells:
                    for clients in levels:
                        result = pool.submit(run_cell, url, path, bodies, clients, args.seconds).result()
                        lines.append(row(path, clients, result))
                        print(lines[-1], flush=True)
                        for error in sorted(set(result["errors"]))[:3]:
                            print(f"  error: {error}", file=sys.stderr)
        finally:
            runner.close()
    lines += ["", f"Machine: {os.cpu_count()} CPU cores (shared with other jobs while measured).", ""]
    args.out.write_text("\n".join(lines), "utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
