"""The agentic answer graph: route, plan, retrieve–judge loop, cited generation, grading, refusal.

``run_query`` / ``stream_query`` are the public entry points.
"""

from geungeo.answering.models import Answer
from geungeo.graph.runner import QueryRunner, run_query, stream_query

__all__ = ["Answer", "QueryRunner", "run_query", "stream_query"]
