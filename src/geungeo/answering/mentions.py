"""Names a question is about that no stored passage mentions.

"부산대학교는 일반휴학을 통산 몇 년까지 할 수 있나요?" over another university's 규정집, or "LCEL은 어떻게 설명하고
있어?" over a tutorial that never writes LCEL: the documents cannot say anything of what is asked about, and the
passages a search finds (this university's 휴학 rule, another part of the tutorial) would answer a different question.
Whether a name is mentioned is read from the corpus itself (its BM25 index), not from a list.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from geungeo.answering.details import asking_part
from geungeo.retrieval.expansion import Lexicon
from geungeo.text.kiwi import bm25_terms, kiwi
from geungeo.text.language import question_language
from geungeo.text.normalize import squash

# Particles that make a noun what the sentence is about: its topic (은/는, 도, 만), subject (이/가) or the owner of
# either (의: "서울대의 휴학 규정은").
_ABOUT = ("JX", "JKS", "JKG")
# Tokens read through between a name and its particle: the rest of a Latin-letter name and a parenthesised expansion
# ("LCEL(LangChain Expression Language)은").
_WITHIN_NAME = ("SL", "SSO", "SSC", "NNP")
# Tokens a name's word may go on with (nouns, affixes, letters, numbers): "한빛" + "대" + "학교", "GPT" + "4".
_WORD_PARTS = ("N", "XPN", "XSN", "SL", "SN", "SH")
# A name written before these is a law's or a rule's nickname ("김영란법"): a document name, which the router's check
# of documents the store does not hold reads.
_DOCUMENT_TAILS = ("법", "령", "규정", "규칙")


def asked_names(question: str) -> list[str]:
    """The names that the asking part of a Korean ``question`` (:func:`~geungeo.answering.details.asking_part`)
    makes its topic, subject or owner: a word holding a proper noun or Latin letters (two or more), with the nouns
    written on to it ("부산대학교는", "한빛대학교는", "LCEL(…)은", "서울대의"). A name told as a circumstance ("쿠팡에서
    산 옷", "카톡으로 해고 통보를 받았는데") or modifying another word ("카톡 해고 통보는") is not what is asked about."""
    if question_language(question) == "en":  # an English question's words are all Latin letters
        return []
    asking = asking_part(question)
    tokens = kiwi().tokenize(asking)
    names: list[str] = []
    depth = 0  # inside parentheses: what the name before them stands for, not another name
    i = 0
    while i < len(tokens):
        token = tokens[i]
        depth += (token.tag == "SSO") - (token.tag == "SSC")
        if depth > 0 or token.tag not in ("NNP", "SL") or len(token.form) < 2:
            i += 1
            continue
        end = i  # the word goes on while nouns are written on to it: 한빛 + 대학교
        while end + 1 < len(tokens) and tokens[end + 1].tag.startswith(_WORD_PARTS) and _adjoining(tokens[end], tokens[end + 1]):
            end += 1
        following = tokens[end + 1] if end + 1 < len(tokens) else None
        nickname = following is not None and following.form in _DOCUMENT_TAILS and _adjoining(tokens[end], following)
        after = next((t for t in tokens[end + 1 :] if t.tag not in _WITHIN_NAME), None)
        if not nickname and after is not None and after.tag in _ABOUT:
            names.append(asking[token.start : tokens[end].start + tokens[end].len])
        i = end + 1
    return list(dict.fromkeys(names))


def _adjoining(first: Any, second: Any) -> bool:
    return bool(first.start + first.len == second.start)


def unmentioned(question: str, mentioned: Callable[[str], bool], lexicon: Lexicon | None = None) -> list[str]:
    """The names ``question`` asks about (:func:`asked_names`) of which some part is in no stored passage
    (``mentioned``: whether some passage holds a BM25 term). "한빛대학교" is unmentioned when 한빛 is, but "한국대학교"
    is not when 한국 and 대학교 are: a word the documents space otherwise is no unknown name. Left out: a name inside
    an everyday word of the ``lexicon`` that the question uses, and one the parenthesis after it spells out in words
    the documents use ("DC(확정기여형)은")."""
    names = asked_names(question)
    if not names:
        return []
    fired = [squash(word).lower() for word in lexicon.fired(question)] if lexicon else []

    def known(words: Sequence[str]) -> bool:
        return all(mentioned(term) for word in words for term in bm25_terms(word, compounds=False))

    missing = [n for n in names if not any(n.lower() in word for word in fired) and not known([n])]
    return [n for n in missing if not _alias_of_known(question, n, known)]


def _alias_of_known(question: str, name: str, known: Callable[[Sequence[str]], bool]) -> bool:
    """Whether the parenthesis after ``name`` spells it out in words the documents use: "DC(확정기여형)"."""
    spelled = re.search(re.escape(name) + r"\s*\(([^)]*)\)", question)
    words = [t.form for t in kiwi().tokenize(spelled.group(1)) if t.tag.startswith(("NN", "SL"))] if spelled else []
    return bool(words) and known(words)
