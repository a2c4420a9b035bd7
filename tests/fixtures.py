"""Small documents written for tests (the real ones live in ../shared)."""

from __future__ import annotations

from pathlib import Path

VACATION_LAW = """---
제목: 휴가보장법
시행일자: 2025-01-01
---

# 휴가보장법

## 제1장 총칙

##### 제1조 (목적)

이 법은 근로자의 휴가에 관한 사항을 정함을 목적으로 한다.

##### 제2조 (연차 유급휴가)

**①** 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다.

**②** 계속하여 근로한 기간이 1년 미만인 근로자에게는 1개월 개근 시 1일의 유급휴가를 주어야 한다.

##### 제3조 (출산휴가)

**①** 사용자는 임신 중인 여성에게 출산 전과 출산 후를 통하여 90일의 출산전후휴가를 주어야 한다.

## 제2장 벌칙

##### 제4조 (벌칙)

제2조를 위반한 자는 2년 이하의 징역 또는 2천만원 이하의 벌금에 처한다.

## 부칙

부칙 <제1호,2025.1.1>

제1조 (시행일) 이 법은 공포한 날부터 시행한다.
"""


def vacation_law_store(root: Path) -> Path:
    """A data directory under ``root`` holding 휴가보장법, ingested with the fake embedder."""
    from geungeo.engine import build_engine
    from geungeo.settings import Settings

    (root / "docs").mkdir()
    (root / "docs" / "휴가보장법.md").write_text(VACATION_LAW, "utf-8")
    engine = build_engine(Settings(data_dir=root / "data", embed_provider="fake"))
    engine.ingest([root / "docs"])
    engine.close()
    return root / "data"
