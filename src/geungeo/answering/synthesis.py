"""The structured answer beside the text: key points, references, page images, tables and
figures used, cautions found in the evidence, and a confidence.

Built from the finished :class:`~geungeo.answering.models.Answer` alone (no LLM, no store), so the
graph, the agent and cached answers all get the same synthesis.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from geungeo.answering.clauses import SENTENCE_END, split_sentences
from geungeo.answering.models import CITATION_MARK, Answer, EntityReference, EvidenceItem, PageImage, Reference, StructuredAnswer
from geungeo.ingest import page_images
from geungeo.text.normalize import squash
from geungeo.types import Table

MAX_KEY_POINTS = 5
MAX_WARNINGS = 5
SNIPPET_CHARS = 160

_CITATION = re.compile(r"\s*" + CITATION_MARK.pattern)  # with the space before it
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s+")
_LEAD = re.compile(r"[:：]\s*$")
CAUTION = re.compile(r"주의|경고|유의|caution|warning", re.IGNORECASE)


def key_points(text: str, labels: Iterable[str]) -> list[str]:
    """The answer's own statements, its citations (of ``labels``) and list marks stripped (lead-in lines left out);
    brackets quoted from the documents stay."""
    cited = {squash(label) for label in labels}

    def uncite(m: re.Match[str]) -> str:
        return "" if squash(m.group(1)) in cited else m.group(0)

    points: list[str] = []
    for line in text.split("\n"):
        line = _BULLET.sub("", line).strip()
        if not line or _LEAD.search(line):
            continue
        for sentence in SENTENCE_END.split(line):
            point = _CITATION.sub(uncite, sentence).strip()
            if len(point) >= 6 and point not in points:
                points.append(point)
    return points[:MAX_KEY_POINTS]


def _snippet(item: EvidenceItem, answer: str) -> str:
    """The evidence sentence the answer quotes, else the passage's opening."""
    said = squash(answer)
    quoted = next((s for s in split_sentences(item.text) if len(s) >= 12 and squash(s) in said), None)
    text = quoted or " ".join(item.text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


def _entity(item: EvidenceItem) -> EntityReference | None:
    if item.table:
        table = Table.from_json(item.table)
        return EntityReference(
            kind="table",
            label=item.label,
            page=item.page,
            caption=table.caption,
            header=list(table.header),
            rows=[list(r) for r in table.rows],
            chunk_id=item.chunk_id,
        )
    if item.category == "figure":
        caption = item.text.split("\n", 1)[0].strip()
        return EntityReference(kind="figure", label=item.label, page=item.page, caption=caption, chunk_id=item.chunk_id)
    return None


def _page_image(item: EvidenceItem, data_dir: Path) -> PageImage | None:
    path = page_images.resolve(data_dir, item.page_image)
    if path is None or item.page is None:
        return None
    url = f"/v1/{path.relative_to(data_dir.resolve()).as_posix()}"
    return PageImage(label=item.label, page=item.page, path=str(path), url=url, markdown=f"![{item.label}]({path.as_posix()})")


def _confidence(answer: Answer) -> float:
    """Evidence support × groundedness (× the answer grade when one was given); 0 for a refusal. A structural lookup
    (제N조, 제N장, 별표, 전문) is the asked unit of the named document quoted whole: fully supported."""
    if answer.refused:
        return 0.0
    if answer.route == "structural":
        return 1.0
    support = answer.sufficiency.score if answer.sufficiency else 0.5
    grounded = answer.groundedness.score if answer.groundedness else 1.0
    value = support * grounded * (answer.grade.overall if answer.grade else 1.0)
    return round(max(0.0, min(1.0, value)), 2)


def _ocr_warnings(cited: list[EvidenceItem]) -> list[str]:
    """One warning naming the cited passages read from page images by OCR (their text may hold misreadings)."""
    labels = list(dict.fromkeys(item.label for item in cited if item.ocr_confidence is not None))
    if not labels:
        return []
    return [f"OCR로 읽은 쪽을 인용함(오독 가능) / cites text read by OCR, check the page: {', '.join(labels)}"]


def synthesize(answer: Answer, data_dir: Path) -> StructuredAnswer:
    """The structured form of ``answer``: what it says, what it stands on, what to watch out for."""
    labels = {c.label for c in answer.citations}  # an answer cites by label: every passage under a cited label counts
    cited = [item for item in answer.evidence if item.label in labels]
    if answer.refused:
        return StructuredAnswer(confidence=0.0)
    warnings: list[str] = []
    for item in cited:
        for sentence in split_sentences(item.text):
            if CAUTION.search(sentence) and sentence not in warnings:
                warnings.append(sentence)
    return StructuredAnswer(
        key_points=key_points(answer.answer, labels),
        references=[
            Reference(
                label=item.label,
                doc=item.doc,
                code=item.code,
                article=item.article,
                page=item.page,
                snippet=_snippet(item, answer.answer),
                chunk_id=item.chunk_id,
            )
            for item in cited
        ],
        page_images=list({img.path: img for item in cited if (img := _page_image(item, data_dir)) is not None}.values()),
        entity_references=[ent for item in cited if (ent := _entity(item)) is not None],
        warnings=(_ocr_warnings(cited) + warnings)[:MAX_WARNINGS],
        confidence=_confidence(answer),
    )
