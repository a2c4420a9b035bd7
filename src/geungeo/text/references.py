"""Citations between articles: "제840조제6호의 사유", "법 제105조제1항에 따른", "「고령자고용촉진법」 제2조제1호".

:func:`document_references` reads every article chunk of one document and says, for each citation, which
document (by title) and which article it names. Rules, over the structure of Korean statutes and
regulations (the pattern is :data:`geungeo.text.structure.REFERENCE`):

- 「X」 제N조 names X; a short name the document defines (「고등교육법」(이하 "법"이라 한다)) names X too;
- 이 법 / 이 영 / 이 규정 … and a bare 제N조 name the citing document;
- 같은 법 / 동법 name the document named last by 「…」 in the same passage, else the parent statute;
- 법 inside a 시행령/시행규칙 names the parent statute (``X법 시행령`` → ``X법``); 영/시행령 inside a 법 names
  ``X법 시행령``, 규칙/시행규칙 ``X법 시행규칙``; ``X법 시행령 제N조`` names ``X법 시행령``;
- a word ending like a title (…법, …령, …규칙, …규정, …학칙, …정관, …세칙) names that title (학칙 제36조);
- an article listed after a named one (「X」 제2조, 제3조 및 제5조, 제13조부터 제17조까지) is in the same document.

항/호/목 are kept as ``detail``; the target is the article. 부칙 passages (amendment history, other statutes'
revisions) are not read. Whether the named document is ingested is decided later, by the store, when links
are read: a citation of a document not ingested stays a citation (unresolved) until that document is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from geungeo.text.normalize import squash
from geungeo.text.structure import CIRCLED, REFERENCE, REFERENCE_ALIAS, article_label
from geungeo.types import Chunk

VERSION = 1
"""Bumped whenever the rules change: a store re-derives its links from the stored chunks when it differs."""

_DECREE = re.compile(r"^(?P<parent>.+?)\s*(?P<level>시행령|시행규칙)$")
_TITLE_END = re.compile(r"(?:법|법률|령|규칙|규정|학칙|정관|세칙|지침|요강|내규)$")
# Words ending like a title that name no particular document.
_GENERIC = frozenset({
    "법률", "법령", "관계법령", "관련법령", "관계법률", "관련법률", "대통령령", "총리령", "부령", "규칙", "규정", "세칙",
    "지침", "요강", "내규", "명령", "조례", "방법", "위법", "불법", "입법", "사법", "관계법", "관련법", "해당법",
})
_SAME = frozenset({"이", "본", "해당"})
# What may stand between two articles of one list: 제2조, 제3조 및 제5조 / 제13조부터 제17조까지 / 제23조제2항ㆍ제3항,
# 제54조 / 제288조제1항ㆍ제2항 본문, 제289조 — and the end of a remark the previous article sits in: 제909조의2(「민법」
# 제927조의2제1항에 따라 준용되는 경우를 포함한다), 제927조의2.
_LIST_GAP = re.compile(
    r"(?:[^()]*\))?"
    r"(?:[\s,·ㆍ]|및|또는|부터|내지|와|과|까지|이나|나|본문|단서|전단|후단|같은\s*조|\([^()]*\)"
    r"|제\s*\d+\s*[항호](?:\s*의\s*\d+)?|[가-하]\s*목)*"
)
# Between a 「title」 and its article only a remark: 「…에 관한 법률」(이하 "고용산재보험료징수법"이라 한다) 제5조.
_REMARK = re.compile(r"\s*\([^()]*\)\s*")
_NAMED = re.compile(r"「\s*([^「」\n]{1,80}?)\s*」")


@dataclass(frozen=True, slots=True)
class Reference:
    """One citation in a passage: the cited document's title, the article and the 항/호/목 detail."""

    source: str  # the citing chunk's id
    doc: str  # title of the cited document, as cited (the citing document's own title for 이 법, 제N조)
    article: str  # 제60조, 제43조의2
    detail: str = ""  # 제1항제2호 ('' when the article as a whole is cited)


def parent_title(title: str) -> str | None:
    """The statute a 시행령/시행규칙 implements: ``근로기준법 시행령`` → ``근로기준법``; None for anything else."""
    m = _DECREE.match(title.strip())
    return m["parent"] if m else None


def _decree_of(title: str, level: str) -> str:
    """``X법 시행령`` for level 시행령 of a statute, a 시행령 or a 시행규칙 titled from ``X법``."""
    base = parent_title(title) or title
    return f"{base} {level}"


class _Reader:
    """Decides what document a citation names inside one document."""

    def __init__(self, title: str, kind: str, aliases: dict[str, str]) -> None:
        self.title = title
        self.kind = kind
        self.parent = parent_title(title)
        self.aliases = aliases

    def bare(self, word: str) -> str | None:
        """What ``word`` before 제N조 names (no 「」, no 같은/이); None when it names no document."""
        if word in self.aliases:
            return self.aliases[word]
        if word == "법":
            return self.parent  # inside a statute 법 alone names nothing else
        if word in ("영", "시행령"):
            return self.title if self.parent and self.title.endswith("시행령") else _decree_of(self.title, "시행령")
        if word in ("규칙", "시행규칙") and self.kind == "law":
            return self.title if self.title.endswith("시행규칙") else _decree_of(self.title, "시행규칙")
        if word in ("동법", "동령"):
            return None  # handled as 같은 법 by the caller
        if word not in _GENERIC and len(word) >= 2 and _TITLE_END.search(word):
            return word
        return None

    def same_as(self, word: str, last_named: str | None) -> str:
        """같은 법, 동법, 같은 영: the document named last in the passage, else the parent or this one."""
        if last_named is not None:
            return last_named
        if word in ("법", "동법") and self.parent:
            return self.parent
        return self.title


def _aliases(chunks: Sequence[Chunk]) -> dict[str, str]:
    """Short names the document defines for other documents (「고등교육법」(이하 "법"이라 한다))."""
    found: dict[str, str] = {}
    for chunk in chunks:
        for m in REFERENCE_ALIAS.finditer(chunk.text):
            alias, title = m["alias"].strip(), m["title"].strip()
            if alias and alias not in found and "제" not in alias:
                found[alias] = title
    return found


def document_references(title: str, kind: str, chunks: Sequence[Chunk]) -> list[Reference]:
    """Every citation of an article in the article chunks of one document (in order, duplicates dropped)."""
    readable = [c for c in chunks if c.meta.get("article") and not c.meta.get("addendum")]
    reader = _Reader(title, kind, _aliases(readable))
    out: dict[tuple[str, str, str, str], Reference] = {}
    for chunk in readable:
        own = str(chunk.meta.get("article"))
        for ref in _passage_references(chunk.text, chunk.id, reader):
            if squash(ref.doc) == squash(title) and ref.article == own:
                continue  # the article citing itself (제2항 of its own 조 written in full)
            out.setdefault((ref.source, squash(ref.doc), ref.article, ref.detail), ref)
    return list(out.values())


def passage_references(text: str, title: str, kind: str = "law") -> list[Reference]:
    """The citations of one passage of the document ``title`` read alone (the short names its document defines
    elsewhere unknown): "법 제55조제1항에 따른" in 근로기준법 시행령 names 근로기준법 제55조."""
    return _passage_references(text, "", _Reader(title, kind, {}))


def _passage_references(text: str, source: str, reader: _Reader) -> list[Reference]:
    refs: list[Reference] = []
    named_at = [(m.end(), m[1]) for m in _NAMED.finditer(text)]  # every 「title」, cited article or not
    previous: tuple[int, str] | None = None  # where the last citation ended and the document it named
    for m in REFERENCE.finditer(text):
        named, det, word, sub = m["named"], m["det"], m["word"], m["sub"]
        article_at = m.start("article")
        target: str | None
        if named:
            target = named.strip()
            if sub:
                target = f"{target} {sub}"
        elif word is not None and (det == "같은" or word in ("동법", "동령")):
            last_named = next((title for end, title in reversed(named_at) if end <= m.start()), None)
            target = reader.same_as(word, last_named)
            if sub:
                target = _decree_of(target, sub)
        elif word is not None and det in _SAME:
            target = reader.title
            if sub:
                target = _decree_of(target, sub)
        else:
            target = reader.bare(word) if word else None
            if sub:
                target = _decree_of(target or reader.title, sub)
            last = next(((end, title) for end, title in reversed(named_at) if end <= m.start()), None)
            if target is None and word is None and last is not None and _REMARK.fullmatch(text, last[0], article_at):
                target = last[1]
            if target is None:
                if previous is not None and _LIST_GAP.fullmatch(text, previous[0], article_at):
                    target = previous[1]
                elif word == "법":
                    target = word  # 법 in a regulation that defines no 법: kept, resolved by title if ever
                else:
                    target = reader.title
        detail = re.sub(r"\s+", "", m["detail"] or "")
        refs.append(Reference(source, target, article_label(m["num"], m["branch"]), detail))
        previous = (m.end(), target)
    return refs


# "제1항에 따라", "제1항에도 불구하고", "제2항 및 제3항", "전항의": a 항 of the citing article itself; "제24조제1항" and
# "같은 조 제1항" name the 항 of an article (``조`` before it) and are read by :func:`passage_references`.
_OWN_PARAGRAPH = re.compile(r"(조\s*)?제\s*(\d+)\s*항|전항")
# "제1항에도 불구하고", "제1항 본문에도 불구하고": the 항 departs from the one it names (a special case of its rule).
_DEPARTING = re.compile(r"\s*(본문|단서|전단|후단)?\s*(의\s*규정)?\s*에도\s*불구하고")


def sibling_paragraphs(text: str, *, departing: bool = False) -> list[int]:
    """The 항 of its own article that a 항 (``text``, opening with its circled number) builds on, in the order it
    names them: "④ 제1항에 따라 … 나이가 된 사람" builds on ①, "② 전항의 방식에 의한 …" on ①. With ``departing``,
    only those it departs from: "④ 제1항에도 불구하고 미성년자인 상속인이 …" departs from ①."""
    own = CIRCLED.find(text[:1]) + 1 if text[:1] else 0
    out: list[int] = []
    if not own:  # not a 항: an article of one paragraph has no other 항 to build on
        return out
    for m in _OWN_PARAGRAPH.finditer(text):
        n = own - 1 if m[0] == "전항" else 0 if m[1] else int(m[2])
        if departing and not _DEPARTING.match(text, m.end()):
            continue
        if 0 < n <= len(CIRCLED) and n != own and n not in out:
            out.append(n)
    return out
