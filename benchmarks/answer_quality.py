"""Answer-quality measures of a benchmark run, per question, and their report (used by ``benchmarks/answers.py``).

Per answer: its length in sentences, whether its text holds a gold ``evidence`` clause (whitespace collapsed),
whether its first citation is a gold target, duplicate citations (one label cited twice) and page images, its
confidence, whether it cites gold and, when its text lacks the gold clause, where that clause is (``GOLD_PLACES``).
Refusal is re-scored for any evidence-score threshold ``t`` from a run at
threshold 0 (an answer is refused at ``t`` when it was refused at 0 or its evidence score is below ``t``), so the
threshold is chosen on one random half of the questions and scored on the other (split-half), beside the full set.
"""

from __future__ import annotations

import itertools
import random
import re
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from geungeo.answering.models import CITATION_MARK, Answer
from geungeo.evaluation import Question, first_correct_rank
from geungeo.stores.base import ChunkStore
from geungeo.text.normalize import squash

ANSWERABLE_FILES = ("laws.jsonl", "regulations.jsonl", "documents.jsonl")
_LIST_LINE = re.compile(r"^\s*(\d+(의\d+)?\.|[가-하]\.|\d+\)|[가-하]\))\s")
_BULLET = re.compile(r"^\s*[-*•·]\s+")
_SENTENCE_END = re.compile(r"(?<=[다요음함됨임]\.)(?=\s|$)|(?<=[?!])(?=\s|$)")
THRESHOLDS = [round(0.02 * i, 2) for i in range(0, 31)]
BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0001)


@dataclass
class Record:
    """What one answer scored (JSON-serialisable, so a baseline run can be saved and reported beside another)."""

    id: str
    file: str
    answerable: bool
    refused: bool  # at threshold 0
    score: float  # the evidence score (sufficiency)
    sentences: int
    has_evidence: bool  # the question has an evidence clause to look for
    contains_evidence: bool
    cites_gold: bool
    first_gold: bool
    citations: int
    duplicate_citations: int
    duplicate_images: int
    confidence: float
    evidence_at: str = ""  # where the gold clause is when the answer text lacks it (GOLD_PLACES); "" otherwise


GOLD_PLACES = {
    "first provision": "in the provision the answer cites first, another of its clauses quoted",
    "other passage": "in another passage of the answer's evidence (another provision answered)",
    "not in evidence": "in none of the answer's evidence passages (retrieval or expansion missed it)",
    "refused": "the answer refused",
}
"""Where the gold ``evidence`` clause of an answerable question is when the answer text does not contain it."""


def sentence_count(text: str) -> int:
    """Sentences of an answer: each line's sentence ends (at least one a line), citations stripped; the lead line
    ("문서에 따르면:") and the 호 lines under a quoted lead sentence are not counted."""
    n = 0
    for line in text.split("\n"):
        line = _BULLET.sub("", CITATION_MARK.sub("", line)).strip()
        if not line or line.endswith(":") or _LIST_LINE.match(line):
            continue
        n += max(1, len(_SENTENCE_END.findall(line)))
    return n


def states_span(text: str, span: str, tables: Sequence[str] = ()) -> bool:
    """Whether ``text`` states the gold ``span``, whitespace ignored. A span may be a table row's cells as the gold
    files cut them: one a line ("1～3학점\n 당해 학기 등록금의 6분의 1"), or joined by spaces ("4단계: 거장(숙련된 인간의
    99% 이상) 딥블루, 알파고 미달성" for the row "| 4단계: 거장(…) | 딥블루, 알파고 | 미달성 |" of one of the
    ``tables`` texts); it is then also stated by one line of ``text`` stating each cell, as a row is quoted
    ("신청학점수: 1～3학점, 등록금: 당해 학기 등록금의 6분의 1") or stored ("| 1～3학점 | 당해 학기 등록금의 6분의 1 |")."""
    if squash(span) in squash(text):
        return True
    cells = [squash(cell) for cell in span.split("\n") if cell.strip()]
    if len(cells) < 2:
        cells = _row_cells(span, tables)
    return len(cells) > 1 and any(all(cell in squash(line) for cell in cells) for line in text.split("\n"))


def _row_cells(span: str, tables: Sequence[str]) -> list[str]:
    """The cells of a Markdown table row among ``tables`` whose cells, joined, are ``span`` (whitespace ignored)."""
    wanted = squash(span)
    for text in tables:
        for line in (line.strip() for line in text.split("\n")):
            cells = [squash(cell) for cell in line[1:-1].split("|")] if line.startswith("|") and line.endswith("|") else []
            if cells and "".join(cells) == wanted:
                return [cell for cell in cells if cell]
    return []


def gold_place(a: Answer, spans: Sequence[str]) -> str:
    """Where the gold clause (``spans``) is, for an answer whose text lacks it (see GOLD_PLACES)."""
    if a.refused:
        return "refused"
    texts = [item.text for item in a.evidence]
    holding = [item.label for item in a.evidence if any(states_span(item.text, s, texts) for s in spans)]
    if not holding:
        return "not in evidence"
    return "first provision" if a.citations and a.citations[0].label in holding else "other passage"


def record(q: Question, a: Answer, store: ChunkStore) -> Record:
    cited = store.get([c.chunk_id for c in a.citations])
    spans = [e for e in q.evidence if e]
    labels = [c.label for c in a.citations]
    images = [img.path for img in a.structured.page_images]
    contains = not a.refused and any(states_span(a.answer, s, [item.text for item in a.evidence]) for s in spans)
    return Record(
        id=q.id,
        file=q.file,
        answerable=q.answerable,
        refused=a.refused,
        score=a.sufficiency.score if a.sufficiency else 0.0,
        sentences=0 if a.refused else sentence_count(a.answer),
        has_evidence=bool(spans),
        contains_evidence=contains,
        cites_gold=not a.refused and first_correct_rank(q, cited) is not None,
        first_gold=not a.refused and bool(cited) and first_correct_rank(q, cited[:1]) is not None,
        citations=len(labels),
        duplicate_citations=len(labels) - len(set(labels)),
        duplicate_images=len(images) - len(set(images)),
        confidence=a.structured.confidence,
        evidence_at="" if contains or not spans or not q.answerable else gold_place(a, spans),
    )


def records(results: Sequence[tuple[Question, Answer, float, float | None]], store: ChunkStore) -> list[Record]:
    return [record(q, a, store) for q, a, _, _ in results if not q.structural]


def _refused(r: Record, t: float) -> bool:
    return r.refused or r.score < t


def scores(rs: Sequence[Record], t: float) -> dict[str, float]:
    """The measures at threshold ``t`` over ``rs``."""
    answerable = [r for r in rs if r.answerable]
    unanswerable = [r for r in rs if not r.answerable]
    answered = [r for r in answerable if not _refused(r, t)]
    with_evidence = [r for r in answerable if r.has_evidence]
    out = {
        "unanswerable refused": _share(unanswerable, lambda r: _refused(r, t)),
        "answerable wrongly refused": _share(answerable, lambda r: _refused(r, t)),
        "contains gold evidence": _share(with_evidence, lambda r: r.contains_evidence and not _refused(r, t)),
        "cites gold": _share(answerable, lambda r: r.cites_gold and not _refused(r, t)),
        "first citation gold": _share(answerable, lambda r: r.first_gold and not _refused(r, t)),
        "median sentences": statistics.median([r.sentences for r in answered]) if answered else 0.0,
        "median citations": statistics.median([r.citations for r in answered]) if answered else 0.0,
    }
    for name in ANSWERABLE_FILES:
        part = [r for r in with_evidence if r.file == name]
        out[f"contains gold evidence: {name.removesuffix('.jsonl')}"] = _share(
            part, lambda r: r.contains_evidence and not _refused(r, t)
        )
    return out


def _share(rs: Sequence[Record], pred: Any) -> float:
    return sum(1 for r in rs if pred(r)) / len(rs) if rs else 0.0


def choose_threshold(rs: Sequence[Record], max_wrong: float = 0.08) -> float:
    """The threshold refusing most unanswerable questions while refusing at most ``max_wrong`` of the answerable
    ones (ties: the lower threshold); none within it: the one refusing fewest answerable questions."""
    rows = [(t, scores(rs, t)) for t in THRESHOLDS]
    within = [(t, s) for t, s in rows if s["answerable wrongly refused"] <= max_wrong]
    if within:
        return max(within, key=lambda ts: (ts[1]["unanswerable refused"] - ts[1]["answerable wrongly refused"], -ts[0]))[0]
    return min(rows, key=lambda ts: (ts[1]["answerable wrongly refused"], ts[0]))[0]


def split_half(
    rs: Sequence[Record], splits: int = 20, seed: int = 7
) -> tuple[dict[str, tuple[float, float, float]], list[float]]:
    """Choose the threshold on a random half (stratified by file), score on the other half, ``splits`` times:
    mean, min and max of each measure, and the thresholds chosen."""
    rng = random.Random(seed)
    by_file: dict[str, list[Record]] = {}
    for r in rs:
        by_file.setdefault(r.file, []).append(r)
    measured: dict[str, list[float]] = {}
    chosen: list[float] = []
    for _ in range(splits):
        a: list[Record] = []
        b: list[Record] = []
        for part in by_file.values():
            shuffled = part[:]
            rng.shuffle(shuffled)
            a += shuffled[: len(shuffled) // 2]
            b += shuffled[len(shuffled) // 2 :]
        t = choose_threshold(a)
        chosen.append(t)
        for k, v in scores(b, t).items():
            measured.setdefault(k, []).append(v)
    return {k: (statistics.mean(v), min(v), max(v)) for k, v in measured.items()}, chosen


def reliability(rs: Sequence[Record], t: float) -> list[tuple[str, int, float, float]]:
    """Answers given (not refused at ``t``, answerable or not) by confidence bin: count, mean confidence and the
    share citing a gold target (an answer to an unanswerable question cites none)."""
    given = [r for r in rs if not _refused(r, t)]
    rows = []
    for lo, hi in itertools.pairwise(BINS):
        part = [r for r in given if lo <= r.confidence < hi]
        if part:
            rows.append(
                (
                    f"{lo:.1f}–{min(hi, 1.0):.1f}",
                    len(part),
                    statistics.mean(r.confidence for r in part),
                    _share(part, lambda r: r.cites_gold),
                )
            )
    return rows


def calibration_error(rs: Sequence[Record], t: float) -> float:
    """Expected calibration error over the bins of :func:`reliability` (0: confidence equals the share citing gold)."""
    rows = reliability(rs, t)
    total = sum(n for _, n, _, _ in rows) or 1
    return sum(n * abs(conf - share) for _, n, conf, share in rows) / total


def duplicates(rs: Sequence[Record]) -> tuple[int, int]:
    return sum(r.duplicate_citations for r in rs), sum(r.duplicate_images for r in rs)


def render(runs: Sequence[tuple[str, list[Record]]], default_threshold: float) -> str:
    """The before/after report: full-set measures at the default threshold, the split-half estimate of a chosen
    threshold, duplicates and the confidence reliability table of each run."""
    names = [name for name, _ in runs]
    full = [scores(rs, default_threshold) for _, rs in runs]
    halves = [split_half(rs) for _, rs in runs]
    keys = list(full[0])
    lines = [
        f"### Answer quality, full set (evidence-score threshold {default_threshold}) and split-half estimate",
        "",
        "Split-half: the threshold is chosen on a random half of the questions (stratified by file: most unanswerable "
        "refused with at most 0.08 of the answerable wrongly refused) and scored on the other half; mean (min–max) "
        "of 20 splits.",
        "",
        "| measure | " + " | ".join(f"{n} full set | {n} split-half" for n in names) + " |",
        "|---|" + "---|---|" * len(names),
    ]
    for k in keys:
        cells = []
        for f, (h, _) in zip(full, halves, strict=True):
            mean, lo, hi = h[k]
            cells += [f"{f[k]:.2f}", f"{mean:.2f} ({lo:.2f}–{hi:.2f})"]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    chosen_cells = []
    for _, chosen in halves:
        chosen_cells += ["", f"{statistics.median(chosen):.2f} ({min(chosen):.2f}–{max(chosen):.2f})"]
    lines.append("| threshold chosen (median, range) | " + " | ".join(chosen_cells) + " |")
    dup_cells = []
    for _, rs in runs:
        c, i = duplicates(rs)
        dup_cells += [f"{c} / {i}", ""]
    lines.append("| duplicate citations / page images (all answers) | " + " | ".join(dup_cells) + " |")
    ece = []
    for _, rs in runs:
        ece += [f"{calibration_error(rs, default_threshold):.2f}", ""]
    lines.append("| calibration error (confidence vs cites gold) | " + " | ".join(ece) + " |")
    lines += ["", *_gold_places(runs)]
    lines += [
        "",
        "Sentences: per answer line, its sentence ends (a 호 list under its lead sentence and the lead line "
        "are not counted). Evidence: the question's gold `evidence` span(s) in the answer text, whitespace collapsed; "
        "a refused answer holds none.",
        "",
    ]
    for name, rs in runs:
        lines += [
            f"Confidence reliability, {name} (answers given at threshold {default_threshold}, unanswerable ones included):",
            "",
            "| confidence | answers | mean confidence | share citing gold |",
            "|---|---|---|---|",
        ]
        lines += [f"| {b} | {n} | {c:.2f} | {s:.2f} |" for b, n, c, s in reliability(rs, default_threshold)]
        lines.append("")
    return "\n".join(lines)


def _gold_places(runs: Sequence[tuple[str, list[Record]]]) -> list[str]:
    """A table of where the gold clause is in the answers that lack it, for the runs that recorded it."""
    recorded = [(name, rs) for name, rs in runs if any(r.evidence_at for r in rs)]
    if not recorded:
        return []
    lines = [
        "Answerable questions with an evidence clause whose answer text lacks it, by where that clause is:",
        "",
        "| gold clause | " + " | ".join(name for name, _ in recorded) + " |",
        "|---|" + "---|" * len(recorded),
    ]
    for place, meaning in GOLD_PLACES.items():
        lines.append(f"| {meaning} | " + " | ".join(str(sum(r.evidence_at == place for r in rs)) for _, rs in recorded) + " |")
    return lines


def to_json(rs: Sequence[Record]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rs]


def from_json(data: Sequence[dict[str, Any]]) -> list[Record]:
    return [Record(**d) for d in data]
