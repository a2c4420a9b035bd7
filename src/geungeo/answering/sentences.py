"""The clauses an extractive answer quotes (:class:`Sentence`) and the answer they make (:class:`Extract`): its
score, what it leaves unstated, and its text, one bullet per cited provision."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from geungeo.answering.models import EvidenceItem
from geungeo.text.structure import BULLET, CIRCLED, LIST_ITEM

Similarity = Callable[[str, Sequence[str]], Sequence[float]]
"""How close in meaning each text is to the question (the embedder's cosine): ``similarity(question, texts)``."""


@dataclass(frozen=True)
class Sentence:
    """A quoted clause: a sentence of a 항 or paragraph (with its 호 list when it leads one), a 호 under its lead
    sentence, or a table row; ``coverage`` is the share of the question it covers."""

    item: EvidenceItem
    text: str
    coverage: float
    covers: frozenset[str] = field(default=frozenset(), compare=False)  # the question's words it states itself
    words: str = field(default="", compare=False)  # what it is scored on: a list item's own line(s), else its text
    table: int | None = field(default=None, compare=False)  # a table row: the number of its table in the passage

    @property
    def lead(self) -> str:
        """Its first line: the lead sentence when it is a list or an item of one."""
        return self.text.split("\n", 1)[0]

    @property
    def is_item(self) -> bool:
        """Whether it is one item of a list (a 호, a 목 under its 호) quoted under the list's lead."""
        return bool(self.words) and self.words not in (self.text, self.lead)


@dataclass(frozen=True)
class Extract:
    """Chosen clauses (the answering one first), the evidence score in [0, 1], the asked-for figures no clause
    states, the figures the question states whose measure no quoted provision bounds
    (:func:`~geungeo.answering.lines.unbounded`) and whether a clause states a word of the question other than a
    verb (``bearing``)."""

    sentences: list[Sentence]
    score: float
    missing: list[str]
    unbounded: list[str] = field(default_factory=list)
    bearing: bool = True

    def answers(self, min_score: float) -> bool:
        """Whether the evidence supports an extractive answer (else 근거 부족): a clause shares a word with the
        question, the score reaches ``min_score``, every asked figure is stated and every figure the question states
        falls under a rule the quoted provisions draw."""
        return self.covered and self.score >= min_score and not self.missing and not self.unbounded

    @property
    def covered(self) -> bool:
        """Whether a chosen clause shares a word with the question and some clause of the evidence shares one that is
        not a verb (``bearing``)."""
        return self.bearing and any(s.coverage > 0 for s in self.sentences)

    def related(self) -> list[str]:
        """The labels of the clauses that bear on the question, best first (what a refusal names)."""
        return list(dict.fromkeys(s.item.label for s in self.sentences if s.coverage > 0))

    def to_state(self) -> dict[str, Any]:
        """A plain form for the graph state (the judge extracts, generation renders)."""
        return {
            "score": self.score,
            "missing": self.missing,
            "unbounded": self.unbounded,
            "bearing": self.bearing,
            "sentences": [[s.item.n, s.text, s.coverage, s.table] for s in self.sentences],
        }

    @classmethod
    def from_state(cls, data: dict[str, Any], evidence: Sequence[EvidenceItem]) -> Extract:
        by_n = {item.n: item for item in evidence}
        sentences = [
            Sentence(by_n[n], text, coverage, table=table[0] if table else None)
            for n, text, coverage, *table in data["sentences"]
            if n in by_n
        ]
        return cls(
            sentences, data["score"], list(data["missing"]), list(data.get("unbounded", [])), data.get("bearing", True)
        )

    def render(self, lead: str = "") -> str:
        """The answer text: one bullet per cited provision (the answering one first), its clauses in the order the
        provision states them (① before ④, as a reader of the article meets them), then its citation; a 호 list goes
        on indented lines under its lead sentence, and so does a clause that opens with a bullet of its own (a
        report's "■ …", "∙ …" points are lines, not one run of text)."""
        parts: list[str] = [lead] if lead else []
        by_label: dict[str, list[Sentence]] = {}
        for s in self.sentences:
            by_label.setdefault(s.item.label, []).append(s)
        for label, quoted in by_label.items():
            texts = _one_lead_each([s.text for s in sorted(quoted, key=_place)], quoted[0].item.text)
            rows = {s.text for s in quoted if s.table is not None}  # a table row is a line of its own too
            body = texts[0] + "".join(
                ("\n" if _own_line(t, before) or t in rows else " ") + t for before, t in itertools.pairwise(texts)
            )
            indented = _OWN_DASH.sub("", body, count=1).replace("\n", "\n  ")  # one dash per bullet, not "- - …"
            parts.append(f"- {indented} [{label}]")
        return "\n".join(parts)


_OWN_DASH = re.compile(r"^-\s+")


def _own_line(text: str, before: str) -> bool:
    """Whether a quoted clause starts a line of its own in its provision's bullet: a point with its own bullet, a 항
    ("② …"), or any clause after a list (it would read as part of the list's last item)."""
    return bool(BULLET.match(text)) or text[:1] in CIRCLED or "\n" in before


def _one_lead_each(texts: list[str], provision: str) -> list[str]:
    """Quoted clauses of one provision with the items of one list under one copy of their lead sentence, in the
    order the provision states them: "④ … 다음 각 호에 따른다." with 2호 and 3호, not the lead twice."""
    items: dict[str, list[str]] = {}
    for text in texts:
        lead, *below = text.split("\n")
        if below:
            items.setdefault(lead, []).extend(_units(below))
    out: list[str] = []
    done: set[str] = set()
    for text in texts:
        lead = text.split("\n", 1)[0]
        if lead not in items:
            out.append(text)
        elif lead not in done:
            done.add(lead)
            ordered = sorted(dict.fromkeys(items[lead]), key=lambda unit: found_at(provision, unit.split("\n", 1)[0]))
            out.append("\n".join([lead, *ordered]))
    return out


def _units(lines: list[str]) -> list[str]:
    """The items among ``lines``, each with the plain lines after it (a titled 호's body)."""
    units: list[str] = []
    for line in lines:
        if units and not LIST_ITEM.match(line):
            units[-1] += f"\n{line}"
        else:
            units.append(line)
    return units


def found_at(text: str, line: str) -> int:
    """Where ``line`` stands in ``text``; after the end when it is not there."""
    at = text.find(line)
    return at if at >= 0 else len(text)


def _place(s: Sentence) -> tuple[str, int]:
    """Where a quoted clause stands in its provision: its passage (chunk ids run in document order), then its place in
    the passage's text (a clause rewritten when quoted, a table row, goes after those found)."""
    return s.item.chunk_id, found_at(s.item.text, s.lead[:40])


def overlaps(s: Sentence, chosen: list[Sentence]) -> bool:
    """Whether ``s`` repeats (or holds, or is held by) a clause already chosen: a 호 under its lead is held by its
    whole list."""
    lines = set(s.text.split("\n"))
    return any(s.text in o.text or o.text in s.text or lines <= set(o.text.split("\n")) for o in chosen)

