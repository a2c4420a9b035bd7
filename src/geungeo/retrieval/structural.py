"""The structural shortcut: "학칙 제15조", "근로기준법 제4장", "학칙 별표 2", "X 전문", "3-1-5".

A request that is essentially just a reference to a place in a document is answered straight
from the store, with no model: the article with its 항/호 intact, a chapter's articles in order,
an attachment, the whole text, or an overview (chapters and article titles). Real questions
("학칙에서 휴학은 몇 번까지?") are not structural: :func:`parse_structural` returns None for them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from geungeo.retrieval.scope import StoredDocuments, cites_by_name, name_key
from geungeo.stores.base import ChunkStore
from geungeo.text.normalize import nfc
from geungeo.text.structure import (
    AMENDMENT_NOTE,
    ARTICLE_MENTION,
    ARTICLE_TITLE,
    ATTACHMENT_SUFFIX,
    CIRCLED,
    DIVISION,
    article_key,
    article_label,
    attachment_label,
    normalize_article_refs,
    parse_article_head,
)
from geungeo.types import Chunk, DocumentRecord

Kind = Literal["overview", "article", "chapter", "attachment", "full"]

_FULL_WORDS = ("전문", "전체", "전부", "원문", "모든조문", "전체조문", "전체내용")
# Words asking for a document's outline: with them an unknown title is "not found"; after a plain request ("알려줘",
# "보여줘") a phrase that merely ends like a title ("등록금 반환 기준 알려줘") is a question to search.
_OUTLINE_WORDS = ("개요", "목차", "차례", "구성", *_FULL_WORDS)
# Words that may follow a reference without making it a question.
_TRAILING = re.compile(
    r"(보여\s*주세요|보여\s*줄래요?|보여\s*줘요?|알려\s*주세요|알려\s*줘요?|찾아\s*주세요|찾아\s*줘요?|주세요|"
    r"에\s*있는|에\s*속한|조문들?|조항들?|(주요\s*)?내용|본문|텍스트|모든\s*조문|전체\s*조문|전체\s*내용|"
    r"전문|전체|전부|원문|개요|목차|차례|구성|좀|을|를)\s*$"
)
_QUESTION = re.compile(r"[?？]|몇|무엇|뭐|어떻게|언제|왜|얼마")
# "What does it say" asked of a reference: "근로기준법 제60조는 뭐야?", "…가 무슨 내용이에요?", "… 내용이 뭔가요?",
# "…에는 뭐가 나와 있어?". With it stripped, a question left with only a 조/장/별표 reference asks for that text.
_ASKS_TEXT = re.compile(
    r"\s*(?:은|는|이|가|의|에는|에서는)?\s*"
    r"(?:(?:무슨|어떤)\s*내용|내용\s*(?:은|이)?(?:\s*(?:뭐|무엇|뭔))?|뭐|무엇|뭔"
    r"|(?:뭐가|무엇이|무슨\s*내용이)\s*(?:나와|적혀|쓰여|있|규정)[가-힣\s]*)"
    r"\s*(?:이야|이에요|예요|에요|야|인가요|입니까|이죠|일까요?|임|지|가요|이니|냐|니|이냐|인지|이지|요)?\s*[?？]*$"
)
# "장애학생지원규정 있나요?": asked whether a document exists, its overview answers, as it does what a document says
# ("명예교수규정은 어떤 내용이야?", :data:`_ASKS_TEXT`); a name no document has is searched.
_ASKS_EXISTS = re.compile(
    r"\s*(?:은|는|이|가|도)?\s*(?:있(?:나요|나|어요|어|습니까|니|냐|는지|을까요?|지요|죠)|없(?:나요|어요|어|습니까|니|냐))\s*[?？]*$"
)
_TITLE = re.compile(r"^[0-9A-Za-z가-힣一-鿿\s·ㆍ․・.,()「」『』_\-]{1,80}$")
_TITLE_END = re.compile(r"(?:법|법률|령|칙|규정|정관|지침|요령|내규|규약|강령|기준)$")
_NAME_PARTICLE = re.compile(r"(?<=[법률령칙정관])\s*의$|\s*에서의?$")
_CODE = re.compile(r"[(（]?\s*(?<![\d-])(\d{1,2}-\d{1,2}-\d{1,3})(?![\d-])\s*[)）]?")
_ARTICLE = re.compile(
    rf"(?<!\d)(?:제\s*)?(\d+)\s*조(?:\s*의\s*(\d+))?(?:\s*{ARTICLE_TITLE})?"
    r"(?:\s*(?:제\s*)?(\d+)\s*항)?(?:\s*(?:제\s*)?(\d+)\s*호)?$"
)
# Several articles of one document: "제60조, 제61조", "제60조와 제61조", "제60조랑 제61조", "제60조부터 제62조까지",
# "제60조~제62조".
_ARTICLE_SERIES = re.compile(
    rf"(?<!\d)({ARTICLE_MENTION})((?:\s*(?:,|및|와|과|이랑|랑|하고|그리고)\s*{ARTICLE_MENTION})+"
    rf"|\s*(?:부터|~|∼|-)\s*{ARTICLE_MENTION}\s*(?:까지)?)$"
)
_SPAN = re.compile(r"부터|~|∼|-")
# "제60조와 제61조의 차이": two articles to compare, which without a model to explain the difference is best answered
# with both texts side by side.
_COMPARISON = re.compile(
    r"\s*(?:의|은|는)?\s*(?:차이점?|비교|다른\s*점)\s*(?:은|는|이|가|을|를)?\s*(?:뭐야|뭔가요|무엇인가요|뭐예요)?\s*[?？]*$"
)
_MAX_SERIES = 20  # articles shown for one request; a longer span is better asked as its chapter
_DIVISIONS = re.compile(r"(?:제\s*\d+\s*[편장절관](?:\s*의\s*\d+)?\s*)+$")
_DIVISION_PART = re.compile(r"제\s*(\d+)\s*([편장절관])(?:\s*의\s*(\d+))?")
_MIN_OVERLAP = 20
_GIST_CHARS = 60


@dataclass(frozen=True, slots=True)
class StructuralRequest:
    """What a structural query asks for; labels are canonical (``제43조의2``, ``제4장``, ``별표 2``).

    ``exact_name`` marks a request that is structural only when its name is exactly a stored
    document's: a bare title ("교원인사규정") or, before 전문/개요, a name that does not end like
    one ("근로기준법에 대해 알려줘"). Otherwise an unknown name gets a "not found" answer.
    """

    kind: Kind
    name: str = ""
    code: str | None = None
    article: str | None = None
    chapter: str | None = None
    attachment: str | None = None
    exact_name: bool = False
    paragraph: int | None = None  # 제2항 of the article
    item: int | None = None  # 제3호 of the article (of its 항 when one is named)
    series: tuple[str, ...] = ()  # several articles: "제60조, 제61조" (each), "제60조부터 제62조까지" (a span)
    span: bool = False

    @property
    def target(self) -> str:
        """The requested place as written in messages: ``제8조``, ``제60조 제2항``, ``제4장``, ``별표 2``, ``전문``."""
        if self.series:
            return f"{self.series[0]}–{self.series[-1]}" if self.span else ", ".join(self.series)
        if self.article:
            return " ".join([self.article, *(f"제{n}{unit}" for n, unit in ((self.paragraph, "항"), (self.item, "호")) if n)])
        return self.chapter or self.attachment or ("전문" if self.kind == "full" else "개요")

    @property
    def subject(self) -> str:
        """The document as the user named it."""
        return self.name or self.code or ""


@dataclass(frozen=True, slots=True)
class StructuralSource:
    """Where an answer comes from: ``[교원인사규정 제8조]`` and the chunks it was read from."""

    label: str
    doc: str
    code: str | None
    article: str | None
    chunk_ids: list[str]


@dataclass(frozen=True, slots=True)
class StructuralAnswer:
    """The answer to a structural request, or (``found`` False) why there is none."""

    kind: Kind
    request: StructuralRequest
    text: str
    citations: list[StructuralSource] = field(default_factory=list)
    found: bool = True
    message: str = ""


# --- parsing ------------------------------------------------------------------------------------


def _strip_trailing(text: str) -> tuple[str, list[str]]:
    """``text`` without its trailing request words, and those words (spaces removed)."""
    words: list[str] = []
    while (m := _TRAILING.search(text)) and m.start() > 0:
        words.append(re.sub(r"\s+", "", m.group(1)))
        text = text[: m.start()].rstrip()
    return text, words


def _chapter_label(text: str) -> str:
    return " ".join(f"제{int(n)}{level}" + (f"의{int(b)}" if b else "") for n, level, b in _DIVISION_PART.findall(text))


def _location(text: str) -> tuple[str, Kind | None, str, tuple[int | None, int | None]]:
    """Split a trailing 조/장/별표 reference off ``text``: (the rest, its kind, its label, an article's 항 and 호)."""
    if m := _ARTICLE.search(text):
        detail = (int(m.group(3)) if m.group(3) else None, int(m.group(4)) if m.group(4) else None)
        return text[: m.start()], "article", article_label(m.group(1), m.group(2)), detail
    if m := _DIVISIONS.search(text):
        return text[: m.start()], "chapter", _chapter_label(m.group(0)), (None, None)
    if m := ATTACHMENT_SUFFIX.search(text):
        return text[: m.start()], "attachment", attachment_label(m["kind"], m["num"]), (None, None)
    return text, None, "", (None, None)


def _split_code(name: str) -> tuple[str, str | None]:
    """(name without a rule code, the code) for ``교원인사규정(3-1-5)`` or ``3-1-5``."""
    m = _CODE.search(name)
    if not m:
        return name, None
    return (name[: m.start()] + " " + name[m.end() :]).strip(), m.group(1)


def document_of(label: str) -> str:
    """The document part of a citation label: "근로기준법" of "근로기준법 제60조", "학칙" of "학칙 별표 1"."""
    return _location(label)[0].strip()


def parse_structural(query: str, *, comparisons: bool = False) -> StructuralRequest | None:
    """The structural request ``query`` makes, or None when it is a real question. With ``comparisons``, a question
    comparing articles of one document ("근로기준법 제60조와 제61조의 차이는?") asks for their texts."""
    text = re.sub(r"\s+", " ", nfc(query)).strip().strip("[]［］【】").rstrip(".!。 ")
    if comparisons and (asked := _COMPARISON.search(text)) and _ARTICLE_SERIES.search(text[: asked.start()].rstrip()):
        text = text[: asked.start()].rstrip()
    if (asked := _ASKS_TEXT.search(text)) and asked.start() > 0 and _location(text[: asked.start()].rstrip())[1]:
        text = text[: asked.start()].rstrip()  # "근로기준법 제60조는 뭐야?": the article's text is the answer
    # asked whether a document exists or what it says ("명예교수규정은 어떤 내용이야?"): a name ending like a title, not
    # a story ending "… 먼저 받을 방법 없나요?"
    asked = min(filter(None, (_ASKS_EXISTS.search(text), _ASKS_TEXT.search(text))), key=lambda m: m.start(), default=None)
    named = text[: asked.start()].rstrip() if asked else ""
    if _TITLE_END.search(named) and not re.search(r"[.?!。？！]", named):
        text = named
    if not text or _QUESTION.search(text):
        return None
    text, words = _strip_trailing(text)
    if series := _ARTICLE_SERIES.search(text):
        labels = normalize_article_refs(series.group(0))
        name, code = _split_code(_NAME_PARTICLE.sub("", text[: series.start()].strip()).strip())
        if name and not _TITLE.match(name):
            return None
        span = bool(_SPAN.search(series.group(2)))
        return StructuralRequest("article", name, code, labels[0], series=tuple(dict.fromkeys(labels)), span=span)
    rest, place, label, (paragraph, item) = _location(text)
    name, code = _split_code(_NAME_PARTICLE.sub("", rest.strip()).strip())
    if name and not _TITLE.match(name):
        return None
    if place is not None:
        pick = {k: (label if k == place else None) for k in ("article", "chapter", "attachment")}
        return StructuralRequest(
            place, name, code, pick["article"], pick["chapter"], pick["attachment"], paragraph=paragraph, item=item
        )
    titled = bool(_TITLE_END.search(name))
    if (not name and not code) or (code is None and not words and not titled):
        return None
    kind: Kind = "full" if any(w in _FULL_WORDS for w in words) else "overview"
    outline = any(w in _OUTLINE_WORDS for w in words)
    return StructuralRequest(kind, name, code, exact_name=code is None and not (outline and titled))


# --- reading chunks -----------------------------------------------------------------------------


def _join(before: str, after: str) -> str:
    """Two consecutive parts of one unit, without the overlap a hard cut repeats."""
    for size in range(min(len(before), len(after)), _MIN_OVERLAP - 1, -1):
        if before.endswith(after[:size]):
            return before + after[size:]
    return f"{before}\n{after}"


def _units(chunks: Sequence[Chunk]) -> list[list[Chunk]]:
    """Chunks grouped into the units they were cut from (a part > 1 continues the previous one)."""
    units: list[list[Chunk]] = []
    for chunk in chunks:
        part = chunk.meta.get("part")
        if units and isinstance(part, int) and part > 1 and units[-1][-1].ordinal == chunk.ordinal - 1:
            units[-1].append(chunk)
        else:
            units.append([chunk])
    return units


def _unit_text(unit: Sequence[Chunk]) -> str:
    text = unit[0].text
    for chunk in unit[1:]:
        text = _join(text, chunk.text)
    return text


def _divisions(chunk: Chunk) -> list[str]:
    """Canonical labels of the chunk's chapter path: ``["제1편", "제4장"]``."""
    path = str(chunk.meta.get("chapter") or "")
    labels = []
    for segment in path.split(" > "):
        m = DIVISION.match(segment.strip())
        if m:
            labels.append(f"제{int(m.group(1))}{m.group(2)}" + (f"의{int(m.group(3))}" if m.group(3) else ""))
    return labels


def _in_chapter(chunk: Chunk, chapter: str) -> bool:
    labels = _divisions(chunk)
    return all(part in labels for part in chapter.split())


def _attachment_match(stored: str, asked: str, *, parts: bool = False) -> bool:
    """``별표 2`` matches ``별표 2``; ``별표`` matches every 별표; 별지 and 서식 are the same family. With ``parts``,
    ``별표 2`` matches the parts it is divided into instead (``별표 2-1``, ``별표 2-2``)."""
    s_kind, _, s_num = stored.partition(" ")
    a_kind, _, a_num = asked.partition(" ")
    forms = {"별지", "서식"}
    same_kind = s_kind == a_kind or {s_kind, a_kind} <= forms
    s_num, a_num = s_num.replace("의", "-"), a_num.replace("의", "-")
    if parts:
        return same_kind and bool(a_num) and s_num.startswith(f"{a_num}-")
    return same_kind and (not a_num or s_num == a_num)


def _is_article(chunk: Chunk) -> bool:
    return bool(chunk.meta.get("article")) and not chunk.meta.get("addendum")


def _article_order(chunks: Sequence[Chunk]) -> list[str]:
    """The labels of the articles of a document's ``chunks`` (in document order), each once, 부칙 left out."""
    return list(dict.fromkeys(str(c.meta["article"]) for c in chunks if _is_article(c)))


# --- answers ------------------------------------------------------------------------------------


def _doc_label(doc: DocumentRecord) -> str:
    return f"{doc.title}({doc.code})" if doc.code else doc.title


def _ga(word: str) -> str:
    """``word`` with the subject particle 이/가 its last sound takes: ``제8조가``, ``제4장이``."""
    last = word[-1:]
    if last.isdigit():
        return word + ("가" if last in "2459" else "이")
    closed = "가" <= last <= "힣" and (ord(last) - ord("가")) % 28 != 0
    return word + ("이" if closed else "가")


def _citation(doc: DocumentRecord, place: str | None, chunks: Sequence[Chunk], article: str | None = None) -> StructuralSource:
    label = f"[{doc.title} {place}]" if place else f"[{doc.title}]"
    return StructuralSource(label, doc.title, doc.code, article, [c.id for c in chunks])


def _not_found(request: StructuralRequest, ko: str, en: str) -> StructuralAnswer:
    message = f"{ko} / {en}"
    return StructuralAnswer(request.kind, request, message, found=False, message=message)


def _missing(request: StructuralRequest, doc: DocumentRecord, listed: str, known: Sequence[str]) -> StructuralAnswer:
    """Not found in ``doc``, naming what is there instead (``listed``: nearest, chapters …)."""
    label, place = request.target, _doc_label(doc)
    hint = ", ".join(known) or "없음 / none"
    return _not_found(request, f"'{place}'에 {_ga(label)} 없습니다", f"no {label} in {place}; {listed}: {hint}")


def _nearest(labels: Sequence[str], wanted: str, n: int = 2) -> list[str]:
    """Up to ``n`` existing labels on each side of ``wanted`` in numeric order."""
    ordered = sorted(set(labels), key=article_key)
    i = sum(article_key(label) < article_key(wanted) for label in ordered)
    return ordered[max(0, i - n) : i + n]


def _chapter_line(chunk: Chunk) -> str:
    return AMENDMENT_NOTE.sub("", str(chunk.meta.get("chapter") or ""))


def _with_chapters(units: Sequence[Sequence[Chunk]], render: Callable[[Sequence[Chunk]], str]) -> list[str]:
    """Rendered units, each new chapter path announced once on its own line (부칙 excepted)."""
    lines: list[str] = []
    current = ""
    for unit in units:
        chapter = "" if unit[0].meta.get("addendum") else _chapter_line(unit[0])
        if chapter and chapter != current:
            lines.append(f"[{chapter}]")
        current = chapter or current
        lines.append(render(unit))
    return lines


def _series(request: StructuralRequest, doc: DocumentRecord, chunks: list[Chunk]) -> StructuralAnswer:
    """Several articles, each whole and cited, in the document's order: those listed, or every one of a span (its
    branch articles included: 제60조의2 between 제60조 and 제61조)."""
    labels = _article_order(chunks)
    if request.span:
        first, last = (labels.index(a) if a in labels else -1 for a in (request.series[0], request.series[-1]))
        wanted = labels[first : last + 1] if 0 <= first <= last else []
    else:
        wanted = [a for a in request.series if a in labels]
    if not wanted:
        return _missing(request, doc, "nearest", _nearest(labels, request.series[0]))
    if len(wanted) > _MAX_SERIES:
        return _not_found(
            request,
            f"{_ga(request.target)} {len(wanted)}개 조문입니다: 장(章)이나 전문으로 물어 주세요",
            f"{request.target} spans {len(wanted)} articles; ask for its chapter or the full text",
        )
    parts, citations = [], []
    for label in wanted:
        one = _article(StructuralRequest("article", request.name, request.code, label), doc, chunks)
        parts.append(one.text)
        citations += one.citations
    absent = [a for a in request.series if a not in labels] if not request.span else []
    note = [f"({', '.join(absent)}: '{doc.title}'에 없습니다 / not in {doc.title})"] if absent else []
    return StructuralAnswer("article", request, "\n\n".join([*parts, *note]), citations)


def _article(request: StructuralRequest, doc: DocumentRecord, chunks: list[Chunk]) -> StructuralAnswer:
    if request.series:
        return _series(request, doc, chunks)
    label = request.article or ""
    picked = [c for c in chunks if _is_article(c) and c.meta.get("article") == label]
    if not picked:
        return _missing(request, doc, "nearest", _nearest([str(c.meta["article"]) for c in chunks if _is_article(c)], label))
    body = "\n\n".join(_unit_text(u) for u in _units(picked))
    if request.paragraph or request.item:
        part = _detail(body, request.paragraph, request.item)
        if part is None:
            return _missing(request, doc, "paragraphs", [line[0] for line in _lines(body) if line[:1] in CIRCLED])
        body = part
    return StructuralAnswer("article", request, f"{picked[0].header}\n\n{body}", [_citation(doc, label, picked, label)])


_ITEM_LINE = re.compile(r"^\s*(\d+)(의\d+)?\.(?!\d)\s*")  # "3. …", "3.…", "3의2. …"; not "1.5배"
# An article whose first 항 runs on from its title line, as the 규정집 writes it: "제3조(부속기관) ① 본 대학교에 …".
_TITLE_THEN_PARAGRAPH = re.compile(rf"^(제\s*\d+\s*조(?:\s*의\s*\d+)?\s*(?:{ARTICLE_TITLE})?)\s*([{CIRCLED}].*)$")


def _lines(body: str) -> list[str]:
    """An article's lines, its first 항 on a line of its own when it runs on from the title."""
    lines = body.splitlines()
    if lines and (m := _TITLE_THEN_PARAGRAPH.match(lines[0])):
        return [m.group(1), m.group(2), *lines[1:]]
    return lines


def _detail(body: str, paragraph: int | None, item: int | None) -> str | None:
    """Of an article's text, the 항 ``paragraph`` (its lines up to the next 항, its 호 with it) and, of that or of the
    whole article, the 호 ``item`` (with its 목) under the sentence that leads the list; None when there is no such
    항 or 호. An article without numbered 항 is its own 제1항."""
    lines = _lines(body)
    if paragraph:
        found = _paragraph(lines, paragraph)
        if found is None:
            return None
        lines = found
    if item:
        heads = [(i, m) for i, line in enumerate(lines) if (m := _ITEM_LINE.match(line))]
        at = next((i for i, m in heads if int(m.group(1)) == item and not m.group(2)), None)
        if at is None:
            return None
        end = next((i for i, _ in heads if i > at), len(lines))
        first = heads[0][0]
        lines = lines[first - 1 : first] + lines[at:end]
    return "\n".join(lines)


def _paragraph(lines: list[str], n: int) -> list[str] | None:
    starts = [i for i, line in enumerate(lines) if line[:1] in CIRCLED]
    if not starts:
        return lines if n == 1 else None
    at = next((i for i in starts if n <= len(CIRCLED) and lines[i][0] == CIRCLED[n - 1]), None)
    if at is None:
        return None
    return lines[at : next((i for i in starts if i > at), len(lines))]


def _chapter(request: StructuralRequest, doc: DocumentRecord, chunks: list[Chunk]) -> StructuralAnswer:
    articles = [c for c in chunks if _is_article(c)]
    picked = [c for c in articles if _in_chapter(c, request.chapter or "")]
    if not picked:
        return _missing(
            request, doc, "chapters", list(dict.fromkeys(_chapter_line(c) for c in articles if c.meta.get("chapter")))
        )
    units = _units(picked)
    lines = _with_chapters(units, _unit_text)
    citations = [_citation(doc, str(u[0].meta["article"]), u, str(u[0].meta["article"])) for u in units]
    return StructuralAnswer("chapter", request, "\n\n".join([f"{_doc_label(doc)} {request.chapter}", *lines]), citations)


def _attachment(request: StructuralRequest, doc: DocumentRecord, chunks: list[Chunk]) -> StructuralAnswer:
    attached = [c for c in chunks if c.meta.get("attachment")]
    asked = request.attachment or ""
    # a 별표 the regulation divides into parts ("별표 2-1", "별표 2-2") is those parts
    picked = [c for c in attached if _attachment_match(str(c.meta["attachment"]), asked)] or [
        c for c in attached if _attachment_match(str(c.meta["attachment"]), asked, parts=True)
    ]
    if not picked:
        return _missing(request, doc, "attachments", list(dict.fromkeys(str(c.meta["attachment"]) for c in attached)))
    units = _units(picked)
    text = "\n\n".join(f"{u[0].header}\n\n{_unit_text(u)}" for u in units)
    return StructuralAnswer("attachment", request, text, [_citation(doc, str(u[0].meta["attachment"]), u) for u in units])


def _full(request: StructuralRequest, doc: DocumentRecord, chunks: list[Chunk]) -> StructuralAnswer:
    lines = _with_chapters(_units(chunks), _unit_text)
    return StructuralAnswer("full", request, "\n\n".join([f"{_doc_label(doc)} 전문", *lines]), [_citation(doc, None, chunks)])


def _gist(text: str) -> str:
    """The first line of an article's body (after its ``제N조(제목)`` head), cut short."""
    head = parse_article_head(text)
    lines = [line.strip() for line in (head[2] if head else text).split("\n") if line.strip()]
    line = lines[0] if lines else ""
    return line if len(line) <= _GIST_CHARS else line[: _GIST_CHARS - 1] + "…"


def _outline_line(unit: Sequence[Chunk]) -> str:
    meta = unit[0].meta
    if not meta.get("article"):
        return f"- {unit[0].header}"
    title = f"{meta['article']}" + (f"({meta['article_title']})" if meta.get("article_title") else "")
    gist = _gist(unit[0].text)
    return f"- {title}: {gist}" if gist else f"- {title}"


def _overview(request: StructuralRequest, doc: DocumentRecord, chunks: list[Chunk]) -> StructuralAnswer:
    units = _units(chunks)
    body = [u for u in units if not u[0].meta.get("addendum") and not u[0].meta.get("attachment")]
    articles = [u for u in body if _is_article(u[0])]
    addenda = sum(bool(u[0].meta.get("addendum")) for u in units)
    attachments = list(dict.fromkeys(str(c.meta["attachment"]) for c in chunks if c.meta.get("attachment")))
    lines = [f"{_doc_label(doc)} 개요 — 조문 {len(articles)}개, 부칙 {addenda}개, 별표·서식 {len(attachments)}개"]
    lines += list(dict.fromkeys(_with_chapters(articles or body, _outline_line)))
    if attachments:
        lines.append(f"별표·서식: {', '.join(attachments)}")
    return StructuralAnswer("overview", request, "\n".join(lines), [_citation(doc, None, chunks)])


_BUILDERS: dict[Kind, Callable[[StructuralRequest, DocumentRecord, list[Chunk]], StructuralAnswer]] = {
    "article": _article,
    "chapter": _chapter,
    "attachment": _attachment,
    "full": _full,
    "overview": _overview,
}


class StructuralLookup:
    """Answers structural requests from a :class:`ChunkStore`, without any model."""

    def __init__(self, store: ChunkStore, documents: StoredDocuments | None = None) -> None:
        self.store = store
        self.documents = documents or StoredDocuments(store)

    def _resolve(self, request: StructuralRequest) -> list[DocumentRecord]:
        """The documents the request names (every document when it names none)."""
        docs, scope = self.documents.current()
        if request.code:
            ids = scope.by_code.get(request.code, set())
        elif request.exact_name:
            ids = scope.exact(request.name)
        elif request.name:
            # A complete title must be one the store holds ("고등교육법 시행령" is not 고등교육법); a name written
            # otherwise may name one inside it.
            ids = scope.holds(request.name) if _TITLE_END.search(request.name) else scope.named(request.name)
        else:
            return docs
        picked = [d for d in docs if d.doc_id in ids]
        titled = [d for d in picked if name_key(d.title) == name_key(request.name)]
        return titled or picked

    def _unknown(self, request: StructuralRequest) -> StructuralAnswer:
        docs, _ = self.documents.current()
        if not request.subject:
            return _not_found(request, "저장된 문서가 없습니다", "the store holds no documents")
        titles = {name_key(d.title): d.title for d in docs}
        close = difflib.get_close_matches(name_key(request.subject), list(titles), n=3, cutoff=0.6)
        hint = f"; 비슷한 이름 / did you mean: {', '.join(titles[c] for c in close)}" if close else ""
        return _not_found(request, f"'{request.subject}' 문서를 찾을 수 없습니다", f"no document named '{request.subject}'{hint}")

    def unheld(self, query: str) -> tuple[list[str], list[str], bool]:
        """The documents ``query`` cites by name that the store does not hold ("소득세법상 퇴직소득세율은?": 소득세법),
        the stored titles closest to them, and whether it names a stored document beside them (nothing for an empty
        store)."""
        if not cites_by_name(query):  # most questions: no need to read the store's documents
            return [], [], False
        docs, scope = self.documents.current()
        missing = scope.absent(query) if docs else []
        if not missing:
            return [], [], False
        rest = query
        for name in missing:
            rest = rest.replace(name, " ")
        titles = {name_key(d.title): d.title for d in docs}
        close = [
            titles[c]
            for name in missing
            for c in difflib.get_close_matches(name_key(name), list(titles), n=2, cutoff=0.6)
        ]
        return missing, list(dict.fromkeys(close))[:3], bool(scope.named(rest))

    def adjacent(self, label: str, step: int) -> str | None:
        """The label of the article ``step`` places after (before, when negative) the one ``label`` names in its
        document ("근로기준법 제60조", 1 → "근로기준법 제60조의2"); None when there is none or ``label`` is no article."""
        request = parse_structural(label)
        if request is None or request.kind != "article" or not request.article:
            return None
        docs = self._resolve(request)
        if len(docs) != 1:
            return None
        order = _article_order(self.store.chunks_of(docs[0].doc_id))
        at = order.index(request.article) + step if request.article in order else -1
        return f"{docs[0].title} {order[at]}" if 0 <= at < len(order) else None

    def cited_articles(self, query: str) -> list[list[Chunk]]:
        """The articles a question cites by number in the one stored document it names ("근로기준법 제60조에 따르면
        연차휴가는 며칠?": 근로기준법 제60조), each as its chunks, in the order cited; none when it names no stored
        document, several, or one the store does not hold (a 제N조 beside 「소득세법」 is not 근로기준법's)."""
        labels = normalize_article_refs(nfc(query))
        if not labels:
            return []
        scope = self.documents.current()[1]
        named = scope.named(query)
        if len(named) != 1 or scope.absent(query):
            return []
        chunks = [c for c in self.store.chunks_of(next(iter(named))) if _is_article(c)]
        by_label: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            by_label.setdefault(str(chunk.meta["article"]), []).append(chunk)
        return [by_label[label] for label in dict.fromkeys(labels) if label in by_label]

    def answer(self, query: str, *, comparisons: bool = False) -> StructuralAnswer | None:
        """The answer to a structural query; None when the query is not structural (``comparisons``: see
        :func:`parse_structural`)."""
        request = parse_structural(query, comparisons=comparisons)
        if request is None:
            return None
        docs = self._resolve(request)
        if not docs:
            return None if request.exact_name else self._unknown(request)
        results = [(doc, _BUILDERS[request.kind](request, doc, self.store.chunks_of(doc.doc_id))) for doc in docs]
        found = [(doc, r) for doc, r in results if r.found]
        if len(found) == 1 or len(results) == 1:
            return (found or results)[0][1]
        if not found:
            return _not_found(request, f"{_ga(request.target)} 있는 문서가 없습니다", f"no document has {request.target}")
        names = ", ".join(_doc_label(doc) for doc, _ in found[:10]) + (" …" if len(found) > 10 else "")
        if request.subject:
            ko, en = f"'{request.subject}'에 해당하는 문서가 여러 개입니다", f"several documents match '{request.subject}'"
        else:
            ko, en = f"{_ga(request.target)} 있는 문서가 여러 개입니다", f"several documents have {request.target}"
        return _not_found(request, f"{ko}: {names} — 하나를 지정해 주세요", f"{en}: {names}; name one")
