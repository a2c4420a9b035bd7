"""Server-sent events, written by hand: ``event: <name>`` and one ``data:`` line of JSON per event."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import StreamingResponse

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def sse(data: Any, event: str | None = None) -> str:
    """One SSE frame; ``data`` is sent as JSON unless it is a string."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return (f"event: {event}\n" if event else "") + f"data: {payload}\n\n"


def sse_response(frames: Any) -> StreamingResponse:
    """A ``text/event-stream`` response over an async iterator of frames."""
    return StreamingResponse(frames, media_type="text/event-stream", headers=SSE_HEADERS)
