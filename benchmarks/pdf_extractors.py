"""Compare pypdf, pypdfium2 and pymupdf on the shared SPRI PDF; writes reports/pdf_extractors.md.

Scores per library: (a) gold ``evidence`` spans of ``questions/documents.jsonl`` found on their
gold page (whitespace collapsed), (b) spacing artefacts — runs of three or more lone Hangul
syllables (``행 정 명 령``), runs of 12+ Hangul syllables without a space (words glued
together), a bullet glued to its word (``∙행정명령``) — and (c) extraction time of all pages
(best of 3). Equal ``chars`` (non-space characters) with fewer ``tokens`` means lost spaces.

Run: ``.venv/bin/python benchmarks/pdf_extractors.py [--shared ../shared]``
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pymupdf
import pypdf
import pypdfium2

from geungeo.text.normalize import nfc, squash

PDF_NAME = "SPRI_AI_Brief_2023년12월호_F.pdf"
REPORT = Path(__file__).parent / "reports" / "pdf_extractors.md"
T = TypeVar("T")

SPLIT_SYLLABLES = re.compile(r"(?<!\S)(?:[가-힣] ){2,}[가-힣](?!\S)")
GLUED_WORDS = re.compile(r"[가-힣]{12,}")
GLUED_BULLET = re.compile(r"[∙•]\S")


def pypdf_pages(path: Path) -> list[str]:
    return [page.extract_text() or "" for page in pypdf.PdfReader(path).pages]


def pdfium_pages(path: Path) -> list[str]:
    pdf = pypdfium2.PdfDocument(path)
    try:
        return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    finally:
        pdf.close()


def pymupdf_pages(path: Path) -> list[str]:
    with pymupdf.open(path) as pdf:
        return [page.get_text() for page in pdf]


LICENSES = {"pypdf": "BSD-3-Clause", "pypdfium2": "Apache-2.0 / BSD-3-Clause", "pymupdf": "AGPL-3.0"}
COPYLEFT = {"pymupdf"}

EXTRACTORS: dict[str, Callable[[Path], list[str]]] = {
    "pypdf": pypdf_pages,
    "pypdfium2": pdfium_pages,
    "pymupdf": pymupdf_pages,
}


def gold_spans(questions: Path) -> list[tuple[str, int, str]]:
    """(id, page, evidence) of every question whose gold target is a page of the PDF."""
    spans = []
    for line in questions.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        target = q.get("gold", [{}])[0]
        if nfc(target.get("doc", "")) == nfc(PDF_NAME) and "page" in target:
            spans.append((q["id"], int(target["page"]), q["evidence"]))
    return spans


def timed(extract: Callable[[Path], T], path: Path, repeat: int = 3) -> tuple[T, float]:
    """What ``extract`` gives for ``path`` and its best time of ``repeat`` runs (also used by pdf_tables.py)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        found = extract(path)
        best = min(best, time.perf_counter() - start)
    return found, best


def nfc_pages(extract: Callable[[Path], list[str]], path: Path) -> tuple[list[str], float]:
    pages, seconds = timed(extract, path)
    return [nfc(p) for p in pages], seconds


@dataclass(frozen=True)
class Score:
    """Quality and speed of one library on the PDF."""

    pages: int
    evidence_on_page: int
    missed: list[str]
    chars: int
    tokens: int
    split_syllable_runs: int
    glued_words: int
    glued_bullets: int
    sec: float

    @property
    def artefacts(self) -> int:
        return self.split_syllable_runs + self.glued_words + self.glued_bullets


COLUMNS = ("pages", "evidence_on_page", "chars", "tokens", "split_syllable_runs", "glued_words", "glued_bullets", "sec")


def score(pages: list[str], sec: float, spans: list[tuple[str, int, str]]) -> Score:
    text = "\n".join(pages)
    on_page = [qid for qid, page, ev in spans if page <= len(pages) and squash(ev) in squash(pages[page - 1])]
    return Score(
        pages=len(pages),
        evidence_on_page=len(on_page),
        missed=sorted({qid for qid, _, _ in spans} - set(on_page)),
        chars=len(squash(text)),
        tokens=len(text.split()),
        split_syllable_runs=len(SPLIT_SYLLABLES.findall(text)),
        glued_words=len(GLUED_WORDS.findall(text)),
        glued_bullets=len(GLUED_BULLET.findall(text)),
        sec=sec,
    )


def choose(results: dict[str, Score]) -> str:
    """Most evidence found, then fewest artefacts, then a permissive licence, then speed."""
    return min(
        results, key=lambda n: (-results[n].evidence_on_page, results[n].artefacts, n in COPYLEFT, results[n].sec)
    )


def report(results: dict[str, Score], n_spans: int) -> str:
    lines = [
        f"# PDF extractors on `{PDF_NAME}`",
        "",
        f"Evidence spans with a gold page: {n_spans}. Columns: see `benchmarks/pdf_extractors.py`.",
        "",
        "| library | " + " | ".join(COLUMNS) + " | missed |",
        "|---" * (len(COLUMNS) + 2) + "|",
    ]
    for name, r in results.items():
        cells = [f"{r.sec:.3f}" if c == "sec" else str(getattr(r, c)) for c in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {', '.join(r.missed) or '-'} |")
    lines += [
        "",
        f"Licences: {'; '.join(f'{n} {lic}' for n, lic in LICENSES.items())}.",
        "",
        f"Choice (most evidence, fewest artefacts, permissive licence, speed): **{choose(results)}**.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    args = ap.parse_args()
    pdf = args.shared / "corpus" / "pdf" / PDF_NAME
    spans = gold_spans(args.shared / "questions" / "documents.jsonl")
    results = {name: score(*nfc_pages(extract, pdf), spans) for name, extract in EXTRACTORS.items()}
    text = report(results, len(spans))
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
