"""Questions naming their document, and quotes, generated from the corpus: does the passage they come from lead?

People often name the statute or regulation they mean ("근로기준법에 따르면 …", "수강신청규정상 …"); the shared
sets hold only 31 such questions, and none that quotes a passage's own words, as a person pasting a sentence to find
its source does. This benchmark writes its own from the ingested store, none from the shared
questions: for a seeded sample of articles, a cloze query (the document's name, then eight words of one of the
article's sentences), the same eight words alone (a quote, no name) and a title query (the name, then the article's
title), with that article as gold. It reports
R@1 / R@5 / R@10 and MRR of the engine's search per kind, and with ``--baseline`` the records of another code's run
(``PYTHONPATH=…/src … --save-records before.json``) beside this one, with the queries that moved; the report goes
to ``benchmarks/reports/named.md``.

    .venv/bin/python benchmarks/named.py --store benchmarks/.work/f8/e5-onnx --save-records after.json \
        --baseline before.json
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from geungeo.engine import build_engine
from geungeo.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
_FILE_SUFFIX = re.compile(r"\.(md|txt|hwpx?|pdf|docx|pptx)$", re.IGNORECASE)
_ARTICLE_HEAD = re.compile(r"^제\d+조(의\d+)?\([^)]*\)\s*")
_ITEM_MARK = re.compile(r"^[①-⑳\d.\s]+")


def _topic(word: str) -> str:
    """The topic particle after ``word``: 은 after a final consonant, else 는."""
    last = word.rstrip()[-1:] or "가"
    return "은" if "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 else "는"


def generate(engine: object, n: int, seed: int) -> list[dict[str, str]]:
    """Cloze and title queries naming the document of ``n`` sampled articles (the same for the same store and seed)."""
    store = engine.store  # type: ignore[attr-defined]
    articles = [
        (d.title, c.meta["article"], c.meta["article_title"], c.text)
        for d in store.documents()
        for c in store.chunks_of(d.doc_id)
        if c.meta.get("article") and c.meta.get("article_title") and c.meta.get("category") == "article"
        and not c.meta.get("addendum")
    ]
    rng = random.Random(seed)
    rng.shuffle(articles)
    queries: list[dict[str, str]] = []
    for title, article, article_title, text in articles[:n]:
        name = _FILE_SUFFIX.sub("", title)
        body = _ARTICLE_HEAD.sub("", text)
        sentences = [s.strip() for s in re.split(r"(?<=다\.)\s+|\n", body) if len(s.strip()) > 25 and not s.startswith("<")]
        if not sentences:
            continue
        words = _ITEM_MARK.sub("", rng.choice(sentences)).split()
        if len(words) < 6:
            continue
        start = rng.randrange(0, max(1, len(words) - 8))
        gold = {"doc": title, "article": article}
        fragment = " ".join(words[start : start + 8])
        queries.append({"kind": "cloze", "query": f"{name}에서 {fragment}", **gold})
        queries.append({"kind": "quote, no name", "query": fragment, **gold})
        asked = f"{name}에 따르면 {article_title}{_topic(article_title)} 어떻게 되나요?"
        queries.append({"kind": "title", "query": asked, **gold})
    return queries


def rank_all(engine: object, queries: Sequence[dict[str, str]], k: int = 10) -> dict[str, int | None]:
    ranks: dict[str, int | None] = {}
    for q in queries:
        hits = engine.retriever.search(q["query"], k=k)  # type: ignore[attr-defined]
        places = [(h.chunk.meta.get("doc"), h.chunk.meta.get("article")) for h in hits]
        ranks[q["query"]] = next((i for i, place in enumerate(places, 1) if place == (q["doc"], q["article"])), None)
    return ranks


def table(queries: Sequence[dict[str, str]], runs: dict[str, dict[str, int | None]]) -> list[str]:
    lines = ["| run | kind | n | R@1 | R@5 | R@10 | MRR |", "|---|---|---|---|---|---|---|"]
    for name, ranks in runs.items():
        by_kind: dict[str, list[int | None]] = defaultdict(list)
        for q in queries:
            by_kind[q["kind"]].append(ranks.get(q["query"]))
        for kind, found in sorted(by_kind.items()):
            n = len(found)
            cells = [sum(1 for r in found if r is not None and r <= k) / n for k in (1, 5, 10)]
            mrr = sum(1 / r for r in found if r) / n
            lines.append(f"| {name} | {kind} | {n} | " + " | ".join(f"{c:.3f}" for c in cells) + f" | {mrr:.3f} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, default=ROOT / "benchmarks" / ".work" / "f8" / "e5-onnx", help="data directory")
    ap.add_argument("--embedder", default="e5-onnx")
    ap.add_argument("--articles", type=int, default=400, help="articles sampled")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--save-records", type=Path, help="write this run's rank per query (JSON) here")
    ap.add_argument("--baseline", type=Path, help="ranks of a baseline run (--save-records) to report beside")
    ap.add_argument("--baseline-name", default="baseline", help="what the baseline's code is called in the report")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "named.md")
    args = ap.parse_args(argv)
    engine = build_engine(Settings(embed_provider=args.embedder).model_copy(update={"data_dir": args.store}))
    queries = generate(engine, args.articles, args.seed)
    ranks = rank_all(engine, queries)
    engine.close()
    if args.save_records:
        args.save_records.write_text(json.dumps(ranks, ensure_ascii=False, indent=0), "utf-8")
    runs = {"this run": ranks}
    if args.baseline:
        runs = {args.baseline_name: json.loads(args.baseline.read_text("utf-8")), **runs}
    lines = [
        "# Questions naming their document, and quotes, generated from the corpus",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')}, `benchmarks/named.py`: store `{args.store}`, {len(queries)} queries from "
        f"{args.articles} sampled articles (seed {args.seed}); the engine's search, top 10, gold = the source article.",
        "",
    ]
    lines += table(queries, runs)
    if args.baseline:
        before = runs[args.baseline_name]
        moved = [(q, before.get(q["query"]), ranks[q["query"]]) for q in queries if before.get(q["query"]) != ranks[q["query"]]]
        up = sum(1 for _, b, a in moved if (a or 99) < (b or 99))
        lines += ["", f"{len(moved)} queries moved: {up} up, {len(moved) - up} down.", ""]
        lines += [f"- {b} → {a}: {q['query']} ({q['article']})" for q, b, a in moved]
    report = "\n".join(lines) + "\n"
    args.out.write_text(report, "utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
