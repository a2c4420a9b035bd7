"""Korean morphological tokenisation for the sparse index (kiwipiepy).

One tokenizer for indexing and querying: nouns, verb/adjective stems, roots, numbers and
foreign words are kept; particles and endings are dropped, so "휴직을" matches "휴직".
Article references become one token (``제60조``) whatever their spacing.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from geungeo.errors import ConfigError
from geungeo.text.normalize import nfc
from geungeo.text.structure import ARTICLE_REF, article_label

if TYPE_CHECKING:
    from kiwipiepy import Kiwi

    from geungeo.types import Chunk

KEEP_TAGS: tuple[str, ...] = ("NNG", "NNP", "NR", "VV", "VA", "XR", "SL", "SN", "SH", "MAG")
# Adverbs are mostly noise; keep the few that flip a meaning.
KEEP_ADVERBS = frozenset({"안", "못", "미리", "즉시", "다시"})
# Stands in for an article reference so Kiwi still sees a noun before its particle.
_REF_PLACEHOLDER = "Zref"
# Latin-script words are taken out before Kiwi (which splits some, e.g. "agency." → "age", "ncy.").
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][A-Za-z]+)?")
# A letter grade ("A+", "B0", "A학점", "F는"), which the Latin-word rule reads as the article "a" or a bare "b": the
# letter with its mark ("a+"), and the letter alone, so that "A학점" finds the rows "A+" and "A0".
_GRADE = re.compile(r"(?<![A-Za-z0-9])([A-DF])(?:([+＋0])(?![A-Za-z0-9])|(?=[가-힣]))")
ENGLISH_STOPWORDS = frozenset(
    "a an the i me my we our you your he she it its they them their is am are was were be been being do "
    "does did have has had of to for in on at by with from as into about and or but if so not no this "
    "that these those what which who whom whose when where why how can could will would should may might "
    "must shall there here than then also just only any some all each more most very such up out over "
    "don doesn didn isn aren".split()
)


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

    return f"kiwipiepy-{kiwipiepy.__version__}/geungeo-4"


def _split_refs(text: str) -> tuple[str, list[str]]:
    """Text for Kiwi, and the terms taken out of it first: article references, letter grades and Latin words."""
    refs: list[str] = []

    def ref(m: re.Match[str]) -> str:
        g = m.groups()
        refs.append(article_label(g[0] or g[2], g[1] or g[3]))
        return f" {_REF_PLACEHOLDER}"

    def grade(m: re.Match[str]) -> str:
        letter = m[1].lower()
        refs.extend([f"{letter}{m[2].replace('＋', '+')}", letter] if m[2] else [letter])
        return f" {_REF_PLACEHOLDER}"  # a noun before its particle: "B+는" is not read as 늘다

    def latin(m: re.Match[str]) -> str:
        if m.group(0) == _REF_PLACEHOLDER:  # a grade taken out before
            return m.group(0)
        word = re.split(r"['’]", m.group(0).lower())[0]  # i'm → i, korea's → korea
        if word not in ENGLISH_STOPWORDS:
            refs.append(word)
        return " "

    return ARTICLE_REF.sub(ref, _LATIN.sub(latin, _GRADE.sub(grade, text))), refs


# Morphemes that compound with a noun written against them: 재+수강, 연구+년, 학사+경고.
_COMPOUND_HEAD = frozenset({"NNG", "NNP", "XPN"})
_COMPOUND_TAIL = frozenset({"NNG", "NNP", "NNB"})


def _compounds(tokens: Sequence[object]) -> list[str]:
    """Nouns written together as one word (no space between them), joined back into that word.

    Kiwi splits compounds (``연구년`` → 연구 + 년, ``재수강`` → 재 + 수강) and the parts alone are far commoner than
    the whole; 년 and the prefix 재 are not even kept. It also splits a word one way in a question (물리 + 치료 + 학과)
    and keeps it whole in a table cell (``물리치료학과``). Indexing the whole word beside its parts — compound-noun
    indexing, as Korean IR systems do — lets BM25 prefer the passage that uses the compound. (Indexing every adjacent
    pair as well measured no better and counts a long word several times: benchmarks/reports/retrieval.md.)
    """
    out: list[str] = []
    run: list[str] = []

    def close() -> None:
        if len(run) > 1:
            out.append("".join(run))
        run.clear()

    previous: Any = None
    for t in tokens:
        tok: Any = t
        joins = (
            previous is not None
            and previous.start + previous.len == tok.start
            and tok.tag in _COMPOUND_TAIL
            and _REF_PLACEHOLDER not in (previous.form, tok.form)
        )
        if joins and run:
            run.append(tok.form.lower())
        else:
            close()
            if tok.tag in _COMPOUND_HEAD and tok.form != _REF_PLACEHOLDER:
                run.append(tok.form.lower())
        previous = tok if tok.tag in _COMPOUND_HEAD | _COMPOUND_TAIL else None
    close()
    return out


def _terms(tokens: Iterable[object], refs: list[str], compounds: bool) -> list[str]:
    out = list(refs)
    tokens = list(tokens)
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
    return out + _compounds(tokens) if compounds else out


def bm25_terms(text: str, *, compounds: bool = True) -> list[str]:
    """Index terms of one text; ``compounds=False`` leaves out the joined compounds (the words alone, for measures
    that count which words of a question a sentence covers)."""
    body, refs = _split_refs(nfc(text))
    return _terms(kiwi().tokenize(body), refs, compounds)


def is_predicate(term: str) -> bool:
    """Whether a term of :func:`bm25_terms` is a verb or an adjective (given in its 다 form: "쓰다", "받다"): it says
    little of what a text is about."""
    return term.endswith("다")


def bm25_terms_many(texts: Iterable[str], *, compounds: bool = True) -> Iterator[list[str]]:
    """Index terms of many texts, tokenised in Kiwi's worker threads (``compounds`` as for :func:`bm25_terms`)."""
    split = [_split_refs(nfc(t)) for t in texts]
    for (_, refs), tokens in zip(split, kiwi().tokenize([b for b, _ in split]), strict=True):
        yield _terms(tokens, refs, compounds)


class TermsMemo:
    """:func:`bm25_terms_many` for texts read again and again (the clauses of the passages answers quote): each text's
    words (``compounds=False``) are kept, at most ``size`` texts, the least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._terms: OrderedDict[str, list[str]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, texts: Iterable[str]) -> list[list[str]]:
        texts = list(texts)
        with self._lock:
            known = {t: self._terms[t] for t in texts if t in self._terms}
            for t in known:
                self._terms.move_to_end(t)
        new = list(dict.fromkeys(t for t in texts if t not in known))
        found = dict(zip(new, bm25_terms_many(new, compounds=False), strict=True))
        with self._lock:
            for t, terms in found.items():
                self._terms[t] = terms
            while len(self._terms) > self.size:
                self._terms.popitem(last=False)
        return [known[t] if t in known else found[t] for t in texts]


words_of = TermsMemo(4096)  # a clause and its words take a few kilobytes: some 20 MB at most
"""The Kiwi words of the texts answering reads (a clause, a header), remembered across questions."""


HEADER_WEIGHT = 2
"""Times a chunk's header (document and article title) counts in its BM25 terms: a field boost, so that a question
naming a document or an article title finds it (an index built with another weight needs ``ingest --rebuild``)."""


def chunk_terms(chunks: Sequence[Chunk], header_weight: int = HEADER_WEIGHT, *, context: bool = False) -> list[list[str]]:
    """Index terms of chunks: the header's terms ``header_weight`` times, then the text's (a field boost);
    with ``context``, the chunk's context line (document, section path, table caption) is part of the text."""
    texts = [t for c in chunks for t in (c.header, f"{c.context}\n{c.text}" if context and c.context else c.text)]
    terms = list(bm25_terms_many(texts))
    return [terms[2 * i] * header_weight + terms[2 * i + 1] for i in range(len(chunks))]
