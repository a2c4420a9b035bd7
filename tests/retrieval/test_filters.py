import pytest

from geungeo.errors import QueryError
from geungeo.filters import And, Eq, In, Or, Range, combine, matches, parse_filter

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
