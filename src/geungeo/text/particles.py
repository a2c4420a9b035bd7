"""Korean particles that follow the word before them: 을/를, 이/가, 은/는, 과/와 (받침 or not)."""

from __future__ import annotations

import re

# How a digit is read (일, 이, 삼 …): whether its reading ends in a consonant.
_DIGIT_CLOSED = {"0": True, "1": True, "2": False, "3": True, "4": False, "5": False, "6": True, "7": True, "8": True, "9": False}
_PAIRS = {"을": "를", "이": "가", "은": "는", "과": "와"}
# A closing parenthetical or quote: a particle follows the word before it ("규정(3-1-2)이", "「민법」이").
_TRAILING = re.compile(r"\s*(\([^()]*\)|\[[^\[\]]*\])\s*$|[\s\"'」』]+$")


def closed(word: str) -> bool:
    """Whether ``word`` ends in a consonant as read (a Hangul syllable with 받침, or a digit read so), a trailing
    parenthetical or closing quote left aside; other endings (Latin letters, symbols) count as open."""
    while (bare := _TRAILING.sub("", word)) != word:
        word = bare
    last = word[-1:] or " "
    if "가" <= last <= "힣":
        return (ord(last) - ord("가")) % 28 != 0
    return _DIGIT_CLOSED.get(last, False)


def particle(word: str, after_consonant: str) -> str:
    """``word`` with the form of the particle its ending takes: ``particle("금액", "을")`` → "금액을",
    ``particle("개수", "을")`` → "개수를", ``particle("#3", "이")`` → "#3이"."""
    if after_consonant not in _PAIRS:
        raise ValueError(f"unknown particle {after_consonant!r}: one of {', '.join(_PAIRS)}")
    return word + (after_consonant if closed(word) else _PAIRS[after_consonant])
