"""Corrections are proposals until reviewed: only accepted ones are evidence, with who accepted them and when."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from geungeo.errors import InvalidInputError, NotFoundError
from geungeo.graph.corrections import Corrections
from geungeo.graph.question_index import QuestionIndex
from geungeo.interfaces.cli import app
from geungeo.settings import Settings
from geungeo.testing.fakes import FakeEmbedder


@pytest.fixture
def corrections(tmp_path: Path) -> Corrections:
    return Corrections(tmp_path / "corrections.sqlite", FakeEmbedder(), threshold=0.5)


def test_only_accepted_corrections_are_found(corrections: Corrections) -> None:
    kept = corrections.propose("연차는 며칠인가요?", "1년간 80% 이상 출근하면 15일입니다.", by="user-1")
    dropped = corrections.propose("연차는 며칠인가요?", "연차는 30일입니다.")
    assert corrections.find("연차는 며칠인가요?") == []  # proposals are never evidence
    corrections.review(dropped.id, "rejected", by="검토자")
    accepted = corrections.review(kept.id, "accepted", by="검토자")
    assert accepted.reviewed_by == "검토자" and accepted.reviewed_at and accepted.proposed_by == "user-1"
    found = corrections.find("연차는 며칠인가요?")
    assert [c.id for c, _ in found] == [kept.id] and "15일" in found[0][0].evidence(1, 1.0).text
    assert [c.id for c in corrections.all("proposed")] == []
    assert {c.status for c in corrections.all()} == {"accepted", "rejected"}


def test_review_errors_are_clear(corrections: Corrections) -> None:
    with pytest.raises(NotFoundError):
        corrections.review(42, "accepted", by="검토자")
    proposal = corrections.propose("질문", "답")
    with pytest.raises(InvalidInputError):
        corrections.review(proposal.id, "accepted", by=" ")
    with pytest.raises(InvalidInputError):
        corrections.propose("질문", "  ")


def test_corrections_stored_before_review_existed_wait_for_one(tmp_path: Path) -> None:
    path = tmp_path / "corrections.sqlite"
    legacy = QuestionIndex(path, "corrections", FakeEmbedder())
    legacy.add("연차는 며칠인가요?", "아무나 쓴 답")  # the old format: the payload was the text itself
    legacy.close()
    corrections = Corrections(path, FakeEmbedder(), threshold=0.5)
    assert corrections.find("연차는 며칠인가요?") == []
    assert [(c.status, c.text) for c in corrections.all()] == [("proposed", "아무나 쓴 답")]


def test_the_cli_on_the_server_reviews(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEUNGEO_EMBED_PROVIDER", "fake")
    data = tmp_path / "data"
    store = Corrections(data / "corrections.sqlite", FakeEmbedder(), Settings().correction_threshold)
    proposal = store.propose("연차는 며칠인가요?", "15일입니다.")
    store.close()
    cli = CliRunner()
    listed = cli.invoke(app, ["corrections", "list", "-d", str(data)])
    assert listed.exit_code == 0 and "연차는 며칠인가요?" in listed.output
    done = cli.invoke(app, ["corrections", "accept", str(proposal.id), "--by", "김검토", "-d", str(data)])
    assert done.exit_code == 0 and "accepted by 김검토" in done.output
    missing = cli.invoke(app, ["corrections", "reject", "99", "-d", str(data)])
    assert missing.exit_code == 1 and "no correction #99" in missing.output and "Traceback" not in missing.output
    row = Corrections(data / "corrections.sqlite", FakeEmbedder(), 0.5).all("accepted")[0]
    assert json.loads(row.payload())["reviewed_by"] == "김검토"
