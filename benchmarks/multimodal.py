"""Multimodal and bilingual retrieval benchmark on ../shared: tables, English questions, contextual chunk text.

Measures, in one run and against the foundation's hybrid retrieval of the same run, recall@1/5/10 and
MRR on ``documents.jsonl``, on the questions marked ``"needs": "table"`` and on the ``english`` style
across all shared question files, with and without the English→Korean glossary and the contextualised
chunk text (``GEUNGEO_CHUNK_CONTEXT``); and the Korean questions of the same files as the reference
for the English ones. Writes ``benchmarks/reports/multimodal.md``.

    .venv/bin/python benchmarks/multimodal.py                 # context in BM25 only (reuses the vectors)
    .venv/bin/python benchmarks/multimodal.py --context all   # context embedded too (re-embeds every chunk)

The stores live in ``benchmarks/.work/<embedder>`` (shared with benchmarks/retrieval.py) and
``benchmarks/.work/<embedder>-context-<mode>``; both use one embedding cache.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from geungeo.engine import Engine, build_engine
from geungeo.evaluation import KS, Question, Scores, first_correct_rank, load_questions
from geungeo.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
QUESTION_FILES = ("laws.jsonl", "regulations.jsonl", "documents.jsonl")


@dataclass(frozen=True)
class Variant:
    """One retrieval configuration: which store (plain or contextual chunk text) and whether the glossary is on."""

    name: str
    context: bool
    glossary: bool


VARIANTS = (
    Variant("foundation hybrid", context=False, glossary=False),
    Variant("+ glossary", context=False, glossary=True),
    Variant("+ context", context=True, glossary=False),
    Variant("+ glossary + context", context=True, glossary=True),
)


def groups(questions: Sequence[Question]) -> dict[str, list[Question]]:
    """The question groups the report scores."""
    out: dict[str, list[Question]] = {"documents.jsonl": [q for q in questions if q.file == "documents.jsonl"]}
    out['"needs": "table"'] = [q for q in questions if q.raw.get("needs") == "table"]
    out["english (all files)"] = [q for q in questions if q.style == "english"]
    english_files = {q.file for q in out["english (all files)"]}
    out["korean, same files as the english"] = [q for q in questions if q.style != "english" and q.file in english_files]
    for name in QUESTION_FILES:
        out[f"english in {name}"] = [q for q in questions if q.style == "english" and q.file == name]
        out[f"korean in {name}"] = [q for q in questions if q.style != "english" and q.file == name]
    return {k: v for k, v in out.items() if v}


def ranks(engine: Engine, questions: Sequence[Question]) -> dict[str, int | None]:
    """First correct rank (or None) of every question under the engine's hybrid retrieval."""
    k = max(KS)
    return {q.id: first_correct_rank(q, [h.chunk for h in engine.retriever.search(q.question, k=k)]) for q in questions}


def scores(found: dict[str, int | None], questions: Sequence[Question]) -> Scores:
    s = Scores()
    for q in questions:
        s.add(found[q.id], max(KS))
    return s


def open_variant(base: Settings, work: Path, context: str) -> Engine:
    """The plain store, or a contextual one beside it that shares the plain store's embedding cache."""
    if context == "off":
        return build_engine(base)
    data = work / f"{base.data_dir.name}-context-{context}"
    data.mkdir(parents=True, exist_ok=True)
    cache = data / "cache"
    if not cache.exists():
        cache.symlink_to((base.data_dir / "cache").resolve(), target_is_directory=True)
    return build_engine(base.model_copy(update={"data_dir": data, "chunk_context": context}))


def _progress(stage: str, done: int, total: int) -> None:
    if done == total or done % 200 == 0:
        print(f"  {stage}: {done}/{total}", file=sys.stderr)


def table_row(name: str, s: Scores, base: Scores | None) -> str:
    delta = f"{(s.recall(5) - base.recall(5)) * 100:+.0f}" if base is not None else "—"
    return f"| {name} | {s.n} | {s.recall(1):.2f} | {s.recall(5):.2f} | {s.recall(10):.2f} | {s.mrr:.2f} | {delta} |"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--context", choices=("sparse", "all"), default="sparse", help="how the contextual variant indexes")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "multimodal.md")
    args = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    base = Settings()
    base = base.model_copy(update={"data_dir": args.work / base.embed_provider, "chunk_context": "off"})
    corpus = args.shared / "corpus"
    questions = [q for f in QUESTION_FILES for q in load_questions(args.shared / "questions" / f) if q.answerable]
    found: dict[str, dict[str, int | None]] = {}
    ingest_s: dict[str, float] = {}
    for context in ("off", args.context):
        engine = open_variant(base, args.work, context)
        print(f"ingesting {corpus} (chunk context {context}) …", file=sys.stderr)
        report = engine.ingest([corpus], progress=_progress)
        ingest_s[context] = report.seconds
        for variant in (v for v in VARIANTS if v.context == (context != "off")):
            engine.retriever.settings = engine.settings.model_copy(update={"english_glossary": variant.glossary})
            print(f"evaluating {variant.name} …", file=sys.stderr)
            found[variant.name] = ranks(engine, questions)
        engine.close()

    out = [
        "# Multimodal and bilingual retrieval",
        "",
        f"Run {started}, `benchmarks/multimodal.py --context {args.context}` on `{args.shared}`; embedder "
        f"`{base.embed_provider}`; hybrid retrieval ({base.fusion} fusion) for every row. ",
        "The baseline is the foundation's hybrid of the same run (no glossary, no context line); Δ is recall@5 against it, "
        "in points. Tables are entities in every row (same chunks); the variants differ only in the glossary "
        f"(`GEUNGEO_ENGLISH_GLOSSARY`) and the chunk context (`GEUNGEO_CHUNK_CONTEXT={args.context}`).",
        "",
        f"Ingestion: plain store {ingest_s['off']:.0f} s, contextual store {ingest_s[args.context]:.0f} s "
        "(both incremental; vectors come from one embedding cache).",
        "",
    ]
    for group, qs in groups(questions).items():
        out += [f"## {group}", "", "| variant | n | R@1 | R@5 | R@10 | MRR | Δ R@5 |", "|---|---|---|---|---|---|---|"]
        baseline = scores(found[VARIANTS[0].name], qs)
        for variant in VARIANTS:
            s = scores(found[variant.name], qs)
            out.append(table_row(variant.name, s, None if variant is VARIANTS[0] else baseline))
        out.append("")
    misses = [
        q for q in questions
        if (q.raw.get("needs") == "table" or q.style == "english") and (found[VARIANTS[-1].name][q.id] or 99) > 5
    ]
    out += ["## Table and English questions not at rank ≤ 5 (all additions on)", ""]
    out += [f"- `{q.id}` ({q.style}): {q.question}" for q in misses] or ["- none"]
    text = "\n".join(out) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
