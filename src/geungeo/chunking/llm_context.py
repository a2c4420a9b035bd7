"""Contextual retrieval with an LLM: one sentence on where a chunk sits in its document.

With ``chunk_context_llm`` on (and ``chunk_context`` sparse or all, and an LLM configured), ingestion
asks the chat model, once per chunk text, for a short sentence situating the chunk (document, part,
topic); it joins the chunk's context line (:attr:`geungeo.types.Chunk.context`) in ``meta``. Sentences
are cached by the chunk's content hash, so re-ingestion and rebuilds never ask twice, and a failed or
timed-out call leaves the chunk without one (the ingestion goes on).
"""

from __future__ import annotations

import threading
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from geungeo.llm.base import invoke_text
from geungeo.prompts import system_message
from geungeo.sqlite import open_db
from geungeo.text.normalize import content_hash
from geungeo.types import Chunk

META_KEY = "context_summary"
MAX_CHARS = 160


class ChunkSummarizer:
    """Writes and caches the one-sentence context of chunks."""

    def __init__(self, llm: BaseChatModel, path: Path, *, timeout_s: float | None = None) -> None:
        self.llm = llm
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._db = open_db(path, "CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY, text TEXT)")

    def annotate(self, chunks: list[Chunk]) -> None:
        """Put each chunk's context sentence into ``meta["context_summary"]`` (cached, else asked)."""
        for chunk in chunks:
            key = content_hash(f"{chunk.header}\n{chunk.text}")
            with self._lock:
                row = self._db.execute("SELECT text FROM summaries WHERE key=?", (key,)).fetchone()
            summary = row[0] if row else self._ask(chunk, key)
            if summary:
                chunk.meta[META_KEY] = summary

    def _ask(self, chunk: Chunk, key: str) -> str:
        messages = [
            system_message("chunk_context"),
            HumanMessage(f"문서: {chunk.meta.get('doc') or ''}\n위치: {chunk.header}\n\n{chunk.text[:1500]}"),
        ]
        text, info = invoke_text(self.llm, messages, timeout_s=self.timeout_s)
        summary = " ".join(text.split())[:MAX_CHARS]
        if summary and info.ok:
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO summaries (key, text) VALUES (?, ?)", (key, summary))
        return summary if info.ok else ""

    def close(self) -> None:
        with self._lock:
            self._db.close()
