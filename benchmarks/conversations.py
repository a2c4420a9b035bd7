"""Follow-up questions in a conversation, answered without an LLM: is the follow-up read in the light of the turn
before it, and does its answer cite the provision it needs?

    .venv/bin/python benchmarks/conversations.py --work benchmarks/.work/f8 --embedder e5-onnx --out /tmp/c.md

``benchmarks/data/conversations.jsonl``: pairs of turns written from the corpus (a question, then a follow-up with
``gold`` = the provisions the follow-up's answer needs). ``elliptical`` follow-ups leave out what the first turn said
("3년 근무하면요?", "상가는요?"; conv-21 to -26 name a new subject in place of the first turn's: "연차휴가는 1년에
며칠?" then "그럼 육아휴직은요?"); the others are complete questions asked in the same conversation, a control that a
new topic is not dragged towards the old one. Extractive mode (no LLM), answer cache off.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from geungeo.engine import build_engine
from geungeo.evaluation import target_matches
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT / "benchmarks" / "data" / "conversations.jsonl"


def run(runner: QueryRunner, pair: dict[str, Any]) -> dict[str, Any]:
    conversation = f"bench-{pair['id']}-{time.monotonic_ns()}"
    runner.run(pair["first"], conversation_id=conversation, cache_enabled=False)
    answer = runner.run(pair["follow_up"], conversation_id=conversation, cache_enabled=False)
    chunks = runner.engine.store.get([c.chunk_id for c in answer.citations])
    gold = [any(target_matches(t, None, c) for t in pair["gold"]) for c in chunks]
    return {
        "id": pair["id"],
        "elliptical": pair["elliptical"],
        "route": answer.route,
        # completed with the turn before, or a place read in the document of the last answer ("그럼 제61조는?")
        "read": answer.route == "history_required" or any(s.note.startswith("follow-up") for s in answer.flow_log),
        "refused": answer.refused,
        "cites_gold": any(gold),
        "first_gold": bool(gold) and gold[0],
        "confidence": answer.structured.confidence,
        "cited": [c.label for c in answer.citations],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="benchmark store directory (of benchmarks/retrieval.py)")
    parser.add_argument("--embedder", default="e5-onnx")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--save-records", type=Path)
    args = parser.parse_args(argv)
    settings = Settings(data_dir=args.work / args.embedder, embed_provider=args.embedder, cache_enabled=False)
    runner = QueryRunner(build_engine(settings), llm=None)
    pairs = [json.loads(line) for line in PAIRS.read_text("utf-8").splitlines() if line.strip()]
    try:
        records = [run(runner, pair) for pair in pairs]
    finally:
        runner.close()
    lines = ["| follow-ups | n | read with the turn before | cites gold | first citation gold | refused | mean confidence |",
             "|---|---|---|---|---|---|---|"]
    for name, elliptical in (("elliptical", True), ("complete (control)", False)):
        rs = [r for r in records if r["elliptical"] is elliptical]
        n = len(rs) or 1
        lines.append(
            f"| {name} | {len(rs)} | {sum(r['read'] for r in rs) / n:.2f} | "
            f"{sum(r['cites_gold'] for r in rs) / n:.2f} | {sum(r['first_gold'] for r in rs) / n:.2f} | "
            f"{sum(r['refused'] for r in rs) / n:.2f} | {sum(r['confidence'] for r in rs) / n:.2f} |"
        )
    lines += ["", "| pair | route | cites gold | confidence | cited |", "|---|---|---|---|---|"]
    lines += [f"| {r['id']} | {r['route']} | {'yes' if r['cites_gold'] else 'no'} | {r['confidence']:.2f} | "
              f"{', '.join(r['cited']) or '(refused)'} |" for r in records]
    report = "\n".join(lines) + "\n"
    args.out.write_text(report, "utf-8")
    if args.save_records:
        args.save_records.write_text(json.dumps(records, ensure_ascii=False, indent=1), "utf-8")
    sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
