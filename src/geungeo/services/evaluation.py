"""Gold question files for ``geungeo eval``: read with one-line errors, and checked against what is ingested."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from geungeo.errors import InvalidInputError
from geungeo.evaluation import Question, load_questions
from geungeo.text.normalize import squash
from geungeo.types import DocumentRecord


def read_question_files(paths: Iterable[Path]) -> list[Question]:
    """Every question of the files; InvalidInputError naming the file (and line) that cannot be read."""
    questions: list[Question] = []
    for path in paths:
        if not path.is_file():
            raise InvalidInputError(f"{path}: no such file / 파일이 없습니다")
        try:
            lines = path.read_text("utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"{path}: cannot be read as UTF-8 text ({type(exc).__name__}) / 읽을 수 없습니다") from None
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"{path}:{n}: invalid JSON ({exc.msg}) / 잘못된 JSON") from None
            if not isinstance(record, dict):
                raise InvalidInputError(f"{path}:{n}: a line must be a JSON object / JSON 객체가 아닙니다")
            for key in ("id", "question"):
                if not isinstance(record.get(key), str) or not record[key].strip():
                    raise InvalidInputError(f"{path}:{n}: missing '{key}' / '{key}' 항목이 없습니다")
            if not isinstance(record.get("gold", []), list):
                raise InvalidInputError(f"{path}:{n}: 'gold' must be a list / 'gold'는 목록이어야 합니다")
        questions.extend(load_questions(path))
    return questions


def gold_ingested(question: Question, documents: Sequence[DocumentRecord]) -> bool:
    """Whether every document the question's gold names is in the store (by code, title or file name)."""
    codes = {d.code for d in documents if d.code}
    names = {squash(n) for d in documents for n in (d.title, d.source) if n}
    for target in question.gold:
        code, doc = target.get("code"), target.get("doc")
        if code and code in codes:
            continue
        if doc and squash(str(doc)) in names:
            continue
        if code or doc:
            return False
    return True
