"""Quantities a question states ("수강인원이 60명이면", "8주 지나서") and the ranges a clause states ("50명 이상 75명
미만", "1～3학점", "30일이 지난 날부터 60일까지"), so that the parallel cases of a table or a list are read by the one
whose range holds the question's figure.

Only what can be compared is read: a number with a unit of count, credit, time, age, money or share, and a bound
written after it (이상, 초과, 미만, 이하, 이내, 까지, 부터, "지난"). Weeks, months and years are counted in days so that
"8주" falls in "30일이 지난 날부터 60일까지"; a year written as a date ("2024년") is no quantity.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

# unit → (what it measures, how many of the measure's base unit it is)
_UNITS: dict[str, tuple[str, float]] = {
    "명": ("persons", 1),
    "인": ("persons", 1),  # "상시 5인 이상의 근로자", as older statutes and regulations count people
    "인치": ("inches", 1),  # not persons: "3인치"
    "학점": ("credits", 1),
    "시간": ("hours", 1),
    "일": ("days", 1),
    "주일": ("days", 7),
    "주": ("days", 7),
    "개월": ("days", 30),
    "달": ("days", 30),
    "년": ("days", 365),
    "세": ("age", 1),
    "살": ("age", 1),
    "원": ("won", 1),
    "퍼센트": ("percent", 1),
    "%": ("percent", 1),
    "점": ("points", 1),
    "학기": ("semesters", 1),
    "회": ("times", 1),
}
_UNIT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
# "1억4천500만원", "1천만원", "30만 원", "1,000,000원", "0.08퍼센트": digits, each run but the last closed by place
# words, so that a long run of digits is read one way only (no backtracking over where it splits)
_AMOUNT = rf"(?:{_NUMBER}\s*[억만천백]+\s*)+(?:{_NUMBER})?|{_NUMBER}"
# where a quantity may start: not inside a number, nor after the place word of one ("4" of "1억4천" is read with "1억")
_START = r"(?<![\d.,])(?<!\d[억만천백])(?<!\d[억만천백]\s)"
# a quantity, or two joined as a range ("1～3학점", "25~50명"), and the bound written after it
_QUANTITY = re.compile(
    rf"{_START}(?P<low>{_NUMBER})\s*[～~∼〜-]\s*(?P<high>{_AMOUNT})\s*(?P<unit>{_UNIT})"
    rf"|{_START}(?P<one>{_AMOUNT})\s*(?P<unit1>{_UNIT})(?P<after>[^\d,]{{0,8}})"
)
# the bound a quantity sets, by the words after it: (is a lower bound, includes the figure itself)
_BOUNDS: tuple[tuple[re.Pattern[str], bool, bool], ...] = (
    (re.compile(r"^\s*(?:[이가을를]\s*)?(?:지난|경과|넘|초과)"), True, False),
    (re.compile(r"^\s*(?:이상|부터|이후)"), True, True),
    (re.compile(r"^\s*미만"), False, False),
    (re.compile(r"^\s*(?:이하|이내|까지|이전)"), False, True),
)


@dataclass(frozen=True)
class Quantity:
    """A figure in the base unit of what it measures (days for "8주"), and as the text wrote it."""

    measure: str
    value: float
    written: str = field(default="", compare=False)


@dataclass(frozen=True)
class Range:
    """The figures a clause's bounds admit for one measure; an open end is infinite."""

    measure: str
    low: float = -math.inf
    low_included: bool = False
    high: float = math.inf
    high_included: bool = False

    def holds(self, q: Quantity) -> bool:
        """Whether ``q`` (of this measure) lies in the range."""
        above = q.value > self.low or (self.low_included and q.value == self.low)
        below = q.value < self.high or (self.high_included and q.value == self.high)
        return q.measure == self.measure and above and below


_PLACES = {"백": 1e2, "천": 1e3}


def _value(amount: str) -> float:
    """The number written as digits with place words after them ("1억4천500만" → 145,000,000; "1천만" → 10,000,000)."""
    total = group = section = current = 0.0  # above 억, between 만 and 억, below 만, the digits just read
    for digits, words in re.findall(rf"({_NUMBER})\s*([억만천백]*)", amount):
        current = float(digits.replace(",", ""))
        for word in words:
            if word in _PLACES:
                section, current = section + current * _PLACES[word], 0.0
            elif word == "만":
                group, section, current = group + (section + current) * 1e4, 0.0, 0.0
            else:  # 억
                total, group, section, current = total + (group + section + current) * 1e8, 0.0, 0.0, 0.0
    return total + group + section + current


def _in_base(value: float, unit: str, written: str = "") -> Quantity | None:
    if unit == "년" and value >= 1900 and value.is_integer():  # a date ("2024년"), not a number of years
        return None
    measure, factor = _UNITS[unit]
    return Quantity(measure, value * factor, written)


def quantities(text: str) -> list[Quantity]:
    """The quantities ``text`` states, bounds or not ("60명이면", "8주 지나서"); the unit of a rate ("1명당 기준", "1인당
    3만원") is no quantity of the case."""
    out: list[Quantity] = []
    for m in _QUANTITY.finditer(text):
        if m["unit1"] is None or m["after"].startswith("당"):
            continue
        if q := _in_base(_value(m["one"]), m["unit1"], "".join(m["one"].split()) + m["unit1"]):
            out.append(q)
    return out


def ranges(text: str) -> dict[str, Range]:
    """The range of each measure ``text`` bounds ("50명 이상 75명 미만" → persons in [50, 75)); quantities without a
    bound after them ("A 2명") set none."""
    bounds: dict[str, Range] = {}
    for m in _QUANTITY.finditer(text):
        if m["unit"] is not None:  # "1～3학점": both ends included
            lo, hi = _in_base(_value(m["low"]), m["unit"]), _in_base(_value(m["high"]), m["unit"])
            if lo is not None and hi is not None:
                _narrow(bounds, Range(lo.measure, lo.value, True, hi.value, True))
            continue
        q = _in_base(_value(m["one"]), m["unit1"])
        bound = next(((lower, inc) for pattern, lower, inc in _BOUNDS if pattern.search(m["after"])), None)
        if q is None or bound is None:
            continue
        lower, included = bound
        if lower:
            _narrow(bounds, Range(q.measure, low=q.value, low_included=included))
        else:
            _narrow(bounds, Range(q.measure, high=q.value, high_included=included))
    return bounds


def _narrow(bounds: dict[str, Range], r: Range) -> None:
    """Intersects the range kept for ``r``'s measure with ``r`` (of two equal ends, the one excluding it is narrower)."""
    old = bounds.get(r.measure, Range(r.measure))
    low = max((old.low, not old.low_included), (r.low, not r.low_included))
    high = min((old.high, old.high_included), (r.high, r.high_included))
    bounds[r.measure] = Range(r.measure, low[0], not low[1], high[0], high[1])
