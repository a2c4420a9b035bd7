"""The question's plan without an LLM: intent and answer style by cue words, one sub-query per asked question."""

from __future__ import annotations

import re

from geungeo.answering.models import Intent, QueryPlan, Style, SubQuery
from geungeo.retrieval.expansion import Lexicon, query_terms
from geungeo.text.normalize import nfc

_INTENTS: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    ("compare", re.compile(r"차이|비교|다른 점|vs|versus|difference|compare", re.I)),
    ("howto", re.compile(r"어떻게|방법|절차|신청하려면|하려면|how (do|can|to)", re.I)),
    ("troubleshoot", re.compile(r"안 돼|안돼|거부|못 받|문제|불이익|억울|what if|refuse", re.I)),
    ("lookup", re.compile(r"며칠|몇|얼마|언제|기한|기간|금액|how (many|much|long)|when", re.I)),
)
_SPLIT = re.compile(r"(?<=[?？])\s+|\s+(?:그리고|또한|아울러)\s+")


def rules_plan(question: str, lexicon: Lexicon, max_sub_queries: int) -> QueryPlan:
    """A plan without an LLM: intent and style by cue words, one sub-query per asked question."""
    q = nfc(question).strip()
    intent: Intent = next((name for name, pattern in _INTENTS if pattern.search(q)), "explain")
    style: Style = "short" if intent == "lookup" else ("detailed" if len(q) > 120 else "normal")
    # A part without a search term of its own ("얼마까지 받을 수 있어요?") follows up the part before it: searched
    # alone it would match anything, so only the whole question carries it.
    parts = [p.strip() for p in _SPLIT.split(q) if len(p.strip()) >= 6 and query_terms(p, compounds=False)]
    parts = parts[:max_sub_queries] or [q]
    subs = [SubQuery(text=q, priority=1)] + [SubQuery(text=p, priority=2) for p in parts if p != q and len(parts) > 1]
    subs += [SubQuery(text=p, priority=2) for p in compared(q) if all(p != sq.text for sq in subs)]
    expansions = lexicon.expansions(q)
    rewrites = [f"{q} {' '.join(expansions)}"] if expansions else []
    return QueryPlan(
        normalized_query=q,
        intent=intent,
        answer_style=style,
        sub_queries=subs[:max_sub_queries],
        rewrites=rewrites,
        audience=lexicon.audience(q),
        planned_by="rules",
    )


_NOUNISH = frozenset({"NNG", "NNP", "NR", "SN", "SL", "XPN", "XSN"})
_CONJUNCTIONS = frozenset({"와", "과", "랑", "이랑", "하고"})


def compared(question: str) -> list[str]:
    """For a question comparing two things ("주택과 상가 임대차 기간 차이는?", "집이랑 가게는 … 각각 어떻게 달라요?"),
    its sentence asked about each of them alone, without the words that ask for the comparison: "주택 임대차 기간",
    "상가 임대차 기간". Kiwi tells the coordinating particle (와/과/랑, tag JC) from a noun's own syllable (학과) and
    the adjective 다르다 from the auxiliary in "보내 달라고"; the second conjunct is read as long (in words) as the
    first ("정년트랙 교원과 비정년트랙 교원의 …")."""
    from geungeo.text.kiwi import kiwi

    for sentence in (p.strip() for p in _SPLIT.split(question) if p.strip()):
        tokens = kiwi().tokenize(sentence)
        cues = {t.start for t in tokens if _compares(t.form, t.tag)}
        at = next((i for i, t in enumerate(tokens) if t.tag == "JC" and t.form in _CONJUNCTIONS), None)
        if not cues or at is None or at == 0 or tokens[at - 1].tag not in _NOUNISH:
            continue
        first = at
        while first > 0 and tokens[first - 1].tag in _NOUNISH:
            first -= 1
        left = sentence[tokens[first].start : tokens[at].start]
        words = list(re.finditer(r"\S+", sentence[tokens[at].end :]))
        n = len(left.split())
        if len(words) < n:
            continue
        offset = tokens[at].end
        start, end = offset + words[0].start(), offset + words[n - 1].end()
        # the second conjunct, without the particle its last word ends in ("가게는" → "가게")
        spanned = [t for t in tokens if start <= t.start < end]
        while spanned and spanned[-1].tag.startswith("J"):
            spanned.pop()
        right = sentence[start : spanned[-1].end] if spanned else sentence[start:end]
        # a word holding a comparing token (차이는, 달라요, 각각) is left out
        rest = [w.group() for w in words[n:] if not any(offset + w.start() <= c < offset + w.end() for c in cues)]
        before = sentence[: tokens[first].start]
        return [" ".join(f"{before}{noun} {' '.join(rest)}".split()) for noun in (left, right)]
    return []


def _compares(form: str, tag: str) -> bool:
    return (tag == "NNG" and form in ("차이", "차이점", "비교")) or (tag.startswith("VA") and form == "다르") or form == "각각"

