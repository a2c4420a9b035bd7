"""Query-side lexical handling: stop terms out, everyday words mapped to legal terms in.

People ask "월급을 안 줘요"; statutes say "임금을 지급하지 아니한". The mapping lives in a
data file (``geungeo/data/lexicon.json``, or ``GEUNGEO_LEXICON_PATH``) so that it can grow
without code changes; its keys match anywhere in the question with spaces ignored. The
same file names the audiences (student / faculty / staff) a question speaks for.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from geungeo.errors import ConfigError
from geungeo.text.kiwi import bm25_terms
from geungeo.text.normalize import nfc, squash

# Terms so common in questions and in legal text alike that they only add noise to BM25.
QUERY_STOP_TERMS = frozenset(
    "하다 되다 있다 없다 이다 아니다 않다 같다 그렇다 이렇다 어떻다 저렇다 맞다 알다 "
    "알리다 싶다 보다 주다 받다 가다 오다 나다 내다 들다 말다 좋다 것 수 등 때 경우 거 "
    "뭐 몇 얼마 어디 언제 누구 왜 어떤 무엇 정도 관련 대하다 따르다 위하다 요 네 저 제 "
    "나 우리 그 이 원래 혹시 그냥 진짜 정말 좀 다 또".split()
)


@dataclass(frozen=True)
class Lexicon:
    """Everyday-to-legal synonyms and audience cue words."""

    synonyms: dict[str, tuple[str, ...]]
    audiences: dict[str, tuple[str, ...]]

    def expansions(self, query: str) -> list[str]:
        """Legal terms for the everyday words found in the query (in file order, no repeats)."""
        key = squash(nfc(query)).lower()
        out: list[str] = []
        for word, targets in self.synonyms.items():
            if word in key:
                out.extend(t for t in targets if t not in out)
        return out

    def audience(self, query: str) -> str | None:
        """student / faculty / staff when the question's words say so, else None."""
        key = squash(nfc(query)).lower()
        counts = {name: sum(cue in key for cue in cues) for name, cues in self.audiences.items()}
        best = max(counts, key=lambda n: counts[n], default=None)
        return best if best is not None and counts[best] > 0 else None


@functools.cache
def load_lexicon(path: str = "") -> Lexicon:
    """The lexicon at ``path`` (empty: the one shipped with geungeo)."""
    try:
        source = Path(path) if path else resources.files("geungeo.data").joinpath("lexicon.json")
        raw = source.read_text("utf-8")
        data = json.loads(nfc(raw))
        synonyms = {squash(k).lower(): tuple(v) for k, v in data.get("synonyms", {}).items()}
        audiences = {k: tuple(squash(c).lower() for c in v) for k, v in data.get("audiences", {}).items()}
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        raise ConfigError(f"lexicon {path or 'geungeo/data/lexicon.json'}: {exc}") from exc
    return Lexicon(synonyms, audiences)


def query_terms(query: str, lexicon: Lexicon | None = None) -> list[str]:
    """BM25 terms of a question: its own terms without stop terms, then the lexicon's legal terms."""
    own = [t for t in bm25_terms(query) if t not in QUERY_STOP_TERMS]
    if lexicon is None:
        return own
    extra = [t for phrase in lexicon.expansions(query) for t in bm25_terms(phrase) if t not in own]
    return own + list(dict.fromkeys(extra))
