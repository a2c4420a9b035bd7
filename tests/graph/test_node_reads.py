"""The node wrapper: each node reads the store as one version."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from geungeo.graph.context import GraphContext, Tracker, Update, as_node
from geungeo.graph.state import GraphState
from geungeo.settings import Settings
from geungeo.stores.chroma import ChromaStore
from geungeo.testing.store_contract import SIGNATURE, version_reads


def test_a_node_reads_the_documents_version_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a node looks up the documents, their names and their vectors (each kept until the version changes): on
    # PostgreSQL every read of the version is a query, so a node reads it once
    settings = Settings(data_dir=tmp_path, embed_provider="fake")
    store = ChromaStore(settings, SIGNATURE)
    reads = version_reads(store, monkeypatch)

    def look_up(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
        ctx.engine.store.documents()
        ctx.engine.store.documents()
        return {}

    ctx = GraphContext(SimpleNamespace(store=store), settings, None, None, None)  # type: ignore[arg-type]
    node = as_node("look_up", look_up, ctx)
    node({"question": "연차"})  # type: ignore[typeddict-item]
    assert len(reads) == 1
    node({"question": "연차"})  # type: ignore[typeddict-item]
    assert len(reads) == 2  # the next node (or question) reads it again
    store.close()
