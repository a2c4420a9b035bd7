import pytest

from geungeo.errors import QueryError
from geungeo.filters import And, Eq, In, Or, Range, check_documents, combine, matches, parse_filter
from geungeo.types import DocumentRecord

META = {"doc": "근로기준법", "article": "제60조", "page": 4, "code": None, "addendum": False}


def test_matches() -> None:
    assert matches(META, Eq("doc", "근로기준법"))
    assert not matches(META, Eq("code", "3-1-5"))
    assert matches(META, In("article", ("제59조", "제60조")))
    assert matches(META, Range("page", 3, 5)) and not matches(META, Range("page", 5, None))
    assert matches(META, And((Eq("doc", "근로기준법"), Range("page", None, 4))))
    assert matches(META, Or((Eq("doc", "민법"), Eq("article", "제60조"))))
    assert not matches({"doc": "x"}, Range("page", 1, 2))


def test_parse_filter() -> None:
    assert parse_filter("doc=근로기준법") == Eq("doc", "근로기준법")
    assert parse_filter("article=60조") == Eq("article", "제60조")
    assert parse_filter("page=3..5") == Range("page", 3, 5)
    assert parse_filter("page=7") == Eq("page", 7)
    assert parse_filter("code=3-1-5,2-1-1") == In("code", ("3-1-5", "2-1-1"))
    assert combine([]) is None
    assert combine([Eq("doc", "a")]) == Eq("doc", "a")


@pytest.mark.parametrize("bad", ["doc", "color=red", "page=x", "doc="])
def test_bad_filters_are_user_errors(bad: str) -> None:
    with pytest.raises(QueryError):
        parse_filter(bad)


def test_a_document_value_no_stored_document_has_is_a_user_error_naming_the_close_ones() -> None:
    def record(title: str, kind: str, code: str | None = None) -> DocumentRecord:
        return DocumentRecord(doc_id=f"id-{title}", source=f"{title}.md", title=title, kind=kind, code=code,
                              content_hash="h", chunk_count=1)

    documents = [record("근로기준법", "law"), record("교원인사규정", "regulation", "3-1-5")]
    for ok in ("doc=근로기준법", "kind=law", "code=3-1-5", "doc=근로기준법,교원인사규정", "article=제60조", "page=3..5"):
        check_documents(parse_filter(ok), documents)
    check_documents(And((Eq("doc", "근로기준법"), Eq("article", "제999조"))), documents)  # no such article: no results
    for bad, hint in (("doc=근로기준번", "did you mean: 근로기준법"), ("kind=hwpx", "kind=hwpx"), ("code=9-9-9", "code=9-9-9"),
                      ("doc=근로기준법,민법", "doc=민법")):
        with pytest.raises(QueryError, match=hint):
            check_documents(parse_filter(bad), documents)
    with pytest.raises(QueryError, match="doc=민법"):
        check_documents(Or((Eq("doc", "근로기준법"), Eq("doc", "민법"))), documents)
