"""Answer-quality and latency benchmark of the answer graph on ../shared/questions (or ``--questions DIR``).

    .venv/bin/python benchmarks/answers.py                       # extractive mode (no LLM), default embedder
    .venv/bin/python benchmarks/answers.py --fake-llm-delay 0.5  # latency with a scripted LLM sleeping 0.5 s a call
    GEUNGEO_LLM_PROVIDER=openai GEUNGEO_LLM_BASE_URL=… GEUNGEO_LLM_MODEL=… \
        .venv/bin/python benchmarks/answers.py --llm-sample 8     # also the configured LLM on 8 questions per file
    GEUNGEO_LLM_PROVIDER=local .venv/bin/python benchmarks/answers.py --no-extractive --llm-sample 1  # the local GGUF only

Measures, in one run: the structural set (all ``must_contain`` present), the share of answerable
questions whose citations include a gold target next to retrieval recall@5 of the same run, the
share of unanswerable questions answered "근거 부족" and of answerable ones wrongly refused,
citations outside the evidence, end-to-end latency p50/p95, time to first token and LLM calls per
question. Uses the ingested store of ``benchmarks/retrieval.py`` (same ``--work`` directory).

Extractive mode also gets the answer-quality table of ``benchmarks/answer_quality.py`` (answer length, gold
evidence in the answer text, first citation gold, duplicates, confidence reliability, refusal at a threshold chosen
split-half). Before/after on one store: run the baseline's code with ``--save-records before.json`` (e.g.
``PYTHONPATH=../main/src``), then this code with ``--baseline before.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import answer_quality as quality
from geungeo.answering.models import REFUSAL, Answer
from geungeo.engine import build_engine
from geungeo.evaluation import Question, first_correct_rank, load_questions
from geungeo.graph.runner import QueryRunner
from geungeo.llm import get_chat_model
from geungeo.settings import Settings
from geungeo.text.normalize import squash

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FILES = ("laws.jsonl", "regulations.jsonl", "documents.jsonl", "unanswerable.jsonl", "structural.jsonl")


def scripted_llm(delay: float) -> Any:
    """A chat model that answers every node sensibly after ``delay`` seconds (latency runs only)."""
    from geungeo.testing.fake_llm import ScriptedChatModel

    def generate(messages: Sequence[Any]) -> str:
        user = str(messages[-1].content)
        labels = [line.strip("[]") for line in user.splitlines() if line.startswith("[") and line.endswith("]")]
        return f"근거에 따르면 해당 내용이 규정되어 있습니다. [{labels[0]}]" if labels else REFUSAL

    script: dict[str, Any] = {
        "router": {"route": "rag_required", "needs_retrieval": True},
        "planner": {"normalized_query": "q", "sub_queries": [{"text": "q", "priority": 1, "variations": []}]},
        "rerank": {"order": [0, 1, 2, 3, 4]},
        "judge": {"score": 0.9, "verdict": "sufficient", "missing": []},
        "generate": generate,
        "grounding": {"score": 1.0, "unsupported": []},
        "grader": {"completeness": 0.9, "relevance": 0.9, "clarity": 0.9, "accuracy": 0.9, "feedback": ""},
        "suggest": {"questions": ["다음 질문?"]},
    }
    return ScriptedChatModel(script, delay_s=delay)


def run_all(runner: QueryRunner, questions: list[Question]) -> list[tuple[Question, Answer, float, float | None]]:
    out = []
    for n, q in enumerate(questions, 1):
        started = time.perf_counter()
        first_token: float | None = None
        answer: Answer | None = None
        for event in runner.stream(q.question, cache_enabled=False):
            if event["type"] == "token" and first_token is None:
                first_token = time.perf_counter() - started
            elif event["type"] == "answer":
                answer = event["answer"]
        assert answer is not None
        out.append((q, answer, time.perf_counter() - started, first_token))
        if len(questions) <= 40:  # a slow model: each question as it ends, so a cut-off run still shows something
            seconds = out[-1][2]
            print(f"  {q.id}: {seconds:.1f} s, {answer.llm_calls} LLM calls, refused {answer.refused}", file=sys.stderr)
        elif n % 25 == 0:
            print(f"  {n}/{len(questions)}", file=sys.stderr, flush=True)
    return out


def measure(runner: QueryRunner, results: list[tuple[Question, Answer, float, float | None]]) -> dict[str, Any]:
    store = runner.engine.store
    per_file: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    outside = 0
    structural_missing: list[str] = []
    for q, a, _, _ in results:
        evidence_ids = {e.chunk_id for e in a.evidence}
        outside += sum(c.chunk_id not in evidence_ids for c in a.citations)
        f = per_file[q.file]
        f["n"] += 1
        f["refused"] += a.refused
        if q.structural:
            text = squash(a.answer)
            missing = [m for m in q.raw.get("must_contain", []) if squash(m) not in text]
            f["complete"] += not missing
            if missing:
                structural_missing.append(q.id)
        elif q.answerable:
            cited = store.get([c.chunk_id for c in a.citations])
            f["cites_gold"] += first_correct_rank(q, cited) is not None
            retrieved = store.get([e.chunk_id for e in a.evidence if e.origin == "retrieval"][:5])
            f["evidence_R@5"] += first_correct_rank(q, retrieved) is not None
    latencies = [t for _, _, t, _ in results]
    ttft = [t for _, _, _, t in results if t is not None]
    calls = [a.llm_calls for _, a, _, _ in results]
    return {
        "per_file": per_file,
        "outside": outside,
        "structural_missing": structural_missing,
        "p50": statistics.median(latencies),
        "p95": sorted(latencies)[int(0.95 * (len(latencies) - 1))],
        "ttft_p50": statistics.median(ttft) if ttft else None,
        "calls": statistics.mean(calls) if calls else 0,
    }


def render(m: dict[str, Any], label: str) -> str:
    lines = [
        f"## {label}",
        "",
        "| file | n | cites a gold target | evidence R@5 | refused (근거 부족) | structural complete |",
        "|---|---|---|---|---|---|",
    ]
    for name, f in sorted(m["per_file"].items()):
        n = f["n"] or 1
        cites = f"{f['cites_gold'] / n:.2f}" if name not in ("unanswerable.jsonl", "structural.jsonl") else ""
        r5 = f"{f['evidence_R@5'] / n:.2f}" if cites else ""
        complete = f"{f['complete'] / n:.2f}" if name == "structural.jsonl" else ""
        lines.append(f"| {name} | {int(f['n'])} | {cites} | {r5} | {f['refused'] / n:.2f} | {complete} |")
    answerable = [f for name, f in m["per_file"].items() if name not in ("unanswerable.jsonl", "structural.jsonl")]
    wrong = sum(f["refused"] for f in answerable) / max(1, sum(f["n"] for f in answerable))
    unans = m["per_file"].get("unanswerable.jsonl", {"refused": 0, "n": 1})
    lines += [
        "",
        f"- unanswerable answered 근거 부족: **{unans['refused'] / max(1, unans['n']):.2f}**; "
        f"answerable wrongly refused: **{wrong:.2f}**",
        f"- citations outside the evidence: **{m['outside']}**; structural lines missing a string: "
        f"{', '.join(m['structural_missing']) or 'none'}",
        f"- latency p50 {m['p50']:.2f} s, p95 {m['p95']:.2f} s; time to first token p50 "
        f"{m['ttft_p50'] if m['ttft_p50'] is None else round(m['ttft_p50'], 2)} s; LLM calls per question {m['calls']:.1f}",
        "",
    ]
    return "\n".join(lines)


def render_examples(results: list[tuple[Question, Answer, float, float | None]], per_file: int = 2) -> str:
    """The first answers of each file beside the gold answer, so that a reader judges the model's Korean too."""
    lines = ["Examples (the answer as returned, shortened to 300 characters):", ""]
    shown: dict[str, int] = defaultdict(int)
    for q, a, seconds, _ in results:
        if q.structural or shown[q.file] >= per_file:
            continue
        shown[q.file] += 1
        gold = q.raw.get("answer") or ("근거 부족 (" + q.raw.get("why", "unanswerable") + ")")
        text = " ".join(a.answer.split())
        lines += [
            f"- **{q.id}** {q.question}",
            f"  - gold: {gold}",
            f"  - answer ({seconds:.1f} s, {a.llm_calls} LLM calls): {text[:300]}{'…' if len(text) > 300 else ''}",
        ]
    return "\n".join([*lines, ""])


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument(
        "--questions", type=Path, default=None,
        help="a folder of question files named as in ../shared/questions (default: that one; e.g. benchmarks/data/heldout/probe)",
    )
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--embedder", default=None)
    ap.add_argument("--fake-llm-delay", type=float, default=None, help="also run with a scripted LLM sleeping this long")
    ap.add_argument(
        "--llm-sample", type=int, default=0, help="also run the configured LLM (GEUNGEO_LLM_*) on N questions per file"
    )
    ap.add_argument(
        "--extractive", action=argparse.BooleanOptionalAction, default=True, help="run extractive mode on every question"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "answers.md")
    ap.add_argument("--name", default="this run", help="what this run's code is called in the quality table")
    ap.add_argument("--save-records", type=Path, help="write the per-question quality records (JSON) here")
    ap.add_argument("--baseline", type=Path, help="quality records of a baseline run (--save-records) to report beside")
    ap.add_argument("--baseline-name", default="baseline")
    args = ap.parse_args(argv)
    base = Settings(**({"embed_provider": args.embedder} if args.embedder else {}))
    settings = base.model_copy(update={"data_dir": args.work / base.embed_provider})
    folder = args.questions or args.shared / "questions"
    questions = [q for f in FILES if (folder / f).exists() for q in load_questions(folder / f)]
    engine = build_engine(settings)
    if engine.store.count() == 0:
        print(f"ingesting {args.shared / 'corpus'} …", file=sys.stderr)
        engine.ingest([args.shared / "corpus"])
    report = [
        f"# Answer benchmark\n\nRun {time.strftime('%Y-%m-%d %H:%M')}, embedder `{settings.embed_provider}`, "
        f"{len(questions)} questions, semantic cache off.\n"
    ]
    if args.extractive:
        runner = QueryRunner(engine, llm=None)
        report.append(render(measure(runner, run_all(runner, questions)), "Extractive mode (no LLM, the default)"))
        # The quality measures re-score refusal at any evidence-score threshold: answers from a run at threshold 0.
        open_engine = build_engine(settings.model_copy(update={"min_evidence_score": 0.0}))
        open_runner = QueryRunner(open_engine, llm=None)
        answerable = [q for q in questions if not q.structural]
        records = quality.records(run_all(open_runner, answerable), open_engine.store)
        if args.save_records:
            args.save_records.write_text(json.dumps(quality.to_json(records), ensure_ascii=False), "utf-8")
        runs = [(args.name, records)]
        if args.baseline:
            runs.insert(0, (args.baseline_name, quality.from_json(json.loads(args.baseline.read_text("utf-8")))))
        report.append(quality.render(runs, settings.min_evidence_score))
    if args.fake_llm_delay is not None:
        answerable = [q for q in questions if q.answerable and not q.structural][:40]
        runner = QueryRunner(engine, llm=scripted_llm(args.fake_llm_delay))
        report.append(
            render(
                measure(runner, run_all(runner, answerable)),
                f"Scripted LLM, {args.fake_llm_delay} s per call (latency; quality numbers not meaningful)",
            )
        )
    if args.llm_sample:
        llm = get_chat_model(settings)
        if llm is None:
            raise SystemExit("--llm-sample: no LLM configured (set GEUNGEO_LLM_PROVIDER and its settings)")
        sample = [q for f in FILES for q in [q for q in questions if q.file == f][: args.llm_sample]]
        runner = QueryRunner(engine, llm=llm)
        model = f"{settings.llm_provider}: {getattr(llm, 'model', '') or settings.llm_model}"
        results = run_all(runner, sample)
        report.append(render(measure(runner, results), f"Configured LLM `{model}`, {len(sample)} questions"))
        report.append(render_examples(results))
    text = "\n".join(report)
    args.out.write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
