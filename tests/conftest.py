"""Shared fixtures: the real data in ../shared, isolated settings per test."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
QUESTIONS = SHARED / "questions"


def need_shared() -> None:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No developer .env or GEUNGEO_* variables leak into tests."""
    import os

    for name in list(os.environ):
        if name.startswith("GEUNGEO_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
