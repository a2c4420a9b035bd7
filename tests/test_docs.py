"""The documentation that is generated from code stays in step with it."""

from __future__ import annotations

from pathlib import Path

from geungeo.settings import defaults_markdown

ROOT = Path(__file__).resolve().parent.parent


def test_settings_doc_lists_every_setting_with_its_default() -> None:
    assert (ROOT / "docs" / "settings.md").read_text("utf-8") == defaults_markdown(), (
        "docs/settings.md is stale: run `geungeo config --defaults-markdown > docs/settings.md`"
    )
