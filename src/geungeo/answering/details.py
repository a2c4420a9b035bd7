"""What a question asks for, and whether a clause states it: the kinds of figure (나이, 몇 %, 얼마, 며칠 …) and
questions asking for the cases or conditions themselves.

A question asking for a figure the evidence never states is the typical near miss behind "근거 부족": the article
exists but delegates or omits the detail (:func:`geungeo.answering.extractive.extract` refuses it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from geungeo.text.kiwi import bm25_terms
from geungeo.text.structure import AMENDMENT, KINDS_LIST, SANCTION

# Korean numerals as a word of their own ("오천", "삼분의"), not a syllable inside one: "연구원" is not 9원 and
# "30일분의" not 1분의.
_HANGUL_NUMBER = r"(?<![가-힣\d])[일이삼사오육칠팔구십백천만억]+"
# Amounts written in Korean numerals ("일만원", "오천 원"), as regulations often do.
_HANGUL_AMOUNT = rf"{_HANGUL_NUMBER}\s*원"


@dataclass(frozen=True)
class Detail:
    """A kind of figure a question may ask for, and how a passage that states it reads.

    A question asking for a figure the evidence never states ("만 몇 세", "몇 %") is the typical
    near miss: the article exists but delegates or omits the detail. A question asks with a phrase
    (몇/얼마/며칠, ``asks``) or with a noun among its Kiwi terms (나이, 기한, ``nouns``; so that
    "아기한테" does not ask for a 기한); ``unless`` marks a phrase that asks for another kind
    ("기간이 최대 얼마" is a period, not an amount) unless ``despite`` says otherwise ("비용이 얼마나" is an amount);
    "몇 달째" and "몇 번이나" tell a story instead. One asked for this year or term is ``dated``: only a clause naming
    a year states it.
    A passage states the figure with a number ("15일", "100분의 50", "30만원", "일만원"); the bare
    word ("금액", "연령", "기간") names the detail without stating it. A deadline may also be
    "지체 없이" or "즉시", a cost "실비".
    """

    name: str
    asks: re.Pattern[str]
    states: re.Pattern[str]
    nouns: frozenset[str] = frozenset()
    unless: re.Pattern[str] | None = None
    despite: re.Pattern[str] | None = None  # asks for this kind even where ``unless`` matches
    # a way of stating it that names an event rather than the figure ("관리할 수 있을 때까지" for a time limit):
    # it answers only when no clause states the figure itself
    weakly: re.Pattern[str] | None = None
    dated: bool = False  # asked for this year or term ("올해 … 몇 %"): stated only by a clause naming a year

    def asked(self, question: str, terms: set[str]) -> bool:
        """Whether ``question`` (with its Kiwi ``terms``) asks for this kind of figure."""
        if (
            self.unless is not None
            and self.unless.search(question)
            and not (self.despite is not None and self.despite.search(question))
        ):
            return False
        return bool(self.asks.search(question) or self.nouns & terms)


def _detail(
    name: str, asks: str, states: str, nouns: str = "", unless: str = "", despite: str = "", weakly: str = ""
) -> Detail:
    return Detail(
        name,
        re.compile(asks, re.IGNORECASE),
        re.compile(states),
        frozenset(nouns.split()),
        re.compile(unless) if unless else None,
        re.compile(despite) if despite else None,
        re.compile(weakly) if weakly else None,
    )


# "몇 만 명", "몇 천 원", "몇 백 미터": a figure asked in tens of thousands is still asked by its counter.
_SOME = r"몇\s*(십|백|천|만|십만|백만|천만|억)?\s*"
# A share written as the documents write one: "1/3", "3분의 1", "100분의 50", "50%", "2할", "2배", "과반수".
_SHARE = (
    rf"\d+\s*/\s*\d+|분의\s*\d|\d+\s*분의|{_HANGUL_NUMBER}\s*분의|\d+(\.\d+)?\s*(퍼센트|%|퍼밀|할|배)"
    r"|과반수|반수|전원"
)
# "얼마" asks for an amount of money or a share of something ("한 학기에 최대 얼마" is answered by "수업시간의 1/3
# 이내"); an age, a period or a grade is another kind.
# A sum of money: "30만원", "일만원", "실비".
_SUM = rf"\d[\d,]*\s*([만천억]\s*)*원|{_HANGUL_AMOUNT}|실비"
_AMOUNT = rf"{_SUM}|{_SHARE}"
# "기간이 최대 얼마예요", "얼마 동안": a period asked with 얼마 ("몇 달 동안 얼마만큼 줄어드나요" asks how much over
# the period: 얼마 after 동안 is an amount).
_PERIOD_HOW_MUCH = r"(기간|일수)[^?.!,]{0,12}얼마|얼마(나|\s*(안에|동안|지나|만에|후))"  # not "얼마 나오나요"
# 얼마 right after a noun and its particle, perhaps with a word of degree: "비용은 대략 얼마", "점수가 최소 얼마".
_HOW_MUCH_AFTER = r"\s*(은|는|이|가|을|를|도)?\s*(최대|최소|보통|대략|대충|총)?\s*얼마"
# "비용이 얼마나 드나요", "등록금을 얼마나 내야": 얼마 right after a word for money asks an amount, 얼마나 included.
_MONEY = (
    r"비용|돈|금액|요금|수수료|가격|값|보험료|수업료|수강료|이용료|사용료|입학금|등록금|월급|임금|급여|보수|수당|연금|"
    r"보상금|배상금|벌금|과태료|과징금|위약금|보증금|장학금|장려금|상금|이자|세금|여비|경비|강사료|예산|대금|차임|월세"
)
_MONEY_HOW_MUCH = rf"({_MONEY}){_HOW_MUCH_AFTER}"
# Money asked for ("장학금이나 장려금 같은 게 얼마 나오나요?") is stated as a share only of money ("등록금의 50%"), not of
# something else ("전체 이수학점의 50% 이상 취득").
_MONEY_AMOUNT = re.compile(rf"{_SUM}|(?s:^(?=.*?(?:{_MONEY})).*?(?:{_SHARE}))")
_ASKS_MONEY = re.compile(_MONEY)
# "점수가 얼마예요", "배점은 얼마": a score asked with 얼마, stated in points ("100점"), not money.
_SCORE_HOW_MUCH = rf"(점수|평점|배점|평가점수){_HOW_MUCH_AFTER}"
_AMOUNT_ASKED = _detail(
    "금액 / amount",
    rf"얼마|{_SOME}원|how much",
    _AMOUNT,
    unless=f"{_PERIOD_HOW_MUCH}|{_SCORE_HOW_MUCH}",
    despite=_MONEY_HOW_MUCH,
)
# "몇 개월" asks for a period, "18개월" states one; the kinds a clause names are counted ("몇 가지": "파면, 해임, …
# 견책으로 한다"), and so are the major ones a plan names ("6대 우선 추진과제", not "제6대 총장" nor "3대학")
COUNT = _detail(
    "개수 / count",
    rf"{_SOME}(개(?!\s*월)|가지|종|건|곳)|how many (kinds|types|cases|items)",
    r"\d+\s*(개(?!\s*월)|가지|종|건|곳)|(?<![제\d])\d+\s*대(?!학)",
    weakly=KINDS_LIST.pattern,
)
DETAILS: tuple[Detail, ...] = (
    _detail("나이 / age", r"몇\s*세|몇\s*살|how old", r"\d+\s*(세|살)", nouns="나이 연령"),
    _detail("비율 / rate", r"몇\s*(%|퍼센트|프로)|percent", _SHARE, nouns="비율"),
    _AMOUNT_ASKED,
    _detail("수량 / quantity", _PERIOD_HOW_MUCH, rf"\d|지체\s*없이|즉시|{_SHARE}", unless=_MONEY_HOW_MUCH),
    _detail("일수 / days", r"며칠(?!\s*째)|몇\s*일(?!\s*째)|how many days", r"\d+\s*일|\d+\s*(개월|월|주|년)"),
    _detail("시간 / hours", r"몇\s*시간|how many hours", r"\d+\s*시간"),
    _detail("시각 / time of day", r"몇\s*시(?!간)|what time", r"\d+\s*시(?!간)|\d{1,2}:\d{2}"),
    # a score is also a grade point average ("평점평균이 4.30 이상")
    _detail("점수 / score", rf"몇\s*점|what score|{_SCORE_HOW_MUCH}", r"\d+(\.\d+)?\s*점|평점\s*(평균)?\D{0,6}\d\.\d"),
    _detail("달 / month", r"몇\s*월|which month", r"\d+\s*월"),
    COUNT,
    _detail("거리 / distance", rf"{_SOME}(미터|m\b|킬로|km)|how far", r"\d+\s*(미터|m\b|킬로미터|km)"),
    # who holds an office now, or how to reach them ("지금 소장님이 누구세요? 연락드리고 싶어서요"): a rule says who may
    # hold it ("소장은 … 교원 중에서 총장이 임명한다"), not who does; a name, a telephone number or an address does
    _detail(
        "현직자·연락처 / current holder or contact",
        r"(지금|현재|요즘|올해)\s*\S{0,15}?\s*누구(세요|예요|에요|야|인가요|인지|지|입니까|이에요)|연락처|전화\s*번호|이메일"
        r"|e-?mail|who is the current",
        r"\d{2,4}[-)]\s*\d{3,4}-\d{4}|[\w.+-]+@[\w-]+\.[\w.]+|성\s*명\s*:\s*[가-힣]{2,4}",
    ),
    _detail("인원 / headcount", rf"{_SOME}명", r"\d+\s*(명|인)"),
    _detail("학점 / credits", r"몇\s*학점", r"\d+\s*학점"),
    _detail("횟수 / times", rf"{_SOME}(번|회)(?!\s*이나)|how many times", r"\d+\s*(회|번|차|기)"),
    _detail("기간 / period", r"몇\s*(개월|달|주|학기)(?!\s*째)|how long", r"\d+\s*(년|개월|월|주|일|학기)"),
    # a period asked in years is stated in years, months or semesters, not by "10일 이내" about something else
    _detail("기간 / period", r"몇\s*년(?!\s*(째|형))", r"\d+\s*(년|개월|월|학기)"),
    # "몇 년형", "형량": a prison term, stated as the law writes it ("10년 이하의 징역", "무기 또는 5년 이상의 징역"), not
    # by a period of another kind ("운전면허가 취소된 날부터 2년")
    _detail(
        "형량 / prison term",
        r"몇\s*년\s*형|형량|(징역|금고)\s*(은|이|을)?\s*몇|prison term|years in prison",
        r"\d+\s*년\s*(이상|이하|미만)?\s*의?\s*(유기)?\s*(징역|금고)|(징역|금고)\s*\d+\s*년|무기\s*(징역|금고|또는)",
    ),
    _detail(  # statutes write months the old way: "3월 이내", "6월내"
        "기한 / deadline",
        r"언제까지|deadline",
        # "까지" after a date or a time word ("말일까지", "31일까지", "그 때까지"); not a range of provisions
        # ("제3항부터 제5항까지": the provisions are cut out before matching, the bare "까지" is left).
        # A time limit is also written as the time after which a right lapses: "6개월이 지난 때에는 그러하지 아니하다",
        # "1년이 경과하면", "3년간 행사하지 아니하면".
        r"\d+\s*(일|개월|월|년|주)\s*(이내|내|전|까지|후|안)|지체\s*없이|즉시|(날|일|그\s*때|월|년|시|말|기일)\s*까지"
        r"|\d+\s*(일|개월|월|년|주)\s*(이|가)?\s*(지나|지난|경과)|\d+\s*(일|개월|월|년|주)\s*간\s*(이를\s*)?행사하지"
        # or as a term counted from a day: "위촉일로부터 1년간" (not "서면을 받은 날부터 7일", a period for doing something)
        r"|부터\s*\d+\s*(일|개월|월|년|주)\s*간",
        nouns="기한 마감 마감일",
        # until an event ("관리할 수 있을 때까지", "졸업할 때까지") or within a period set elsewhere ("이의신청 기간 내에"):
        # the answer when no clause states a time limit
        weakly=r"때\s*까지|기간\s*(내|안)에",
    ),
)

# Numbers that are not figures: cross-references (제4조제1항제4호, 「법」), amendment notes (<개정 2012.2.1>),
# dates, 별표 numbers and list marks.
_NOT_A_FIGURE = re.compile(
    r"제\s*\d+\s*(편|장|절|관|조|항|호|목)(의\s*\d+)?|「[^」]*」|<[^>]*>|\[[^\]]*\]|\d{4}\s*[.년]\s*\d{1,2}\s*[.월]\s*\d{1,2}\s*[.일]?"
    r"|(별표|별지|서식)\s*\d+|(?m:^\s*\d+\.\s)|[①-⑳]"
)


# A table cell quoted under a header naming its unit ("금액(원): 50,000", "기간(일): 30") or counting in it ("일수: 3",
# "일 수: 3", "횟수: 2"): the number in that unit.
_UNIT_HEADER = re.compile(r"\(\s*([^\d\s():,]{1,3})\s*\)\s*:\s*(\d[\d,.]*)")
_COUNT_HEADER = re.compile(r"(일|개월|시간|학점|인원|권|횟)\s?수\s*:\s*(\d[\d,.]*)(?=\s*(?:$|,|\n|\())")
_COUNTED_IN = {"횟": "회", "인원": "명"}
# A sum under a header naming money ("지급액: 904,000", "강사료: 15,000"): written in thousands, it is in 원.
_MONEY_HEADER = re.compile(rf"((?:{_MONEY})|[가-힣]+액)\s*:\s*(\d{{1,3}}(?:,\d{{3}})+)(?![\d,]|\s*[%만천억원])")


def _in_units(text: str) -> str:
    """``text`` with each table cell quoted under a header naming or counting its unit written as a figure in that
    unit ("일수: 3" → ": 3일", "지급액: 904,000" → ": 904,000원")."""
    text = _UNIT_HEADER.sub(r": \2\1", text)
    text = _MONEY_HEADER.sub(r"\1: \2원", text)
    return _COUNT_HEADER.sub(lambda m: f": {m[2]}{_COUNTED_IN.get(m[1], m[1])}", text)


# A figure asked for this year or this term ("올해 건강보험료율이 정확히 몇 %예요?", "이번 2학기 등록금 납부 마감일이 몇
# 월 며칠이에요?"; not "이번 학기에 임용됐는데 …", which tells the story, nor "이번 학기에 휴학하면 얼마 …", whose
# condition it is): it changes from year to year and is set by that year's notice or decision, so a rule that names no
# year ("1천분의 80의 범위에서 대통령령으로 정한다") does not state it.
_THIS_YEAR = re.compile(
    r"(올해|금년|이번\s*\d?\s*(?:해|연도|년도|학기))(?:(?!는데|은데|인데|지만|면\s)[^,.?!？])*?(몇|며칠|얼마|언제|what|how)",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<![\d,])(19|20)\d{2}\s*(년|학년도|\.)|[’‘']\s*\d{2}\s*년")


def _for_this_year(detail: Detail, when: str) -> Detail:
    ko, en = detail.name.split(" / ")
    return replace(detail, name=f"{when}의 {ko} / {en} for this {'term' if when.endswith('학기') else 'year'}", dated=True)


def states(detail: Detail, text: str, *, sanctions: bool = True, weakly: bool = True) -> bool:
    """Whether ``text`` states a figure of ``detail``'s kind (cross-references, dates and list marks do not count,
    nor, unless ``sanctions``, the figures of a penalty: "3천만원 이하의 벌금" does not answer what a meal may cost).
    A table row quoted as ``header: cell`` states its cell in the unit its header names or counts ("금액(원): 50,000",
    "일수: 3").
    Unless ``weakly``, a statement naming an event in place of the figure ("…할 때까지") does not count."""
    if detail.dated and not _YEAR.search(AMENDMENT.sub(" ", text)):  # an amendment's date dates no figure
        return False
    text = _in_units(_NOT_A_FIGURE.sub(" ", text))
    if not sanctions:
        text = SANCTION.sub(" ", text)
    return bool(detail.states.search(text) or (weakly and detail.weakly is not None and detail.weakly.search(text)))


# A question asking for the cases, grounds or conditions themselves: "휴직할 수 있는 경우는?", "어떤 경우에 …",
# "심사청구 자격", "허용 조건이 뭐예요?" (not "퇴사하는 경우 퇴직금은 …" or "그런 경우에는 어떻게 되나요?", where 경우
# sets the scene for what is asked).
_ASKS_CASES = re.compile(
    r"(어떤|무슨|어느)\s*(경우|사유|때|요건|조건)"
    r"|(경우|사유|요건|조건|자격)\s*(는|은|가|이|를|을|에는|엔|으로는|로는)?\s*(무엇|뭐|있|\?|$)"
)


def asks_cases(question: str) -> bool:
    """Whether ``question`` asks for the cases, grounds or conditions of something (a list of them answers it)."""
    return bool(_ASKS_CASES.search(question.strip()))


# A question asking for the kinds a thing comes in: "징계의 종류는?", "몇 가지야?", "어떤 단계로 나뉘어?", "어떻게 구분돼?"
# (not "구분소유자").
_ASKS_KINDS = re.compile(r"종류|몇\s*가지|(어떤|무슨)\s*(단계|등급|유형)|나뉘|나누어지|나눠지|구분(되|돼|하나|해)")


def asks_kinds(question: str) -> bool:
    """Whether ``question`` asks for the kinds a thing comes in (a clause naming them answers it)."""
    return bool(_ASKS_KINDS.search(question))


# A figure told as the background of the question, in a clause ending in "-는데" ("건보료 몇 달 밀렸는데 병원 가면 …?",
# "보증금이 얼마인데 …"), or describing a thing ("몇 달짜리 학습지"): it sets the scene; what is asked comes after it.
_TOLD = re.compile(r"(몇|며칠|얼마)[^?？.!,]{0,20}?(는데|은데|인데|던데|ㄴ데)(?=[\s,]|$)|몇\s*\S{1,3}\s*짜리")


# A sentence of the question followed by another: the question marks and endings that make it ask something, a
# figure word with the copula ("며칠이에요.", "얼마예요."), and a last sentence asking to be told what comes before it.
_SENTENCE = re.compile(r"(?:[^.!?？ㅠㅜ]|(?<=\d)\.(?=\d))+(?:[.!?？ㅠㅜ~]+|$)")  # "3.2점" is one sentence
_ASKING_END = re.compile(r"([?？]|(나요|까요|가요|니까|는지|을까|ㄹ까|냐|니|죠|지요|나|어때)\s*[.!~]*)\s*$")
_ASKING_COPULA = re.compile(r"(몇\s*\S{0,3}|며칠|얼마)\s*(이에요|예요|이야|야|인지|일까|이죠|인가|입니까|이었|였)")
_TELL_ME = re.compile(r"알려|가르쳐|말해|설명해")


def asking_part(question: str) -> str:
    """``question`` without its sentences that tell rather than ask, before the one that asks: "며칠" in "수업을 며칠
    빠져야 해요ㅠ 출석으로 인정받을 수 있나요?" is "a few days", not what is asked."""
    sentences = [m.group(0) for m in _SENTENCE.finditer(question) if m.group(0).strip()]
    if len(sentences) < 2 or _TELL_ME.search(sentences[-1]):
        return question
    kept = [t for t in sentences[:-1] if _ASKING_END.search(t.strip()) or _ASKING_COPULA.search(t)]
    return " ".join([*kept, sentences[-1]])


def asked_details(question: str) -> list[Detail]:
    """The kinds of figure ``question`` asks for (not those it tells as background)."""
    asking = _TOLD.sub(" ", asking_part(question))
    terms = set(bm25_terms(asking, compounds=False))
    asked = [d for d in DETAILS if d.asked(asking, terms)]
    if _ASKS_MONEY.search(asking):
        asked = [replace(d, states=_MONEY_AMOUNT) if d is _AMOUNT_ASKED else d for d in asked]
    this_year = _THIS_YEAR.search(asking)
    return [_for_this_year(d, this_year.group(1)) for d in asked] if this_year else asked
