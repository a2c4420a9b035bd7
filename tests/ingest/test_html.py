"""HTML loader on small pages written at test time."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from geungeo.ingest import load_file

PAGE = """<!doctype html>
<html><head><title>근로 안내</title><style>p { color: red }</style><script>var x = "숨김";</script></head>
<body>
<nav><a href="/">홈</a> <a href="/menu">메뉴</a></nav>
<h1>연차휴가</h1>
<p>1년간 80퍼센트 이상
   출근하면 <b>15일</b>의 유급휴가를 받습니다.</p>
<h2>계산 방법</h2>
<ul><li>첫해: 매월 1일</li><li>다음 해부터: 15일</li></ul>
<table><thead><tr><th>근속</th><th>일수</th></tr></thead>
<tbody><tr><td>1년</td><td>15일</td></tr><tr><td>3년</td><td>16일</td></tr></tbody></table>
<div>표 아래 설명<!-- 주석 --></div>
<h2>신청</h2>
<p>사용자에게 신청합니다.</p>
</body></html>
"""


def test_headings_paragraphs_lists_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "leave.html"
    path.write_text(PAGE, encoding="utf-8")
    doc = load_file(path)[0]
    assert (doc.kind, doc.title, doc.source, doc.meta["file_name"]) == ("html", "근로 안내", "leave.html", "leave.html")
    got = [(e.category, e.text, e.path) for e in doc.elements]
    assert got == [
        ("heading", "연차휴가", ("연차휴가",)),
        ("paragraph", "1년간 80퍼센트 이상 출근하면 15일의 유급휴가를 받습니다.", ("연차휴가",)),
        ("heading", "계산 방법", ("연차휴가", "계산 방법")),
        ("list", "첫해: 매월 1일", ("연차휴가", "계산 방법")),
        ("list", "다음 해부터: 15일", ("연차휴가", "계산 방법")),
        ("table", "| 근속 | 일수 |\n|---|---|\n| 1년 | 15일 |\n| 3년 | 16일 |", ("연차휴가", "계산 방법")),
        ("paragraph", "표 아래 설명", ("연차휴가", "계산 방법")),
        ("heading", "신청", ("연차휴가", "신청")),
        ("paragraph", "사용자에게 신청합니다.", ("연차휴가", "신청")),
    ]


def test_title_falls_back_to_h1_then_file_name(tmp_path: Path) -> None:
    (tmp_path / "a.htm").write_text("<h1>첫 제목</h1><p>본문</p>", encoding="utf-8")
    (tmp_path / "b.html").write_text("<p>본문만 있음</p>", encoding="utf-8")
    assert load_file(tmp_path / "a.htm")[0].title == "첫 제목"
    assert load_file(tmp_path / "b.html")[0].title == "b.html"


def test_euc_kr_page_is_decoded(tmp_path: Path) -> None:
    path = tmp_path / "old.html"
    page = '<html><head><meta charset="euc-kr"><title>옛 페이지</title></head><body><p>한글 본문</p></body></html>'
    path.write_bytes(page.encode("euc-kr"))
    doc = load_file(path)[0]
    assert doc.title == "옛 페이지" and doc.elements[0].text == "한글 본문"


def test_nfd_file_name_gives_nfc_source(tmp_path: Path) -> None:
    name = "안내 페이지.html"
    path = tmp_path / unicodedata.normalize("NFD", name)
    path.write_text("<p>본문</p>", encoding="utf-8")
    assert path.name != name
    assert load_file(path)[0].source == name
