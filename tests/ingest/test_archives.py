"""Archives of documents: ingested as the folder they hold, resumable after a kill, hostile ones refused."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from geungeo.engine import build_engine
from geungeo.errors import LoaderError
from geungeo.ingest import archives
from geungeo.settings import Settings
from tests.conftest import CORPUS, need_shared
from tests.ingest.test_pipeline import LAW, ingest_and_kill


def _settings(tmp_path: Path, **extra: object) -> Settings:
    return Settings(data_dir=tmp_path / "data", embed_provider="fake", **extra)  # type: ignore[arg-type]


def _tar(path: Path, members: dict[str, bytes], mode: str = "w:xz") -> Path:
    with tarfile.open(path, mode) as tar:  # type: ignore[call-overload]
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))  # not the stamp of the content


def _law(title: str, topic: str) -> bytes:
    return LAW.format(title=title, topic=topic, days=15).encode()


def test_a_tar_xz_is_ingested_as_its_folder_and_again_unchanged(tmp_path: Path) -> None:
    archive = _tar(
        tmp_path / "laws.tar.xz",
        {"laws/육아법.md": _law("육아법", "육아"), "laws/sub/연구법.md": _law("연구법", "연구"), "laws/notes.bin": b"\0"},
    )
    engine = build_engine(_settings(tmp_path))
    report = engine.ingest([archive])
    assert not report.failed and report.documents == 2
    assert {d.title for d in engine.store.documents()} == {"육아법", "연구법"}
    assert engine.search("연구 휴가", k=1)[0].chunk.meta["doc"] == "연구법"
    again = engine.ingest([archive])  # the same archive: unpacked folder reused, every document unchanged
    assert not again.failed and sum(f.unchanged for f in again.files) == 2 and again.written_chunks == 0
    assert len(list((tmp_path / "data" / "archives").iterdir())) == 1
    engine.close()


def test_a_name_too_long_for_the_file_system_is_shortened(tmp_path: Path) -> None:
    """A statute's full title as its file name runs past 255 bytes of UTF-8 (one of the 1,720 does)."""
    long = "대한민국과 아메리카합중국 간의 상호방위조약 제4조에 의한 시설과 구역 및 대한민국에서의 합중국 군대의 지위에 관한 " * 2
    members = {f"laws/{long}.md": _law("긴법", "긴"), "laws/짧은법.md": _law("짧은법", "짧")}
    archive = _tar(tmp_path / "long.tar.gz", members, "w:gz")
    engine = build_engine(_settings(tmp_path))
    report = engine.ingest([archive])
    assert not report.failed and report.documents == 2
    names = sorted(p.name for p in (tmp_path / "data" / "archives").glob("*/laws/*"))
    assert names[1] == "짧은법.md" and names[0].endswith(".md") and len(names[0].encode()) <= 240
    assert names[0].startswith(long[:20])
    engine.close()


def test_a_zip_with_korean_windows_names_keeps_them(tmp_path: Path) -> None:
    archive = tmp_path / "규정.zip"
    with zipfile.ZipFile(archive, "w") as package:
        package.writestr("XXXX.md", _law("학칙", "학사"))
    name = "학칙.md".encode("cp949")  # as Windows stores it: CP949 bytes, no UTF-8 flag
    archive.write_bytes(archive.read_bytes().replace(b"XXXX.md", name))
    folder = archives.unpacked(archive, tmp_path / "out", 1 << 20)
    assert _names(folder) == ["학칙.md"]


@pytest.mark.parametrize(
    ("members", "reason"),
    [
        ({"../escape.md": b"x"}, "outside"),
        ({"big.md": b"0" * (3 << 20)}, "past 1 MB"),
        ({"a.md": b"0" * (600 << 10), "b.md": b"0" * (600 << 10)}, "past 1 MB"),  # together over the limit
    ],
)
def test_hostile_tars_are_refused_and_write_nothing(tmp_path: Path, members: dict[str, bytes], reason: str) -> None:
    archive = _tar(tmp_path / "bad.tar.gz", members, "w:gz")
    with pytest.raises(LoaderError, match=reason):
        archives.unpacked(archive, tmp_path / "out", 1 << 20)
    assert list((tmp_path / "out").iterdir()) == [] and not (tmp_path / "escape.md").exists()


def test_an_absolute_member_lands_inside_the_folder(tmp_path: Path) -> None:
    folder = archives.unpacked(_tar(tmp_path / "abs.tar", {"/etc/escape.md": b"x"}, "w"), tmp_path / "out", 1 << 20)
    assert (folder / "etc" / "escape.md").read_bytes() == b"x"


def test_links_in_a_tar_are_not_followed(tmp_path: Path) -> None:
    archive = tmp_path / "links.tar"
    with tarfile.open(archive, "w") as tar:
        link = tarfile.TarInfo("passwd.md")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
        data = _law("육아법", "육아")
        info = tarfile.TarInfo("육아법.md")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    folder = archives.unpacked(archive, tmp_path / "out", 1 << 20)
    assert _names(folder) == ["육아법.md"]


def test_a_zip_member_outside_the_folder_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "bad.zip"
    with zipfile.ZipFile(archive, "w") as package:
        package.writestr("../escape.md", b"x")
    with pytest.raises(LoaderError, match="outside"):
        archives.unpacked(archive, tmp_path / "out", 1 << 20)
    assert not (tmp_path / "escape.md").exists()


def test_a_broken_archive_fails_alone_and_the_rest_is_ingested(tmp_path: Path) -> None:
    broken = tmp_path / "broken.tar.xz"
    broken.write_bytes(b"not an archive at all")
    good = _tar(tmp_path / "good.tar", {"육아법.md": _law("육아법", "육아")}, "w")
    engine = build_engine(_settings(tmp_path))
    report = engine.ingest([broken, good])
    assert [f.path for f in report.failed] == [str(broken)] and "broken archive" in (report.failed[0].error or "")
    assert report.documents == 1
    engine.close()


def test_a_killed_archive_ingest_resumes_without_duplicates(tmp_path: Path) -> None:
    """The 48 statutes packed as a tar.xz: killed after a few documents, the next run writes only the rest."""
    need_shared()
    archive = tmp_path / "laws.tar.xz"
    with tarfile.open(archive, "w:xz") as tar:
        for law in sorted((CORPUS / "laws").glob("*.md")):
            tar.add(law, arcname=f"laws/{law.name}")
    data = tmp_path / "data"
    ingest_and_kill(archive, data, after_documents=5)

    engine = build_engine(Settings(data_dir=data, embed_provider="fake"))
    before = {d.doc_id for d in engine.store.documents()}
    assert 5 <= len(before) < 48
    report = engine.ingest([archive])
    assert not report.failed and engine.store.pending() == []
    assert len(engine.store.documents()) == 48 and sum(f.unchanged for f in report.files) == len(before)
    total = sum(d.chunk_count for d in engine.store.documents())
    assert engine.store.count() == total == engine.store.collection.count()  # type: ignore[attr-defined]
    assert [p.name.split("-")[0] for p in (data / "archives").iterdir()] == ["laws"]
    engine.close()


def test_an_updated_archive_replaces_its_changed_documents(tmp_path: Path) -> None:
    """The same archive path with one member changed: that document is replaced, the other skipped, none doubled."""
    archive = _tar(tmp_path / "laws.tar.gz", {"육아법.md": _law("육아법", "육아"), "연구법.md": _law("연구법", "연구")}, "w:gz")
    engine = build_engine(_settings(tmp_path))
    engine.ingest([archive])
    _tar(archive, {"육아법.md": _law("육아법", "양육"), "연구법.md": _law("연구법", "연구")}, "w:gz")
    report = engine.ingest([archive])
    assert not report.failed and sum(f.unchanged for f in report.files) == 1
    assert sorted(d.title for d in engine.store.documents()) == ["연구법", "육아법"]
    assert engine.search("양육 휴가", k=1)[0].chunk.meta["doc"] == "육아법"
    assert not any("육아 휴가를" in c.text for d in engine.store.documents() for c in engine.store.chunks_of(d.doc_id))
    assert len(list((tmp_path / "data" / "archives").iterdir())) == 1
    engine.close()
