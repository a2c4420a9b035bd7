"""The CLI through typer's runner and, for exit codes, as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from geungeo.interfaces.cli import app

runner = CliRunner()
LAW = """---
제목: 휴가법
---

# 휴가법

##### 제1조 (목적)

이 법은 연차 휴가를 정한다.

##### 제2조 (연차)

**①** 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 준다.
"""


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GEUNGEO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GEUNGEO_EMBED_PROVIDER", "fake")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "휴가법.md").write_text(LAW, "utf-8")
    return docs


def test_ingest_search_stats_delete(env: Path) -> None:
    res = runner.invoke(app, ["ingest", str(env)])
    assert res.exit_code == 0, res.output
    assert "1 files, 1 documents, 2 chunks" in res.output
    res = runner.invoke(app, ["search", "유급휴가 며칠", "--json", "-k", "1"])
    assert res.exit_code == 0, res.output
    hit = json.loads(res.stdout.splitlines()[0])
    assert hit["doc"] == "휴가법" and hit["article"] == "제2조" and hit["header"] == "휴가법 제2조(연차)"
    res = runner.invoke(app, ["search", "목적", "--filter", "article=제1조"])
    assert "휴가법 제1조(목적)" in res.output and "제2조" not in res.output
    res = runner.invoke(app, ["stats"])
    assert "1 documents, 2 chunks" in res.output
    res = runner.invoke(app, ["delete", "휴가법"])
    assert res.exit_code == 0 and "deleted 1 documents (2 chunks)" in res.output
    res = runner.invoke(app, ["delete", "휴가법"])
    assert res.exit_code == 1


def test_ingest_lists_files_one_by_one_only_when_few(env: Path) -> None:
    from geungeo.interfaces.cli import FILE_ROWS

    for n in range(FILE_ROWS):  # with 휴가법.md: one file more than the table shows by default
        text = f"# 규정{n:02d}\n\n##### 제1조 (목적)\n\n이 규정은 {n}번째 사항을 정한다.\n"
        (env / f"규정{n:02d}.md").write_text(text, "utf-8")
    res = runner.invoke(app, ["ingest", str(env)])
    assert res.exit_code == 0, res.output
    assert f"{FILE_ROWS + 1} files, {FILE_ROWS + 1} documents" in res.output
    assert "규정07.md" not in res.output and "--files" in res.output
    res = runner.invoke(app, ["ingest", str(env), "--files"])
    assert "규정07.md" in res.output and "휴가법.md" in res.output and "(0 written, 0 embedded)" in res.output
    (env / "규정07.md").unlink()
    res = runner.invoke(app, ["ingest", str(env)])  # 30 files: listed again
    assert res.exit_code == 0 and "규정08.md" in res.output and "--files" not in res.output


def test_reingest_reports_unchanged(env: Path) -> None:
    runner.invoke(app, ["ingest", str(env)])
    res = runner.invoke(app, ["ingest", str(env)])
    assert "(0 written, 0 embedded)" in res.output


def test_changed_tokenizer_setting_asks_for_rebuild_and_rebuild_works(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert runner.invoke(app, ["ingest", str(env)]).exit_code == 0
    monkeypatch.setenv("GEUNGEO_CHUNK_CONTEXT", "sparse")  # the context line joins the BM25 terms
    res = runner.invoke(app, ["search", "유급휴가"])
    assert res.exit_code == 1 and "--rebuild" in res.output
    res = runner.invoke(app, ["ingest", str(env), "--rebuild"])
    assert res.exit_code == 0 and "1 documents, 2 chunks" in res.output
    assert runner.invoke(app, ["search", "유급휴가"]).exit_code == 0


def test_ask_streams_an_answer_with_citations_and_json(env: Path) -> None:
    runner.invoke(app, ["ingest", str(env)])
    res = runner.invoke(app, ["ask", "연차 유급휴가는 며칠?", "--verbose"])
    assert res.exit_code == 0, res.output
    assert "[휴가법 제2조]" in res.output and "generate" in res.output and "confidence" in res.output
    res = runner.invoke(app, ["ask", "휴가법 제1조", "--json"])
    answer = json.loads(res.stdout)
    assert answer["route"] == "structural" and answer["citations"][0]["article"] == "제1조"
    assert {"answer", "refused", "citations", "evidence", "flow_log", "llm_calls", "structured"} <= answer.keys()
    structured = {"key_points", "references", "page_images", "entity_references", "warnings", "confidence"}
    assert structured <= answer["structured"].keys()


def test_an_answer_from_the_cache_is_printed(env: Path) -> None:
    runner.invoke(app, ["ingest", str(env)])
    first = runner.invoke(app, ["ask", "연차 유급휴가는 며칠?"])
    again = runner.invoke(app, ["ask", "연차 유급휴가는 며칠?", "--verbose"])
    assert again.exit_code == 0 and "hit 1.000" in again.output  # served from the cache, which streams no tokens …
    assert "15일" in first.output and "15일" in again.output  # … and still shown (it printed an empty answer)


def test_config_prints_settings_with_secrets_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEUNGEO_EMBED_API_KEY", "sk-secret")
    res = runner.invoke(app, ["config", "--json"])
    values = json.loads(res.stdout)
    assert values["top_k"] == 10 and values["rerank_top_k"] == 5 and values["rrf_k"] == 20
    assert values["embed_api_key"] == "***" and "sk-secret" not in res.output


def test_eval_writes_hits_and_scores(env: Path, tmp_path: Path) -> None:
    runner.invoke(app, ["ingest", str(env)])
    qs = tmp_path / "q.jsonl"
    qs.write_text(
        "\n".join(json.dumps(q, ensure_ascii=False) for q in [
            {"id": "q1", "question": "1년 일하면 유급휴가 며칠?", "style": "paraphrase",
             "gold": [{"doc": "휴가법", "article": "제2조"}]},
            {"id": "q2", "question": "없는 내용", "style": "unanswerable", "answerable": False},
            {"id": "q3", "question": "휴가법 제1조", "style": "structural", "kind": "article",
             "gold": [{"doc": "휴가법", "article": "제1조"}], "must_contain": ["목적"]},
        ]), "utf-8")
    out = tmp_path / "hits.jsonl"
    res = runner.invoke(app, ["eval", str(qs), "--out", str(out), "--k", "5"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [line["id"] for line in lines] == ["q1"]
    assert set(lines[0]["hits"][0]) == {"doc", "code", "article", "page", "chunk_id", "text", "score"}
    assert "q.jsonl" in res.output and "paraphrase" in res.output
    plain = tmp_path / "plain.jsonl"  # questions without a style: no nameless group of them
    plain.write_text(json.dumps({"id": "p1", "question": "1년 일하면 유급휴가 며칠?", "gold": [{"doc": "휴가법"}]}), "utf-8")
    res = runner.invoke(app, ["eval", str(plain)])
    assert res.exit_code == 0, res.output
    groups = [line.split("│")[1].strip() for line in res.output.splitlines() if line.startswith("│")]
    assert groups == ["plain.jsonl", "all"], res.output


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geungeo", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_user_errors_are_one_line_with_nonzero_exit(tmp_path: Path) -> None:
    env = {**os.environ, "GEUNGEO_DATA_DIR": str(tmp_path / "data"), "GEUNGEO_EMBED_PROVIDER": "fake"}
    renamed = tmp_path / "report.pdf"
    renamed.write_bytes(b"\x7fELF" + os.urandom(4000))
    nfd = tmp_path / unicodedata.normalize("NFD", "빈 파일.md")
    nfd.write_bytes(b"")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.xyz").write_text("x", "utf-8")
    cases = [
        (["search", ""], "empty query"),
        (["ask", " ?! "], "empty query"),  # punctuation only: nothing to search for, not "근거 부족"
        (["search", "가" * 34_000], "query too long"),  # ≈100 KB of UTF-8, the most one argv entry holds
        (["ingest", str(renamed)], "report.pdf"),
        (["ingest", str(nfd)], "빈 파일.md: empty file"),
        (["ingest", str(tmp_path / "nope")], "no such file"),
        (["ingest", str(empty)], "nothing to ingest"),
        (["search", "x", "--filter", "color=red"], "unknown field"),
    ]
    for args, message in cases:
        res = _cli(*args, env=env)
        assert res.returncode != 0, (args, res.stdout, res.stderr)
        lines = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
        assert lines and message in unicodedata.normalize("NFC", lines[0]), (args, res.stderr)
        assert "Traceback" not in res.stderr


def test_help_teaches() -> None:
    res = runner.invoke(app, ["--help"])
    assert "geungeo ingest" in res.output and "GEUNGEO_" in res.output


def _one_error_line(res: subprocess.CompletedProcess[str]) -> str:
    assert res.returncode != 0, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, res.stderr
    return unicodedata.normalize("NFC", lines[0])


def test_search_with_bytes_that_are_not_utf8_is_one_line(env: Path, tmp_path: Path) -> None:
    base = {**os.environ, "GEUNGEO_DATA_DIR": str(tmp_path / "data"), "GEUNGEO_EMBED_PROVIDER": "fake"}
    assert _cli("ingest", str(env), env=base).returncode == 0
    res = subprocess.run([sys.executable, "-m", "geungeo", "search", b"\xff\xfe \xec\x97\xb0\xec\xb0\xa8"],  # $'\xff\xfe 연차'
                         capture_output=True, text=True, env=base, timeout=120)
    assert "not valid Unicode" in _one_error_line(res)


def test_ask_on_an_empty_store_fails_clearly(tmp_path: Path) -> None:
    base = {**os.environ, "GEUNGEO_DATA_DIR": str(tmp_path / "data"), "GEUNGEO_EMBED_PROVIDER": "fake"}
    assert "store is empty" in _one_error_line(_cli("ask", "연차는 며칠?", env=base))


def test_eval_user_mistakes_are_one_line(env: Path, tmp_path: Path) -> None:
    base = {**os.environ, "GEUNGEO_DATA_DIR": str(tmp_path / "data"), "GEUNGEO_EMBED_PROVIDER": "fake"}
    assert _cli("ingest", str(env), env=base).returncode == 0
    bad_json = tmp_path / "bad.jsonl"
    bad_json.write_text('{"id": "q1", "question": "연차?"}\n{"id": "q2", "question": \n', "utf-8")
    no_id = tmp_path / "noid.jsonl"
    no_id.write_text('{"question": "연차?", "gold": [{"doc": "휴가법"}]}\n', "utf-8")
    for args, message in (
        (["eval", str(tmp_path / "missing.jsonl")], "missing.jsonl: no such file"),
        (["eval", str(bad_json)], "bad.jsonl:2: invalid JSON"),
        (["eval", str(no_id)], "noid.jsonl:1: missing 'id'"),
    ):
        assert message in _one_error_line(_cli(*args, env=base)), args
    absent = tmp_path / "absent.jsonl"
    absent.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in (
        {"id": "here", "question": "유급휴가 며칠?", "gold": [{"doc": "휴가법", "article": "제2조"}]},
        {"id": "gone", "question": "주차권은?", "gold": [{"doc": "주차관리규정", "article": "제1조"}]},
    )), "utf-8")
    res = _cli("eval", str(absent), env=base)
    assert res.returncode == 0, res.stderr
    assert "1 of 2 questions skipped: their gold document is not ingested (gone)" in res.stderr
    assert "1 questions" in res.stdout and "1 skipped" in res.stdout


def test_delete_removes_an_uploaded_file_with_its_last_document(env: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    base = {**os.environ, "GEUNGEO_DATA_DIR": str(data), "GEUNGEO_EMBED_PROVIDER": "fake"}
    uploads = data / "uploads"
    uploads.mkdir(parents=True)
    (uploads / "휴가법.md").write_text(LAW, "utf-8")  # as the HTTP API or the web UI would have saved it
    assert _cli("ingest", str(uploads), env=base).returncode == 0
    res = _cli("delete", "휴가법", env=base)
    assert res.returncode == 0 and "deleted 1 documents" in res.stdout, res.stderr
    assert not (uploads / "휴가법.md").exists()
    assert "no document matches" in _one_error_line(_cli("delete", "휴가법", env=base))
