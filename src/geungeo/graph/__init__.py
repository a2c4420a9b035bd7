"""The agentic answer graph: route, plan, retrieve–judge loop, cited generation, grading, refusal.

``run_query`` / ``stream_query`` are the public entry points (imported on first use, so that importing
:mod:`geungeo.graph.modes` stays cheap).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from geungeo.answering.models import Answer
    from geungeo.graph.runner import QueryRunner, run_query, stream_query

__all__ = ["Answer", "QueryRunner", "run_query", "stream_query"]
_HOMES = {
    "Answer": "geungeo.answering.models",
    "QueryRunner": "geungeo.graph.runner",
    "run_query": "geungeo.graph.runner",
    "stream_query": "geungeo.graph.runner",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
