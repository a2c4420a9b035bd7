"""The figures a question sets its case by ("직원이 4명뿐인", "만 66세면") and the clauses drawing a line on them: an
answer must quote a provision bounding what each figure measures, and a special case with the rule it departs from."""

from __future__ import annotations

from collections.abc import Sequence

from geungeo.answering.details import asking_part
from geungeo.answering.quantities import Quantity, quantities, ranges
from geungeo.answering.sentences import Sentence
from geungeo.text.structure import CIRCLED

# What a question's durations and dates measure: they tell its story ("배송일이 2주나 지났는데", "5년 동안",
# "1월 1일부터") more often than they set the case asked about.
STORY_MEASURE = "days"


def setting_figures(question: str) -> list[Quantity]:
    """The figures the asking part of ``question`` sets its case by (an age, a headcount, hours, an amount …; not a
    duration or a date, which tell the story)."""
    return [q for q in quantities(asking_part(question)) if q.measure != STORY_MEASURE]


def other_side(s: Sentence, every: list[Sentence], figures: Sequence[Quantity]) -> Sentence | None:
    """For a quoted later 항 whose range holds one of ``figures`` ("② 상시 4인 이하의 근로자를 사용하는 사업 … 일부
    규정을 적용할 수 있다" for "직원이 4명뿐인"), the earliest 항 of its article that bounds the same measure without
    holding the figure and stating a word of the question ("① 이 법은 상시 5인 이상의 근로자를 사용하는 모든 사업 …
    적용한다"): the rule its special case departs from, without which the answer hides where the line falls. None for
    any other clause."""
    own = CIRCLED.find(s.text[:1]) if s.text else -1
    if own < 1 or s.item.article is None:
        return None
    bounds = ranges(s.text)
    held = {q.measure for q in figures if q.measure in bounds and bounds[q.measure].holds(q)}
    if not held:
        return None

    def beyond_the_line(t: Sentence) -> bool:
        if t.item.label != s.item.label or t.is_item or not t.covers or not 0 <= CIRCLED.find(t.text[:1]) < own:
            return False
        lines = ranges(t.text)
        return any(q.measure in lines and not lines[q.measure].holds(q) for q in figures if q.measure in held)

    return min((t for t in every if beyond_the_line(t)), key=lambda t: CIRCLED.find(t.text[:1]), default=None)


def unbounded(figures: Sequence[Quantity], chosen: Sequence[Sentence]) -> list[str]:
    """The ``figures`` a question sets its case by (:func:`setting_figures`) whose measure no passage of the ``chosen``
    clauses bounds, as written: a question setting the case by a figure ("만 66세면 기초연금 받을 수 있나요?", "직원 4명인 가게도
    연차휴가를 줘야 하나요?", "주 14시간 일한 알바도 퇴직금 받나요?") is not answered by a provision drawing no line on
    what that figure measures, however many of its words it shares. A figure told in a sentence before the question
    ("…30만원을 먼저 내래요. 이런 돈 받아도 되는 건가요?") sets nothing."""
    if not figures:
        return []
    passages = {text for s in chosen for text in (s.text, s.item.text)}
    bounded = {measure for text in passages for measure in ranges(text)}
    return list(dict.fromkeys(q.written for q in figures if q.measure not in bounded))


def drawing_the_line(
    figures: Sequence[Quantity], left: Sequence[str], ranked: list[Sentence], passages: set[int], floor: float
) -> Sentence | None:
    """The first of ``ranked`` in the best ``passages``, covering ``floor``, whose clause bounds every one of the
    question's ``figures`` the quoted clauses ``left`` unbounded (:func:`unbounded`); None when no such clause is
    there."""
    measures = {q.measure for q in figures if q.written in left}
    return next(
        (s for s in ranked if s.item.n in passages and s.coverage >= floor and measures <= set(ranges(s.text))), None
    )
