"""Contextual chunk text: the context line (document, section, caption) and the LLM's one-sentence summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from geungeo.chunking import chunk_document
from geungeo.engine import build_engine
from geungeo.errors import ConfigError
from geungeo.ingest.base import load_file
from geungeo.settings import Settings
from geungeo.testing.fake_llm import ScriptedChatModel
from geungeo.text.kiwi import chunk_terms
from tests.fixtures import VACATION_LAW


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "휴가보장법.md").write_text(VACATION_LAW, "utf-8")
    return tmp_path / "docs"


def test_context_line_names_what_the_header_does_not(docs: Path) -> None:
    [doc] = load_file(docs / "휴가보장법.md")
    chunk = next(c for c in chunk_document(doc) if c.meta.get("article") == "제2조")
    assert chunk.context == "제1장 총칙"  # the document title is already in the header
    assert chunk.contextual_text().startswith(f"{chunk.header}\n제1장 총칙\n")
    plain, contextual = chunk_terms([chunk], 1), chunk_terms([chunk], 1, context=True)
    assert "총칙" in contextual[0] and "총칙" not in plain[0]


def test_llm_summaries_join_the_context_and_are_asked_once(docs: Path, tmp_path: Path) -> None:
    llm = ScriptedChatModel({"chunk_context": "휴가보장법 안에서 근로자 쉼표제도를 정하는 부분"})
    settings = Settings(data_dir=tmp_path / "data", embed_provider="fake", chunk_context="sparse", chunk_context_llm=True)
    engine = build_engine(settings)
    report = engine.ingest([docs], llm=llm)
    calls = llm.count("chunk_context")
    assert not report.failed and calls == report.chunks
    hits = engine.search("쉼표제도", mode="sparse")  # a word only the summaries contain
    assert hits and hits[0].chunk.meta["context_summary"].startswith("휴가보장법 안에서")
    for record in engine.store.documents():
        engine.store.delete_document(record.doc_id)
    engine.ingest([docs], llm=llm)  # the store lost them; the summaries are cached by content
    assert llm.count("chunk_context") == calls
    engine.close()


def test_a_failing_llm_leaves_chunks_without_a_summary(docs: Path, tmp_path: Path) -> None:
    llm = ScriptedChatModel({"chunk_context": TimeoutError()})
    settings = Settings(data_dir=tmp_path / "data", embed_provider="fake", chunk_context="sparse", chunk_context_llm=True)
    engine = build_engine(settings)
    report = engine.ingest([docs], llm=llm)
    assert not report.failed and report.chunks > 0
    assert all("context_summary" not in c.meta for d in engine.store.documents() for c in engine.store.chunks_of(d.doc_id))
    engine.close()


def test_llm_context_without_an_llm_is_a_clear_error(docs: Path, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", embed_provider="fake", chunk_context="sparse", chunk_context_llm=True)
    engine = build_engine(settings)
    with pytest.raises(ConfigError, match="GEUNGEO_LLM_PROVIDER"):
        engine.ingest([docs])
    engine.close()
