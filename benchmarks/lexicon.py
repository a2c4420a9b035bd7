"""Lexicon audit (#20): what each entry of the everyday → legal lexicon does to the questions it fires on.

For every synonym entry of a lexicon file (default: the bundled ``geungeo/data/lexicon.json``) that fires on a
question (its key in the question, spaces ignored, as ``Lexicon.expansions`` matches), the engine's hybrid search
(top 10) is run on those questions with the whole lexicon and with the lexicon less that entry; the change of the
gold's reciprocal rank is the entry's effect on the question. Questions: the answerable shared questions
(``../shared/questions``: laws, regulations, documents), shown in two halves by a seeded draw on their id, and the
scenario questions (``benchmarks/data/scenarios.jsonl``), written after the lexicon and never used to pick an entry.

Retirement rule (the one rule tried, no threshold): an entry whose effects, summed over the questions it fires on,
are negative (it costs those questions more than it gives them) is retired. Its split-half estimate: the rule applied
to one random half of the shared questions and the scenarios, the lexicon less the entries it retires scored on the
other half against the whole lexicon, over 20 random splits, both ways. Also the whole lexicon off. Writes
``benchmarks/reports/lexicon.md``.

    .venv/bin/python benchmarks/lexicon.py --store benchmarks/.work/f8/e5-onnx
    .venv/bin/python benchmarks/lexicon.py --lexicon old.json --out /tmp/lexicon-old.md   # audit another lexicon
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from geungeo.engine import Engine, build_engine
from geungeo.evaluation import Question, first_correct_rank, load_questions
from geungeo.retrieval.expansion import load_lexicon
from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.settings import Settings
from geungeo.text.normalize import nfc, squash

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "questions"
SCENARIOS = ROOT / "benchmarks" / "data" / "scenarios.jsonl"
BUNDLED = ROOT / "src" / "geungeo" / "data" / "lexicon.json"
SPLITS = 20
K = 10


def _key(word: str) -> str:
    """A lexicon file's key as the loaded lexicon holds it (:func:`~geungeo.retrieval.expansion.load_lexicon`)."""
    return squash(nfc(word)).lower()


def half(q: Question) -> str:
    """The shared question's half (A or B) in the per-entry table, by a seeded draw on its id."""
    return "A" if random.Random(q.id).random() < 0.5 else "B"


class Searches:
    """The gold's reciprocal rank (top 10) of each question under lexicons less some entries, each search run once."""

    def __init__(self, engine: Engine, settings: Settings, lexicon: dict[str, object], folder: Path) -> None:
        self.engine, self.settings, self.lexicon, self.folder = engine, settings, lexicon, folder
        self._retrievers: dict[frozenset[str] | None, HybridRetriever] = {}
        self._rr: dict[tuple[frozenset[str] | None, str], float] = {}

    def _retriever(self, removed: frozenset[str] | None) -> HybridRetriever:
        """The hybrid search with the lexicon less ``removed`` (None: with no lexicon at all)."""
        if removed not in self._retrievers:
            if removed is None:
                settings = self.settings.model_copy(update={"query_expansion": False})
            else:
                synonyms = dict(self.lexicon["synonyms"])  # type: ignore[call-overload]
                kept = {k: v for k, v in synonyms.items() if _key(k) not in removed}
                path = self.folder / f"lexicon-{len(self._retrievers)}.json"
                path.write_text(json.dumps({**self.lexicon, "synonyms": kept}, ensure_ascii=False), "utf-8")
                settings = self.settings.model_copy(update={"lexicon_path": str(path)})
            self._retrievers[removed] = HybridRetriever(self.engine.store, self.engine.embedder, settings)
        return self._retrievers[removed]

    def rr(self, q: Question, removed: frozenset[str] | None = frozenset()) -> float:
        if (removed, q.id) not in self._rr:
            hits = self._retriever(removed).search(q.question, k=K)
            rank = first_correct_rank(q, [h.chunk for h in hits])
            self._rr[(removed, q.id)] = 1.0 / rank if rank else 0.0
        return self._rr[(removed, q.id)]

    def scores(self, questions: Sequence[Question], removed: frozenset[str] | None = frozenset()) -> tuple[float, ...]:
        """R@1, R@5 and MRR over ``questions``."""
        rrs = [self.rr(q, removed) for q in questions]
        return (
            statistics.fmean(x == 1.0 for x in rrs),
            statistics.fmean(x >= 0.2 for x in rrs),
            statistics.fmean(rrs),
        )


@dataclass
class Entry:
    """One lexicon entry and its effect (reciprocal rank with it minus without it) on each question it fires on."""

    word: str
    targets: list[str]
    effects: dict[str, float]  # question id → effect

    def total(self, ids: Iterable[str] | None = None) -> float:
        keep = None if ids is None else set(ids)
        return sum(v for qid, v in self.effects.items() if keep is None or qid in keep)


def retired(entries: Sequence[Entry], ids: Iterable[str] | None = None) -> frozenset[str]:
    """The entries the rule retires on the questions ``ids`` (all when None): a negative summed effect there."""
    ids = None if ids is None else set(ids)
    return frozenset(_key(e.word) for e in entries if e.total(ids) < -1e-9)


def split_half(
    entries: Sequence[Entry], searches: Searches, shared: Sequence[Question], scenarios: Sequence[Question]
) -> tuple[float, float, float]:
    """Held-out MRR of the whole lexicon and of the lexicon less what the rule retires on the other half (and the
    scenarios), and the mean number of entries retired, over ``SPLITS`` random splits both ways."""
    whole, audited, counts = [], [], []
    for seed in range(SPLITS):
        order = list(shared)
        random.Random(seed).shuffle(order)
        halves = (order[: len(order) // 2], order[len(order) // 2 :])
        for pick, held in (halves, halves[::-1]):
            removed = retired(entries, [q.id for q in [*pick, *scenarios]])
            whole.append(searches.scores(held)[2])
            audited.append(searches.scores(held, removed)[2])
            counts.append(len(removed))
    return statistics.fmean(whole), statistics.fmean(audited), statistics.fmean(counts)


def _shown(path: Path) -> str:
    """``path`` as the report shows it: inside the repository relative to it, else its name."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else path.name


def row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def render(
    lexicon_name: str,
    lexicon: dict[str, object],
    entries: Sequence[Entry],
    groups: dict[str, list[Question]],
    searches: Searches,
    estimate: tuple[float, float, float],
    started: str,
    store: str,
) -> str:
    synonyms = dict(lexicon["synonyms"])  # type: ignore[call-overload]
    out_all = retired(entries)
    group_of = {q.id: name for name, qs in groups.items() for q in qs}
    shared = groups["A"] + groups["B"]
    lines = [
        "# Lexicon audit",
        "",
        f"Run {started}, `benchmarks/lexicon.py`: lexicon `{lexicon_name}` ({len(synonyms)} synonym entries), store "
        f"`{store}`, the engine's hybrid search (top {K}) with its default settings. Questions: {len(shared)} answerable "
        f"shared questions (halves A {len(groups['A'])} / B {len(groups['B'])} by a seeded draw on their id) and "
        f"{len(groups['scen'])} scenario questions (written after the lexicon, never used to pick an entry). An "
        "entry's effect on a question is the gold's reciprocal rank with the whole lexicon minus without that entry.",
        "",
        f"{len(entries)} entries fire on at least one question; {len(synonyms) - len(entries)} fire on none (no "
        "evidence either way: kept). Rule (the one tried, no threshold): an entry whose effects on the questions it fires on "
        f"sum below zero is retired. On all the questions it retires {len(out_all)}.",
        "",
        "## The rule's split-half estimate",
        "",
        f"Over {SPLITS} random splits of the shared questions, both ways: entries retired by the rule on one half and "
        "the scenarios, MRR on the other half.",
        "",
        row(["held-out MRR, whole lexicon", "held-out MRR, lexicon less the retired", "entries retired a split"]),
        row(["---"] * 3),
        row([f"{estimate[0]:.4f}", f"{estimate[1]:.4f} ({estimate[1] - estimate[0]:+.4f})", f"{estimate[2]:.1f}"]),
        "",
        "## In sample (the rule applied to every question, so its figures are chosen on them)",
        "",
        row(["lexicon", "shared R@1 / R@5 · MRR", "scenarios R@1 / R@5 · MRR"]),
        row(["---"] * 3),
    ]
    for name, removed in (("whole", frozenset()), ("less the retired", out_all), ("off", None)):
        figures = [searches.scores(qs, removed) for qs in (shared, groups["scen"])]
        lines.append(row([name, *(f"{a:.3f} / {b:.3f} · {c:.3f}" for a, b, c in figures)]))
    lines += [
        "",
        "(Scenario questions count a rank only when every gold provision is in, as `scenarios.py` does.)",
        "",
        "## Entries retired",
        "",
        row(["entry", "legal terms", "fires on (A / B / scenarios)", "effect A", "effect B", "effect scenarios"]),
        row(["---"] * 6),
    ]

    def cells(e: Entry) -> list[object]:
        n = {g: sum(1 for qid in e.effects if group_of[qid] == g) for g in ("A", "B", "scen")}
        eff = {g: e.total(q.id for q in groups[g]) for g in ("A", "B", "scen")}
        return [
            e.word,
            ", ".join(e.targets),
            f"{n['A']} / {n['B']} / {n['scen']}",
            *(f"{eff[g]:+.2f}" if n[g] else "" for g in ("A", "B", "scen")),
        ]

    by_total = sorted(entries, key=lambda e: (e.total(), e.word))
    lines += [row(cells(e)) for e in by_total if _key(e.word) in out_all]
    lines += [
        "",
        "## Every entry that fires, by summed effect",
        "",
        row(["entry", "legal terms", "fires on (A / B / scenarios)", "effect A", "effect B", "effect scenarios"]),
        row(["---"] * 6),
        *(row(cells(e)) for e in by_total),
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, default=ROOT / "benchmarks" / ".work" / "f8" / "e5-onnx")
    ap.add_argument("--embedder", default="e5-onnx")
    ap.add_argument("--lexicon", type=Path, default=BUNDLED, help="the lexicon file to audit")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "lexicon.md")
    args = ap.parse_args(argv)
    if not (args.store / "store").is_dir():
        print(f"no ingested store at {args.store}: run geungeo ingest (or benchmarks/retrieval.py) first", file=sys.stderr)
        return 2
    started = time.strftime("%Y-%m-%d %H:%M")
    lexicon = json.loads(args.lexicon.read_text("utf-8"))
    settings = Settings(embed_provider=args.embedder).model_copy(
        update={"data_dir": args.store, "lexicon_path": str(args.lexicon.resolve())}
    )
    shared = [q for f in ("laws", "regulations", "documents") for q in load_questions(SHARED / f"{f}.jsonl") if q.answerable]
    groups = {"A": [q for q in shared if half(q) == "A"], "B": [q for q in shared if half(q) == "B"]}
    groups["scen"] = load_questions(SCENARIOS)
    engine = build_engine(settings)
    try:
        with tempfile.TemporaryDirectory() as folder:
            searches = Searches(engine, settings, lexicon, Path(folder))
            questions = [*shared, *groups["scen"]]
            loaded = load_lexicon(str(args.lexicon.resolve()), None)
            fired_in = {q.id: set(loaded.fired(q.question)) for q in questions}  # the engine's own matching
            entries = []
            for word, targets in dict(lexicon["synonyms"]).items():
                fired = [q for q in questions if _key(word) in fired_in[q.id]]
                if fired:
                    without = frozenset({_key(word)})
                    effects = {q.id: searches.rr(q) - searches.rr(q, without) for q in fired}
                    entries.append(Entry(word, list(targets), effects))
            print(f"{len(entries)} entries fire; split-half …", file=sys.stderr)
            estimate = split_half(entries, searches, shared, groups["scen"])
            report = render(_shown(args.lexicon), lexicon, entries, groups, searches, estimate, started, _shown(args.store))
    finally:
        engine.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, "utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
