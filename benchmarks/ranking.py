"""Learned reranker benchmark on ../shared: hybrid + LTR against hybrid alone, plain dense and a naive baseline.

In one process and one run, on the shared questions (validation only: the ranker is trained on the corpus,
``geungeo train-ranker``), with the store of ``benchmarks/.work/<embedder>``:

- R@1/5/10 and MRR per file and per style for naive (whitespace BM25), dense, hybrid (fused order) and
  hybrid + the learned reranker, with the lexicon (query expansion) on and off;
- right-document / wrong-article misses: questions whose top hit is in a gold document but not the gold
  article (or page), and document-level R@1;
- the split-half estimate of the one choice made on the questions (reranker on or off by default);
- reranking latency for 50 candidates and search latency with and without reranking;
- with ``--train``: the ranker trained on this store in this run (training time), else the bundled model.

The run is written as the newest section of ``--out``; the earlier runs and the notes beside them stay below it.

    .venv/bin/python benchmarks/ranking.py            # bundled model, default embedder store
    .venv/bin/python benchmarks/ranking.py --train    # train on the store first and use that model
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from geungeo.engine import Engine, build_engine
from geungeo.evaluation import KS, Question, Scores, first_correct_rank, load_questions, score, target_matches
from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.retrieval.ranker import load_ranker
from geungeo.retrieval.ranker_training import train_ranker
from geungeo.settings import Settings
from geungeo.types import Chunk

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval import NaiveBM25, all_chunks

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
QUESTION_FILES = ("laws.jsonl", "regulations.jsonl", "documents.jsonl")


def doc_matches(q: Question, chunk: Chunk) -> bool:
    """Whether the chunk is in one of the question's gold documents (article and page ignored)."""
    for target in q.gold:
        loose = {k: v for k, v in target.items() if k not in ("article", "page")}
        if target_matches(loose, None, chunk):
            return True
    return False


class Measure:
    """Ranked lists of every question for one configuration, and what they score."""

    def __init__(self, name: str, lists: dict[str, list[Chunk]], questions: Sequence[Question]) -> None:
        self.name = name
        self.lists = lists
        self.ranks = {q.id: first_correct_rank(q, lists[q.id]) for q in questions}
        self.scores = score(((q, self.ranks[q.id]) for q in questions), max(KS))
        self.wrong_article = sum(
            1 for q in questions if self.ranks[q.id] != 1 and lists[q.id] and doc_matches(q, lists[q.id][0])
        )
        self.doc_r1 = sum(1 for q in questions if lists[q.id] and doc_matches(q, lists[q.id][0])) / max(len(questions), 1)
        self.wrong_article_top5 = sum(
            1
            for q in questions
            if (self.ranks[q.id] is None or self.ranks[q.id] > 5) and any(doc_matches(q, c) for c in lists[q.id][:5])
        )


def run_lists(questions: Sequence[Question], search: Callable[[Question], list[Chunk]]) -> dict[str, list[Chunk]]:
    return {q.id: search(q) for q in questions}


def split_half(questions: Sequence[Question], a: Measure, b: Measure, seeds: int = 20) -> tuple[float, float, float]:
    """Choose between two configurations by MRR on one random half, score the choice on the other half (both ways,
    over ``seeds`` splits): mean held-out MRR of the choice, of ``a`` and of ``b`` on the same halves."""
    chosen, only_a, only_b = [], [], []
    for seed in range(seeds):
        ids = [q.id for q in questions]
        random.Random(seed).shuffle(ids)
        halves = (ids[: len(ids) // 2], ids[len(ids) // 2 :])
        for pick, held in (halves, halves[::-1]):

            def mrr(m: Measure, part: Sequence[str]) -> float:
                return statistics.fmean(1 / r if (r := m.ranks[i]) and r <= max(KS) else 0.0 for i in part)

            best = a if mrr(a, pick) >= mrr(b, pick) else b
            chosen.append(mrr(best, held))
            only_a.append(mrr(a, held))
            only_b.append(mrr(b, held))
    return statistics.fmean(chosen), statistics.fmean(only_a), statistics.fmean(only_b)


def p50(ms: Sequence[float]) -> float:
    return statistics.median(ms)


def cell(s: Scores | None) -> str:
    return "" if s is None else f"{s.recall(1):.2f} / **{s.recall(5):.2f}** / {s.recall(10):.2f} · {s.mrr:.2f}"


def table(measures: Sequence[Measure], group: str) -> list[str]:
    keys = sorted({key for m in measures for key in m.scores[group]})
    lines = ["| " + group.replace("by_", "") + " | n | " + " | ".join(f"{m.name} R@1/5/10 · MRR" for m in measures) + " |"]
    lines.append("|---|---|" + "---|" * len(measures))
    for key in keys:
        n = next(m.scores[group][key].n for m in measures if key in m.scores[group])
        lines.append(f"| {key} | {n} | " + " | ".join(cell(m.scores[group].get(key)) for m in measures) + " |")
    return lines


def _shown(path: Path) -> str:
    """A path as the report shows it: relative to the repository when inside it."""
    return str(path.resolve().relative_to(ROOT)) if path.resolve().is_relative_to(ROOT) else str(path)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument("--embedder", default=None, help="embedding provider (default: the configured one)")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--train", action="store_true", help="train the ranker on this store first and use that model")
    ap.add_argument("--queries", type=int, default=4000, help="generated training queries (with --train)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "ranking.md")
    args = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    args.embedder = args.embedder or Settings().embed_provider
    store = args.work / args.embedder
    settings = Settings(embed_provider=args.embedder, data_dir=store, reranker="none")
    engine: Engine = build_engine(settings)
    print("ingesting (incremental) …", file=sys.stderr)
    engine.ingest([args.shared / "corpus"])
    questions = [q for f in QUESTION_FILES for q in load_questions(args.shared / "questions" / f) if q.answerable]
    notes: list[str] = []
    model_path = ""
    if args.train:
        print("training the ranker on the store …", file=sys.stderr)
        report = train_ranker(engine.retriever, limit=args.queries)
        model_file = args.work / f"ranker-{args.embedder}.txt"
        model_file.write_text(report.model, "utf-8")
        model_path = str(model_file)
        notes.append(
            f"Ranker trained in this run on this store: {sum(report.queries.values())} generated queries "
            f"({', '.join(f'{n} {k}' for k, n in sorted(report.queries.items()))}), {report.groups} with their passage among "
            f"the 50 candidates, {report.trees} trees, **{report.seconds / 60:.1f} min** (2 shared cores). Held-out generated "
            f"queries ({report.held_out}): R@1 {report.fused_r1:.2f} → {report.ranked_r1:.2f}, "
            f"MRR {report.fused_mrr:.2f} → {report.ranked_mrr:.2f} (fused → learned)."
        )
    else:
        notes.append("Ranker: the bundled model (`geungeo/data/ranker/ltr.txt`).")
    k = max(KS)
    print("embedding questions …", file=sys.stderr)
    vectors = {q.id: engine.retriever.embed_query(q.question) for q in questions}
    naive = NaiveBM25(all_chunks(engine))

    def retriever(reranker: str, lexicon: bool) -> HybridRetriever:
        update = {"reranker": reranker, "reranker_path": model_path, "query_expansion": lexicon}
        return HybridRetriever(engine.store, engine.embedder, settings.model_copy(update=update))

    def hybrid(r: HybridRetriever) -> Callable[[Question], list[Chunk]]:
        return lambda q: [h.chunk for h in r.search(q.question, k=k, vector=vectors[q.id])]

    plain, ranked = retriever("none", True), retriever("ltr", True)
    plain_nolex, ranked_nolex = retriever("none", False), retriever("ltr", False)
    print("evaluating …", file=sys.stderr)
    measures = [
        Measure("naive", run_lists(questions, lambda q: naive.search(q.question, k)), questions),
        Measure(
            "dense",
            run_lists(questions, lambda q: [h.chunk for h in plain.search(q.question, k=k, mode="dense", vector=vectors[q.id])]),
            questions,
        ),
        Measure("hybrid", run_lists(questions, hybrid(plain)), questions),
        Measure("hybrid+ltr", run_lists(questions, hybrid(ranked)), questions),
        Measure("hybrid, lexicon off", run_lists(questions, hybrid(plain_nolex)), questions),
        Measure("hybrid+ltr, lexicon off", run_lists(questions, hybrid(ranked_nolex)), questions),
    ]
    by_name = {m.name: m for m in measures}
    # latency: reranking alone over 50 fused candidates, and whole searches (query vector given, as in retrieval.py)
    ranker = load_ranker(model_path)
    rerank_ms, search_plain_ms, search_ranked_ms = [], [], []
    for q in questions:
        pool = plain.search(q.question, k=50, vector=vectors[q.id])
        t0 = time.perf_counter()
        ranker.rerank(q.question, pool)
        rerank_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        plain.search(q.question, k=k, vector=vectors[q.id])
        search_plain_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        ranked.search(q.question, k=k, vector=vectors[q.id])
        search_ranked_ms.append((time.perf_counter() - t0) * 1000)
    chosen, held_plain, held_ranked = split_half(questions, by_name["hybrid"], by_name["hybrid+ltr"])
    engine.close()

    out = [
        "# Learned reranker benchmark",
        "",
        f"Run {started} on this machine (2 cores, shared). Store `{_shown(store)}` (embedder "
        f"`{args.embedder}`), fusion `{settings.fusion}`, the reranker over the best {settings.rerank_candidates} fused "
        "candidates. The shared questions are used for validation only: the ranker is trained on generated queries "
        "from the corpus (`geungeo train-ranker`), no feature or threshold was fitted to them. `naive` = whitespace "
        "BM25 over the same chunks; `dense` = the embedder's vectors alone; `hybrid` = the fused order; `lexicon off` = "
        "`GEUNGEO_QUERY_EXPANSION=false` (no everyday→legal synonyms).",
        "",
        *notes,
        "",
        "## By file",
        "",
        *table(measures, "by_file"),
        "",
        "## By style",
        "",
        *table(measures, "by_style"),
        "",
        "## All",
        "",
        *table(measures, "all"),
        "",
        "## Right document, wrong article",
        "",
        "Questions whose top hit is in a gold document but is not a gold article/page (at rank 1), those with no gold "
        "target in the top 5 but a chunk of a gold document there, and document-level R@1.",
        "",
        "| configuration | right doc, wrong article @1 | right doc in top 5, no gold target @5 | document R@1 |",
        "|---|---|---|---|",
        *[f"| {m.name} | {m.wrong_article} | {m.wrong_article_top5} | {m.doc_r1:.2f} |" for m in measures],
        "",
        "## Split-half estimate of the one choice made on the questions",
        "",
        "Reranker on or off by default, chosen by MRR on a random half of the questions and scored on the other half "
        f"(both ways, 20 splits): held-out MRR of the choice **{chosen:.3f}**, of `hybrid` {held_plain:.3f}, of "
        f"`hybrid+ltr` {held_ranked:.3f}.",
        "",
        "## Latency",
        "",
        "| ms | p50 | p95 |",
        "|---|---|---|",
        *[
            f"| {name} | {p50(ms):.1f} | {sorted(ms)[round(0.95 * (len(ms) - 1))]:.1f} |"
            for name, ms in (
                ("reranking 50 fused candidates (features + model)", rerank_ms),
                ("hybrid search, fused order (query vector given)", search_plain_ms),
                ("hybrid search with reranking (query vector given)", search_ranked_ms),
            )
        ],
        "",
    ]
    gains = ranker.booster.feature_importance(importance_type="gain")
    top = sorted(zip(ranker.booster.feature_name(), gains, strict=True), key=lambda kv: -kv[1])[:10]
    total_gain = float(sum(gains)) or 1.0
    delta = by_name["hybrid+ltr"].scores["all"]["all"].mrr - by_name["hybrid"].scores["all"]["all"].mrr
    out += [
        "## Summary",
        "",
        f"MRR over all {len(questions)} questions: hybrid {by_name['hybrid'].scores['all']['all'].mrr:.3f}, "
        f"hybrid+ltr {by_name['hybrid+ltr'].scores['all']['all'].mrr:.3f} ({delta:+.3f}): the learned order "
        + ("beats" if delta > 0 else "does not beat")
        + " the fused order on the shared questions.",
        "",
        "Features the model leans on (share of the total split gain): "
        + ", ".join(f"`{name}` {gain / total_gain:.0%}" for name, gain in top)
        + ".",
        "",
    ]
    report_text = "\n".join(out)
    print(report_text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(with_history(report_text, f"Run {started}", args.out), "utf-8")
    return 0


def with_history(report: str, title: str, path: Path) -> str:
    """``report`` as the newest section ``title`` of the file at ``path`` (its headings one level down), above the
    sections the file already holds: earlier runs and the notes written by hand beside them are kept."""
    head, _, body = report.partition("\n")
    body = re.sub(r"(?m)^## ", "### ", body)
    old = path.read_text("utf-8") if path.exists() else ""
    earlier = old[old.index("\n## ") + 1 :] if "\n## " in old else ""
    return f"{head}\n\n## {title}\n{body.rstrip()}\n" + (f"\n{earlier}" if earlier else "")


if __name__ == "__main__":
    np.seterr(all="ignore")
    raise SystemExit(main())
