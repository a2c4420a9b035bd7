"""A question asking what a term is ("통상임금이 뭐야?", "평균임금이란?", "근로자의 정의") and the clause that defines it:
statutes and regulations define their terms one way ("통상임금"이란 … 말한다, "사용자"라 함은 …), usually in a 정의
article's list, each term in a 호 of its own."""

from __future__ import annotations

import re

from geungeo.text.normalize import squash
from geungeo.text.structure import defined_terms

# "평균임금이란?", "통상임금이 뭐야?", "근로자의 정의", "사용자란 누구를 말해?", "연구년 교원이란?": the words asked about (up
# to three), right before what asks for their meaning, at the end of the question.
_WORD = r"[^\s\"“”'‘’「」?？]"
_ASKS_DEFINITION = re.compile(
    rf"(?P<term>{_WORD}{{2,}}?(?:\s{_WORD}+?){{0,2}})\s*"
    r"(?:(?:이)?란|의\s*(?:정의|뜻|의미)|\s뜻|(?:이|가|은|는)\s*(?:무엇|뭐|뭔|누구))"
    r"[^?？,.]{0,12}[?？]?\s*$"
)
_PARENTHESIS = re.compile(r"[(（][^()（）]*[)）]")


def asked_term(question: str) -> str | None:
    """The term ``question`` asks the meaning of, or None when it asks something else."""
    m = _ASKS_DEFINITION.search(question.strip())
    return m.group("term") if m else None


# A word naming where the term is meant, before it: "근로기준법상 근로자", "이 규정에서 …".
_SCOPE = re.compile(r"(상|에서|에서의)$")


def defines(text: str, term: str) -> bool:
    """Whether ``text`` defines ``term`` ("소정(所定)근로시간"이란 … defines 소정근로시간). The words naming where it is
    meant are left aside ("근로기준법상 근로자" is 근로자), and so are those qualifying a defined term ("이 규정에서 검수",
    "교원의 출장" define 검수 and 출장), but not those of the term asked ("교원"이란 does not define 연구년 교원)."""
    words = term.split()
    while len(words) > 1 and _SCOPE.search(words[0]):
        words = words[1:]
    asked = squash(" ".join(words))
    return any(asked in _endings(_PARENTHESIS.sub("", defined)) for defined in defined_terms(text))


def _endings(phrase: str) -> set[str]:
    """The phrase and each of its endings by whole words, without spaces: "교원의 출장" → {"교원의출장", "출장"}."""
    words = phrase.split()
    return {squash(" ".join(words[i:])) for i in range(len(words))}
