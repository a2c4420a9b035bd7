"""Quantities a question states and the ranges a clause states (answering/quantities.py)."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from geungeo.answering.quantities import Quantity, Range, quantities, ranges


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("수강인원이 60명이면", [Quantity("persons", 60)]),
        ("학기 시작하고 8주 지나서", [Quantity("days", 56)]),
        ("보증금 1억 5천만 원짜리", [Quantity("won", 150_000_000)]),
        ("1억4천500만원", [Quantity("won", 145_000_000)]),
        ("교육비로 30만원을", [Quantity("won", 300_000)]),
        ("0.1퍼센트로 운전하면", [Quantity("percent", 0.1)]),
        ("2024년 몇 월에 출시", []),  # a date, not a number of years
        ("주 5일 근무", [Quantity("days", 5)]),
        ("4인 가족인데", [Quantity("persons", 4)]),  # 인 counts people as 명 does
        ("3인치 화면", [Quantity("inches", 3)]),  # not three people
        ("기숙사 방 크기 1명당 기준", []),  # the unit of a rate, not a headcount
        ("1인당 3만원까지", [Quantity("won", 30_000)]),
    ],
)
def test_quantities_a_question_states(text: str, expected: list[Quantity]) -> None:
    assert quantities(text) == expected


def test_ranges_a_clause_states() -> None:
    awards = ranges("수강인원: 50명 이상 75명 미만, 성적우수장학금: A 2명, B 2명")
    assert awards == {"persons": Range("persons", 50, True, 75, False)}
    assert ranges("신청학점수: 1～3학점, 등록금: 6분의 1") == {"credits": Range("credits", 1, True, 3, True)}
    assert ranges("학기 개시일에서 30일이 지난 날부터 60일 까지") == {"days": Range("days", 30, False, 60, True)}
    assert ranges("12학점 이상") == {"credits": Range("credits", 12, True, math.inf, False)}
    # the older way to count people: "상시 5인 이상의 근로자를 사용하는" bounds "직원이 4명뿐인"
    assert ranges("상시 5인 이상의 근로자를 사용하는 모든 사업") == {"persons": Range("persons", 5, True, math.inf, False)}
    assert ranges("1주간에 12시간을 초과하여") == {"hours": Range("hours", 12, False, math.inf, False)}
    fine = ranges("0.08퍼센트 이상 0.2퍼센트 미만인 사람은 1년 이상 2년 이하의 징역이나 500만원 이상 1천만원 이하의 벌금")
    assert fine["percent"] == Range("percent", 0.08, True, 0.2, False)
    assert fine["won"] == Range("won", 5_000_000, True, 10_000_000, True)
    assert ranges("A 2명, B 3명") == {}  # figures without a bound bound nothing


def test_a_range_holds_a_figure_of_its_measure_only() -> None:
    r = Range("days", 30, False, 60, True)
    assert r.holds(Quantity("days", 56)) and r.holds(Quantity("days", 60))
    assert not r.holds(Quantity("days", 30)) and not r.holds(Quantity("persons", 45))


def test_hostile_runs_of_digits_are_read_in_linear_time() -> None:
    """A long run of digits (or of "1천") once split every possible way before failing: 60 digits never finished. The
    parse runs in a child process so that a regression fails the test instead of hanging the suite."""
    script = (
        "from geungeo.answering.quantities import quantities, ranges\n"
        "for text in ('1' * 60 + ' 가', '1,' * 5000 + 'x', '1천' * 20000 + 'x', '1억 2천만원 이상 ' * 2000):\n"
        "    quantities(text); ranges(text)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], timeout=60, check=False, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
