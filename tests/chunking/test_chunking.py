"""Structure-following chunking."""

from __future__ import annotations

import itertools

import pytest

from geungeo.chunking import chunk_document
from geungeo.chunking.split import split_text
from geungeo.ingest import load_file
from geungeo.types import Document, Element
from tests.conftest import CORPUS, need_shared


def _law(text: str, article: str = "제9조", title: str | None = "긴 조문") -> Document:
    return Document(source="법.md", title="시험법", kind="law",
                    elements=[Element(text, "article", path=("제1장 총칙",), article=article, article_title=title)])


def test_an_article_that_fits_is_one_chunk_with_its_header() -> None:
    need_shared()
    doc = load_file(CORPUS / "laws" / "근로기준법.md")[0]
    chunks = chunk_document(doc)
    c = next(c for c in chunks if c.meta["article"] == "제60조")
    assert c.header == "근로기준법 제60조(연차 유급휴가)"
    assert c.meta["doc"] == "근로기준법" and c.meta["chapter"] == "제4장 근로시간과 휴식"
    assert c.meta["category"] == "article" and c.meta["part"] is None
    assert c.indexed_text.startswith("근로기준법 제60조(연차 유급휴가)\n")


def test_long_article_splits_only_at_paragraph_boundaries() -> None:
    paragraphs = [f"{'①②③④⑤⑥'[i]} " + f"{i}항의 내용입니다. " * 30 for i in range(6)]
    doc = _law("제9조(긴 조문)\n" + "\n".join(paragraphs))
    chunks = chunk_document(doc, size=1200)
    assert len(chunks) > 1
    for c in chunks:
        assert c.header == "시험법 제9조(긴 조문)"
        assert len(c.text) <= 1200
        assert c.text.split("\n")[0][0] in "①②③④⑤⑥제"  # every chunk starts at a 항 (or the head)
    assert "\n".join(c.text for c in chunks) == doc.elements[0].text
    assert [c.meta["part"] for c in chunks] == list(range(1, len(chunks) + 1))


def test_head_line_stays_with_first_paragraph() -> None:
    blocks = split_text("제9조(제목)\n① " + "가" * 500 + "\n② " + "나" * 500, 600, 50)
    assert blocks[0].startswith("제9조(제목)\n① ")


def test_a_single_huge_paragraph_is_cut_at_sentences() -> None:
    text = "① " + "이것은 문장입니다. " * 200
    blocks = split_text(text, 500, 50)
    assert all(len(b) <= 500 for b in blocks) and len(blocks) > 3


def test_neighbours_are_linked_in_order() -> None:
    doc = Document(source="a.md", title="A", kind="text",
                   elements=[Element(f"문단 {i} " * 100, "paragraph", path=(f"절{i}",)) for i in range(4)])
    chunks = chunk_document(doc, size=400)
    assert chunks[0].prev_id is None and chunks[-1].next_id is None
    for a, b in itertools.pairwise(chunks):
        assert a.next_id == b.id and b.prev_id == a.id
    assert len({c.id for c in chunks}) == len(chunks)


def test_regulation_header_carries_code() -> None:
    doc = Document(source="book.hwpx", title="교원인사규정", kind="regulation", code="3-1-5", key="3-1-5",
                   elements=[Element("제8조(휴직)\n① 교원이", "article", article="제8조", article_title="휴직")])
    c = chunk_document(doc)[0]
    assert c.header == "교원인사규정(3-1-5) 제8조(휴직)"
    assert c.meta["code"] == "3-1-5"


@pytest.mark.parametrize(("page", "label"), [(4, "x.pdf p.4"), (None, "X › 2. 배경")])
def test_pages_and_sections_label_non_statute_chunks(page: int | None, label: str) -> None:
    doc = Document(source="x.pdf", title="X", kind="pdf",
                   elements=[Element("본문입니다.", "paragraph", page=page, path=("1. 개요", "2. 배경"))])
    assert chunk_document(doc)[0].header == label


def test_addendum_blocks_are_separate_chunks() -> None:
    doc = Document(source="법.md", title="시험법", kind="law", elements=[
        Element("제1조(목적)\n이 법은", "article", article="제1조", article_title="목적"),
        Element("부칙 <제1호,2020.1.1>\n제1조(시행일) 공포한 날부터", "addendum", path=("부칙",)),
        Element("부칙 <제2호,2021.1.1>\n제1조(시행일) 공포 후 6개월", "addendum", path=("부칙",)),
    ])
    chunks = chunk_document(doc)
    assert [c.header for c in chunks] == ["시험법 제1조(목적)", "시험법 부칙 <제1호,2020.1.1>", "시험법 부칙 <제2호,2021.1.1>"]
    assert [c.meta["article"] for c in chunks] == ["제1조", None, None]
    assert chunks[1].meta["addendum"] is True


def test_a_chunk_names_the_headings_in_its_text() -> None:
    """Heading elements (a PDF page's headline, an HWP section title) are named in the chunk's ``headings`` meta, so
    the answer can tell a title from a statement; a chunk without headings has none."""
    doc = Document(
        source="b.pdf",
        title="b",
        kind="pdf",
        elements=[
            Element("AI 안전 연구소 설립 발표", "heading", page=1),
            Element("n 영국 과학혁신기술부가 AI 안전 연구소를 설립한다고 발표", page=1),
            Element("n 다음 쪽의 본문", page=2),
        ],
    )
    first, second = chunk_document(doc)
    assert first.meta["headings"] == "AI 안전 연구소 설립 발표" and first.text.startswith("AI 안전 연구소 설립 발표\n")
    assert second.meta["headings"] is None
    assert first.meta["category"] == "paragraph"  # a page under its headline holds paragraphs
