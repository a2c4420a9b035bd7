"""The answering path's memo of Kiwi words: the same words as tokenising afresh, and bounded."""

from __future__ import annotations

from geungeo.text.kiwi import TermsMemo, bm25_terms_many


def test_the_memo_gives_the_words_kiwi_gives_and_keeps_at_most_its_size() -> None:
    texts = ["사용자는 15일의 유급휴가를 주어야 한다.", "휴가는 근로자가 청구한 시기에 준다.", "", "제60조를 위반한 자"]
    memo = TermsMemo(size=3)
    expected = list(bm25_terms_many(texts, compounds=False))
    assert memo(texts) == expected  # four texts through a memo of three
    assert len(memo._terms) == 3 and texts[0] not in memo._terms  # the least recently used went first
    assert memo([texts[3], texts[0], texts[3]]) == [expected[3], expected[0], expected[3]]  # known, new, repeated
    assert memo([""]) == [[]]  # a text without words is remembered as such
