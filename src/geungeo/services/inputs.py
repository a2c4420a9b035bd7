"""What a user sends, made safe before it reaches the engine: valid Unicode, no control characters, within limits.

Kiwi (and every later step) needs valid Unicode: a lone surrogate (JSON ``"\\ud800"``) or bytes that are not UTF-8
(a shell argument that Python decoded with ``surrogateescape``) is refused here with a clear message, never passed on.
The length limit applies to what the user sent, before anything (lexicon terms, history) is added to it.
"""

from __future__ import annotations

import re

from geungeo.errors import QueryError
from geungeo.retrieval.hybrid import check_query
from geungeo.text.normalize import nfc

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def valid_text(text: str, *, what: str = "text") -> str:
    """``text`` as NFC with control characters made spaces; QueryError when it is not valid Unicode."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise QueryError(
            f"invalid {what}: character {exc.start + 1} is not valid Unicode (broken UTF-8 or a lone surrogate) / "
            "올바른 유니코드(UTF-8) 문자가 아닙니다"
        ) from None
    return nfc(_CONTROL.sub(" ", text))


def user_query(text: str, max_chars: int, *, what: str = "query") -> str:
    """The cleaned, stripped query; QueryError when it is empty, not valid Unicode or longer than ``max_chars``."""
    return check_query(valid_text(text, what=what), max_chars)


def redact_paths(message: str, *roots: object) -> str:
    """``message`` with the given server folders left out, so that no absolute server path is shown to a user."""
    for root in sorted({str(r).rstrip("/") for r in roots if str(r).strip("/")}, key=len, reverse=True):
        message = message.replace(root + "/", "").replace(root, ".")
    return message
