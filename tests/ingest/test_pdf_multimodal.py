"""PDF tables, figures and page images: the shared SPRI brief, merged-cell rules, the pipeline."""

from __future__ import annotations

import struct
from pathlib import Path

import pdfplumber
import pytest

from geungeo.engine import build_engine
from geungeo.errors import LoaderError
from geungeo.ingest import load_file
from geungeo.ingest import pdf as pdf_loader
from geungeo.ingest.page_images import content_key
from geungeo.ingest.pdf_tables import Cell, Grid, fold_groups, is_data_table, resolve, table_rows
from geungeo.settings import Settings
from geungeo.stores.factory import drop_store
from geungeo.types import Document, Element, Table
from tests.conftest import CORPUS, need_shared

BRIEF = "SPRI_AI_Brief_2023년12월호_F.pdf"
AGI_CAPTION = "<구글 딥마인드의 범용 AI 분류 프레임워크>"


def _brief_path() -> Path:
    need_shared()
    return CORPUS / "pdf" / BRIEF


@pytest.fixture(scope="module")
def brief() -> Document:
    return load_file(_brief_path())[0]


def _of(doc: Document, category: str, page: int | None = None) -> list[Element]:
    return [e for e in doc.elements if e.category == category and (page is None or e.page == page)]


def _table(doc: Document, page: int) -> Table:
    [element] = _of(doc, "table", page)
    assert element.table is not None and element.text == element.table.markdown()
    return element.table


# --- the shared brief ---------------------------------------------------------------------------


def test_tables_only_where_the_brief_has_them(brief: Document) -> None:
    """Navigation bars, title boxes and the ruled contents page are not tables."""
    assert [e.page for e in _of(brief, "table")] == [19, 22]


def test_page_19_agi_levels_table_with_caption(brief: Document) -> None:
    table = _table(brief, 19)
    assert table.caption == AGI_CAPTION
    assert table.header == ("성능", "특수 AI 예시", "범용 AI 예시")
    assert len(table.rows) == 6
    assert ("4단계: 거장(숙련된 인간의 99% 이상)", "딥블루, 알파고", "미달성") in table.rows
    wrapped = "스마트 스피커(애플 시리, 아마존 알렉사, 구글 어시스턴트), IBM 왓슨"
    assert ("2단계: 유능(숙련된 인간의 50% 이상)", wrapped, "미달성") in table.rows  # a cell of two lines reads as one
    assert Table.from_json(table.to_json()) == table


def test_page_19_table_text_is_not_also_a_paragraph_and_sits_in_reading_order(brief: Document) -> None:
    page = [e for e in brief.elements if e.page == 19]
    paragraphs = [e.text for e in page if e.category == "paragraph"]
    assert not any("알파고" in t or "미달성" in t or AGI_CAPTION in t for t in paragraphs)
    at = [e.category for e in page].index("table")
    assert page[at - 1].text.startswith("■ 연구진은 상기 원칙에 따라")
    assert page[at + 1].text.startswith("☞ 출처 : Arxiv.org")


def test_page_22_events_table_has_one_row_per_event(brief: Document) -> None:
    table = _table(brief, 22)
    assert table.header == ("행사명", "행사 주요 개요", "기간", "장소", "홈페이지")
    assert [(r[0], *r[2:]) for r in table.rows] == [
        ("CES 2024", "2024.1.9~12", "미국, 라스베가스", "https://www.ces.tech/"),
        ("AIMLA 2024", "2024.1.27~28", "덴마크, 코펜하겐", "https://ccnet2024.org/aimla/index"),
        ("AAAI Conference on Artificial Intelligence", "2024.2.20~27", "캐나다, 밴쿠버", "https://aaai.org/aaai-conference/"),
    ]
    assert "세계 최대 가전·IT·소비재 전시회로" in table.rows[0][1]  # a word wrapped in its cell joins without a space
    assert not any("라스베가스" in e.text for e in _of(brief, "paragraph", 22))


def test_captioned_figures_on_pages_20_and_21(brief: Document) -> None:
    """The brief's only captioned images are the charts of pages 20 and 21; covers, title boxes
    and the logos inside the page-22 table are not figures."""
    figures = {e.page: e.text.split("\n") for e in _of(brief, "figure")}
    assert figures == {
        20: ["<갈릴레오의 LLM 환각 지수(RAG 포함 질문과 답변 기준)>", "☞ 출처: Galileo, LLM Hallucination Index, 2023.11.15."],
        21: [
            "<AI 기술 유형 평균 기술 대비 갖는 임금 프리미엄>",
            "☞ 출처 : Oxford Internet Institute, AI comes out on top: Oxford Study identifies the economic value "
            "of specific skills, 2023.10.24.",
        ],
    }
    for page in (20, 21):
        texts = [e.text for e in brief.elements if e.page == page]
        caption, source = figures[page]
        assert caption not in [e.text for e in _of(brief, "paragraph", page)]  # moved into the figure, not copied
        assert texts.index(source) == texts.index("\n".join(figures[page])) + 1  # the figure precedes its source line


@pytest.mark.parametrize("where", ["open", "page"])
def test_when_pdfplumber_fails_the_text_still_loads(monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """pdfplumber failing on the file or on a page costs the tables, never the text."""
    path = _brief_path()

    def broken(*_: object, **__: object) -> None:
        raise ValueError("unreadable")

    if where == "open":
        monkeypatch.setattr(pdfplumber, "open", broken)
    else:
        monkeypatch.setattr(pdf_loader, "find_grids", broken)
    doc = load_file(path)[0]
    assert not _of(doc, "table") and [e.page for e in _of(doc, "figure")] == [20, 21]
    assert any("딥블루, 알파고" in e.text for e in _of(doc, "paragraph", 19))


def test_broken_pdf_is_a_one_line_loader_error(tmp_path: Path) -> None:
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(_brief_path().read_bytes()[:200_000])
    with pytest.raises(LoaderError, match="not a readable PDF") as err:
        load_file(cut)
    assert "\n" not in str(err.value)


# --- merged cells -------------------------------------------------------------------------------


def _grid(*rows: tuple[tuple[float, float] | None, ...]) -> Grid:
    """Cells given as (left, right) on rows 10 points high, top row first."""
    cells = tuple(
        tuple(None if c is None else (c[0], 100 - 10 * (r + 1), c[1], 100 - 10 * r) for c in row)
        for r, row in enumerate(rows)
    )
    return Grid((0, 0, 100, 100), cells)


def test_merged_cells_repeat_down_and_stay_empty_across() -> None:
    grid = _grid(
        ((0, 10), (10, 30), None),  # header: the second cell spans two columns
        ((0, 10), (10, 20), (20, 30)),
        (None, (10, 20), (20, 30)),  # first cell merged down from the row above
    )
    texts = iter(["이름", "내용", "갑", "a", "b", "c", "d"])
    rows = resolve(grid, lambda _: next(texts))
    assert [[c.kind for c in row] for row in rows] == [["own", "own", "across"], ["own"] * 3, ["down", "own", "own"]]
    assert table_rows(rows) == [["이름", "내용", ""], ["갑", "a", "b"], ["갑", "c", "d"]]


def test_record_groups_with_a_repeated_sub_header_fold_into_one_row_each() -> None:
    own, down, across = (lambda t: Cell(t)), (lambda t: Cell(t, "down")), Cell("", "across")
    rows = [
        [own("행사명"), own("개요"), across, across],
        [own("A"), own(""), own("A 설명"), across],
        [down("A"), own("기간"), own("장소"), own("홈페이지")],
        [down("A"), own("1월"), own("서울"), own("a.kr")],
        [own("B"), own(""), own("B 설명"), across],
        [down("B"), own("기간"), own("장소"), own("홈페이지")],
        [down("B"), own("2월"), own("부산"), own("b.kr")],
    ]
    assert fold_groups(rows) == [
        ["행사명", "개요", "기간", "장소", "홈페이지"],
        ["A", "A 설명", "1월", "서울", "a.kr"],
        ["B", "B 설명", "2월", "부산", "b.kr"],
    ]
    assert fold_groups(rows[:4]) is None  # one group is not a pattern


def test_boxes_and_bars_are_not_data_tables() -> None:
    assert not is_data_table([[Cell("2. 기업/산업"), Cell("3. 기술/연구")]])
    assert not is_data_table([[Cell(""), Cell("목차 전체")], [Cell(""), Cell("주요 행사")]])
    assert is_data_table([[Cell("a"), Cell("b")], [Cell("c"), Cell("d")]])


# --- page images through the pipeline ---------------------------------------------------------------


def _png_size_and_dpi(path: Path) -> tuple[int, int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    at = data.index(b"pHYs")
    per_metre = struct.unpack(">I", data[at + 4 : at + 8])[0]
    return width, height, round(per_metre * 0.0254)


def test_pages_render_once_and_chunks_cite_their_page_image(tmp_path: Path) -> None:
    path = _brief_path()
    settings = Settings(data_dir=tmp_path / "data", embed_provider="fake")
    engine = build_engine(settings)
    assert not engine.ingest([path]).failed
    folder = settings.data_dir / "page_images" / content_key(path)
    pngs = sorted(folder.glob("p*.png"))
    assert len(pngs) == 23
    assert _png_size_and_dpi(folder / "p1.png") == (1275, 1788, 150)  # 612×858 pt at 150 dpi
    [record] = engine.store.documents()
    chunks = engine.store.chunks_of(record.doc_id)
    assert all(c.meta["page_image"] == f"page_images/{content_key(path)}/p{c.meta['page']}.png" for c in chunks)
    assert any(c.meta["page"] == 19 and c.meta["category"] == "paragraph" for c in chunks)
    mtimes = {p: p.stat().st_mtime_ns for p in pngs}

    again = engine.ingest([path])  # unchanged file: nothing parsed, nothing rendered
    assert again.files[0].parsed is False
    engine.close()
    drop_store(settings)  # `ingest --rebuild`: the store goes, the page images stay and are reused
    engine = build_engine(settings)
    assert engine.ingest([path]).chunks == len(chunks)
    assert {p: p.stat().st_mtime_ns for p in folder.glob("p*.png")} == mtimes
    [record] = engine.store.documents()
    assert engine.store.chunks_of(record.doc_id)[0].meta["page_image"] is not None
    engine.close()


def test_page_images_can_be_turned_off(tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter()
    writer.add_page(pypdf.PdfReader(_brief_path()).pages[3])
    one_page = tmp_path / "page4.pdf"
    with one_page.open("wb") as fh:
        writer.write(fh)
    settings = Settings(data_dir=tmp_path / "data", embed_provider="fake", page_images=False)
    engine = build_engine(settings)
    assert engine.ingest([one_page]).chunks > 0
    [record] = engine.store.documents()
    assert all("page_image" not in c.meta for c in engine.store.chunks_of(record.doc_id))
    assert not (settings.data_dir / "page_images").exists()
    engine.close()
