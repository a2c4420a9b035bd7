"""Scenario benchmark (#20): long situation questions that need every one of their gold provisions.

Reads ``benchmarks/data/scenarios.jsonl``: scenario questions written by hand from the statutes of
``../shared/corpus/laws`` (a situation of 3-6 sentences, then the question; gold = every provision the answer needs,
``need_all`` when there are several), written and frozen before any retrieval was run on them. In one process and one
run, on the already ingested store of the shared corpus at ``benchmarks/.work/e5-onnx`` (read only: nothing is
ingested; the query vectors come from the uncached embedder, so the store's embedding cache is not written either; only
Chroma's client bumps its ``acquire_write`` counter in ``chroma.sqlite3`` when the engine opens the store):

- all-provisions R@1/5/10 and MRR (a question counts at k only when every gold provision is in the top k, as
  ``geungeo.evaluation.first_correct_rank`` scores ``need_all``) of the engine's sparse, dense and hybrid search
  (``engine.retriever.search``, k = 10 chunks, the engine's default settings) and of a plain baseline: Kiwi BM25 over
  whole articles (the store's chunks grouped by document and article, ``bm25_terms`` without the lexicon, bm25s with
  its default parameters), scored by the same matching rules (a unit matches a gold target by document + article);
- the same by number of gold provisions (1 / 2 / 3);
- the share of single gold provisions (per provision, not per question) found in the top 5;
- each question's ranks;
- the answers (extractive, no LLM, the engine's answer graph): how many questions have every gold provision in the
  answer's evidence and among its citations, and how many single provisions are;

and writes ``benchmarks/reports/scenarios.md`` (and prints it).

    .venv/bin/python benchmarks/scenarios.py
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np

from geungeo.embeddings import get_embedder
from geungeo.engine import Engine, build_engine
from geungeo.evaluation import KS, Question, Scores, first_correct_rank, load_questions, target_matches
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings
from geungeo.text.kiwi import bm25_terms, bm25_terms_many
from geungeo.types import Chunk

sys.path.insert(0, str(Path(__file__).resolve().parent))
import retrieval as R  # the benchmark next door: its Run, tables and store helpers

QUESTIONS = R.ROOT / "benchmarks" / "data" / "scenarios.jsonl"
K = max(KS)  # 10 chunks (engine) or 10 article units (baseline)
TOP = 5  # the cut-off of the per-provision share
ENGINE_MODES = ("sparse", "dense", "hybrid")
BASELINE = "plain Kiwi BM25 (articles)"


# --- the plain baseline -----------------------------------------------------------------------


def article_units(engine: Engine) -> list[Chunk]:
    """The store's chunks grouped into whole units: one per (document, article); a chunk without an article (부칙 blocks,
    PDF pages, tables, free paragraphs) groups with the chunks of its document under the same header."""
    groups: dict[tuple[str, str], list[Chunk]] = defaultdict(list)
    for chunk in R.all_chunks(engine):
        article = chunk.meta.get("article")
        groups[(chunk.doc_id, f"article {article}" if article else f"header {chunk.header}")].append(chunk)
    units = []
    for (doc_id, key), chunks in groups.items():
        chunks.sort(key=lambda c: c.ordinal)
        first = chunks[0]
        text = "\n".join(c.text for c in chunks)
        units.append(
            Chunk(
                id=f"{doc_id}:{key}", doc_id=doc_id, ordinal=first.ordinal, header=first.header, text=text, meta=dict(first.meta)
            )
        )
    return units


class PlainKiwiBM25:
    """BM25 (bm25s defaults) over whole units with Kiwi's index terms, no lexicon, no header boost."""

    def __init__(self, units: Sequence[Chunk]) -> None:
        self.units = list(units)
        self.index = bm25s.BM25()
        # bm25_terms_many is bm25_terms over many texts at once (Kiwi's worker threads): the same terms
        self.index.index(list(bm25_terms_many(u.indexed_text for u in self.units)), show_progress=False)

    def search(self, query: str, k: int) -> list[Chunk]:
        terms = [t for t in bm25_terms(query) if t in self.index.vocab_dict]
        if not terms:
            return []
        ids, scores = self.index.retrieve([terms], k=min(k, len(self.units)), show_progress=False)
        return [self.units[int(i)] for i, s in zip(ids[0], scores[0], strict=True) if s > 0]


# --- measuring ----------------------------------------------------------------------------------


def provision_ranks(q: Question, chunks: Sequence[Chunk]) -> list[int | None]:
    """1-based rank of the first retrieved item matching each gold provision (None: not retrieved)."""
    return [
        next((i for i, c in enumerate(chunks, 1) if target_matches(target, evidence, c)), None)
        for target, evidence in zip(q.gold, q.evidence, strict=True)
    ]


def gold_group(q: Question) -> str:
    n = len(q.gold)
    return f"{n} provision{'s' if n > 1 else ''}"


def missing_in_store(engine: Engine, questions: Sequence[Question]) -> list[str]:
    """Gold provisions no chunk of the store matches (a question that no method could answer)."""
    chunks = R.all_chunks(engine)
    out = []
    for q in questions:
        for target, evidence in zip(q.gold, q.evidence, strict=True):
            if not any(target_matches(target, evidence, c) for c in chunks):
                out.append(f"{q.id}: {target.get('doc')} {target.get('article')}")
    return out


def measure(engine: Engine, questions: Sequence[Question], baseline: PlainKiwiBM25) -> dict[str, dict[str, list[Chunk]]]:
    """Each method's ranked list (top K) for each question."""
    raw = get_embedder(engine.settings)  # uncached: the store's embedding cache stays as it is
    vectors = dict(zip([q.id for q in questions], raw.embed([q.question for q in questions], query=True), strict=True))
    lists: dict[str, dict[str, list[Chunk]]] = {}
    for mode in ENGINE_MODES:
        lists[mode] = {
            q.id: [h.chunk for h in engine.retriever.search(q.question, k=K, mode=mode, vector=vectors[q.id])]  # type: ignore[arg-type]
            for q in questions
        }
    lists[BASELINE] = {q.id: baseline.search(q.question, K) for q in questions}
    return lists


Covered = dict[str, tuple[list[bool], list[bool]]]
"""Per question: for each gold provision, whether the answer's evidence holds it, and whether the answer cites it."""


def answer_coverage(engine: Engine, questions: Sequence[Question]) -> Covered:
    """Which gold provisions each extractive answer has in its evidence and among its citations."""
    runner = QueryRunner(engine, llm=None)
    out: Covered = {}
    for q in questions:
        answer = runner.run(q.question, cache_enabled=False)
        evidence = engine.store.get([e.chunk_id for e in answer.evidence])
        cited = engine.store.get([c.chunk_id for c in answer.citations])
        out[q.id] = (
            [any(target_matches(t, None, c) for c in evidence) for t in q.gold],
            [any(target_matches(t, None, c) for c in cited) for t in q.gold],
        )
    return out


def answer_table(questions: Sequence[Question], covered: Covered) -> list[str]:
    """Questions with all their provisions in the evidence / cited, and single provisions, by number of provisions."""
    groups = sorted({gold_group(q) for q in questions})
    lines = [
        "| gold | questions | all provisions in the evidence | all cited | provisions | in the evidence | cited |",
        "|---|---|---|---|---|---|---|",
    ]
    for group in [*groups, "all"]:
        part = [q for q in questions if group in ("all", gold_group(q))]
        held = [covered[q.id] for q in part]
        n = sum(len(e) for e, _ in held)
        lines.append(
            f"| {group} | {len(part)} | {sum(all(e) for e, _ in held)} | {sum(all(c) for _, c in held)} | {n} | "
            f"{sum(sum(e) for e, _ in held)} | {sum(sum(c) for _, c in held)} |"
        )
    return lines


def scores_of(questions: Sequence[Question], lists: dict[str, list[Chunk]]) -> dict[str, dict[str, Scores]]:
    groups: dict[str, dict[str, Scores]] = {"all": defaultdict(Scores), "by_gold": defaultdict(Scores)}
    for q in questions:
        rank = first_correct_rank(q, lists[q.id])
        groups["all"]["scenarios.jsonl"].add(rank, K)
        groups["by_gold"][gold_group(q)].add(rank, K)
    return {g: dict(v) for g, v in groups.items()}


def provision_share(questions: Sequence[Question], lists: dict[str, list[Chunk]]) -> dict[str, tuple[int, int]]:
    """(found in the top TOP, total) single gold provisions, by number of gold provisions and in all."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for q in questions:
        for rank in provision_ranks(q, lists[q.id]):
            for key in (gold_group(q), "all"):
                out[key][0] += rank is not None and rank <= TOP
                out[key][1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


def statute_in_top(questions: Sequence[Question], lists: dict[str, list[Chunk]]) -> int:
    """Questions whose top TOP hold at least one item of a gold statute (any article: the right law at least)."""
    return sum(1 for q in questions if any(c.meta.get("doc") in {t.get("doc") for t in q.gold} for c in lists[q.id][:TOP]))


# --- report -------------------------------------------------------------------------------------


def short(method: str) -> str:
    return "baseline" if method == BASELINE else method


def render(
    questions: Sequence[Question],
    lists: dict[str, dict[str, list[Chunk]]],
    engine: Engine,
    n_units: int,
    missing: Sequence[str],
    started: str,
    digest: str,
    store: Path,
    covered: Covered,
) -> str:
    s = engine.settings
    run = R.Run("scenarios")
    run.scores = {m: scores_of(questions, lists[m]) for m in lists}
    counts = {g: sum(1 for q in questions if gold_group(q) == g) for g in sorted({gold_group(q) for q in questions})}
    docs = {t["doc"] for q in questions for t in q.gold}
    out = [
        "# Scenario benchmark (all provisions needed)",
        "",
        f"Run {started} on this machine (2 cores, shared with another benchmark), `benchmarks/scenarios.py`.",
        "",
        f"- **Questions**: `benchmarks/data/scenarios.jsonl`, {len(questions)} hand-written scenario questions "
        f"({', '.join(f'{n} with {g}' for g, n in counts.items())}; {sum(len(q.gold) for q in questions)} gold provisions "
        f"in {len(docs)} of the 48 statutes), sha256 `{digest[:16]}…`. Each is a situation of 3-6 sentences in everyday "
        "words and a question; gold = every provision the answer needs (`need_all` when more than one). They were written "
        "from the statute files and frozen before any retrieval was run on them.",
        f"- **Store**: `{store}` (read only), {len(engine.store.documents())} documents, {engine.store.count():,} chunks; "
        f"embedder `{s.embed_provider}` ({s.embed_precision}), query vectors from the uncached model.",
        f"- **Engine**: `engine.retriever.search(question, k={K}, mode=…)` with the default settings: fusion `{s.fusion}` "
        f"over {s.candidate_k} candidates a retriever, weights sparse {s.sparse_weight} / dense {s.dense_weight}, reranker "
        f"`{s.reranker}`, lexicon query expansion {'on' if s.query_expansion else 'off'} (sparse and hybrid).",
        f"- **Baseline**: plain Kiwi BM25 over whole articles: the store's chunks grouped by (document, article) into "
        f"{n_units:,} units (chunks without an article group by document and header: 부칙 blocks, PDF pages, tables), "
        "tokenised with `geungeo.text.kiwi.bm25_terms` (no lexicon, no header boost), indexed with bm25s (default "
        f"parameters); top {K} units.",
        "- **Matching**: the rules of `shared/README.md` (`geungeo.evaluation.target_matches`: a chunk or unit matches a "
        "gold target by document + article). A question counts at k only when **all** its gold provisions are in the top "
        "k (`first_correct_rank` with `need_all` returns the rank of the last one found, none when one is missing).",
        "",
    ]
    if missing:
        out += ["Gold provisions that no chunk of the store matches: " + "; ".join(missing) + ".", ""]
    out += ["## All provisions in the top k", "", *R.table(run, "all"), "", "### By number of gold provisions", ""]
    out += [*R.table(run, "by_gold"), ""]
    shares = {m: provision_share(questions, lists[m]) for m in lists}
    keys = [*counts, "all"]
    out += [
        f"## Single provisions in the top {TOP}",
        "",
        f"Share of the individual gold provisions found among the top {TOP} (per provision, not per question).",
        "",
        "| method | " + " | ".join(f"{k} ({shares[BASELINE][k][1]})" for k in keys) + " |",
        "|---|" + "---|" * len(keys),
    ]
    for m in lists:
        cells = [f"{shares[m][k][0] / shares[m][k][1]:.2f} ({shares[m][k][0]})" for k in keys]
        out.append(f"| {m} | " + " | ".join(cells) + " |")
    out += [
        "",
        f"Questions whose top {TOP} hold an article (or other chunk) of one of their gold statutes, whatever the article: "
        + ", ".join(f"{short(m)} {statute_in_top(questions, lists[m])}" for m in lists)
        + f" of {len(questions)}.",
        "",
        "## Answers",
        "",
        "The extractive answer (no LLM) of the engine's answer graph for each question: its evidence (the passages found "
        "and those expansion adds: neighbouring articles, references) and its citations, by number of gold provisions.",
        "",
        *answer_table(questions, covered),
        "",
        "## Each question",
        "",
        f"Per method: rank at which all gold provisions are in (– beyond {K}), and how many of them are in the top {TOP}.",
        "",
        "| question | gold | " + " | ".join(short(m) for m in lists) + " |",
        "|---|---|" + "---|" * len(lists),
    ]
    for q in questions:
        cells = []
        for m in lists:
            rank = first_correct_rank(q, lists[m][q.id])
            found = sum(1 for r in provision_ranks(q, lists[m][q.id]) if r is not None and r <= TOP)
            cells.append(f"{rank if rank is not None else '–'} · {found}/{len(q.gold)}")
        gold = "; ".join(f"{t['doc']} {t['article']}" for t in q.gold)
        out.append(f"| {q.id} | {gold} | " + " | ".join(cells) + " |")
    return "\n".join(out)


# --- main -----------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--store", type=Path, default=Path("benchmarks/.work/e5-onnx"), help="the ingested data directory")
    ap.add_argument("--out", type=Path, default=R.ROOT / "benchmarks" / "reports" / "scenarios.md")
    args = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    store = args.store if args.store.is_absolute() else R.ROOT / args.store
    if not (store / "store").is_dir():
        print(f"no ingested store at {store}: run benchmarks/retrieval.py first", file=sys.stderr)
        return 2
    digest = hashlib.sha256(args.questions.read_bytes()).hexdigest()
    questions = load_questions(args.questions)
    engine = build_engine(Settings(data_dir=store))
    try:
        print("checking the gold provisions against the store …", file=sys.stderr)
        missing = missing_in_store(engine, questions)
        print("indexing the baseline's article units …", file=sys.stderr)
        units = article_units(engine)
        baseline = PlainKiwiBM25(units)
        print("searching …", file=sys.stderr)
        lists = measure(engine, questions, baseline)
        print("answering …", file=sys.stderr)
        covered = answer_coverage(engine, questions)
        report = render(questions, lists, engine, len(units), missing, started, digest, args.store, covered)
    finally:
        engine.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, "utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    raise SystemExit(main())
