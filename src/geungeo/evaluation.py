"""Scoring retrieval against the shared gold question sets (``../shared/questions``).

Matching rules (``shared/README.md``): a gold target matches a chunk when its ``doc``
(spaces ignored) equals the chunk's document title or file name and each of its
``article`` / ``code`` / ``page`` equals the chunk's; a regulation is identified by code
when both sides have one. A target with only a document matches any chunk of it, or,
where the question gives ``evidence``, a chunk of it that contains the evidence. A
question is right at k when any target matches in the top k (all, with ``need_all``).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geungeo.text.normalize import nfc, squash
from geungeo.types import Chunk, Hit

KS = (1, 5, 10)


@dataclass(frozen=True)
class Question:
    """One line of a question file."""

    id: str
    question: str
    style: str
    file: str
    gold: tuple[Mapping[str, Any], ...]
    evidence: tuple[str | None, ...]
    need_all: bool = False
    answerable: bool = True
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def structural(self) -> bool:
        return "kind" in self.raw or self.style == "structural"


def load_questions(path: Path) -> list[Question]:
    """Questions of one JSONL file (NFC)."""
    out = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = json.loads(nfc(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: invalid JSON ({exc.msg})") from exc
        gold = tuple(q.get("gold") or ())
        evidence_all = q.get("evidence_all")
        if evidence_all:
            evidence = tuple(evidence_all) + (None,) * (len(gold) - len(evidence_all))
        else:
            evidence = tuple([q.get("evidence")] + [None] * (len(gold) - 1)) if gold else ()
        out.append(
            Question(
                id=q["id"],
                question=q["question"],
                style=q.get("style", ""),
                file=path.name,
                gold=gold,
                evidence=evidence,
                need_all=bool(q.get("need_all")),
                answerable=q.get("answerable", True) is not False,
                raw=q,
            )
        )
    return out


def target_matches(target: Mapping[str, Any], evidence: str | None, chunk: Chunk) -> bool:
    """Whether one gold target matches a retrieved chunk."""
    meta = chunk.meta
    t_code, c_code = target.get("code"), meta.get("code")
    if t_code and c_code:
        if t_code != c_code:
            return False
    elif target.get("doc"):
        names = {squash(str(meta.get(k) or "")) for k in ("doc", "source")}
        if squash(str(target["doc"])) not in names:
            return False
    elif t_code:
        return False
    if target.get("article") and target["article"] != meta.get("article"):
        return False
    if target.get("page") is not None and target["page"] != meta.get("page"):
        return False
    only_document = not target.get("article") and target.get("page") is None
    if only_document and evidence:
        return _loose(evidence) in _loose(chunk.text)
    return True


_TABLE_RULE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$", re.MULTILINE)


def _loose(text: str) -> str:
    """Text for evidence containment: whitespace, table rules (``|---|``) and cell separators removed."""
    return squash(_TABLE_RULE.sub("", text)).replace("|", "")


def first_correct_rank(q: Question, chunks: Sequence[Chunk]) -> int | None:
    """1-based rank at which the question is answered by the retrieved list, or None."""
    ranks: list[int | None] = []
    for target, evidence in zip(q.gold, q.evidence, strict=True):
        ranks.append(next((i for i, c in enumerate(chunks, 1) if target_matches(target, evidence, c)), None))
    found = [r for r in ranks if r is not None]
    if q.need_all:
        return max(found) if found and len(found) == len(ranks) else None
    return min(found) if found else None


@dataclass
class Scores:
    """Recall@k and MRR over a group of questions."""

    n: int = 0
    hits_at: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    rr: float = 0.0

    def add(self, rank: int | None, k_max: int) -> None:
        self.n += 1
        if rank is None or rank > k_max:
            return
        self.rr += 1.0 / rank
        for k in KS:
            if rank <= k:
                self.hits_at[k] += 1

    def recall(self, k: int) -> float:
        return self.hits_at[k] / self.n if self.n else 0.0

    @property
    def mrr(self) -> float:
        return self.rr / self.n if self.n else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {"n": self.n, **{f"R@{k}": round(self.recall(k), 4) for k in KS}, "MRR": round(self.mrr, 4)}


def score(results: Iterable[tuple[Question, int | None]], k_max: int = 10) -> dict[str, dict[str, Scores]]:
    """Scores grouped ``by_file``, ``by_style`` (questions that name their style) and ``all``."""
    groups: dict[str, dict[str, Scores]] = {"by_file": defaultdict(Scores), "by_style": defaultdict(Scores)}
    total = Scores()
    for q, rank in results:
        groups["by_file"][q.file].add(rank, k_max)
        if q.style:
            groups["by_style"][q.style].add(rank, k_max)
        total.add(rank, k_max)
    groups["all"] = {"all": total}
    return {name: dict(g) for name, g in groups.items()}


def hit_record(hit: Hit) -> dict[str, Any]:
    """One retrieved hit in the ``geungeo eval`` output format."""
    m = hit.chunk.meta
    return {
        "doc": m.get("doc"),
        "code": m.get("code"),
        "article": m.get("article"),
        "page": m.get("page"),
        "chunk_id": hit.chunk.id,
        "text": hit.chunk.text,
        "score": round(hit.score, 6),
    }
