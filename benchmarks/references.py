"""References benchmark: citations between articles found, resolved and useful for multi-provision questions.

    .venv/bin/python benchmarks/references.py              # link counts + reachability (loaders only, ~1 minute)
    .venv/bin/python benchmarks/references.py --evidence   # also evidence recall with/without reference expansion
    GEUNGEO_EMBED_PROVIDER=fake GEUNGEO_DENSE_WEIGHT=0 .venv/bin/python benchmarks/references.py --evidence
                                                           # the same over BM25 alone (a store ingested with "fake")

Writes ``benchmarks/reports/references.md``:

1. The link index of the shared corpus: the 48 statutes (``corpus/laws``) and the 규정집 HWPX are loaded and
   chunked as ingestion does and written into a throw-away embedded store with placeholder vectors (no embedding:
   the links depend on the chunk texts only); every citation the store holds is read back with ``links_from``
   and counted as resolved (its article's chunks found), unresolved because the cited document is not ingested,
   or unresolved with the document present (the article is not there: 삭제, a misread, a wrong guess).
2. For every ``need_all`` question of laws.jsonl and regulations.jsonl: whether a gold article is reachable
   from another by one link (``links_from`` of the chunks of one, then any direction), the evidence that
   following links can bring the second provision of a multi-provision question.
3. With ``--evidence`` (needs the ingested store ``benchmarks/.work/<embedder>``): each answerable question runs
   through the answer graph (extractive, no LLM); the evidence is scored with and without its ``reference``
   items, and with only those that the chosen passages cite (not those citing them). References are only
   appended (rerank keeps them after the chosen passages), so evidence without them is the evidence of the graph
   without reference expansion: the baseline of the same run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from geungeo.chunking import chunk_document
from geungeo.evaluation import Question, load_questions, target_matches
from geungeo.ingest.base import load_file
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore, IndexSignature
from geungeo.stores.chroma import ChromaStore
from geungeo.text.normalize import squash
from geungeo.types import Chunk, Document, DocumentRecord, Link

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
QUESTION_FILES = ("laws.jsonl", "regulations.jsonl")
DIM = 8


@dataclass
class Counts:
    """Citations of one document family."""

    documents: int = 0
    articles: int = 0  # article chunks (부칙 excluded)
    citing: int = 0  # article chunks that cite at least one article
    found: int = 0
    resolved: int = 0
    same_document: int = 0  # resolved within the citing document
    not_ingested: int = 0  # unresolved: no document of that title
    missing_article: int = 0  # unresolved: the document is there, the article is not
    not_ingested_titles: Counter[str] = field(default_factory=Counter)
    other_titles: Counter[str] = field(default_factory=Counter)


def load_corpus() -> list[tuple[str, Document, list[Chunk]]]:
    """(family, document, chunks) of the statutes and the 규정집, as ingestion chunks them."""
    settings = Settings()
    out = []
    files = [("statutes", p) for p in sorted((SHARED / "corpus" / "laws").glob("*.md"))]
    files += [("규정집", p) for p in sorted((SHARED / "corpus" / "regulations").glob("*.hwpx"))]
    for family, path in files:
        for doc in load_file(path, max_unpacked_bytes=settings.max_unpacked_mb << 20):
            doc.origin = str(path.resolve())
            out.append((family, doc, chunk_document(doc, size=settings.chunk_size, overlap=settings.chunk_overlap)))
    return out


def build_store(root: Path, corpus: Sequence[tuple[str, Document, list[Chunk]]]) -> ChunkStore:
    """An embedded store holding the corpus's chunks with placeholder vectors and no terms."""
    store = ChromaStore(Settings(data_dir=root), IndexSignature("placeholder", DIM, "none"))
    rng = np.random.default_rng(0)
    for _, doc, chunks in corpus:
        record = DocumentRecord(doc.doc_id, doc.source, doc.title, doc.kind, doc.code, doc.content_hash, len(chunks),
                                origin=doc.origin)
        vectors = rng.normal(size=(len(chunks), DIM)).astype(np.float32)
        store.replace_document(record, chunks, vectors, [[] for _ in chunks])
    return store


def count_links(store: ChunkStore, corpus: Sequence[tuple[str, Document, list[Chunk]]]) -> dict[str, Counts]:
    titles = {squash(d.title) for d in store.documents()}
    counts: dict[str, Counts] = {}
    for family, doc, chunks in corpus:
        c = counts.setdefault(family, Counts())
        c.documents += 1
        articles = [ch for ch in chunks if ch.meta.get("article") and not ch.meta.get("addendum")]
        c.articles += len(articles)
        links = store.links_from([ch.id for ch in articles])
        c.citing += len({lk.source for lk in links})
        for lk in links:
            c.found += 1
            if lk.resolved:
                c.resolved += 1
                c.same_document += all(t.startswith(doc.doc_id + "-") for t in lk.targets)
            elif squash(lk.doc) in titles or _suffix_of_a_title(lk, titles):
                c.missing_article += 1
                c.other_titles[lk.doc] += 1
            else:
                c.not_ingested += 1
                c.not_ingested_titles[lk.doc] += 1
    return counts


def _suffix_of_a_title(link: Link, titles: set[str]) -> bool:
    key = squash(link.doc)
    return any(t.endswith(key) for t in titles)


@dataclass
class Reach:
    question: Question
    located: list[int]  # chunks found per gold target
    forward: bool  # a later gold article is cited by an earlier one
    any_direction: bool


def reachability(store: ChunkStore, corpus: Sequence[tuple[str, Document, list[Chunk]]],
                 questions: Sequence[Question]) -> list[Reach]:
    """For each need_all question: is one gold article one link away from another?"""
    chunks = [ch for _, _, cs in corpus for ch in cs]
    out = []
    for q in questions:
        per_target = [[ch for ch in chunks if target_matches(t, ev, ch)] for t, ev in zip(q.gold, q.evidence, strict=True)]
        ids = [{ch.id for ch in found} for found in per_target]
        cites = [{t for lk in store.links_from(sorted(s)) for t in lk.targets} for s in ids]
        forward = any(cites[i] & ids[j] for i in range(len(ids)) for j in range(i + 1, len(ids)))
        backward = any(cites[j] & ids[i] for i in range(len(ids)) for j in range(i + 1, len(ids)))
        out.append(Reach(q, [len(f) for f in per_target], forward, forward or backward))
    return out


@dataclass
class EvidenceOutcome:
    question: Question
    with_refs: bool  # every gold target (need_all) / any (otherwise) in the evidence
    without_refs: bool
    cited_only: bool  # with only the references the chosen passages cite (not those citing them)
    references: int  # reference items in the evidence
    seconds: float


def _covered(q: Question, chunks: Sequence[Chunk]) -> bool:
    hits = [any(target_matches(t, ev, c) for c in chunks) for t, ev in zip(q.gold, q.evidence, strict=True)]
    return all(hits) if q.need_all else any(hits)


def evidence_recall(work: Path, questions: Sequence[Question]) -> tuple[list[EvidenceOutcome], Settings]:
    """Run each question through the extractive answer graph; score its evidence with and without references."""
    from geungeo.engine import build_engine
    from geungeo.graph.runner import QueryRunner

    base = Settings()
    settings = base.model_copy(update={"data_dir": work / base.embed_provider, "cache_enabled": False})
    if not (settings.data_dir / "store").is_dir():
        raise SystemExit(f"no store at {settings.data_dir}: ingest ../shared/corpus there first (see benchmarks/retrieval.py)")
    engine = build_engine(settings)
    runner = QueryRunner(engine)
    out = []
    try:
        for q in questions:
            t0 = time.perf_counter()
            answer = runner.run(q.question)
            ids = [e.chunk_id for e in answer.evidence]
            found = {c.id: c for c in engine.store.get(ids)}
            every = [found[i] for i in ids if i in found]
            plain = [found[e.chunk_id] for e in answer.evidence if e.origin != "reference" and e.chunk_id in found]
            refs = sum(e.origin == "reference" for e in answer.evidence)
            chosen = [e.chunk_id for e in answer.evidence if e.origin == "retrieval"]
            cited = {t for link in engine.store.links_from(chosen) for t in link.targets}
            forward = [found[e.chunk_id] for e in answer.evidence
                       if (e.origin != "reference" or e.chunk_id in cited) and e.chunk_id in found]
            out.append(EvidenceOutcome(q, _covered(q, every), _covered(q, plain), _covered(q, forward), refs,
                                       time.perf_counter() - t0))
    finally:
        runner.close()
    return out, settings


def _pct(n: int, d: int) -> str:
    return f"{n / d:.1%}" if d else "–"


def render(counts: dict[str, Counts], reach: list[Reach], evidence: list[EvidenceOutcome] | None,
           settings: Settings | None, started: str, seconds: float) -> str:
    lines = [
        "# References: citations between articles",
        "",
        f"Run {started} by `benchmarks/references.py` ({seconds:.0f} s). Rules: `src/geungeo/text/references.py`; "
        "links are stored per citing chunk and resolved to the cited article's chunks when read "
        "(`ChunkStore.links_from` / `links_to`).",
        "",
        "## Link index of the shared corpus",
        "",
        "Loaders + chunking as ingestion does them, written into an embedded store (placeholder vectors); 부칙 "
        "passages are not read. *Same document*: resolved inside the citing document (제N조, 이 법 제N조).",
        "",
        "| family | documents | article chunks | citing chunks | citations | resolved | of which same document | "
        "unresolved: document not ingested | unresolved: article not in the document |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    total = Counts()
    for family, c in counts.items():
        lines.append(
            f"| {family} | {c.documents} | {c.articles} | {c.citing} | {c.found} | {c.resolved} ({_pct(c.resolved, c.found)}) | "
            f"{c.same_document} | {c.not_ingested} ({_pct(c.not_ingested, c.found)}) | {c.missing_article} |"
        )
        for name in ("documents", "articles", "citing", "found", "resolved", "same_document", "not_ingested",
                     "missing_article"):
            setattr(total, name, getattr(total, name) + getattr(c, name))
        total.not_ingested_titles.update(c.not_ingested_titles)
        total.other_titles.update(c.other_titles)
    lines.append(
        f"| all | {total.documents} | {total.articles} | {total.citing} | {total.found} | {total.resolved} "
        f"({_pct(total.resolved, total.found)}) | {total.same_document} | {total.not_ingested} "
        f"({_pct(total.not_ingested, total.found)}) | {total.missing_article} |"
    )
    lines += [
        "",
        "Most cited documents that are not ingested (kept as unresolved links; they resolve once ingested): "
        + ", ".join(f"{t} ({n})" for t, n in total.not_ingested_titles.most_common(8)) + ".",
        "",
        "Unresolved with the document present, most frequent cited titles: "
        + ", ".join(f"{t} ({n})" for t, n in total.other_titles.most_common(8)) + ".",
        "",
        "## Multi-provision (need_all) questions: is the second provision one link away?",
        "",
        "For each `need_all` question the chunks of each gold target are located (the shared matching rules); "
        "*forward*: an earlier gold article cites a later one; *either*: one of them cites another.",
        "",
        "| file | need_all questions | forward | either direction |",
        "|---|---|---|---|",
    ]
    for name in QUESTION_FILES:
        rs = [r for r in reach if r.question.file == name]
        lines.append(f"| {name} | {len(rs)} | {sum(r.forward for r in rs)} | {sum(r.any_direction for r in rs)} |")
    lines += ["", "| question | gold | chunks per target | forward | either |", "|---|---|---|---|---|"]
    for r in reach:
        gold = "; ".join(f"{t.get('doc') or t.get('code')} {t.get('article', '')}".strip() for t in r.question.gold)
        lines.append(f"| {r.question.id} | {gold} | {r.located} | {'yes' if r.forward else ''} | "
                     f"{'yes' if r.any_direction else ''} |")
    if evidence is not None and settings is not None:
        lines += [
            "",
            "## Evidence recall with and without reference expansion",
            "",
            f"The answer graph (extractive, no LLM; embedder {settings.embed_provider}, dense weight "
            f"{settings.dense_weight:g}, sparse weight {settings.sparse_weight:g}, top_k {settings.top_k}, "
            f"rerank_top_k {settings.rerank_top_k}, neighbour_window {settings.neighbour_window}) on the answerable "
            "questions of laws.jsonl and regulations.jsonl. A question counts when its final evidence holds every "
            "gold target (`need_all`) or one of them (otherwise). *Without*: the same evidence less its `reference` "
            "items (the baseline, measured in the same run).",
            "",
            "| questions | n | without references | cited articles only | cited and citing (default) | ratio | "
            "reference items per question |",
            "|---|---|---|---|---|---|---|",
        ]
        groups = [(f"{name} need_all", [e for e in evidence if e.question.file == name and e.question.need_all])
                  for name in QUESTION_FILES]
        groups += [(f"{name} all answerable", [e for e in evidence if e.question.file == name]) for name in QUESTION_FILES]
        for label, es in groups:
            w, wo, fw = sum(e.with_refs for e in es), sum(e.without_refs for e in es), sum(e.cited_only for e in es)
            ratio = f"{w / wo:.2f}" if wo else "–"
            refs = sum(e.references for e in es) / len(es) if es else 0.0
            lines.append(f"| {label} | {len(es)} | {wo} ({_pct(wo, len(es))}) | {fw} ({_pct(fw, len(es))}) | "
                         f"{w} ({_pct(w, len(es))}) | {ratio} | {refs:.1f} |")
        gained = [e.question.id for e in evidence if e.with_refs and not e.without_refs]
        lost = [e.question.id for e in evidence if e.without_refs and not e.with_refs]
        lines += [
            "",
            f"Questions whose evidence is complete only with references: {', '.join(gained) or 'none'}; "
            f"complete only without them: {', '.join(lost) or 'none'}.",
            "",
            "Nothing here was tuned on these questions: following citing articles back only when at most 3 articles "
            "cite one, at most 2 × rerank_top_k reference candidates per round and rerank_top_k kept were fixed "
            "before measuring, so there is no split-half estimate to give.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--evidence", action="store_true", help="also evidence recall through the answer graph")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "references.md")
    args = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    t0 = time.perf_counter()
    corpus = load_corpus()
    print(f"{len(corpus)} documents, {sum(len(c) for _, _, c in corpus)} chunks loaded", file=sys.stderr)
    questions = [q for name in QUESTION_FILES for q in load_questions(SHARED / "questions" / name)]
    with tempfile.TemporaryDirectory(prefix="geungeo-refs-") as tmp:
        store = build_store(Path(tmp), corpus)
        try:
            counts = count_links(store, corpus)
            reach = reachability(store, corpus, [q for q in questions if q.need_all])
        finally:
            store.close()
    for family, c in counts.items():
        print(f"{family}: {c.found} citations, {c.resolved} resolved, {c.not_ingested} to documents not ingested, "
              f"{c.missing_article} to articles not found")
    print(f"need_all: {sum(r.forward for r in reach)}/{len(reach)} forward, {sum(r.any_direction for r in reach)} either")
    evidence: list[EvidenceOutcome] | None = None
    settings: Settings | None = None
    if args.evidence:
        evidence, settings = evidence_recall(args.work, [q for q in questions if q.answerable and q.gold])
        for need_all in (True, False):
            es = [e for e in evidence if e.question.need_all or not need_all]
            print(f"evidence recall ({'need_all' if need_all else 'all'}): without {sum(e.without_refs for e in es)}/{len(es)}, "
                  f"with {sum(e.with_refs for e in es)}/{len(es)}")
    args.out.write_text(render(counts, reach, evidence, settings, started, time.perf_counter() - t0), "utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
