"""Which language a question is written in: Korean or English (the two geungeo answers in)."""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["ko", "en"]

_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_LATIN = re.compile(r"[A-Za-z]")


def question_language(text: str) -> Language:
    """``en`` when Latin letters outnumber Hangul four to one (names like "Dong-eui" or a stray 제8조 do not flip it)."""
    hangul = len(_HANGUL.findall(text))
    latin = len(_LATIN.findall(text))
    return "en" if latin > 4 * hangul and latin >= 3 else "ko"
