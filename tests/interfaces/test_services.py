"""The service layer: what every interface calls (documents, structure, search, answers, jobs, input checks)."""

from __future__ import annotations

import ast
import io
import time
from pathlib import Path

import pytest

from geungeo.engine import build_engine
from geungeo.errors import EmptyStoreError, InvalidInputError, NotFoundError, QueryError, TooLargeError
from geungeo.graph.runner import QueryRunner
from geungeo.services import Services
from geungeo.services.inputs import redact_paths, user_query, valid_text
from geungeo.settings import Settings
from tests.fixtures import VACATION_LAW as LAW

INTERFACES = Path(__file__).resolve().parents[2] / "src" / "geungeo" / "interfaces"


def _settings(data: Path, **extra: object) -> Settings:
    return Settings(data_dir=data, embed_provider="fake", llm_provider="none", cache_enabled=False, **extra)  # type: ignore[arg-type]


@pytest.fixture
def services(tmp_path: Path) -> Services:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "휴가보장법.md").write_text(LAW, "utf-8")
    built = Services.build(_settings(tmp_path / "data", api_max_upload_mb=1))
    built.documents.ingest([docs])
    return built


def test_no_interface_reaches_into_the_store() -> None:
    """Interfaces call the services: no import of geungeo.stores, no ``….store.…`` attribute chain."""
    offenders = []
    for path in INTERFACES.rglob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("geungeo.stores"):
                offenders.append(f"{path.name}: imports {node.module}")
            if isinstance(node, ast.Import) and any(a.name.startswith("geungeo.stores") for a in node.names):
                offenders.append(f"{path.name}: imports geungeo.stores")
            if isinstance(node, ast.Attribute) and node.attr == "store":
                offenders.append(f"{path.name}:{node.lineno}: .store")
            if isinstance(node, ast.Name) and node.id == "StructuralLookup":
                offenders.append(f"{path.name}:{node.lineno}: builds a StructuralLookup")
    assert not offenders, offenders


def test_one_structural_lookup_per_engine(services: Services) -> None:
    runner = QueryRunner(services.engine)
    assert services.engine.structural is services.engine.structural
    query, found = services.structure.lookup("휴가보장법", article="2")
    assert query == "휴가보장법 제2조" and "15일" in found.text
    with pytest.raises(NotFoundError, match="제99조"):
        services.structure.lookup("휴가보장법", article="99")
    runner.close()


def test_delete_removes_the_upload_with_its_last_document(services: Services) -> None:
    staged = services.documents.stage_upload(io.BytesIO(b"# \xec\xa3\xbc\xec\xb0\xa8\n\n\xec\xa3\xbc\xec\xb0\xa8\xea\xb6\x8c."),
                                              "주차.md")
    report = services.documents.ingest_uploads([staged])
    target = services.documents.uploads / "주차.md"
    assert report.documents == 1 and target.is_file()
    docs, chunks = services.documents.delete_matching(["주차.md"])
    assert len(docs) == 1 and chunks >= 1 and not target.exists()
    with pytest.raises(NotFoundError):
        services.documents.delete(docs[0].doc_id)


def test_failed_upload_is_removed_and_its_error_shows_no_server_path(services: Services) -> None:
    staged = services.documents.stage_upload(io.BytesIO(b""), "빈.md")
    report = services.documents.ingest_uploads([staged])
    assert report.failed and not (services.documents.uploads / "빈.md").exists()
    assert not list(services.documents.uploads.glob("*.part")) and not list(services.documents.uploads.glob(".*.part"))
    summary = services.documents.summary(report)
    assert summary.files[0].file == "빈.md" and summary.failed == 1
    root = str(services.settings.data_dir.resolve())
    assert root not in summary.model_dump_json() and "/" not in summary.files[0].file
    with pytest.raises(TooLargeError):
        services.documents.stage_upload(io.BytesIO(b"a" * ((1 << 20) + 1)), "큰.md")
    assert not list(services.documents.uploads.glob(".*.part"))
    with pytest.raises(InvalidInputError, match="invalid file name"):
        services.documents.stage_upload(io.BytesIO(b"x"), "../x.md")


def test_background_job_reports_its_result(services: Services) -> None:
    staged = services.documents.stage_upload(io.BytesIO("# 규정\n\n주차권은 연 1회 신청한다.".encode()), "규정.md")
    job = services.ingest_in_background([staged])
    assert job.status in ("queued", "running", "done") and job.files == ["규정.md"]
    done = services.jobs.wait(job.job_id, timeout=60)
    assert done.status == "done" and done.result is not None and done.result.documents == 1
    assert done.progress["files"].done == done.progress["files"].total == 1
    with pytest.raises(NotFoundError):
        services.jobs.get("nope")
    services.close()


def test_invalid_unicode_is_refused_before_kiwi() -> None:
    for bad in ("\ud800 연차", "\udcff\udcfe 연차"):  # a lone surrogate; bytes that were not UTF-8 (surrogateescape)
        with pytest.raises(QueryError, match="not valid Unicode"):
            user_query(bad, 2000)
    assert valid_text("연차\x00 휴가\x07") == "연차  휴가 "
    assert user_query("  연차  ", 10) == "연차"


def test_question_limit_applies_to_what_the_user_sent(services: Services) -> None:
    """A question just under the limit is answered although the lexicon's terms make the searched query longer."""
    limit = services.settings.max_query_chars
    question = "월급을 못 받았어요 연차 유급휴가는 며칠인가요? "
    question += "가" * (limit - 7 - len(question))
    checked = services.answers.check(question)
    assert len(checked.text) == limit - 7
    answer = services.answers.ask(checked)
    assert answer.flow_log
    with pytest.raises(QueryError, match=f"{limit + 1:,} characters"):
        services.answers.check("가" * (limit + 1))
    services.close()


def test_ask_on_an_empty_store_says_so(tmp_path: Path) -> None:
    empty = Services(build_engine(_settings(tmp_path / "data")))
    with pytest.raises(EmptyStoreError, match="empty"):
        empty.answers.check("연차는 며칠?")
    empty.close()


def test_paths_are_redacted() -> None:
    assert redact_paths("/srv/data/uploads/a.md: broken", "/srv/data/uploads", "/srv/data") == "a.md: broken"
    assert redact_paths("store at /srv/data failed", "/srv/data") == "store at . failed"


def test_services_do_not_import_the_interfaces() -> None:
    services_dir = INTERFACES.parent / "services"
    for path in services_dir.rglob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        modules = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        modules += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in modules if m.startswith("geungeo.interfaces")], path.name


def test_searches_answer_while_an_upload_job_ingests(services: Services) -> None:
    """Each store write takes the writer lock, not the whole job: a search waits for one document at most
    (before, the job held the lock until the last document, and every request waited for all of them)."""
    staged = []
    for n in range(40):
        law = LAW.replace("휴가보장법", f"휴가보장법{n}").replace("15일", f"{15 + n}일")
        staged.append(services.documents.stage_upload(io.BytesIO(law.encode()), f"휴가보장법{n}.md"))
    job = services.ingest_in_background(staged)
    answered_while_running, waits = 0, []
    while services.jobs.get(job.job_id).status in ("queued", "running"):
        started = time.perf_counter()
        with services.lock.read():
            services.search.search("연차 유급휴가 며칠", k=3)
        waits.append(time.perf_counter() - started)
        answered_while_running += services.jobs.get(job.job_id).status == "running"
    assert services.jobs.wait(job.job_id, timeout=120).status == "done"
    assert answered_while_running >= 3, (answered_while_running, waits)
    assert max(waits) < 10.0


