"""``/v1/ask`` latency while an upload ingests, against the same server idle, in one run (issue #21).

    .venv/bin/python benchmarks/upload_load.py [--seconds 20] [--upload ../shared/corpus/regulations/…hwpx]
    .venv/bin/python benchmarks/upload_load.py --work benchmarks/.work/f8 --embedder e5-onnx  # the default embedder

The server (uvicorn in a thread, as in ``benchmarks/api_load.py``) serves a fake-embedder store of
``../shared/corpus/laws``, or with ``--work``/``--embedder`` a copy of ``<work>/<embedder>/store`` (the upload is
then embedded with that embedder); the answers are extractive. One client asks the shared questions for ``--seconds``
with the server idle; then the upload (default: the 규정집 HWPX, 4 MB that unpack to 64 MB of XML and ~370
regulations) is posted to ``POST /v1/documents`` and the same client asks again until the job is done.
Before #21 the job held the store's writer lock for its whole ingestion, so every request waited for it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from api_load import SHARED, p95, prepare, questions
from geungeo.interfaces.api import create_app
from geungeo.testing.server import serving

ROOT = Path(__file__).resolve().parent.parent
UPLOAD = SHARED / "corpus" / "regulations" / "규정집9-349(20251202).hwpx"


def ask_until(client: httpx.Client, bodies: list[str], stop: threading.Event, seconds: float | None) -> list[float]:
    """Ask one question after another until ``stop`` is set (or ``seconds`` pass); the latencies."""
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds if seconds else float("inf")
    n = 0
    while not stop.is_set() and time.perf_counter() < deadline:
        t0 = time.perf_counter()
        r = client.post("/v1/ask", json={"question": bodies[n % len(bodies)]})
        r.raise_for_status()
        latencies.append(time.perf_counter() - t0)
        n += 1
    return latencies


def summary(name: str, latencies: Sequence[float]) -> str:
    return f"| {name} | {len(latencies)} | {statistics.median(latencies):.3f} | {p95(latencies):.3f} | {max(latencies):.3f} |"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20.0, help="idle measuring time")
    ap.add_argument("--upload", type=Path, default=UPLOAD)
    ap.add_argument("--work", type=Path, help="serve a copy of <work>/<embedder>/store (default: the laws, fake embedder)")
    ap.add_argument("--embedder", default="fake", help="the store's embedder, with --work")
    ap.add_argument(
        "--warm-all", action="store_true", help="ask every question once before measuring (a real embedder's cache)"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "upload_load.md")
    args = ap.parse_args(argv)
    bodies = questions()
    with tempfile.TemporaryDirectory() as tmp:
        served = prepare(args.work or Path(tmp) / "none", args.embedder if args.work else "fake", Path(tmp))
        settings = served.model_copy(update={"api_max_upload_mb": 100})
        with serving(create_app(settings)) as url, httpx.Client(base_url=url, timeout=900) as client:
            # warm-up: every question once, so that both phases find the question vectors in the same cache
            for body in bodies if args.warm_all else bodies[:1]:
                client.post("/v1/ask", json={"question": body}).raise_for_status()
            idle = ask_until(client, bodies, threading.Event(), args.seconds)
            started = time.perf_counter()
            with args.upload.open("rb") as fh:
                r = client.post("/v1/documents", files={"files": (args.upload.name, fh)})
            r.raise_for_status()
            job = r.json()["job_id"]
            done = threading.Event()

            def watch() -> None:
                while client.get(f"/v1/jobs/{job}").json()["status"] in ("queued", "running"):
                    time.sleep(0.5)
                done.set()

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
            during = ask_until(client, bodies, done, None)
            watcher.join()
            ingest_s = time.perf_counter() - started
            status = client.get(f"/v1/jobs/{job}").json()
    size_mb = args.upload.stat().st_size / 1e6
    store = f"a copy of `{args.work}/{args.embedder}`" if args.work else "fake-embedder store of the 48 laws"
    report = "\n".join([
        "# `/v1/ask` while an upload ingests",
        "",
        f"`benchmarks/upload_load.py`, {time.strftime('%Y-%m-%d %H:%M')}, one client asking the shared questions "
        f"(extractive answers, {store}), first with the server idle for {args.seconds:.0f} s, "
        f"then while `POST /v1/documents` ingests `{args.upload.name}` ({size_mb:.1f} MB; job {status['status']}, "
        f"{ingest_s:.0f} s, {status.get('result', {}).get('documents', '?')} documents).",
        "",
        "| server | requests | p50 s | p95 s | max s |",
        "|---|---|---|---|---|",
        summary("idle", idle),
        summary("during the upload", during),
        "",
        f"p95 during / idle: **{p95(during) / p95(idle):.2f}×**; the longest wait during the upload was "
        f"{max(during):.1f} s of a {ingest_s:.0f} s ingestion (before #21 the job held the writer lock throughout, so a "
        "request waited for the whole ingestion). Both phases ran in the same process on the same 2 cores, so the "
        "ingestion's own CPU use is part of the difference.",
    ]) + "\n"
    args.out.write_text(report, "utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
