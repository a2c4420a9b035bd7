"""Query-side lexical handling: stop terms out, everyday words mapped to legal terms in.

People ask "월급을 안 줘요"; statutes say "임금을 지급하지 아니한". The mapping lives in a
data file (``geungeo/data/lexicon.json``, or ``GEUNGEO_LEXICON_PATH``) so that it can grow
without code changes; its keys match anywhere in the question with spaces ignored. The
same file names the audiences (student / faculty / staff) a question speaks for.

English questions over Korean documents: the dense model is multilingual, but BM25 needs the
question's key terms in Korean. A bundled English→Korean glossary of the corpus's domains
(``geungeo/data/glossary_en_ko.json``, or ``GEUNGEO_GLOSSARY_PATH``) supplies them, matched on
word boundaries with plural and -ed/-ing forms folded.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from geungeo.errors import ConfigError
from geungeo.settings import Settings
from geungeo.text.kiwi import bm25_terms
from geungeo.text.language import question_language
from geungeo.text.normalize import nfc, squash

# Terms so common in questions and in legal text alike that they only add noise to BM25.
QUERY_STOP_TERMS = frozenset(
    "하다 되다 있다 없다 이다 아니다 않다 같다 그렇다 이렇다 어떻다 저렇다 맞다 알다 "
    "알리다 싶다 보다 주다 받다 가다 오다 나다 내다 들다 말다 좋다 것 수 등 때 경우 거 "
    "뭐 몇 얼마 어디 언제 누구 왜 어떤 무엇 정도 관련 대하다 따르다 위하다 요 네 저 제 "
    "나 우리 그 이 원래 혹시 그냥 진짜 정말 좀 다 또".split()
)


_WORD = re.compile(r"[a-z0-9]+")


def fold(word: str) -> str:
    """A light English stem, applied alike to glossary keys and questions: ``leaves``/``leave``,
    ``announced``/``announce``/``announcement``, ``wages``/``wage``, ``dismissed``/``dismiss``, ``paying``/``pay``
    fold together."""
    w = word.lower()
    if len(w) > 8 and w.endswith("ments"):
        w = w[:-1]
    if len(w) > 7 and w.endswith("ment"):  # announcement/announce, settlement/settle: legal Korean has one noun for both
        w = w[:-4]
    elif len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-1] if w.endswith("eed") else w[:-2]
    elif len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def _words(text: str) -> list[str]:
    return [fold(w) for w in _WORD.findall(nfc(text).lower().replace("'s ", " "))]


@dataclass(frozen=True)
class Glossary:
    """English phrases (folded word tuples) → the Korean terms the documents use."""

    terms: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)

    @functools.cached_property
    def longest(self) -> int:
        return max((len(k) for k in self.terms), default=0)

    def korean(self, text: str) -> list[str]:
        """Korean terms for the English phrases in ``text``, longest phrase first at each position."""
        words = _words(text)
        out: list[str] = []
        i = 0
        while i < len(words):
            for n in range(min(self.longest, len(words) - i), 0, -1):
                targets = self.terms.get(tuple(words[i : i + n]))
                if targets:
                    out.extend(t for t in targets if t not in out)
                    i += n
                    break
            else:
                i += 1
        return out


@dataclass(frozen=True)
class Lexicon:
    """Everyday-to-legal synonyms, audience cue words and the English→Korean glossary."""

    synonyms: dict[str, tuple[str, ...]]
    audiences: dict[str, tuple[str, ...]]
    glossary: Glossary = field(default_factory=Glossary)

    @functools.cached_property
    def digest(self) -> str:
        """A digest of the whole content (synonyms, audience cues, glossary): another lexicon, another digest."""
        content = (sorted(self.synonyms.items()), sorted(self.audiences.items()), sorted(self.glossary.terms.items()))
        return hashlib.sha256(repr(content).encode()).hexdigest()[:16]

    def translations(self, query: str) -> list[str]:
        """Korean terms for an English question (nothing for a Korean one)."""
        return self.glossary.korean(query) if question_language(query) == "en" else []

    def fired(self, query: str) -> list[str]:
        """The everyday words (keys of :attr:`synonyms`) found in the query, spaces ignored, in file order."""
        key = squash(nfc(query)).lower()
        return [word for word in self.synonyms if word in key]

    def expansions(self, query: str) -> list[str]:
        """Legal terms for the everyday words found in the query (in file order, no repeats)."""
        out: list[str] = []
        for word in self.fired(query):
            out.extend(t for t in self.synonyms[word] if t not in out)
        return out

    def audience(self, query: str) -> str | None:
        """student / faculty / staff when the question's words say so, else None."""
        key = squash(nfc(query)).lower()
        counts = {name: sum(cue in key for cue in cues) for name, cues in self.audiences.items()}
        best = max(counts, key=lambda n: counts[n], default=None)
        return best if best is not None and counts[best] > 0 else None


def _read_json(path: str, bundled: str) -> dict[str, object]:
    try:
        source = Path(path) if path else resources.files("geungeo.data").joinpath(bundled)
        data = json.loads(nfc(source.read_text("utf-8")))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path or 'geungeo/data/' + bundled}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path or 'geungeo/data/' + bundled}: expected a JSON object")
    return data


@functools.cache
def load_glossary(path: str = "") -> Glossary:
    """The English→Korean glossary at ``path`` (empty: the one shipped with geungeo)."""
    data = _read_json(path, "glossary_en_ko.json")
    terms: dict[tuple[str, ...], tuple[str, ...]] = {}
    try:
        for key, targets in dict(data.get("terms", {})).items():  # type: ignore[call-overload]
            words = tuple(_words(key))
            if words and targets:  # keys that fold together (house, housing) pool their terms
                terms[words] = tuple(dict.fromkeys([*terms.get(words, ()), *(nfc(t) for t in targets)]))
    except (AttributeError, TypeError) as exc:
        raise ConfigError(f"glossary {path or 'geungeo/data/glossary_en_ko.json'}: {exc}") from exc
    return Glossary(terms)


@functools.cache
def load_lexicon(path: str = "", glossary_path: str | None = "") -> Lexicon:
    """The lexicon at ``path`` (empty: the one shipped with geungeo), with the glossary unless ``glossary_path`` is None."""
    data = _read_json(path, "lexicon.json")
    try:
        synonyms = {squash(k).lower(): tuple(v) for k, v in dict(data.get("synonyms", {})).items()}  # type: ignore[call-overload]
        audiences = {k: tuple(squash(c).lower() for c in v) for k, v in dict(data.get("audiences", {})).items()}  # type: ignore[call-overload]
    except (AttributeError, TypeError) as exc:
        raise ConfigError(f"lexicon {path or 'geungeo/data/lexicon.json'}: {exc}") from exc
    glossary = load_glossary(glossary_path) if glossary_path is not None else Glossary()
    return Lexicon(synonyms, audiences, glossary)


def settings_lexicon(settings: Settings) -> Lexicon:
    """The configured lexicon: its synonyms and audiences, and the glossary unless ``english_glossary`` is off."""
    return load_lexicon(settings.lexicon_path, settings.glossary_path if settings.english_glossary else None)


def lexicon_for(settings: Settings) -> Lexicon | None:
    """The lexicon search expands with: synonyms with ``query_expansion``, the glossary with ``english_glossary``."""
    if not settings.query_expansion and not settings.english_glossary:
        return None
    lexicon = settings_lexicon(settings)
    return lexicon if settings.query_expansion else replace(lexicon, synonyms={})


def query_terms(query: str, lexicon: Lexicon | None = None, *, compounds: bool = True) -> list[str]:
    """BM25 terms of a question: its own terms without stop terms, the glossary's Korean terms for an
    English question, then the lexicon's legal terms (``compounds`` as for :func:`bm25_terms`)."""
    own = [t for t in bm25_terms(query, compounds=compounds) if t not in QUERY_STOP_TERMS]
    if lexicon is None:
        return own
    phrases = [*lexicon.translations(query), *lexicon.expansions(query)]
    extra = [
        t for phrase in phrases for t in bm25_terms(phrase, compounds=compounds) if t not in own and t not in QUERY_STOP_TERMS
    ]
    return own + list(dict.fromkeys(extra))


def without_names(terms: list[str], names: Sequence[str]) -> list[str]:
    """``terms`` less one occurrence of each term of each document name the question writes: once the document is
    known, its name says nothing of which of its passages answers, and counted in BM25 it favours the passages that
    cite the document and the shortest of its own. A term the question also uses outside the name stays ("휴학" of
    "휴학규정에 따르면 휴학은 …"). All of ``terms`` when nothing else is left (the question is the name)."""
    left = Counter(t for name in names for t in bm25_terms(name))
    kept = []
    for term in terms:
        if left[term] > 0:
            left[term] -= 1
        else:
            kept.append(term)
    return kept or terms
