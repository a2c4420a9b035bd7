"""Training the learned reranker on an ingested corpus, without questions written by people and without an LLM.

Queries are generated from the corpus by rule, each with the passage it comes from as its answer:

- ``title``: an article or section title, alone or in a question template, sometimes with its document's
  name ("연차 유급휴가", "근로기준법에서 연차 유급휴가에 대해 알려주세요");
- ``paraphrase``: a title with its legal terms put back into everyday words (the lexicon read backwards:
  임금 → 월급) in a question template;
- ``cloze``: some content words of a held-out sentence of the passage, in their order (a keyword query that
  shares only part of the passage's wording);
- ``definition``: the terms a 정의 article defines ("근로자"란 …) asked as "근로자란 무엇인가요?".

Each query is searched with the hybrid retriever (reranker off); its fused candidates are labelled 2 (the
passage's article, or the passage itself where there are no articles), 1 (another passage of the same
document: right document, wrong article) or 0, and a LightGBM LambdaMART model learns to order them from
:func:`geungeo.retrieval.ranker.features`. A share of the generated queries is held out to report how the
model orders queries it did not see.
"""

from __future__ import annotations

import math
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from geungeo.errors import ConfigError
from geungeo.retrieval.expansion import load_lexicon
from geungeo.retrieval.hybrid import HybridRetriever
from geungeo.retrieval.ranker import FEATURES, LearnedRanker, QueryTerms, features
from geungeo.stores.base import ChunkStore
from geungeo.text.kiwi import bm25_terms, is_predicate
from geungeo.text.structure import DEFINED_TERM
from geungeo.types import Chunk, Hit

Progress = Callable[[str, int, int], None]
KINDS = ("title", "paraphrase", "cloze", "definition")
# Shares of the generated queries by kind (definitions and paraphrases are as many as the corpus allows, at most these).
_SHARES = {"title": 0.35, "paraphrase": 0.15, "cloze": 0.35, "definition": 0.15}
_TITLE_TEMPLATES = ("{t}", "{t}", "{t}에 관한 규정", "{t}은 어떻게 되나요?", "{t} 알려주세요", "{t} 기준이 뭐예요?")
_NAMED_TEMPLATES = ("{d} {t}", "{d}에서 {t}에 대해 알려주세요", "{d}상 {t}은?")
_PARAPHRASE_TEMPLATES = ("{t} 어떻게 해요?", "{t} 받을 수 있나요?", "{t} 관련해서 궁금해요", "{t}")
_DEFINITION_TEMPLATES = ("{t}이란 무엇인가요?", "{t}의 정의", "{t} 뜻이 뭐예요?", "{t}란?")
_SENTENCE = re.compile(r"[^.!?\n]{20,200}(?:[.!?]|$)", re.MULTILINE)
_MARKUP = re.compile(r"\*\*|[①-⑳㉑-㉟]|^\s*\d+\.\s|^\s*[가-하]\.\s|<[^>]{0,40}>|\|", re.MULTILINE)


@dataclass(frozen=True)
class TrainingQuery:
    """A generated query and the passage it was made from."""

    text: str
    kind: str
    doc_id: str
    article: str | None
    chunk_id: str

    def label(self, chunk: Chunk) -> int:
        """2: the passage's article (or the passage itself), 1: the same document, 0: elsewhere."""
        if chunk.doc_id != self.doc_id:
            return 0
        if chunk.id == self.chunk_id or (self.article and chunk.meta.get("article") == self.article):
            return 2
        return 1


@dataclass
class TrainingReport:
    """What a training run did and how the model orders generated queries it did not see."""

    queries: dict[str, int] = field(default_factory=dict)
    groups: int = 0
    rows: int = 0
    held_out: int = 0
    fused_mrr: float = 0.0
    ranked_mrr: float = 0.0
    fused_r1: float = 0.0
    ranked_r1: float = 0.0
    trees: int = 0
    seconds: float = 0.0
    model: str = ""


_REF_WORD = re.compile(r"제\d+조")


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).split())


def _everyday(lexicon_synonyms: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """Legal term → everyday words that the lexicon maps to it (the lexicon read backwards)."""
    back: dict[str, list[str]] = {}
    for word, targets in lexicon_synonyms.items():
        for t in targets:
            if len(t) >= 2 and 2 <= len(word) <= 4 and word != t:
                back.setdefault(t, []).append(word)
    return back


def generate_queries(store: ChunkStore, *, limit: int = 4000, seed: int = 0) -> list[TrainingQuery]:
    """Queries made from the store's passages by rule (see the module docstring), at most ``limit``, shuffled."""
    rng = random.Random(seed)
    docs = sorted(store.documents(), key=lambda d: d.doc_id)
    passages: list[tuple[str, Chunk]] = []  # (document title, first chunk of each article / each passage)
    for doc in docs:
        seen: set[str] = set()
        for chunk in store.chunks_of(doc.doc_id):
            if chunk.meta.get("addendum"):
                continue
            article = chunk.meta.get("article")
            key = str(article) if article else chunk.id
            if key in seen:
                continue
            seen.add(key)
            passages.append((doc.title, chunk))
    titles = Counter(str(c.meta.get("article_title") or "") for _, c in passages)
    back = _everyday(load_lexicon().synonyms)
    pools: dict[str, list[TrainingQuery]] = {k: [] for k in KINDS}
    for title_of_doc, chunk in passages:
        article = chunk.meta.get("article")
        art = str(article) if article else None

        def make(text: str, kind: str, c: Chunk = chunk, a: str | None = art) -> TrainingQuery:
            return TrainingQuery(" ".join(text.split()), kind, c.doc_id, a, c.id)

        title = str(chunk.meta.get("article_title") or "").strip()
        if len(title) >= 2 and titles[title] <= 3:  # titles shared by many documents (목적, 정의) name no article
            if rng.random() < 0.3:
                pools["title"].append(make(rng.choice(_NAMED_TEMPLATES).format(d=title_of_doc, t=title), "title"))
            else:
                pools["title"].append(make(rng.choice(_TITLE_TEMPLATES).format(t=title), "title"))
            tokens = title.split()
            swappable = [i for i, tok in enumerate(tokens) if tok in back]
            for i in swappable:
                tokens[i] = rng.choice(back[tokens[i]])
            swapped = " ".join(tokens)
            if swapped != title:
                pools["paraphrase"].append(make(rng.choice(_PARAPHRASE_TEMPLATES).format(t=swapped), "paraphrase"))
        if "정의" in title or "용어" in title:
            for term in dict.fromkeys(DEFINED_TERM.findall(chunk.text)):
                pools["definition"].append(make(rng.choice(_DEFINITION_TEMPLATES).format(t=term.strip()), "definition"))
        sentences = _SENTENCE.findall(_clean(chunk.text))
        if sentences:
            sentence = rng.choice(sentences)
            nouns = [t for t in bm25_terms(sentence, compounds=False) if len(t) >= 2 and not is_predicate(t)]
            words = [w for w in sentence.split() if not _REF_WORD.match(w) and any(t in w for t in nouns)]
            if len(words) >= 3:
                n = rng.randint(2, min(5, len(words) - 1))
                picked = sorted(rng.sample(range(len(words)), n))
                pools["cloze"].append(make(" ".join(words[i].strip(".,;:()") for i in picked), "cloze"))
    out: list[TrainingQuery] = []
    for kind in KINDS:
        pool = pools[kind]
        rng.shuffle(pool)
        out += pool[: math.ceil(limit * _SHARES[kind])]
    rng.shuffle(out)
    return out[:limit]


def candidate_rows(
    retriever: HybridRetriever, queries: Sequence[TrainingQuery], *, progress: Progress | None = None
) -> list[tuple[TrainingQuery, np.ndarray, np.ndarray]]:
    """Each query's fused candidates (reranker off) as (query, features, labels); queries whose passage is not
    among the candidates are left out (nothing to learn from them)."""
    plain = HybridRetriever(retriever.store, retriever.embedder, retriever.settings.model_copy(update={"reranker": "none"}))
    n = retriever.settings.rerank_candidates
    out = []
    for done, q in enumerate(queries, start=1):
        hits: list[Hit] = plain.search(q.text, k=n)
        labels = np.array([q.label(h.chunk) for h in hits], dtype=np.int32)
        if len(hits) > 1 and (labels == 2).any():
            out.append((q, features(QueryTerms.of(q.text), hits), labels))
        if progress is not None:
            progress("queries", done, len(queries))
    return out


def _mrr_r1(groups: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[float, float]:
    """MRR and R@1 of the first label-2 row, each group ordered by its scores (higher first)."""
    rr = r1 = 0.0
    for scores, labels in groups:
        order = np.argsort(-scores, kind="stable")
        rank = int(np.nonzero(labels[order] == 2)[0][0]) + 1
        rr += 1.0 / rank
        r1 += rank == 1
    return (rr / len(groups), r1 / len(groups)) if groups else (0.0, 0.0)


def fit(
    rows: Sequence[tuple[TrainingQuery, np.ndarray, np.ndarray]], *, held_out: float = 0.15, seed: int = 0, threads: int = 2
) -> tuple[LearnedRanker, TrainingReport]:
    """A LambdaMART model over the rows; the last ``held_out`` share of queries is kept out to stop the boosting
    and to report fused vs learned order on queries the model did not see."""
    import lightgbm

    if len(rows) < 20:
        raise ConfigError(
            f"too little to train a ranker on: {len(rows)} usable generated queries (ingest more documents) / "
            "랭커를 학습할 문서가 너무 적습니다"
        )
    cut = max(1, int(len(rows) * (1 - held_out)))
    train, valid = rows[:cut], rows[cut:] or rows[-1:]

    def dataset(part: Sequence[tuple[TrainingQuery, np.ndarray, np.ndarray]]) -> lightgbm.Dataset:
        return lightgbm.Dataset(
            np.vstack([x for _, x, _ in part]),
            label=np.concatenate([y for _, _, y in part]),
            group=[len(y) for _, _, y in part],
            feature_name=list(FEATURES),
            free_raw_data=False,
        )

    params = {
        "objective": "lambdarank",
        "metric": "ndcg",
        "ndcg_eval_at": [1, 5],
        "label_gain": [0, 1, 3],
        "lambdarank_truncation_level": 20,
        "learning_rate": 0.05,
        "num_leaves": 15,
        "min_data_in_leaf": 50,
        "feature_fraction": 0.8,
        "bagging_fraction": 0.8,
        "bagging_freq": 1,
        "lambda_l2": 1.0,
        "num_threads": threads,
        "seed": seed,
        "deterministic": True,
        "force_row_wise": True,
        "verbose": -1,
    }
    train_set = dataset(train)
    valid_set = dataset(valid)
    booster = lightgbm.train(
        params,
        train_set,
        num_boost_round=300,
        valid_sets=[valid_set],
        callbacks=[lightgbm.early_stopping(30, verbose=False)],
    )
    text = booster.model_to_string(num_iteration=booster.best_iteration or None)
    ranker = LearnedRanker.from_string(text)
    fused = [(-x[:, FEATURES.index("fused_log_rank")], y) for _, x, y in valid]
    learned = [(np.asarray(ranker.booster.predict(x), dtype=float), y) for _, x, y in valid]
    report = TrainingReport(groups=len(rows), rows=sum(len(y) for _, _, y in rows), held_out=len(valid))
    report.fused_mrr, report.fused_r1 = _mrr_r1(fused)
    report.ranked_mrr, report.ranked_r1 = _mrr_r1(learned)
    report.trees = ranker.booster.num_trees()
    report.model = text
    return ranker, report


def train_ranker(
    retriever: HybridRetriever, *, limit: int = 4000, seed: int = 0, progress: Progress | None = None
) -> TrainingReport:
    """Generate queries from the retriever's store, collect their candidates and fit a ranker (the model text is
    ``report.model``)."""
    started = time.perf_counter()
    queries = generate_queries(retriever.store, limit=limit, seed=seed)
    if not queries:
        raise ConfigError(
            "the store has no passages to train a ranker on: run `geungeo ingest PATH` first / 먼저 문서를 색인하세요"
        )
    rows = candidate_rows(retriever, queries, progress=progress)
    _, report = fit(rows, seed=seed)
    report.queries = dict(Counter(q.kind for q in queries))
    report.seconds = time.perf_counter() - started
    return report
