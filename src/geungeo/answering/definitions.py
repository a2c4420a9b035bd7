"""A question asking what a term is ("통상임금이 뭐야?", "평균임금이란?", "근로자의 정의") and the clause that defines it:
statutes and regulations define their terms one way ("통상임금"이란 … 말한다, "사용자"라 함은 …), usually in a 정의
article's list, each term in a 호 of its own."""

from __future__ import annotations

import re

from geungeo.text.normalize import squash
from geungeo.text.structure import DEFINED_TERM

# "평균임금이란?", "통상임금이 뭐야?", "근로자의 정의", "사용자란 누구를 말해?", "소정근로시간 뜻": the word asked about, right
# before what asks for its meaning, at the end of the question.
_ASKS_DEFINITION = re.compile(
    r"(?P<term>[^\s\"“”'‘’「」?？]{2,}?)\s*"
    r"(?:(?:이)?란|의\s*(?:정의|뜻|의미)|\s뜻|(?:이|가|은|는)\s*(?:무엇|뭐|뭔|누구))"
    r"[^?？,.]{0,12}[?？]?\s*$"
)
_PARENTHESIS = re.compile(r"[(（][^()（）]*[)）]")


def asked_term(question: str) -> str | None:
    """The term ``question`` asks the meaning of, or None when it asks something else."""
    m = _ASKS_DEFINITION.search(question.strip())
    return m.group("term") if m else None


def defines(text: str, term: str) -> bool:
    """Whether ``text`` defines ``term`` ("소정(所定)근로시간"이란 … defines 소정근로시간)."""
    key = squash(term)
    return any(squash(_PARENTHESIS.sub("", defined)) == key for defined in DEFINED_TERM.findall(text))
