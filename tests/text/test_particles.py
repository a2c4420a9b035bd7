"""Particles chosen by the word before them, as refusals and error messages print them."""

from __future__ import annotations

import pytest

from geungeo.answering.generation import refusal_text
from geungeo.answering.models import EvidenceItem
from geungeo.text.particles import particle


def test_the_particle_follows_the_words_ending() -> None:
    assert particle("금액", "을") == "금액을" and particle("개수", "을") == "개수를"
    assert particle("기한", "이") == "기한이" and particle("나이", "이") == "나이가"
    assert particle("금액, 기한", "은") == "금액, 기한은" and particle("학칙(2-1-1)", "과") == "학칙(2-1-1)과"
    assert particle("휴학규정(3-2-23)", "이") == "휴학규정(3-2-23)이" and particle("「민법」", "이") == "「민법」이"
    assert particle("#3", "이") == "#3이" and particle("#12", "이") == "#12가" and particle("#10", "이") == "#10이"
    with pytest.raises(ValueError, match="unknown particle"):
        particle("금액", "의")


def test_a_refusal_names_the_missing_figure_with_the_right_particle() -> None:
    item = EvidenceItem(n=1, chunk_id="c1", doc_id="d", label="계획 Ⅱ", doc="계획", text="추진 과제를 정한다.")
    assert "묻는 개수를 정하고" in refusal_text("과제는 몇 개인가요?", [item], ["개수 / count"])
    assert "묻는 금액을 정하고" in refusal_text("비용은 얼마인가요?", [item], ["금액 / amount"])


def test_a_refusal_names_the_figure_of_the_question_no_provision_draws_a_line_for() -> None:
    item = EvidenceItem(
        n=1, chunk_id="c1", doc_id="d", label="법 제91조의3", doc="법", article="제91조의3", text="기초연금을 합산한다."
    )
    text = refusal_text("만 66세면 기초연금 받을 수 있나요?", [item], ["66세"], reason="unbounded")
    assert text == "근거 부족: 관련 조문(법 제91조의3)은 찾았지만 질문의 66세에 해당하는 기준은 정하고 있지 않습니다."
    english = refusal_text("Can I get the basic pension at 66?", [item], ["66세"], reason="unbounded")
    assert english.endswith("related provisions were found (법 제91조의3) but none draws a line for 66세.")
