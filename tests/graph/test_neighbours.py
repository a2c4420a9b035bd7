"""The rerank node keeps the rest of a chosen passage's article (origin ``neighbour``) whatever found it."""

from __future__ import annotations

from pathlib import Path

import pytest

from geungeo.engine import build_engine
from geungeo.graph.runner import QueryRunner
from geungeo.settings import Settings

# 제2조 is long enough to be cut into two chunks; the question's words are in both.
STATUTE = """---
제목: 수업료법
---

# 수업료법

##### 제1조 (목적)

이 법은 학교의 수업료에 관한 사항을 정함을 목적으로 한다.

##### 제2조 (수업료)

① 학교는 수업료를 현금 또는 신용카드로 받을 수 있다. 학생은 수업료를 2회 이상으로 나누어 낼 수 있다.
② 학교는 수업료를 정하기 위하여 수업료심의위원회를 두어야 한다. 위원회는 학생 위원을 포함하여야 한다.
③ 수업료심의위원회는 학생 1인당 교육비와 물가 등을 고려하여 해당 연도의 수업료를 정하여야 한다.
④ 수업료심의위원회는 회의록을 작성하여 학교의 인터넷 홈페이지에 3년 이상 공개하여야 한다.
⑤ 학교는 수업료의 인상률이 직전 3개 연도 평균 물가상승률의 1.5배를 넘게 하여서는 아니 된다.
⑥ 제5항을 위반한 학교에는 교육부장관이 재정적 불이익을 줄 수 있다.

##### 제3조 (기숙사비)

학교는 기숙사비를 받을 수 있다.
"""


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("neighbours")
    (root / "docs").mkdir()
    (root / "docs" / "수업료법.md").write_text(STATUTE, "utf-8")
    engine = build_engine(Settings(data_dir=root / "data", embed_provider="fake", chunk_size=240))
    engine.ingest([root / "docs"])
    engine.close()
    return root / "data"


def test_the_rest_of_a_chosen_article_is_evidence_even_when_retrieval_ranked_it_lower(data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir, embed_provider="fake", cache_enabled=False, chunk_size=240, top_k=5,
                        rerank_top_k=1, neighbour_window=1)
    runner = QueryRunner(build_engine(settings))
    try:
        engine = runner.engine
        parts = [c for c in engine.store.chunks_of(engine.store.documents()[0].doc_id) if c.meta.get("article") == "제2조"]
        assert len(parts) == 2, "the article is cut in two"
        question = "학교가 수업료 인상률을 물가상승률의 몇 배까지 올릴 수 있나요"
        found = [h.chunk.id for h in engine.search(question, k=5)]
        assert parts[0].id in found and parts[1].id in found, "retrieval finds both parts"
        answer = runner.run(question)
        kept = {e.chunk_id: e.origin for e in answer.evidence}
        assert [kept.get(p.id) for p in sorted(parts, key=lambda c: found.index(c.id))] == ["retrieval", "neighbour"]
    finally:
        runner.close()
