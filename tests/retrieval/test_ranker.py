"""The learned reranker: features, the bundled model, the on/off switch, training data from a corpus, the graph."""

from __future__ import annotations

from pathlib import Path

import lightgbm
import numpy as np
import pytest

from geungeo.engine import build_engine
from geungeo.errors import ConfigError
from geungeo.graph.runner import QueryRunner
from geungeo.retrieval.ranker import FEATURES, LearnedRanker, QueryTerms, features, load_ranker
from geungeo.retrieval.ranker_training import candidate_rows, generate_queries, train_ranker
from geungeo.settings import Settings
from geungeo.types import Chunk, Hit
from tests.fixtures import vacation_law_store

ARTICLES = [
    ("정의", '이 법에서 사용하는 용어의 뜻은 다음과 같다.\n1. "근로자"란 임금을 목적으로 근로를 제공하는 사람을 말한다.\n'
     '2. "사용자"란 사업주를 말한다.\n3. "임금"이란 근로의 대가로 지급하는 금품을 말한다.'),
    ("연차 유급휴가", "사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다."),
    ("출산전후휴가", "사용자는 임신 중인 여성에게 출산 전과 출산 후를 통하여 90일의 출산전후휴가를 주어야 한다."),
    ("해고의 예고", "사용자는 근로자를 해고하려면 적어도 30일 전에 예고를 하여야 한다."),
    ("임금 지급", "임금은 통화로 직접 근로자에게 그 전액을 지급하여야 한다."),
    ("연장 근로의 제한", "당사자 간에 합의하면 1주 간에 12시간을 한도로 근로시간을 연장할 수 있다."),
    ("휴게", "사용자는 근로시간이 4시간인 경우에는 30분 이상의 휴게시간을 근로시간 도중에 주어야 한다."),
    ("퇴직급여", "사용자는 퇴직하는 근로자에게 퇴직급여를 지급하기 위하여 퇴직급여제도를 설정하여야 한다."),
    ("휴학", "학생은 질병이나 군 입대 등의 사유로 총장의 허가를 받아 휴학할 수 있다."),
    ("수강신청", "학생은 매 학기 지정된 기간에 수강신청을 하여야 하며 최대 21학점까지 신청할 수 있다."),
]


def _statute(name: str, offset: int) -> str:
    lines = [f"---\n제목: {name}\n---\n", f"# {name}\n", "## 제1장 총칙\n"]
    for n, (title, body) in enumerate(ARTICLES[offset:] + ARTICLES[:offset], start=1):
        lines.append(f"##### 제{n}조 ({title})\n\n{body}\n")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three small statutes with the same articles in different orders, ingested with the fake embedder."""
    root = tmp_path_factory.mktemp("ranker")
    (root / "docs").mkdir()
    for i, name in enumerate(("근로보호법", "학생생활규정", "복지증진법")):
        (root / "docs" / f"{name}.md").write_text(_statute(name, 3 * i), "utf-8")
    engine = build_engine(Settings(data_dir=root / "data", embed_provider="fake", reranker="none"))
    engine.ingest([root / "docs"])
    engine.close()
    return root / "data"


def _chunk(cid: str, doc: str, article: str, title: str, text: str, **meta: object) -> Chunk:
    header = f"{doc} {article}({title})"
    return Chunk(cid, doc, 0, header, text, {"doc": doc, "article": article, "article_title": title, **meta})


def test_features_say_how_a_candidate_was_found_and_what_it_covers() -> None:
    hits = [
        Hit(_chunk("a", "근로기준법", "제60조", "연차 유급휴가", "15일의 유급휴가를 주어야 한다."), 0.9,
            {"sparse": 1, "dense": 3}, {"sparse": 12.0, "dense": 0.85}),
        Hit(_chunk("b", "근로기준법", "제2조", "정의", "근로자란 사람을 말한다."), 0.7, {"dense": 1}, {"dense": 0.9}),
        Hit(_chunk("c", "민법", "제1조", "법원", "부칙 본문", addendum=True), 0.5, {"sparse": 2}, {"sparse": 6.0}),
    ]
    x = features("근로기준법 제60조 연차 유급휴가 며칠?", hits)
    col = {name: x[:, i] for i, name in enumerate(FEATURES)}
    assert x.shape == (3, len(FEATURES))
    # query stems 근로기준법, 연차, 유급, 휴가, 며칠: three in the first title, four in its header, one in its document name
    assert col["title_cov"][0] == pytest.approx(0.6) and col["title_cov"][2] == 0.0
    assert col["header_cov"][0] == pytest.approx(0.8) and col["doc_cov"].tolist() == pytest.approx([0.2, 0.2, 0.0])
    assert col["article_ref_match"].tolist() == [1.0, 0.0, 0.0] and col["query_has_article_ref"].all()
    assert col["sparse_rel"].tolist() == [1.0, 0.0, 0.5] and col["dense_gap"][1] == 0.0 and col["dense_gap"][2] == 1.0
    assert col["doc_count"][0] == pytest.approx(2 / 3) and col["doc_log_rank"][0] < col["doc_log_rank"][2]
    assert col["best_in_doc"].tolist() == [1.0, 0.0, 1.0]
    assert col["definition"].tolist() == [0.0, 1.0, 0.0] and col["addendum"].tolist() == [0.0, 0.0, 1.0]
    assert col["fused_gap"][0] == 0.0 and col["fused_gap"][2] == pytest.approx(0.4)
    assert features("아무거나", []).shape == (0, len(FEATURES))


def test_query_terms_keep_content_stems_and_cited_articles() -> None:
    terms = QueryTerms.of("근로기준법 제43조의2에 따르면 부칙은?")
    assert terms.articles == {"제43조의2"} and terms.asks_addendum and "부칙" in terms.stems
    assert not any(s.startswith("제43") for s in terms.stems)


def test_the_bundled_model_loads_from_package_data(corpus_dir: Path) -> None:
    ranker = load_ranker()
    assert tuple(ranker.booster.feature_name()) == FEATURES and ranker.booster.num_trees() > 0
    assert Settings().reranker == "none"  # off by default: see benchmarks/reports/ranking.md
    engine = build_engine(Settings(data_dir=corpus_dir, embed_provider="fake", reranker="ltr"))
    try:
        hits = engine.search("근로자에게 주는 연차 유급휴가", k=5)
        assert len(hits) == 5 and all("ranker" in h.scores for h in hits)
        assert hits[0].chunk.meta["article_title"] == "연차 유급휴가"
    finally:
        engine.close()
    with pytest.raises(ConfigError, match="ranker model"):
        load_ranker("/no/such/model.txt")


def _reversing_model(path: Path) -> Path:
    """A model that scores a candidate higher the worse its fused rank was (so its order is visible)."""
    rng = np.random.default_rng(0)
    x = rng.random((400, len(FEATURES)))
    x[:, FEATURES.index("fused_log_rank")] = np.log1p(np.tile(np.arange(1, 11), 40))
    booster = lightgbm.train(
        {"objective": "regression", "min_data_in_leaf": 5, "verbose": -1, "num_threads": 1},
        lightgbm.Dataset(x, label=x[:, FEATURES.index("fused_log_rank")], feature_name=list(FEATURES)),
        num_boost_round=30,
    )
    path.write_text(booster.model_to_string(), "utf-8")
    return path


def test_the_switch_turns_reranking_on_and_off(corpus_dir: Path, tmp_path: Path) -> None:
    model = str(_reversing_model(tmp_path / "reverse.txt"))
    base = Settings(data_dir=corpus_dir, embed_provider="fake")
    off = build_engine(base.model_copy(update={"reranker": "none"}))
    on = build_engine(base.model_copy(update={"reranker": "ltr", "reranker_path": model, "rerank_candidates": 5}))
    try:
        fused = off.search("연차 유급휴가 며칠", k=5)
        ranked = on.search("연차 유급휴가 며칠", k=5)
        assert [h.chunk.id for h in ranked] == [h.chunk.id for h in fused][::-1]
        assert [h.score for h in ranked] == [h.score for h in fused]  # the list's scores, handed out in the new order
        assert all("ranker" in h.scores and "ranker" not in f.scores for h, f in zip(ranked, fused, strict=True))
        assert [h.chunk.id for h in on.search("연차 유급휴가 며칠", k=5, mode="dense")] == [
            h.chunk.id for h in off.search("연차 유급휴가 며칠", k=5, mode="dense")
        ]
    finally:
        off.close()
        on.close()
    other = lightgbm.train(
        {"objective": "regression", "verbose": -1}, lightgbm.Dataset(np.ones((20, 2)), label=np.arange(20)), num_boost_round=1
    )
    with pytest.raises(ConfigError, match="features"):
        LearnedRanker.from_string(other.model_to_string())


def test_training_queries_come_from_the_corpus(corpus_dir: Path) -> None:
    engine = build_engine(Settings(data_dir=corpus_dir, embed_provider="fake", reranker="none"))
    try:
        queries = generate_queries(engine.store, limit=500, seed=1)
        kinds = {q.kind for q in queries}
        assert {"title", "cloze", "definition"} <= kinds
        assert any(q.text.startswith("근로자") for q in queries if q.kind == "definition")
        chunks = {c.id: c for d in engine.store.documents() for c in engine.store.chunks_of(d.doc_id)}
        for q in queries:
            target = chunks[q.chunk_id]
            assert q.label(target) == 2 and target.meta["article"] == q.article
            other = next(c for c in chunks.values() if c.doc_id == q.doc_id and c.meta["article"] != q.article)
            assert q.label(other) == 1
        rows = candidate_rows(engine.retriever, queries[:30])
        assert rows and all(x.shape == (len(y), len(FEATURES)) and (y == 2).any() for _, x, y in rows)
        seen: list[int] = []
        report = train_ranker(engine.retriever, limit=300, progress=lambda stage, done, total: seen.append(done))
        assert seen[-1] == sum(report.queries.values()) and report.groups >= 20
        assert tuple(LearnedRanker.from_string(report.model).booster.feature_name()) == FEATURES
    finally:
        engine.close()


def test_too_small_a_corpus_is_a_clear_error(tmp_path: Path) -> None:
    engine = build_engine(Settings(data_dir=vacation_law_store(tmp_path), embed_provider="fake", reranker="none"))
    try:
        with pytest.raises(ConfigError, match="too little to train"):
            train_ranker(engine.retriever, limit=100)
    finally:
        engine.close()


def test_the_graph_uses_the_ranker_order_without_an_llm(corpus_dir: Path, tmp_path: Path) -> None:
    model = str(_reversing_model(tmp_path / "reverse.txt"))
    question = "연차 유급휴가는 며칠인가요?"
    orders = {}
    for reranker in ("none", "ltr"):
        settings = Settings(data_dir=corpus_dir, embed_provider="fake", cache_enabled=False, reranker=reranker,
                            reranker_path=model, rerank_candidates=10)
        runner = QueryRunner(build_engine(settings))
        try:
            expected = [h.chunk.id for h in runner.engine.search(question, k=settings.top_k)][: settings.rerank_top_k]
            answer = runner.run(question)
        finally:
            runner.close()
        got = [e.chunk_id for e in answer.evidence if e.origin not in ("neighbour", "correction")]
        assert got[0] == expected[0]  # the question's best passage in the retriever's order (more queries add others)
        orders[reranker] = got
    assert orders["ltr"] != orders["none"]


def test_cli_train_ranker_writes_a_model_search_can_use(corpus_dir: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from geungeo.interfaces.cli import app

    monkeypatch.setenv("GEUNGEO_EMBED_PROVIDER", "fake")
    model = tmp_path / "models" / "mine.txt"
    res = CliRunner().invoke(app, ["train-ranker", str(model), "--data-dir", str(corpus_dir), "--queries", "300"])
    assert res.exit_code == 0, res.output
    assert "generated queries" in res.output and f"GEUNGEO_RERANKER_PATH={model}" in res.output.replace("\n", "")
    assert tuple(load_ranker(str(model)).booster.feature_name()) == FEATURES
    monkeypatch.setenv("GEUNGEO_RERANKER", "ltr")
    monkeypatch.setenv("GEUNGEO_RERANKER_PATH", str(model))
    res = CliRunner().invoke(app, ["search", "연차 유급휴가", "--json", "-k", "3", "--data-dir", str(corpus_dir)])
    assert res.exit_code == 0 and len(res.output.strip().splitlines()) == 3
    res = CliRunner().invoke(app, ["train-ranker", str(tmp_path), "--data-dir", str(corpus_dir)])
    assert res.exit_code == 1 and "is a directory" in res.output
