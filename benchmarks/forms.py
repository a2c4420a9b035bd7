"""How the answer graph takes the forms of question people use around document names, on questions written for it.

    .venv/bin/python benchmarks/forms.py --work benchmarks/.work/f8 --save-records after.json
    PYTHONPATH=<other checkout>/src .venv/bin/python benchmarks/forms.py --work … --save-records before.json
    .venv/bin/python benchmarks/forms.py --work … --baseline before.json   # both columns in one report

``benchmarks/data/forms.jsonl`` (written for this benchmark against ``../shared/corpus``, not taken from the shared
question sets) has these kinds of question, each scored without an LLM (extractive mode, cache off):

- ``unheld``: cites a law or regulation the corpus does not hold ("소득세법상 …", 「…」, "… 제N조"). Right when the
  answer is a refusal that names it (an answer quoted from other documents answers another question).
- ``held``: cites a stored document by a name people use (a shortening, "근기법", "청탁금지법"). Right when it is not
  refused as unknown; also counted: whether the answer cites that document.
- ``reference``: asks what a provision says ("근로기준법 제60조는 뭐야?"). Right when the answer is that provision's
  text (the structural lookup, citing it).
- ``phrase``: a topic that merely ends like a title, with a plain request ("등록금 반환 기준 알려줘"). Right when it
  is searched and answered or refused on the documents, not told that no document has that name.
- ``series``: several articles of one document, listed, as a span or compared ("제60조부터 제62조까지", "제5조와
  제6조의 차이는?"). Right when the answer cites exactly those articles, in order.
- ``cites``: a question that cites an article of the document it names ("근로기준법 제60조에 따르면 …"). Right when
  the answer cites that article first.
- ``named``: a question naming a stored document whose words another document also states ("형법상 절도죄 형량은?",
  where 행정절차법 says "형량하여야"). Right when the answer quotes that document first (or, refused, names it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from geungeo.engine import build_engine
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data" / "forms.jsonl"
KINDS = ("unheld", "held", "reference", "phrase", "series", "cites", "named")
NOTES = "## Notes"
_UNKNOWN = ("등록된 문서에 없습니다", "문서를 찾을 수 없습니다", "not among the stored documents", "no document named")


def score(item: dict[str, Any], answer: Any) -> dict[str, Any]:
    """One question's record: whether the answer is right for its kind (and, for ``held``, cites the document)."""
    text, labels = answer.answer, [c.label for c in answer.citations]
    unknown = any(u in text for u in _UNKNOWN)
    kind = item["kind"]
    if kind == "unheld":
        right = answer.refused and item["name"] in text
    elif kind == "held":
        right = not unknown
    elif kind == "reference":
        right = answer.route == "structural" and item["label"] in labels
    elif kind == "series":
        right = labels == item["labels"]
    elif kind == "cites":
        right = bool(labels) and labels[0] == item["label"]
    elif kind == "named":
        right = labels[0].startswith(item["doc"]) if labels else answer.refused and item["doc"] in text
    else:
        right = not unknown
    cites = any(label.startswith(item["doc"]) for label in labels) if kind == "held" else None
    return {"id": item["id"], "kind": kind, "right": right, "cites": cites, "route": answer.route, "answer": text[:160]}


def render(records: dict[str, list[dict[str, Any]]]) -> list[str]:
    names = list(records)
    out = ["| kind | n | " + " | ".join(f"{n}: right" for n in names) + " |", "|---|---|" + "---|" * len(names)]
    for kind in KINDS:
        rows = {name: [r for r in recs if r["kind"] == kind] for name, recs in records.items()}
        n = len(next(iter(rows.values())))
        cells = []
        for name in names:
            right = sum(r["right"] for r in rows[name])
            cites = sum(bool(r["cites"]) for r in rows[name])
            cells.append(f"{right}/{n}" + (f" (cites it: {cites})" if kind == "held" else ""))
        out.append(f"| {kind} | {n} | " + " | ".join(cells) + " |")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--embedder", default=None, help="embedding provider (default: the configured one)")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--save-records", type=Path, help="write this run's records (JSON) here")
    ap.add_argument("--baseline", type=Path, help="records of a baseline run (--save-records) to report beside")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "forms.md")
    args = ap.parse_args(argv)
    embedder = args.embedder or Settings().embed_provider
    settings = Settings(embed_provider=embedder, data_dir=args.work / embedder, cache_enabled=False)
    items = [json.loads(line) for line in args.data.read_text("utf-8").splitlines() if line.strip()]
    runner = QueryRunner(build_engine(settings), llm=None)
    started = time.strftime("%Y-%m-%d %H:%M")
    records = []
    try:
        for item in items:
            records.append(score(item, runner.run(item["question"], cache_enabled=False)))
    finally:
        runner.close()
    if args.save_records:
        args.save_records.write_text(json.dumps(records, ensure_ascii=False, indent=1), "utf-8")
    columns = {"baseline": json.loads(args.baseline.read_text("utf-8"))} if args.baseline else {}
    columns["this run"] = records
    wrong = defaultdict(list)
    for r in records:
        if not r["right"]:
            wrong[r["kind"]].append(f"{r['id']} → {r['answer'][:80]!r}")
    report = [
        "# Question forms around document names",
        "",
        f"Run {started}, store `{settings.data_dir}` (embedder `{embedder}`), extractive, cache off; "
        f"{len(items)} questions of `benchmarks/data/forms.jsonl` (written for this benchmark, see its docstring).",
        "",
        *render(columns),
        "",
        *(f"- still wrong ({kind}): " + "; ".join(lines) for kind, lines in wrong.items()),
    ]
    text = "\n".join(report) + "\n"
    print(text)
    if args.out:
        old = args.out.read_text("utf-8") if args.out.exists() else ""
        notes = old[old.index(NOTES) :] if NOTES in old else ""  # written by hand: kept across runs
        args.out.write_text(text + ("\n" + notes if notes else ""), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
