"""Windowed embeddings of long chunks (issue #19 item 3): does embedding the rest of a long chunk pay?

Ingestion embeds ``chunk.indexed_text`` (header line + text; ``contextual_text()`` with
``GEUNGEO_CHUNK_CONTEXT=all``) and the embedder cuts it to ``embed_max_chars`` characters first
(``Embedder.prepare``); e5-onnx would window at 510 content tokens after the ``passage: `` prefix,
but a 400-character window never gets there. So a chunk longer than ``embed_max_chars`` is seen only
through its first window. This script, on the store that ``benchmarks/retrieval.py`` ingested
(``benchmarks/.work/e5-onnx``, opened through ``build_engine`` and only read), embeds the further
windows of those chunks with the raw embedder (header line + the next stretch of the text, windows of
the same size, consecutive windows overlapping by at least ``--overlap`` characters, the last one
ending at the text's end), times that against a sample of ordinary chunks in interleaved slices, and
scores the shared answerable questions with dense-only and hybrid retrieval for the first window
alone (today; read from the store), the max over a chunk's windows and the normalised mean of its
window vectors. The hybrid runs are the engine's own ``HybridRetriever`` over a view of the store
whose ``dense_search`` is answered exactly (brute force) from the chosen vectors; the store's own
HNSW search with today's vectors is run beside them to reproduce ``benchmarks/reports/retrieval-e5-onnx.md``.

    .venv/bin/python benchmarks/windows.py                          # writes benchmarks/reports/windows.md
    .venv/bin/python benchmarks/windows.py --cache /tmp/win.sqlite  # keep the window vectors between runs
    .venv/bin/python benchmarks/windows.py --render-only            # re-render from the saved results
    .venv/bin/python benchmarks/windows.py --whole --cache /tmp/win.sqlite --results /tmp/whole.json --out /tmp/whole.md
    .venv/bin/python benchmarks/windows.py --render-only --also /tmp/whole.json  # add that run's (d) rows

``--whole`` also measures (d), the whole chunk in one pass (``embed_max_chars`` above the longest chunk, so
e5-onnx applies its own 510-token windows); it about doubles the run, so it is left out by default.

Nothing is written under the data directory: question vectors are read from its embedding cache
(read-only) or embedded, window vectors live in memory or in ``--cache`` (which must be outside it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sqlite3
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from geungeo.embeddings import get_embedder
from geungeo.embeddings.base import Embedder, normalize_rows
from geungeo.embeddings.cache import CachedEmbedder
from geungeo.embeddings.e5_onnx import E5OnnxEmbedder
from geungeo.engine import Engine, build_engine
from geungeo.evaluation import KS, Question, first_correct_rank, load_questions, target_matches
from geungeo.filters import Filter, In, matches
from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore
from geungeo.text.normalize import nfc, squash
from geungeo.types import Chunk

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
QUESTION_FILES = ("laws.jsonl", "regulations.jsonl", "documents.jsonl")
K = max(KS)
# R@5 of benchmarks/reports/retrieval-e5-onnx.md (2026-11-25 06:58), the run this one should reproduce.
REPORTED_R5 = {
    "dense": {"laws.jsonl": 0.62, "regulations.jsonl": 0.65, "documents.jsonl": 0.79},
    "hybrid": {"laws.jsonl": 0.73, "regulations.jsonl": 0.85, "documents.jsonl": 0.93},
}
POOLINGS = ("first", "max", "mean")  # first window only (today), max over windows, mean of window vectors
LABEL = {
    "hnsw": "(a) first window, store's HNSW search (today's engine)",
    "first": "(a) first window, exact",
    "max": "(b) max over windows",
    "mean": "(c) mean of window vectors",
    "whole": "(d) whole chunk, one pass (model's own 510-token windows)",
    "max:law": "(b) max over windows, statute chunks only",
    "max:regulation": "(b) max over windows, regulation chunks only",
    "max:other": "(b) max over windows, PDF / HWP / Office chunks only",
}
BASE_VARIANTS = ("first", "max", "mean", "whole")
KIND_GROUP = {"law": "law", "regulation": "regulation", "pdf": "other", "hwp": "other", "docx": "other", "pptx": "other"}
TIMING_SLICES = 10
_TABLE_RULE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$", re.MULTILINE)


# --- what ingestion embeds, and the windows after the first ----------------------------------


def embedded_text(chunk: Chunk, settings: Settings) -> str:
    """The text ingestion hands the embedder for a chunk (``Ingestor._embed``), NFC."""
    return nfc(chunk.contextual_text() if settings.chunk_context == "all" else chunk.indexed_text)


def later_windows(text: str, header: str, size: int, overlap: int) -> list[str]:
    """The windows after the first (``text[:size]``, what is embedded today), each at most ``size`` characters.

    Each window is the header line followed by a stretch of the rest of the text, as the first window
    is; stretches step by (room - overlap), the last one ends at the text's end (so it may overlap its
    neighbour by more).
    """
    if len(text) <= size:
        return []
    header = nfc(header)
    prefix = f"{header}\n" if header and text.startswith(f"{header}\n") and len(header) + 1 <= size // 2 else ""
    body, room = text[len(prefix) :], size - len(prefix)
    step = max(1, room - overlap)
    starts: list[int] = []
    start = step
    while True:
        if start + room >= len(body):
            starts.append(max(0, len(body) - room))
            break
        starts.append(start)
        start += step
    return [prefix + body[s : s + room] for s in dict.fromkeys(starts)]


# --- a store view whose dense search is exact over chosen vectors -----------------------------


class ExactDenseStore:
    """The engine's store, except that ``dense_search`` ranks every chunk by ``score(vector)`` (brute force)."""

    def __init__(self, store: ChunkStore, chunks: Sequence[Chunk]) -> None:
        self._store = store
        self.ids = [c.id for c in chunks]
        self._metas = [c.meta for c in chunks]
        self._doc_ids = np.array([str(c.meta.get("doc_id")) for c in chunks])
        self._masks: dict[str, np.ndarray] = {}
        self.score: Callable[[np.ndarray], np.ndarray] = lambda v: np.zeros(len(self.ids))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def _mask(self, where: Filter) -> np.ndarray:
        key = repr(where)
        if key not in self._masks:
            if isinstance(where, In) and where.field == "doc_id":
                self._masks[key] = np.isin(self._doc_ids, [str(v) for v in where.values])
            else:
                self._masks[key] = np.array([matches(m, where) for m in self._metas])
        return self._masks[key]

    def dense_search(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[tuple[str, float]]:
        scores = self.score(np.asarray(vector, dtype=np.float32).ravel()).astype(np.float64)
        if where is not None:
            mask = self._mask(where)
            scores = np.where(mask, scores, -np.inf)
            k = min(k, int(mask.sum()))
        k = min(k, len(scores))
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top]


# --- inputs -----------------------------------------------------------------------------------


def stored_vectors(engine: Engine, ids: Sequence[str]) -> np.ndarray:
    """The vectors the store holds for ``ids`` (today's first-window vectors), in that order."""
    collection = getattr(engine.store, "collection", None)
    if collection is None:
        raise SystemExit("windows.py reads the vectors from the embedded Chroma store; this store has none")
    out = np.zeros((len(ids), engine.embedder.dim), dtype=np.float32)
    where = {cid: n for n, cid in enumerate(ids)}
    for start in range(0, len(ids), 2000):
        got = collection.get(ids=list(ids[start : start + 2000]), include=["embeddings"])
        for cid, vec in zip(got["ids"], got["embeddings"], strict=True):
            out[where[cid]] = vec
    return out


def query_vectors(settings: Settings, raw: Embedder, name: str, questions: Sequence[Question]) -> tuple[np.ndarray, int]:
    """Question vectors as ``benchmarks/retrieval.py`` got them (the store's embedding cache, opened read-only);
    questions the cache lacks are embedded. Returns (vectors, how many came from the cache)."""
    keys = [hashlib.sha256(nfc(q.question)[: raw.max_chars].encode("utf-8")).hexdigest() for q in questions]
    found: dict[str, np.ndarray] = {}
    path = settings.data_dir / "cache" / "embeddings.sqlite"
    if path.exists():
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            marks = ",".join("?" * len(keys))
            rows = db.execute(f"SELECT key, vec FROM vectors WHERE model=? AND side='q' AND key IN ({marks})", (name, *keys))
            found = {k: np.frombuffer(v, dtype=np.float32) for k, v in rows}
        except sqlite3.Error as exc:
            print(f"  embedding cache not readable ({exc}); embedding the questions", file=sys.stderr)
        finally:
            db.close()
    missing = [n for n, k in enumerate(keys) if k not in found or found[k].shape[0] != raw.dim]
    out = np.zeros((len(questions), raw.dim), dtype=np.float32)
    for n, k in enumerate(keys):
        if n not in missing:
            out[n] = found[k]
    if missing:
        out[missing] = raw.embed([questions[n].question for n in missing], query=True)
    return out, len(questions) - len(missing)


def loose(text: str) -> str:
    """Evidence containment as ``geungeo.evaluation`` compares it (whitespace, table rules and bars removed)."""
    return squash(_TABLE_RULE.sub("", text)).replace("|", "")


def gold_facts(q: Question, chunks: Sequence[Chunk], texts: Sequence[str], cut: np.ndarray, size: int,
               by_name: dict[str, list[int]]) -> dict[str, bool]:
    """Whether a gold chunk of ``q`` is long (cut by the first window), all of them are, and whether the
    gold evidence lies only past the first window of the gold chunks that hold it."""
    gold: set[int] = set()
    beyond: list[bool] = []
    for target, evidence in zip(q.gold, q.evidence, strict=True):
        names = {squash(str(target.get("doc") or "")), f"code:{target.get('code')}"}
        candidates = sorted({i for name in names for i in by_name.get(name, [])})
        hit = [i for i in candidates if target_matches(target, evidence, chunks[i])]
        gold.update(hit)
        if evidence:
            ev = loose(evidence)
            holding = [i for i in hit if ev in loose(texts[i])]
            if holding:
                beyond.append(not any(ev in loose(texts[i][:size]) for i in holding))
    past = bool(beyond) and (any(beyond) if q.need_all else all(beyond))
    return {"long": any(cut[i] for i in gold), "all_long": bool(gold) and all(cut[i] for i in gold), "past": past}


# --- measuring --------------------------------------------------------------------------------


def timed_embeddings(
    jobs: dict[str, tuple[Embedder, list[str]]], slices: int
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, float]]]:
    """Embed each job's passages in interleaved slices (so that the machine's load falls on all alike);
    vectors in the given order and, per job, passages, wall seconds, CPU seconds and passages computed."""
    vectors: dict[str, np.ndarray] = {}
    timing: dict[str, dict[str, float]] = {}
    orders: dict[str, list[int]] = {}
    for name, (emb, texts) in jobs.items():
        (emb.inner if isinstance(emb, CachedEmbedder) else emb).embed(["warm-up"])
        orders[name] = random.Random(name).sample(range(len(texts)), len(texts))
        vectors[name] = np.zeros((len(texts), emb.dim), dtype=np.float32)
        timing[name] = {"passages": len(texts), "wall_s": 0.0, "cpu_s": 0.0, "computed": len(texts)}
        if isinstance(emb, CachedEmbedder):
            emb.computed = 0
    for part in range(slices):
        for name, (emb, texts) in jobs.items():
            order = orders[name]
            idx = order[part * len(order) // slices : (part + 1) * len(order) // slices]
            if not idx:
                continue
            wall, cpu = time.perf_counter(), time.process_time()
            vectors[name][idx] = emb.embed([texts[i] for i in idx])
            timing[name]["wall_s"] += time.perf_counter() - wall
            timing[name]["cpu_s"] += time.process_time() - cpu
        print(f"  embedding slice {part + 1}/{slices} {time.strftime('%H:%M:%S')}", file=sys.stderr, flush=True)
    for name, (emb, _) in jobs.items():
        if isinstance(emb, CachedEmbedder):
            timing[name]["computed"] = emb.computed
    return vectors, timing


def rank_all(retriever: HybridRetriever, questions: Sequence[Question], vectors: np.ndarray, mode: str) -> list[int | None]:
    out: list[int | None] = []
    for q, vec in zip(questions, vectors, strict=True):
        hits = retriever.search(q.question, k=K, mode=mode, vector=vec)  # type: ignore[arg-type]
        out.append(first_correct_rank(q, [h.chunk for h in hits]))
    return out


def recall(ranks: Sequence[int | None], k: int) -> float:
    return sum(r is not None and r <= k for r in ranks) / max(len(ranks), 1)


def mrr(ranks: Sequence[int | None]) -> float:
    return sum(1 / r for r in ranks if r is not None and r <= K) / max(len(ranks), 1)


def split_half(questions: Sequence[Question], ranks: dict[str, list[int | None]], mode: str, splits: int) -> dict[str, Any]:
    """Choose max or mean on a random half (stratified by file) by R@5, then MRR; score on the other half."""
    by_file: dict[str, list[int]] = defaultdict(list)
    for n, q in enumerate(questions):
        by_file[q.file].append(n)
    rows: dict[str, list[float]] = defaultdict(list)
    picks: Counter[str] = Counter()
    for seed in range(splits):
        rng = random.Random(1000 + seed)
        pick: list[int] = []
        for members in by_file.values():
            pick += rng.sample(members, len(members) // 2)
        chosen_half = set(pick)
        held = [n for n in range(len(questions)) if n not in chosen_half]

        def on(name: str, half: Sequence[int]) -> tuple[float, float]:
            rs = [ranks[f"{mode}/{name}"][n] for n in half]
            return recall(rs, 5), mrr(rs)

        best = max(("max", "mean"), key=lambda name: on(name, pick))
        picks[best] += 1
        (r5, m), (r5_a, m_a) = on(best, held), on("first", held)
        rows["chosen R@5"].append(r5)
        rows["first R@5"].append(r5_a)
        rows["Δ R@5"].append(r5 - r5_a)
        rows["chosen MRR"].append(m)
        rows["first MRR"].append(m_a)
        rows["Δ MRR"].append(m - m_a)
    return {"picks": dict(picks), "rows": {k: [float(np.mean(v)), float(min(v)), float(max(v))] for k, v in rows.items()}}


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def compute(args: argparse.Namespace) -> dict[str, Any]:
    started = time.strftime("%Y-%m-%d %H:%M")
    load_start = loadavg()
    t_run = time.perf_counter()
    base = Settings(embed_provider="e5-onnx")
    settings = base.model_copy(update={"data_dir": args.work})
    if args.cache and args.cache.resolve().is_relative_to(settings.data_dir.resolve()):
        raise SystemExit("--cache must lie outside the store's data directory")
    engine = build_engine(settings)
    raw = get_embedder(settings)
    size = raw.max_chars
    questions = [q for f in QUESTION_FILES for q in load_questions(args.shared / "questions" / f) if q.answerable]
    chunks = [c for d in engine.store.documents() for c in engine.store.chunks_of(d.doc_id)]
    kinds = {d.doc_id: d.kind for d in engine.store.documents()}
    chunk_kind = [kinds.get(str(c.meta.get("doc_id")), "?") for c in chunks]
    texts = [embedded_text(c, settings) for c in chunks]
    lengths = np.array([len(t) for t in texts])
    cut = lengths > size
    print(f"{len(chunks)} chunks, {int(cut.sum())} longer than {size} characters; {len(questions)} questions", file=sys.stderr)

    # Today's vectors, and a check that they are the embedder's vectors of the first window.
    first = stored_vectors(engine, [c.id for c in chunks])
    check_idx = random.Random(7).sample(list(np.flatnonzero(cut)), min(16, int(cut.sum())))
    check = (raw.embed([texts[i] for i in check_idx]) * first[check_idx]).sum(1)

    # Windows after the first.
    owners: list[int] = []
    windows: list[str] = []
    for i in np.flatnonzero(cut):
        more = later_windows(texts[i], chunks[i].header, size, args.overlap)
        owners += [int(i)] * len(more)
        windows += more
    owner = np.array(owners, dtype=np.int64)
    per_chunk = Counter(Counter(owners).values())

    # Token counts (content tokens after the prefix, plus <s> </s>) of the cut chunks.
    t0 = time.perf_counter()
    if not isinstance(raw, E5OnnxEmbedder):
        raise SystemExit("windows.py measures the e5-onnx embedder")
    token_count = raw.token_count
    cut_idx = np.flatnonzero(cut)
    tok_first = [token_count(texts[i][:size]) for i in cut_idx]
    tok_whole = [token_count(texts[i]) for i in cut_idx]
    tok_windows = [token_count(w) for w in windows[:: max(1, len(windows) // 500)]]
    tok_sample_idx = random.Random(3).sample(range(len(texts)), 500)
    tok_all = [token_count(texts[i][:size]) for i in tok_sample_idx]
    print(f"  tokenised in {time.perf_counter() - t0:.1f} s", file=sys.stderr)

    # Timing: the extra windows against a sample of ordinary chunks (as ingestion embeds them), interleaved.
    sample_idx = random.Random(11).sample(range(len(chunks)), min(args.sample, len(chunks)))
    window_embedder: Embedder = CachedEmbedder(raw, args.cache) if args.cache else raw
    jobs: dict[str, tuple[Embedder, list[str]]] = {
        "windows": (window_embedder, windows),
        "ordinary sample": (raw, [texts[i] for i in sample_idx]),
    }
    if args.whole:
        whole_raw = get_embedder(settings.model_copy(update={"embed_max_chars": int(lengths.max()) + 1}))
        whole_emb: Embedder = CachedEmbedder(whole_raw, args.cache) if args.cache else whole_raw
        jobs["whole chunks"] = (whole_emb, [texts[i] for i in cut_idx])
    print(f"embedding {len(windows)} windows and {len(sample_idx)} sample chunks …", file=sys.stderr)
    vecs, timing = timed_embeddings(jobs, TIMING_SLICES)
    sample_check = (vecs["ordinary sample"] * first[sample_idx]).sum(1)

    # Chunk scores for each pooling.
    win = vecs["windows"]
    sums = first.astype(np.float64).copy()
    np.add.at(sums, owner, win)
    mean_vecs = normalize_rows(sums.astype(np.float32))

    def first_score(v: np.ndarray) -> np.ndarray:
        return first @ v

    def max_over(keep: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        own, vecs_kept = owner[keep], win[keep]

        def max_score(v: np.ndarray) -> np.ndarray:
            s = first @ v
            np.maximum.at(s, own, vecs_kept @ v)
            return s

        return max_score

    def mean_score(v: np.ndarray) -> np.ndarray:
        return mean_vecs @ v

    every = np.ones(len(owner), dtype=bool)
    scorers: dict[str, Callable[[np.ndarray], np.ndarray]] = {"first": first_score, "max": max_over(every), "mean": mean_score}
    variant_windows = {"first": 0, "max": len(owner), "mean": len(owner)}
    window_group = np.array([KIND_GROUP.get(chunk_kind[o], "other") for o in owners])
    for group in dict.fromkeys(KIND_GROUP.values()):
        keep = window_group == group
        scorers[f"max:{group}"] = max_over(keep)
        variant_windows[f"max:{group}"] = int(keep.sum())
    if args.whole:
        whole_vecs = first.copy()
        whole_vecs[cut_idx] = vecs["whole chunks"]
        scorers["whole"] = lambda v: whole_vecs @ v

    qvecs, from_cache = query_vectors(settings, raw, engine.embedder.name, questions)
    print("scoring …", file=sys.stderr)
    ranks: dict[str, list[int | None]] = {}
    for mode in ("dense", "hybrid"):
        ranks[f"{mode}/hnsw"] = rank_all(engine.retriever, questions, qvecs, mode)
    view = ExactDenseStore(engine.store, chunks)
    exact = HybridRetriever(cast(ChunkStore, view), engine.embedder, engine.settings)
    for name, scorer in scorers.items():
        view.score = scorer
        for mode in ("dense", "hybrid"):
            ranks[f"{mode}/{name}"] = rank_all(exact, questions, qvecs, mode)

    # Gold facts per question.
    by_name: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(chunks):
        for key in {squash(str(c.meta.get("doc") or "")), squash(str(c.meta.get("source") or ""))}:
            by_name[key].append(i)
        if c.meta.get("code"):
            by_name[f"code:{c.meta['code']}"].append(i)
    facts = [gold_facts(q, chunks, texts, cut, size, by_name) for q in questions]

    splits = {mode: split_half(questions, ranks, mode, args.splits) for mode in ("dense", "hybrid")}
    engine.close()

    kinds_cut = Counter(k for k, c in zip(chunk_kind, cut, strict=True) if c)
    kinds_all = Counter(chunk_kind)
    kinds_windows = Counter(chunk_kind[i] for i in owners)
    return {
        "started": started,
        "load_start": load_start,
        "load_end": loadavg(),
        "uptime_end": os.popen("uptime").read().strip(),
        "run_s": time.perf_counter() - t_run,
        "cores": len(os.sched_getaffinity(0)),
        "settings": {
            "embed_provider": settings.embed_provider, "embed_precision": settings.embed_precision,
            "embed_max_chars": size, "chunk_size": settings.chunk_size, "chunk_context": settings.chunk_context,
            "fusion": settings.fusion, "candidate_k": settings.candidate_k, "sparse_weight": settings.sparse_weight,
            "dense_weight": settings.dense_weight, "reranker": settings.reranker, "data_dir": str(args.work),
        },
        "overlap": args.overlap,
        "n_splits": args.splits,
        "chunks": len(chunks),
        "lengths": {str(t): int((lengths > t).sum()) for t in (size, 600, 800, 1000, 1200)},
        "max_length": int(lengths.max()),
        "kinds_all": dict(kinds_all), "kinds_cut": dict(kinds_cut), "kinds_windows": dict(kinds_windows),
        "windows": len(windows),
        "windows_per_chunk": {str(k): v for k, v in sorted(per_chunk.items())},
        "window_chars_mean": float(np.mean([len(w) for w in windows])) if windows else 0.0,
        "tokens": {
            "first window of cut chunks (mean / max)": [float(np.mean(tok_first)), int(max(tok_first))],
            "whole cut chunks (mean / max)": [float(np.mean(tok_whole)), int(max(tok_whole))],
            "whole cut chunks over 512 tokens": int(sum(t > 512 for t in tok_whole)),
            "later windows (mean / max, sample)": [float(np.mean(tok_windows)), int(max(tok_windows))],
            "any chunk as embedded today (mean / max, 500 sampled)": [float(np.mean(tok_all)), int(max(tok_all))],
        },
        "check_cos": [float(check.min()), float(check.mean())],
        "sample_check_cos": [float(sample_check.min()), float(sample_check.mean())],
        "timing": timing,
        "query_vectors_from_cache": from_cache,
        "questions": [{"id": q.id, "file": q.file, "style": q.style} for q in questions],
        "ranks": ranks,
        "facts": facts,
        "splits": splits,
        "variants": list(scorers),
        "variant_windows": variant_windows,
    }


# --- report -----------------------------------------------------------------------------------


def cell(ranks: Sequence[int | None]) -> str:
    return f"{recall(ranks, 1):.2f} / **{recall(ranks, 5):.2f}** / {recall(ranks, 10):.2f} · {mrr(ranks):.2f}"


def render(res: dict[str, Any], command: str, also: dict[str, Any] | None = None) -> str:
    qs = res["questions"]
    files = list(dict.fromkeys(q["file"] for q in qs))
    ranks: dict[str, list[int | None]] = res["ranks"]
    facts = res["facts"]
    st = res["settings"]
    size = st["embed_max_chars"]
    t = res["timing"]
    w, s = t["windows"], t["ordinary sample"]
    s_per = s["wall_s"] / s["passages"]
    corpus_s = res["chunks"] * s_per
    timed = w["computed"] == w["passages"]
    extra_pct = 100 * w["wall_s"] / corpus_s
    groups: dict[str, list[int]] = {f: [n for n, q in enumerate(qs) if q["file"] == f] for f in files}
    groups["all"] = list(range(len(qs)))

    def sub(name: str, idx: Sequence[int]) -> list[int | None]:
        return [ranks[name][n] for n in idx]

    out = [
        "# Windowed embeddings of long chunks (issue #19 item 3)",
        "",
        f"`benchmarks/windows.py`, run {res['started']} (`{command}`), {res['run_s'] / 60:.1f} min wall. Machine: "
        f"{res['cores']} cores shared with other work; load average {res['load_start']} at the start, "
        f"{res['load_end']} at the end (`{res['uptime_end']}`).",
        "",
        f"Store: `{st['data_dir']}` as `benchmarks/retrieval.py` ingested it (read only, not re-ingested): "
        f"{res['chunks']:,} chunks, embedder `{st['embed_provider']}` {st['embed_precision']}, chunk size "
        f"{st['chunk_size']}, chunk context `{st['chunk_context']}`; fusion `{st['fusion']}` over "
        f"{st['candidate_k']} candidates, sparse ×{st['sparse_weight']} / dense ×{st['dense_weight']}, reranker "
        f"`{st['reranker']}`. 180 answerable shared questions (laws, regulations, documents .jsonl), matching rules of "
        "`shared/README.md`; cells are R@1 / **R@5** / R@10 · MRR (MRR@10).",
        "",
        "## What is embedded today, and where it is cut",
        "",
        "Ingestion embeds `chunk.indexed_text` = the header line (e.g. `근로기준법 제60조(연차 유급휴가)`) + `\\n` + the "
        "chunk text (`Ingestor._embed`; `contextual_text()` only with `GEUNGEO_CHUNK_CONTEXT=all`). `Embedder.prepare` cuts "
        f"it to `embed_max_chars` = **{size} characters** (NFC) before the model sees it; e5-onnx then prefixes "
        "`passage: ` and would split into 510-token windows (weighted mean) only beyond 510 content tokens, which a "
        f"{size}-character text never reaches. So the cut that matters is the character cut, not the model's: the "
        f"first window is `text[:{size}]`.",
        "",
        f"Stored vectors equal the embedder's vectors of the first {size} characters: cosine min "
        f"{res['check_cos'][0]:.5f} (mean {res['check_cos'][1]:.5f}) on 16 long chunks re-embedded, "
        f"{res['sample_check_cos'][0]:.5f} on the {s['passages']} timing-sample chunks (float noise of batching).",
        "",
        "| chunks | count |",
        "|---|---:|",
        *[f"| longer than {k} characters | {v:,} |" for k, v in res["lengths"].items()],
        f"| longest | {res['max_length']:,} characters |",
        "",
        "| tokens (incl. `<s>` `</s>`, after `passage: `) | mean | max |",
        "|---|---:|---:|",
    ]
    for name, value in res["tokens"].items():
        if isinstance(value, list):
            label = re.sub(r"\(mean / max,? ?", "(", name).replace(" ()", "")
            out.append(f"| {label} | "
                       f"{value[0]:.0f} | {value[1]} |")
    out += [
        "",
        f"Cut chunks whose whole text exceeds 512 tokens (the model's own limit): "
        f"{res['tokens']['whole cut chunks over 512 tokens']:,}.",
        "",
        "| kind | chunks | cut (> " + str(size) + " chars) | extra windows |",
        "|---|---:|---:|---:|",
    ]
    for kind, n in sorted(res["kinds_all"].items(), key=lambda kv: -kv[1]):
        out.append(f"| {kind} | {n:,} | {res['kinds_cut'].get(kind, 0):,} | {res['kinds_windows'].get(kind, 0):,} |")
    per = ", ".join(f"{k} more: {v:,}" for k, v in res["windows_per_chunk"].items())
    out += [
        "",
        f"Windows: each later window is the header line + `\\n` + a stretch of the text, {size} characters in all "
        f"(the first window's size); stretches step by (room − {res['overlap']}), so consecutive windows overlap by at "
        f"least **{res['overlap']} characters**, and the last one ends at the text's end (overlapping more). "
        f"{res['windows']:,} extra windows for {res['lengths'][str(size)]:,} cut chunks ({per}); "
        f"{res['window_chars_mean']:.0f} characters on average. Pooling: (b) a chunk scores the max cosine over its "
        "windows (one vector per window mapped back to its chunk); (c) the mean of its window vectors, L2-normalised.",
        "",
        "## Cost",
        "",
        f"Raw `{st['embed_provider']}` embedder, all cores, in {TIMING_SLICES} interleaved slices so that the machine's "
        f"load falls on both alike; the ordinary sample is {s['passages']} random chunks as ingestion embeds them "
        f"(cut at {size}).",
        "",
        "| passages | n | wall s | passages/s | CPU s / passage |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, row in t.items():
        rate = row["passages"] / row["wall_s"] if row["wall_s"] else float("nan")
        out.append(f"| {name} | {row['passages']:,} | {row['wall_s']:.1f} | {rate:.1f} | {row['cpu_s'] / row['passages']:.3f} |")
    cost_lines = [
        "",
        f"Embedding the whole corpus at the sample's rate: {res['chunks']:,} × {s_per * 1000:.0f} ms = **{corpus_s:.0f} s**. "
        f"The extra windows: **{w['wall_s']:.0f} s = +{extra_pct:.0f} %** of the corpus's embedding time "
        f"({res['windows'] / res['chunks'] * 100:.0f} % more passages, each a full {size}-character window).",
    ]
    if not timed:
        cost_lines.append(
            f"(Window vectors partly from `--cache`: {w['computed']:,} of {w['passages']:,} computed in this run, so "
            "the window timing above is not the cost; rerun without `--cache`.)"
        )
    if "whole chunks" in t:
        wh = t["whole chunks"]
        net = wh["wall_s"] - wh["passages"] * w["wall_s"] / w["passages"]  # less their first window, at the window rate
        cost_lines.append(f"(d) whole cut chunks in one pass: {wh['wall_s']:.0f} s; it replaces their first-window pass, so "
                          f"net ≈ {net:.0f} s = +{100 * net / corpus_s:.0f} % of the corpus's embedding time.")
    shares = ", ".join(
        f"{k} {v:,} windows ≈ {w['wall_s'] * v / max(res['windows'], 1):.0f} s "
        f"(+{extra_pct * v / max(res['windows'], 1):.0f} %)"
        for k, v in sorted(res["kinds_windows"].items(), key=lambda kv: -kv[1])
    )
    cost_lines += ["", f"By kind (windows are all ~{size} characters, so cost ∝ windows): {shares}.", ""]
    out += cost_lines

    # Reproduction.
    out += [
        "## Reproducing today's numbers",
        "",
        f"Question vectors: {res['query_vectors_from_cache']} of {len(qs)} read from the store's embedding cache (as "
        "`benchmarks/retrieval.py` used them), the rest embedded.",
        "",
        "| R@5 | " + " | ".join(f for f in files) + " |",
        "|---|" + "---:|" * len(files),
    ]
    for mode in ("dense", "hybrid"):
        out.append(f"| {mode}, retrieval-e5-onnx.md | " + " | ".join(f"{REPORTED_R5[mode][f]:.2f}" for f in files) + " |")
        for name, how in (("hnsw", "store HNSW"), ("first", "exact search")):
            cells = " | ".join(f"{recall(sub(f'{mode}/{name}', groups[f]), 5):.2f}" for f in files)
            out.append(f"| {mode}, this run, {how} | {cells} |")
    diff = {
        mode: sum(a != b for a, b in zip(ranks[f"{mode}/hnsw"], ranks[f"{mode}/first"], strict=True))
        for mode in ("dense", "hybrid")
    }
    out += [
        "",
        f"Exact search against the store's HNSW index, same vectors: the rank of the first correct hit differs on "
        f"{diff['dense']} questions dense-only and {diff['hybrid']} hybrid. The comparisons below are all exact, so that "
        "only the vectors differ. Where this run's HNSW row and the report's differ by a question, that is the store, "
        "not this script: Chroma's HNSW search returns different 200-candidate sets in different processes for the same "
        "vector (checked while writing this script: `store.dense_search(v, 200)` for laws-0097 gave two distinct id lists "
        "over three processes, each stable within its process), which moves the z-score normalisation, and laws-0097 "
        "(gold at rank 5 or 6 dense-only) flips between runs of `benchmarks/retrieval.py` on the same code and store: "
        "dense laws R@5 0.62 or 0.61. The exact search ranks it 6.",
        "",
        "## Recall",
        "",
    ]
    variants = ["hnsw", *res["variants"]]
    cost = cost_pct(res, extra_pct)
    for mode in ("dense", "hybrid"):
        out += [f"### {mode}" + (" only" if mode == "dense" else " (sparse + dense, the engine's fusion)"), ""]
        out.append("| vectors | extra embedding | " + " | ".join(f"{g} (n {len(groups[g])})" for g in groups) + " |")
        out.append("|---|---:|" + "---|" * len(groups))
        for v in variants:
            cells = " | ".join(cell(sub(f"{mode}/{v}", groups[g])) for g in groups)
            out.append(f"| {LABEL[v]} | +{cost.get(v, 0.0):.0f} % | {cells} |")
        out.append("")

    # Subsets.
    subsets = {
        "gold chunk long (any)": [n for n, f in enumerate(facts) if f["long"]],
        "gold chunks all long": [n for n, f in enumerate(facts) if f["all_long"]],
        "evidence only past the first window": [n for n, f in enumerate(facts) if f["past"]],
    }
    out += [
        "## Questions whose gold is a long (multi-window) chunk",
        "",
        "A question's gold chunks are all chunks that match one of its targets; \"evidence only past the first window\": "
        f"the gold evidence is in a gold chunk but in none of their first {size} characters.",
        "",
        "| subset | " + " | ".join(files) + " | all |",
        "|---|" + "---:|" * (len(files) + 1),
    ]
    for name, idx in subsets.items():
        out.append(f"| {name} | " + " | ".join(str(sum(qs[n]["file"] == f for n in idx)) for f in files) + f" | {len(idx)} |")
    out += ["", "| subset | vectors | dense | hybrid |", "|---|---|---|---|"]
    base = [v for v in res["variants"] if v in BASE_VARIANTS]
    for name, idx in subsets.items():
        for v in base:
            dense, hybrid = cell(sub(f"dense/{v}", idx)), cell(sub(f"hybrid/{v}", idx))
            out.append(f"| {name} (n {len(idx)}) | {LABEL[v]} | {dense} | {hybrid} |")
    moves = []
    for v in base:
        if v != "first":
            pairs = zip(ranks["hybrid/first"], ranks[f"hybrid/{v}"], strict=True)
            top5 = [(a is not None and a <= 5, b is not None and b <= 5) for a, b in pairs]
            gained, lost = sum(b and not a for a, b in top5), sum(a and not b for a, b in top5)
            moves.append(f"{LABEL[v]} gains {gained} and loses {lost} questions")
    out += [
        "",
        "Hybrid top 5 against (a): " + "; ".join(moves) + ".",
        "",
        "## Split-half: choosing between max and mean",
        "",
        f"Choose (b) or (c) on a random half of the questions (stratified by file) by R@5, then MRR; score the choice "
        f"and (a) on the other half; mean (min … max) over {res['n_splits']} splits.",
        "",
        "| mode | picks | chosen R@5 | (a) R@5 | Δ R@5 | chosen MRR | (a) MRR | Δ MRR |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode, sp in res["splits"].items():
        picks = ", ".join(f"{k} {v}" for k, v in sorted(sp["picks"].items()))
        cells = []
        for key in ("chosen R@5", "first R@5", "Δ R@5", "chosen MRR", "first MRR", "Δ MRR"):
            mean, low, high = sp["rows"][key]
            fmt = "+.3f" if key.startswith("Δ") else ".3f"
            cells.append(f"{mean:{fmt}} ({low:{fmt}} … {high:{fmt}})")
        out.append(f"| {mode} | {picks} | " + " | ".join(cells) + " |")
    out += ["", *(also_section(also, res) if also else []), "## Conclusion", "", conclusion(res, groups, extra_pct, also), ""]
    return "\n".join(out)


def cost_pct(res: dict[str, Any], extra_pct: float) -> dict[str, float]:
    """Extra embedding time of each variant, % of embedding the corpus today (windows cost alike)."""
    out = {v: extra_pct * n / max(res["windows"], 1) for v, n in res["variant_windows"].items()}
    t = res["timing"]
    if "whole chunks" in t:
        w, wh, s = t["windows"], t["whole chunks"], t["ordinary sample"]
        net = wh["wall_s"] - wh["passages"] * w["wall_s"] / w["passages"]
        out["whole"] = 100 * net / (res["chunks"] * s["wall_s"] / s["passages"])
    return out


def conclusion(res: dict[str, Any], groups: dict[str, list[int]], extra_pct: float, also: dict[str, Any] | None = None) -> str:
    """One paragraph from the numbers: does it pay, for which documents, at what cost."""
    ranks = res["ranks"]
    cost = cost_pct(res, extra_pct)
    group_file = {"law": "laws.jsonl", "regulation": "regulations.jsonl", "other": "documents.jsonl"}
    group_name = {"law": "statute", "regulation": "regulation", "other": "PDF / HWP / Office"}

    def top5(mode: str, v: str, g: str = "all") -> int:
        return sum(r is not None and r <= 5 for r in (ranks[f"{mode}/{v}"][n] for n in groups[g]))

    def r5(mode: str, v: str, g: str = "all") -> float:
        return top5(mode, v, g) / len(groups[g])

    def gain(mode: str, v: str, g: str) -> int:
        return top5(mode, v, g) - top5(mode, "first", g)

    def m(mode: str, v: str) -> float:
        return mrr([ranks[f"{mode}/{v}"][n] for n in groups["all"]])

    best = max(("max", "mean"), key=lambda v: (r5("hybrid", v), m("hybrid", v)))
    other = "mean" if best == "max" else "max"
    held = res["splits"]["hybrid"]["rows"]["Δ R@5"]
    held_dense = res["splits"]["dense"]["rows"]["Δ R@5"]
    picks = res["splits"]["hybrid"]["picks"]
    files = [g for g in groups if g != "all"]

    def per_file(mode: str, v: str) -> str:
        return ", ".join(f"{f.split('.')[0]} {gain(mode, v, f):+d}" for f in files) + " questions in the top 5"

    if held[0] >= 0.02 and held[1] >= 0:
        verdict = "It pays"
    elif held[0] <= 0.01:
        verdict = "It does not pay"
    else:
        verdict = "It is marginal"
    t = res["timing"]["windows"]
    seconds = f"{t['wall_s']:.0f} s here" if t["computed"] == t["passages"] else "not timed in this run"
    past = [n for n, f in enumerate(res["facts"]) if f["past"]]

    def sub5(mode: str, v: str) -> float:
        return recall([ranks[f"{mode}/{v}"][n] for n in past], 5)

    kinds, cheap = [], []
    for group, f in group_file.items():
        v = f"max:{group}"
        if v in cost and f in groups:
            kinds.append(
                f"{group_name[group]} chunks only (+{cost[v]:.0f} %) {gain('hybrid', v, f):+d} hybrid and "
                f"{gain('dense', v, f):+d} dense on {f} ({len(groups[f])})"
            )
            if cost[v] <= 2 and gain("dense", v, f) > 0 and gain("hybrid", v, f) >= 0:
                cheap.append((group_name[group], cost[v], f, gain("dense", v, f)))
    text = (
        f"**{verdict} in the search the engine runs.** The better pooling is {LABEL[best]} (picked in "
        f"{picks.get(best, 0)} of {res['n_splits']} halves): hybrid R@5 over the {len(groups['all'])} questions "
        f"{r5('hybrid', 'first'):.3f} → {r5('hybrid', best):.3f} ({per_file('hybrid', best)}), held out "
        f"{held[0]:+.3f} ({held[1]:+.3f} … {held[2]:+.3f}); {LABEL[other]} gives {r5('hybrid', other):.3f}. "
        f"The cost is {res['windows']:,} more passages, +{extra_pct:.0f} % of the corpus's embedding time "
        f"({seconds}, on the shared 2 cores). Dense-only retrieval gains more: R@5 {r5('dense', 'first'):.3f} → "
        f"{r5('dense', best):.3f} ({per_file('dense', best)}; held out {held_dense[0]:+.3f}), and "
        f"{sub5('dense', 'first'):.2f} → {sub5('dense', best):.2f} on the {len(past)} questions whose evidence lies only "
        f"past the first window; in the hybrid those go {sub5('hybrid', 'first'):.2f} → {sub5('hybrid', best):.2f}"
        + (", as BM25 already finds most of them." if sub5("hybrid", "first") >= 0.75 else ".")
        + (f" By document kind, {LABEL['max']} for " + "; ".join(kinds) + "." if kinds else "")
    )
    if "whole" in cost:
        text += (
            f" {LABEL['whole']}: hybrid R@5 {r5('hybrid', 'whole'):.3f}, dense {r5('dense', 'whole'):.3f}, "
            f"+{cost['whole']:.0f} %."
        )
    if also and "whole" in also.get("variants", []) and len(also["questions"]) == len(groups["all"]):
        a5 = {mode: recall(also["ranks"][f"{mode}/whole"], 5) for mode in ("dense", "hybrid")}
        text += (
            f" Raising `embed_max_chars` instead, (d) in the other run, is no way out: dense R@5 {a5['dense']:.3f} and "
            f"hybrid {a5['hybrid']:.3f}, against {r5('dense', 'first'):.3f} and {r5('hybrid', 'first'):.3f} today."
        )
    if verdict != "It pays":
        text += " So the default stays the first window."
        for name, pct, f, dense in cheap:
            text += (
                f" Only the {name} chunks are cheap to window (+{pct:.0f} %); that lifts their dense ranking "
                f"({dense:+d} of {len(groups[f])} on {f}) but not the hybrid's on these questions, so it is worth doing "
                "only together with something that uses the dense ranking alone."
            )
    return text


def also_section(also: dict[str, Any], res: dict[str, Any]) -> list[str]:
    """Rows of a second run (``--also``) that this run does not have: (d), the whole chunk in one pass."""
    if "whole" not in also.get("variants", []):
        return []
    qs = also["questions"]
    files = list(dict.fromkeys(q["file"] for q in qs))
    groups = {f: [n for n, q in enumerate(qs) if q["file"] == f] for f in files} | {"all": list(range(len(qs)))}
    t, main_t = also["timing"], res["timing"]
    s_per = t["ordinary sample"]["wall_s"] / t["ordinary sample"]["passages"]
    # The cut chunks' first-window pass, which (d) replaces, at this run's window/sample ratio (the other run's
    # window vectors may have come from its cache).
    ratio = (main_t["windows"]["wall_s"] / main_t["windows"]["passages"]) / (
        main_t["ordinary sample"]["wall_s"] / main_t["ordinary sample"]["passages"]
    )
    whole = t["whole chunks"]
    net = whole["wall_s"] - whole["passages"] * s_per * ratio
    corpus = also["chunks"] * s_per
    out = [
        "## Measured in another run: (d) the whole chunk in one pass",
        "",
        f"`{also['command']}` ({also['started']}, load average {also['load_start']} → {also['load_end']}; same store, code "
        "and questions): `embed_max_chars` raised above the longest chunk, so e5-onnx sees each cut chunk whole and "
        f"splits only texts over 510 tokens ({also['tokens']['whole cut chunks over 512 tokens']:,} of them) into its own "
        f"windows, weighted by length. {whole['passages']:,} cut chunks at {whole['passages'] / whole['wall_s']:.1f} "
        f"passages/s (ordinary sample {1 / s_per:.1f}/s in that run): {whole['wall_s']:.0f} s, less their first-window "
        f"pass (≈ {whole['passages'] * s_per * ratio:.0f} s at this run's window/sample ratio) = +{100 * net / corpus:.0f} % "
        "of the corpus's embedding time.",
        "",
        "| mode | vectors | " + " | ".join(f"{g} (n {len(groups[g])})" for g in groups) + " |",
        "|---|---|" + "---|" * len(groups),
    ]
    for mode in ("dense", "hybrid"):
        for v in ("first", "whole"):
            cells = " | ".join(cell([also["ranks"][f"{mode}/{v}"][n] for n in groups[g]]) for g in groups)
            out.append(f"| {mode} | {LABEL[v]} | {cells} |")
    return [*out, ""]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work" / "e5-onnx", help="the ingested store (read only)")
    ap.add_argument("--overlap", type=int, default=50, help="least overlap of consecutive windows, characters")
    ap.add_argument("--sample", type=int, default=400, help="ordinary chunks embedded for the timing baseline")
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--whole", action="store_true", help="also (d): the whole cut chunks in one pass (slow)")
    ap.add_argument("--cache", type=Path, default=None, help="embedding cache for the window vectors (outside --work)")
    ap.add_argument("--results", type=Path, default=Path("/tmp/geungeo-windows/results.json"))
    ap.add_argument("--render-only", action="store_true", help="re-render the report from --results")
    ap.add_argument("--also", type=Path, default=None, help="results of a --whole run whose (d) rows to add to the report")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "windows.md")
    args = ap.parse_args(argv)
    command = "python benchmarks/windows.py" + ("".join(f" {a}" for a in (argv or sys.argv[1:])))
    if args.render_only:
        res = json.loads(args.results.read_text("utf-8"))
        command = res.get("command", command)
    else:
        res = compute(args)
        res["command"] = command
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(res, ensure_ascii=False), "utf-8")
    also = json.loads(args.also.read_text("utf-8")) if args.also else None
    report = render(res, res["command"], also)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, "utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    raise SystemExit(main())
