"""Chunking tables: split between rows, every part under the caption and header again, rows in meta."""

from __future__ import annotations

from geungeo.chunking import chunk_document
from geungeo.chunking.split import split_elements
from geungeo.types import Document, Element, Table

HEAD = "<표 1> 학과별 수여 학위\n| 학과 | 학위 | 비고 |\n|---|---|---|"


def _table(n: int = 60, caption: str | None = "<표 1> 학과별 수여 학위") -> Table:
    rows = [[f"학과{i:02d}", f"학사{i:02d}", "주간" if i % 2 else "야간"] for i in range(n)]
    table = Table.from_rows([["학과", "학위", "비고"], *rows], caption=caption)
    assert table is not None
    return table


def _regulation(*elements: Element) -> Document:
    return Document(source="book.hwpx", title="학칙", kind="regulation", code="2-1-1", key="2-1-1", elements=list(elements))


def _table_element(table: Table, **where: str) -> Element:
    return Element(table.markdown(), "table", attachment=where.get("attachment"), article=where.get("article"),
                   table=table)


def test_a_long_table_repeats_caption_and_header_in_every_part() -> None:
    table = _table()
    doc = _regulation(_table_element(table, attachment="별표 2"))
    chunks = chunk_document(doc, size=400, overlap=50)
    assert len(chunks) > 3
    held: list[tuple[str, ...]] = []
    for c in chunks:
        assert c.header == "학칙(2-1-1) 별표 2" and len(c.text) <= 400
        assert c.text.startswith(HEAD + "\n")
        part = Table.from_json(str(c.meta["table"]))
        assert (part.caption, part.header) == (table.caption, table.header)
        assert c.text == part.markdown()  # the chunk holds exactly the rows its meta names
        assert (c.meta["category"], c.meta["attachment"]) == ("table", "별표 2")
        held.extend(part.rows)
    assert tuple(held) == table.rows  # every row once, in order, none cut


def test_text_before_a_table_shares_its_first_chunk_and_splits_stay_between_rows() -> None:
    table = _table(30, caption=None)
    article = Element("제24조(졸업학점) 졸업학점은 다음과 같다.", "article", article="제24조", article_title="졸업학점")
    doc = _regulation(article, _table_element(table, article="제24조"))
    chunks = chunk_document(doc, size=300)
    assert chunks[0].text.startswith(article.text + "\n| 학과 | 학위 | 비고 |\n|---|---|---|\n| 학과00 |")
    assert chunks[0].meta["category"] == "article"
    assert all(c.meta["category"] == "table" for c in chunks[1:])
    for c in chunks:
        assert c.meta["article"] == "제24조" and c.header == "학칙(2-1-1) 제24조(졸업학점)"
        table_lines = c.text.split("\n")[1:] if c is chunks[0] else c.text.split("\n")
        assert table_lines[:2] == ["| 학과 | 학위 | 비고 |", "|---|---|---|"]
        rows = Table.from_json(str(c.meta["table"])).rows
        assert rows and table_lines[2:] == [table.markdown(rows=(r,)).split("\n")[-1] for r in rows]  # whole rows


def test_a_unit_that_fits_is_one_chunk_with_its_table_in_meta() -> None:
    table = _table(3)
    article = Element("제35조(성적) 성적은 다음과 같다.", "article", article="제35조", article_title="성적")
    (chunk,) = chunk_document(_regulation(article, _table_element(table, article="제35조")))
    assert chunk.text == article.text + "\n" + table.markdown()
    assert Table.from_json(str(chunk.meta["table"])) == table
    assert chunk.meta["part"] is None and chunk.meta["category"] == "article"


def test_each_chunk_holds_at_most_one_table() -> None:
    first, second = _table(2, caption="<표 1> 주간"), _table(3, caption="<표 2> 야간")
    doc = _regulation(_table_element(first, attachment="별표 1"), _table_element(second, attachment="별표 1"))
    chunks = chunk_document(doc)
    assert [Table.from_json(str(c.meta["table"])) for c in chunks] == [first, second]


def test_a_row_longer_than_the_limit_stays_whole() -> None:
    long_row = "가" * 500
    table = Table(("항목", "내용"), (("짧은", "행"), ("긴", long_row), ("끝", "행")))
    pieces = split_elements([_table_element(table)], 200, 20)
    assert [p.table.rows if p.table else None for p in pieces] == [(("짧은", "행"),), (("긴", long_row),), (("끝", "행"),)]
    assert all(p.text.startswith("| 항목 | 내용 |\n|---|---|\n") for p in pieces)


def test_a_table_in_an_addendum_stays_in_its_unit() -> None:
    table = _table(2, caption=None)
    doc = _regulation(
        Element("제1조(목적) 목적", "article", article="제1조", article_title="목적"),
        Element("부칙\n이 규정은 2020년 1월 1일부터 시행한다.", "addendum", path=("부칙",)),
        Element(table.markdown(), "table", path=("부칙",), table=table),
    )
    chunks = chunk_document(doc)
    assert [c.header for c in chunks] == ["학칙(2-1-1) 제1조(목적)", "학칙(2-1-1) 부칙"]
    assert chunks[1].meta["addendum"] is True and "table" in chunks[1].meta and "table" not in chunks[0].meta


def test_table_elements_without_a_table_entity_chunk_as_text() -> None:
    doc = Document(source="x.pdf", title="X", kind="pdf", elements=[Element("a | b\n1 | 2", "table", page=3)])
    (chunk,) = chunk_document(doc)
    assert chunk.text == "a | b\n1 | 2" and "table" not in chunk.meta and chunk.meta["category"] == "table"
