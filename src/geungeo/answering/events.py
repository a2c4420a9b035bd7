"""What an answer run streams: a discriminated union on ``type`` (plain dicts on the wire, typed here)."""

from __future__ import annotations

from typing import Literal, TypedDict

from geungeo.answering.models import Answer


class NodeEvent(TypedDict):
    """A step finished: the graph node or agent tool call, its seconds, LLM calls and note."""

    type: Literal["node"]
    node: str
    seconds: float
    llm_calls: int
    note: str


class TokenEvent(TypedDict):
    """A piece of the answer's text."""

    type: Literal["token"]
    text: str


class AnswerEvent(TypedDict):
    """The finished answer (the last event of a run)."""

    type: Literal["answer"]
    answer: Answer


class ErrorEvent(TypedDict):
    """The run failed; ``error`` says why (Korean / English)."""

    type: Literal["error"]
    error: str


StreamEvent = NodeEvent | TokenEvent | AnswerEvent | ErrorEvent


def token_event(text: str) -> TokenEvent:
    return {"type": "token", "text": text}
