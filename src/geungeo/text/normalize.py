"""NFC normalisation and hashing: the only place that calls :mod:`unicodedata`.

Everything stored and every query passes through :func:`nfc` once, at the boundary.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_SPACES = re.compile(r"[ \t\u00a0\u3000\u2002-\u200b]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
# Private-use glyphs (HWP/HWPX page rules, bullets drawn from symbol fonts) carry no text.
_PRIVATE_USE = re.compile(r"[\ue000-\uf8ff\U000f0000-\U000ffffd]")


def nfc(text: str) -> str:
    """Return ``text`` in Unicode NFC (composed Hangul syllables)."""
    return unicodedata.normalize("NFC", text)


def clean_text(text: str) -> str:
    """NFC, drop private-use glyphs, collapse runs of spaces, trim each line and blank runs."""
    text = _PRIVATE_USE.sub("", nfc(text)).replace("\r\n", "\n").replace("\r", "\n")
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def squash(text: str) -> str:
    """NFC with all whitespace removed: for whitespace-insensitive comparisons."""
    return re.sub(r"\s+", "", nfc(text))


def content_hash(text: str) -> str:
    """Hex SHA-256 of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stable_id(*parts: str) -> str:
    """A short deterministic id from its parts (NFC, so NFD file names give the same id)."""
    return hashlib.sha1("\x1f".join(nfc(p) for p in parts).encode("utf-8")).hexdigest()[:16]
