"""Answer cache that cannot serve an answer to another question, another corpus or another conversation.

An answer is found again only for

- the same **standalone** question: never for a question read in the light of earlier turns (the graph
  neither stores nor looks up answers in a conversation that has them), so no conversation sees another's;
- under the same **scope**: the corpus version (every document id with its content hash: any ingest or
  delete changes it), the question's filter and what writes the answers (geungeo's version, the settings: mode,
  LLM, retrieval's knobs; the lexicon's content);
- and, by default, the same **text** after normalisation (NFC, case, spaces, end punctuation):
  ``GEUNGEO_CACHE_THRESHOLD`` 1.0. A lower threshold also matches questions whose embeddings are that
  similar; ``benchmarks/cache.py`` counts the wrong hits each threshold gives on the shared questions
  (e5's similarities crowd into 0.8–1.0: "수습 중인" and "수습 중이 아닌" are 0.99 apart).

Only answers that passed a grounding check are stored (see ``graph.nodes.grading.cache_store``).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from pathlib import Path

import numpy as np

from geungeo import __version__
from geungeo.answering.models import Answer
from geungeo.embeddings.base import Embedder
from geungeo.retrieval.expansion import Lexicon
from geungeo.settings import Settings
from geungeo.sqlite import open_db
from geungeo.stores.base import ChunkStore, UntilChanged
from geungeo.text.normalize import nfc

_SPACES = re.compile(r"\s+")
_END_PUNCTUATION = re.compile(r"[\s?？!！.。~〜…]+$")
EXACT = 1.0


def normalize_question(question: str) -> str:
    """The cache's notion of "the same question": NFC, lower case, one space, no end punctuation."""
    return _END_PUNCTUATION.sub("", _SPACES.sub(" ", nfc(question).lower()).strip())


# Settings that decide how and where geungeo runs, not what it answers: the same answer is found again across them
# (the CLI, the HTTP server and the MCP server share one cache whatever their ports, threads or timeouts).
_NOT_IN_ANSWERS = {
    *(name for name in Settings.model_fields if name.startswith(("api_", "ui_"))),
    *("data_dir", "blas_threads", "dense_exact_max_mb", "cache_enabled", "cache_threshold", "reviewer_keys"),
    *("embed_api_key", "embed_batch_size", "embed_threads", "embed_timeout_s", "max_unpacked_mb"),
    *("llm_api_key", "llm_server_bin", "llm_timeout_s", "llm_max_retries", "web_search_api_key"),
}


def answer_writer(settings: Settings, lexicon: Lexicon) -> str:
    """What writes the answers: geungeo's version, every setting (the mode and chat model, but also what finds and
    quotes the evidence: k, fusion, weights, the reranker, the embedder) and the lexicon's content. An answer written
    otherwise is another answer: a user who edits the lexicon or changes a setting never gets the old one back."""
    config = settings.model_dump_json(exclude=_NOT_IN_ANSWERS)  # a new setting counts until it is listed there
    return hashlib.sha256(f"{__version__}\0{config}\0{lexicon.digest}".encode()).hexdigest()[:24]


def corpus_version(store: ChunkStore) -> str:
    """A digest of every stored document's id and content hash: any ingest or delete changes it."""
    digest = hashlib.sha256()
    for doc_id, content in sorted((d.doc_id, d.content_hash) for d in store.documents()):
        digest.update(f"{doc_id}:{content}\n".encode())
    return digest.hexdigest()[:24]


class AnswerCache:
    """Answers keyed by (normalised question, scope); similar questions only below ``threshold`` 1.0."""

    def __init__(self, path: Path, embedder: Embedder, store: ChunkStore, threshold: float) -> None:
        self.embedder = embedder
        self.store = store
        self.threshold = threshold
        self._lock = threading.Lock()
        self._corpus = UntilChanged(store.read_version, lambda: corpus_version(store))
        self._db = open_db(
            path,
            "CREATE TABLE IF NOT EXISTS answers_v2 (corpus TEXT, scope TEXT, question TEXT, model TEXT, vec BLOB, "
            "payload TEXT, created REAL, PRIMARY KEY (scope, question))",
        )

    def scope(self, filters: str | None, writer: str) -> tuple[str, str]:
        """(corpus version, scope key) of a question asked now with ``filters``, answered by ``writer``."""
        corpus = self._corpus()
        key = hashlib.sha256(f"{corpus}\0{filters or ''}\0{writer}".encode()).hexdigest()[:32]
        return corpus, key

    def lookup(self, question: str, filters: str | None = None, writer: str = "") -> tuple[Answer, float] | None:
        """The answer stored for this question in this scope, with its similarity (1.0 for the same text)."""
        _, scope = self.scope(filters, writer)
        norm = normalize_question(question)
        with self._lock:
            row = self._db.execute("SELECT payload FROM answers_v2 WHERE scope=? AND question=?", (scope, norm)).fetchone()
        if row is not None:
            return Answer.model_validate_json(row[0]), 1.0
        if self.threshold >= EXACT:
            return None
        return self._similar(scope, norm)

    def _similar(self, scope: str, norm: str) -> tuple[Answer, float] | None:
        with self._lock:
            rows = self._db.execute(
                "SELECT vec, payload FROM answers_v2 WHERE scope=? AND model=? AND vec IS NOT NULL",
                (scope, self.embedder.name),
            ).fetchall()
        if not rows:
            return None
        sims = np.stack([np.frombuffer(r[0], dtype=np.float32) for r in rows]) @ self._vector(norm)
        best = int(np.argmax(sims))
        if sims[best] < self.threshold:
            return None
        return Answer.model_validate_json(rows[best][1]), float(sims[best])

    def store_answer(self, question: str, answer: Answer, filters: str | None = None, writer: str = "") -> None:
        """Remember ``answer`` for this question in the current scope; entries of older corpora go."""
        corpus, scope = self.scope(filters, writer)
        norm = normalize_question(question)
        vec = self._vector(norm).tobytes() if self.threshold < EXACT else None
        payload = json.dumps(answer.model_dump(mode="json"), ensure_ascii=False)
        with self._lock:
            self._db.execute("DELETE FROM answers_v2 WHERE corpus != ?", (corpus,))
            self._db.execute(
                "INSERT OR REPLACE INTO answers_v2 VALUES (?, ?, ?, ?, ?, ?, ?)",
                (corpus, scope, norm, self.embedder.name, vec, payload, time.time()),
            )

    def _vector(self, norm: str) -> np.ndarray:
        return self.embedder.embed([norm], query=True)[0].astype(np.float32)

    def clear(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM answers_v2")

    def close(self) -> None:
        with self._lock:
            self._db.close()
