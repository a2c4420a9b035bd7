"""Korean morphological tokenisation for the sparse index (kiwipiepy).

One tokenizer for indexing and querying: nouns, verb/adjective stems, roots, numbers and
foreign words are kept; particles and endings are dropped, so "휴직을" matches "휴직".
Article references become one token (``제60조``) whatever their spacing.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from geungeo.errors import ConfigError
from geungeo.text.normalize import nfc
from geungeo.text.structure import ARTICLE_REF, article_label

if TYPE_CHECKING:
    from kiwipiepy import Kiwi

KEEP_TAGS: tuple[str, ...] = ("NNG", "NNP", "NR", "VV", "VA", "XR", "SL", "SN", "SH", "MAG")
# Adverbs are mostly noise; keep the few that flip a meaning.
KEEP_ADVERBS = frozenset({"안", "못", "미리", "즉시", "다시"})
# Stands in for an article reference so Kiwi still sees a noun before its particle.
_REF_PLACEHOLDER = "Zref"


@functools.cache
def kiwi() -> Kiwi:
    """The process-wide Kiwi instance (loading its model takes about a second)."""
    try:
        from kiwipiepy import Kiwi
    except ImportError as exc:  # pragma: no cover - kiwipiepy is a core dependency
        raise ConfigError("The sparse index needs kiwipiepy: pip install kiwipiepy") from exc
    return Kiwi(num_workers=min(os.cpu_count() or 1, 4))


def tokenizer_id() -> str:
    """Name and version of the tokenizer, recorded with every sparse index."""
    import kiwipiepy

    return f"kiwipiepy-{kiwipiepy.__version__}/geungeo-1"


def _split_refs(text: str) -> tuple[str, list[str]]:
    refs: list[str] = []

    def repl(m: object) -> str:
        g = m.groups()  # type: ignore[attr-defined]
        refs.append(article_label(g[0] or g[2], g[1] or g[3]))
        return f" {_REF_PLACEHOLDER}"

    return ARTICLE_REF.sub(repl, text), refs


def _terms(tokens: Iterable[object], refs: list[str]) -> list[str]:
    out = list(refs)
    for t in tokens:
        tag: str = t.tag  # type: ignore[attr-defined]
        form: str = t.form  # type: ignore[attr-defined]
        if not tag.startswith(KEEP_TAGS):
            continue
        if (tag == "MAG" and form not in KEEP_ADVERBS) or form == _REF_PLACEHOLDER:
            continue
        if tag in ("VV", "VA") or tag.startswith(("VV-", "VA-")):
            form = form + "다"
        out.append(form.lower())
    return out


def bm25_terms(text: str) -> list[str]:
    """Index terms of one text."""
    body, refs = _split_refs(nfc(text))
    return _terms(kiwi().tokenize(body), refs)


def bm25_terms_many(texts: Iterable[str]) -> Iterator[list[str]]:
    """Index terms of many texts, tokenised in Kiwi's worker threads."""
    split = [_split_refs(nfc(t)) for t in texts]
    for (_, refs), tokens in zip(split, kiwi().tokenize([b for b, _ in split]), strict=True):
        yield _terms(tokens, refs)
