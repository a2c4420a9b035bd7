"""Patterns of Korean statutes and regulations (편/장/절/관, 조, 항, 호, 목, 부칙, 별표).

Structure as data (ragflow's ``BULLET_PATTERN`` idea): loaders and the query side share these
regexes, so "제 60 조", "60조" and "제60조" are recognised and written one way everywhere.
"""

from __future__ import annotations

import re

# Bullets and list marks that open a paragraph of a report written in points (개조식: ■ □ ○ ∙ - ※ …).
BULLET = re.compile(r"^(?:[∙•·▪◦‣○●□■◇◆▶▷▹►※☞*\-–<➢❑❖✓]|\d+\.\s)")

# A line of a table of contents: an optional bullet, a title, an optional leader and the page number it is found on
# ("▹ 미국 법원, … 소송 기각 4", "Ⅱ. 디지털 정부혁신 추진계획 2"). A line so made whose title is a heading of its
# document points to that heading and states nothing itself.
CONTENTS_ENTRY = re.compile(r"^(?:[∙•·▪◦‣○●□■◇◆▶▷▹►\-–]\s*)?(?P<title>\S.*?)(?:\s*[·.․‥…]{2,})?\s+\d{1,4}$")

# A heading level of the statute hierarchy: 편 > 장 > 절 > 관.
DIVISION_LEVELS: tuple[str, ...] = ("편", "장", "절", "관")
DIVISION = re.compile(r"^제\s*(\d+)\s*(편|장|절|관)(?:의\s*(\d+))?(?=\s|$|[^\w])\s*(.*)$")

# An article's title in its parentheses. It may hold parentheses of its own, one level deep ("제26조(입시 연장(야간,
# 주말) 근로 수당)", "제50조(분사무소(分事務所) 설치의 등기)"; some statutes write "제10조((심문기일) )"): a title
# closes at the first bracket that closes no bracket of its own, on its line and within 80 characters; failing that
# (an unbalanced source: "제3조의3(정원외 전담전공(학과) 각 대학원은 …"), at the first closing bracket.
_TITLE = r"(?:[^()（）\n]|[(（][^()（）\n]*[)）]){1,80}?|[^)）]*?"
ARTICLE_TITLE = r"[(（](?:" + _TITLE + r")[)）]"
"""An article's title with its brackets, as a pattern string without groups (an article's head combines it)."""
# 제8조(휴직), 제43조의2 (…), 제 60 조: number, optional branch, optional title in parentheses.
ARTICLE_HEAD = re.compile(r"^제\s*(\d+)\s*조(?:\s*의\s*(\d+))?\s*(?:[(（]\s*(" + _TITLE + r")\s*[)）])?\s*(.*)$", re.S)
ARTICLE_REF = re.compile(r"제?\s*(\d+)\s*조(?:\s*의\s*(\d+))?(?![가-힣])|제\s*(\d+)\s*조(?:\s*의\s*(\d+))?")
# One article as a person names it: 제60조, 60조의2, 제 60 조, with a particle after it ("60조에"); not "3조원" (an
# amount). A pattern string without groups, for requests that combine several ("제60조와 제61조").
ARTICLE_MENTION = r"(?:제\s*)?\d+\s*조(?!\s*원)(?:\s*의\s*\d+)?"
PARAGRAPH_MARK = re.compile(r"^\s*(?:\*\*)?([①-⑳㉑-㉟])")
ITEM_MARK = re.compile(r"^\s*(\d+)\\?\.\s")
SUBITEM_MARK = re.compile(r"^\s*([가-하])\.\s")
ADDENDUM = re.compile(r"^\s*부\s*칙(?:\s*[<(〈].*)?\s*$")
# An amendment note after a heading: 제8장 호봉승급의 제한 <신설 2008. 3. 1>.
AMENDMENT_NOTE = re.compile(r"\s*<[^<>]*>")

# The loaders' article heads. Strict: 제8조(휴직), 제3조 <삭제 …>, 제13조 내지 제17조 (삭제).
ARTICLE_START = re.compile(r"^제\s*\d+\s*조(?:\s*의\s*\d+)?\s*(?:[(（<〈]|내지|$)")
# 제7조 이 규정에… (no title): an article head only when it is the next number.
LOOSE_ARTICLE = re.compile(r"^제\s*(\d+)\s*조\s")
# 제10조2 (분실…), 제6조 2 (…): branch articles printed without 의.
BRANCH_TYPO = re.compile(r"^제\s*(\d+)\s*조\s*(\d+)\s*(?=[(（])")
# A canonical label as stored (제43조의2): its number and branch.
ARTICLE_LABEL = re.compile(r"제(\d+)조(?:의(\d+))?")

# A citation of an article, with what names its document: 「고령자고용촉진법」 제2조제1호, 같은 법 제3조, 이 영 제5조,
# 법 제105조제1항, 동법 시행령 제2조, 학칙 제36조, a bare 제840조제6호. ``det`` (같은, 이, 해당, 본) and ``word`` (the word
# right before 제N조) are only candidates: :mod:`geungeo.text.references` decides what they name; ``detail`` keeps 항/호/목.
REFERENCE = re.compile(
    r"(?:「\s*(?P<named>[^「」\n]{1,80}?)\s*」\s*|(?:(?P<det>같은|이|해당|본)\s+)?(?P<word>[가-힣A-Za-z0-9ㆍ·]+)\s*)?"
    r"(?P<sub>시행령|시행규칙)?\s*"
    r"(?P<article>제\s*(?P<num>\d+)\s*조(?:\s*의\s*(?P<branch>\d+))?)"
    r"(?P<detail>(?:\s*제\s*\d+\s*[항호](?:\s*의\s*\d+)?)*(?:\s*[가-하]\s*목)?)"
)
# A term a provision defines, quoted before "(이)란" or "(이)라 함은" (statutes: 1. "근로자"란 …, "사용자"라 함은 …), or
# opening a clause unquoted before "(이)라 함은" (regulations: 제2조(정의) 연구년 교원이라 함은 …).
DEFINED_TERM = re.compile(r"[\"“'‘「]([^\"”'’」\n]{1,30})[\"”'’」]\s*(?:이)?(?:란|라\s*함은)")
_DEFINED_PLAIN = re.compile(
    rf"(?m)^(?:제\s*\d+\s*조(?:의\s*\d+)?\s*(?:{ARTICLE_TITLE})?\s*)?(?:[①-⑳]\s*|\d+\.\s*)?"
    r"([^,.\"“”'‘’「」\n]{1,25}?)(?:이)?라\s*함은"
)
# A defined short name: 「고등교육법」(이하 "법"이라 한다) — later "법 제N조" cites 고등교육법.
_QUOTE = "\"“”'‘’"
REFERENCE_ALIAS = re.compile(
    rf"「\s*(?P<title>[^「」\n]{{1,80}}?)\s*」\s*\(\s*이하\s*[{_QUOTE}]?(?P<alias>[^{_QUOTE}()\s]{{1,10}}?)[{_QUOTE}]?\s*(?:이)?라\s*한다"
)

# 별표 1, 별지 제3호 서식, 서식 2-1, 별첨: the kind and number of an attachment, written once for both sides.
_ATTACHMENT_CORE = (
    r"(?P<kind>별표|별지|서식|별첨)\s*(?:서식\s*)?(?:제\s*)?(?P<num>\d+(?:\s*[-의]\s*\d+)?)?\s*(?:호)?\s*(?:서식)?"
)
# A loader's attachment title line: [별표 1], <별표 2-1>, (별지 제3호 서식), [별지 서식 2], 【서식 1】.
ATTACHMENT_HEAD = re.compile(r"^[\[［【<〈〔(]\s*" + _ATTACHMENT_CORE + r"\s*(?:\(\d+-\d+\))?\s*[\]］】>〉〕)]")
# A query ending in an attachment reference: "교원인사규정 별표 2".
ATTACHMENT_SUFFIX = re.compile(_ATTACHMENT_CORE + "$")
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳㉑㉒㉓㉔㉕㉖㉗㉘㉙㉚㉛㉜㉝㉞㉟"


def article_label(number: int | str, branch: int | str | None = None) -> str:
    """Canonical article label: ``제8조`` or ``제43조의2``."""
    return f"제{int(number)}조" + (f"의{int(branch)}" if branch else "")


_WRAPPED = re.compile(r"[(（][^()（）]*[)）]")


def parse_article_head(line: str) -> tuple[str, str | None, str] | None:
    """Split ``제8조(휴직) ① 교원이…`` into (``제8조``, ``휴직``, rest); None if not an article head."""
    m = ARTICLE_HEAD.match(line.strip())
    if not m:
        return None
    number, branch, title, rest = m.groups()
    title = title.strip() if title else None
    if title and _WRAPPED.fullmatch(title):  # "제10조((심문기일) )": the title is 심문기일
        title = title[1:-1].strip()
    return article_label(number, branch), title or None, rest.strip()


def defined_terms(text: str) -> list[str]:
    """The terms ``text`` defines, quoted or opening a clause (:data:`DEFINED_TERM`)."""
    return [*DEFINED_TERM.findall(text), *_DEFINED_PLAIN.findall(text)]


def unwrap_line_breaks(paragraph: str) -> str:
    """A paragraph's text with each line break inside it (HWP's control 10, HWPX's ``<hp:lineBreak/>``) read as the
    space it wraps ("○ … 디지털 전환(Digital Transformation)" / "시대가 도래함에 따라 …", "온라인(공공‧민간)" / "으로
    받고"), unless the line after it opens with a mark of its own: a bullet, a list item, a circled 항, an article."""
    lines = paragraph.split("\n")
    out = lines[:1]
    for line in lines[1:]:
        start = line.lstrip()
        own = not start or BULLET.match(start) or LIST_ITEM.match(start) or start[0] in CIRCLED or ARTICLE_START.match(start)
        if own or not out[-1].strip():
            out.append(line)
        else:
            out[-1] = f"{out[-1].rstrip()} {start}"
    return "\n".join(out)


def normalize_article_refs(text: str) -> list[str]:
    """Every article ``text`` names (:data:`ARTICLE_MENTION`) as canonical labels: "제60조, 60조의2" → ["제60조",
    "제60조의2"]."""
    return [article_label(*re.findall(r"\d+", mention)[:2]) for mention in re.findall(ARTICLE_MENTION, text)]


def division_label(line: str) -> tuple[str, str] | None:
    """(level, label) for a 편/장/절/관 heading such as ``제2장 근로계약``."""
    m = DIVISION.match(line.strip())
    if not m:
        return None
    number, level, branch, title = m.groups()
    label = f"제{int(number)}{level}" + (f"의{int(branch)}" if branch else "")
    title = title.strip()
    return level, f"{label} {title}".strip()


def paragraph_number(line: str) -> int | None:
    """1-based 항 number of a line starting with ①…㉟, else None."""
    m = PARAGRAPH_MARK.match(line)
    return CIRCLED.index(m.group(1)) + 1 if m else None


def attachment_label(kind: str, number: str | None) -> str:
    """Canonical attachment label: ``별표 2``, ``별지 2-1`` (spaces inside the number dropped)."""
    digits = re.sub(r"\s+", "", number or "")
    return f"{kind} {digits}".strip()


def article_key(label: str) -> tuple[int, int]:
    """Sort key of a canonical label: ``제43조의2`` → (43, 2); (0, 0) for anything else."""
    m = ARTICLE_LABEL.fullmatch(label)
    return (int(m.group(1)), int(m.group(2) or 0)) if m else (0, 0)


# The clauses of a provision as the extractive answer quotes them (answering/clauses.py).
# Bare headings and titles: 부칙 lines, 편/장/절/관 headings, an article's number and title on its own line
# ("제3조(출산휴가)"), bracketed titles and table or figure captions.
BARE_HEADING = re.compile(
    r"^(부칙\s*<[^>]*>|제\d+(편|장|절|관)\b.*|제\d+조(의\d+)?\s*" + ARTICLE_TITLE + r"|\[[^\]]*\]|[<‹〈《][^>›〉》]*[>›〉》])$"
)
# A line naming a source ("☞ 출처: Galileo, …", "자료: 통계청"): it attributes what is around it, it does not say it.
SOURCE_LINE = re.compile(r"^(?:[※☞*]\s*)?(?:출처|자료|source)\s*[:：]", re.I)
# A 항 run into the line before it ("…말한다. ② …"): it starts a clause of its own.
RUN_IN_PARAGRAPH = re.compile(rf"(?<=[.다>)\]])\s*(?=[{CIRCLED}])")
# 호 ("1.", "2의2."), 목 ("가.") and numbered items ("1)", "가)").
LIST_ITEM = re.compile(r"^(\d+(의\d+)?\.|[가-하]\.|\d+\)|[가-하]\))\s*\S")
# A sentence that leads a list: "다음 각 호의 어느 하나에 해당하는 …", "다음과 같다", or one ending in a colon.
LIST_LEAD = re.compile(r"다음\s*각\s*(호|목)|다음의\s*(각\s*)?(호|사항|경우)|다음과\s*같|아래와\s*같|[:：]\s*$")
# A lead that lists conditions, cases or persons ("다음 각 호의 어느 하나에 해당하는 사유로", "다음 각 호의 자는"),
# unlike one that lists amounts or a schedule ("다음 각 호의 구분에 따라 … 지급한다").
CONDITION_LIST = re.compile(
    r"다음\s*각\s*(호|목)의?\s*(어느\s*하나|1|하나)에\s*해당|다음\s*각\s*(호|목)의\s*(자|사람|경우|사유)|다음의\s*(각\s*)?경우"
    r"|다음\s*각\s*(호|목)에\s*해당하는\s*(자|사람|경우|사유|때)"
)
# A clause naming the kinds a thing comes in: "징계는 파면, 해임, 강등, 정직, 감봉, 견책으로 한다", "실업급여는
# 구직급여와 취업촉진 수당으로 구분한다", "보험급여의 종류는 다음 각 호와 같다", "휴학은 다음 각호와 같이 구분한다".
_KIND = r"[^\s,ㆍ·]{1,12}"
KINDS_LIST = re.compile(  # three kinds or more, or two said to be the kinds ("…와 …으로 구분한다")
    rf"(?:{_KIND}\s*[,ㆍ·]\s*){{1,}}(?:{_KIND}\s*[,ㆍ·]\s*|{_KIND}\s*(?:및|또는)\s*){_KIND}\s*(?:으로|로)\s*"
    r"(?:한다|하되|하며|하고|구분|나눈|나누)"
    r"|(?:으로|로)\s*(?:구분|분류)(?:한다|하며|하고|된다)|종류는\s*다음|다음\s*각\s*(?:호|목)(?:와|과)\s*같이\s*(?:구분|분류)"
)
# A provision that leaves the matter to another instrument: "대통령령으로 정한다", "고용노동부령으로 정하는 기준",
# "법률로 정한다", "따로 정한다", "학칙으로 정하는".
DELEGATION = re.compile(
    r"(령|법률|규칙|조례|고시|규정|세칙|정관|학칙|위원회)\s*(으로|로|에서)\s*정(한다|하는|할|하여|한)|(따로|별도로)\s*정(한다|하는|할|하여|한)"
)
# A sanction's figure: "3년 이하의 징역", "500만원 이상 3천만원 이하의 벌금", "1천만원 이하의 과태료". A 벌칙 article
# repeats the words of the duty it enforces, so its figures read like an answer to a question about the duty.
_SANCTION_FIGURE = r"\d[\d,.]*\s*([만천억]\s*)*(원|년|개월|월|일)"
SANCTION = re.compile(
    rf"{_SANCTION_FIGURE}\s*(이상\s*)?({_SANCTION_FIGURE}\s*)?(이하|미만)의\s*(?P<kind>징역|금고|벌금|과태료|과료|과징금|구류|자격정지)"
)
# A question about sanctions: what the 벌칙 articles state. Besides naming one, a question asks it by asking what
# disadvantage follows: "안 따르면 어떤 불이익이 있나요?" (not "불이익을 줘도 되나요?", whether one may be imposed;
# nor "위반하면 면허는 어떻게 되나요?", which asks about the licence).
ASKS_SANCTION = re.compile(
    r"처벌|벌금|벌칙|과태료|과징금|징역|금고형|형량|몇\s*년\s*형|제재|형사|penalt|fine[sd]?\b|punish|prison"
    r"|불이익이?\s*(있|따르|생기)",
    re.IGNORECASE,
)
# The kinds of sanction a question may name as such: a 과태료 (an administrative fine) or a 과징금 (a surcharge) is not
# the 벌금 of a criminal conviction. "벌금" names no kind: people call any fine so.
_NAMED_SANCTION = re.compile(r"과태료|과징금")


def named_sanction(question: str) -> str | None:
    """The one kind of sanction ``question`` names as such ("과태료 얼마까지 나오나요?": 과태료), else None."""
    kinds = set(_NAMED_SANCTION.findall(question))
    return kinds.pop() if len(kinds) == 1 else None


def other_sanction(text: str, kind: str) -> bool:
    """Whether ``text`` states sanctions (:data:`SANCTION`) and none of them of ``kind`` ("500만원 이하의 벌금" for
    과태료)."""
    stated = {m["kind"] for m in SANCTION.finditer(text)}
    return bool(stated) and kind not in stated


# An article's heading at the start of its text: "제5조(목적)", "제3조 ① …" or "제2조 삭제" (not a sentence opening
# with a reference: "제8조에 따른 …", "제44조ㆍ제45조 또는 제66조를 위반한 자는 …", "제49조 및 제50조는 …").
ARTICLE_PREFIX = re.compile(r"^제\s*\d+\s*조(의\s*\d+)?(\s*" + ARTICLE_TITLE + r"|(?=\s*([<①-⑳]|삭제|생략|$)))\s*")
# Amendment notes: "<개정 2012.2.1>" in statutes, "(개정 2008.01.29., 2016.10.20.)" in the regulation book.
AMENDMENT = re.compile(
    r"\s*<(개정|신설|전문개정|본조신설|제목개정|타법개정)[^>]*>|\s*\[(본조신설|전문개정|제목개정)[^\]]*\]"
    r"|\s*\((개정|신설|전문개정|본조신설|제목개정|타법개정)[\d.,\s]*\)"
)
