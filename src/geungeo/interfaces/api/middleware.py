"""Two small ASGI middlewares: a request-body size limit (413) and a per-request timeout (504)."""

from __future__ import annotations

import math

import anyio
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from geungeo.interfaces.api.errors import error_body

UPLOAD_PATH = "/v1/documents"


class BodyLimitMiddleware:
    """413 for a body over the limit: ``upload`` bytes for ``POST /v1/documents`` (and the other ``upload_paths``),
    ``request`` bytes for the rest."""

    def __init__(self, app: ASGIApp, request: int, upload: int, upload_paths: tuple[str, ...] = (UPLOAD_PATH,)) -> None:
        self.app = app
        self.request, self.upload = request, upload
        self.upload_paths = frozenset(p.rstrip("/") for p in upload_paths)

    def message(self, limit: int) -> str:
        shown = f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit >> 10} KB"
        return f"request too large: over {shown} (GEUNGEO_API_MAX_REQUEST_KB / GEUNGEO_API_MAX_UPLOAD_MB) / 요청이 너무 큽니다"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        is_upload = scope["method"] == "POST" and scope["path"].rstrip("/") in self.upload_paths
        limit = self.upload + (1 << 20) if is_upload else self.request  # multipart framing on top of the file
        declared = Headers(scope=scope).get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            await JSONResponse(error_body(scope["path"], 413, self.message(limit)), status_code=413)(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:
                raise HTTPException(413, self.message(limit))
            return message

        await self.app(scope, counted, send)


class TimeoutMiddleware:
    """504 when no response has started within ``seconds`` (streams then enforce their own deadline)."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        with anyio.CancelScope(deadline=anyio.current_time() + self.seconds) as cancel:

            async def send_started(message: Message) -> None:
                nonlocal started
                if message["type"] == "http.response.start":
                    started = True
                    cancel.deadline = math.inf
                await send(message)

            await self.app(scope, receive, send_started)
        if cancel.cancelled_caught and not started:
            message = f"request timed out after {self.seconds:g} s (GEUNGEO_API_TIMEOUT_S) / 요청 시간이 초과되었습니다"
            await JSONResponse(error_body(scope["path"], 504, message), status_code=504)(scope, receive, send)
