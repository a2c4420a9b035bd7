"""Error bodies: ``{"error": "…"}``, and on the OpenAI-compatible routes ``{"error": {"message", "type", "code"}}``
(the shape OpenAI's SDKs read, so that they show the message)."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import JSONResponse

OPENAI_PATHS = ("/v1/chat/completions", "/v1/models")
_TYPES = {401: "authentication_error", 403: "permission_error", 404: "not_found_error", 409: "conflict_error",
          429: "rate_limit_error", 502: "api_error", 503: "api_error", 504: "timeout_error"}
_CODES = {401: "invalid_api_key", 404: "not_found", 409: "empty_store", 413: "request_too_large", 504: "timeout"}


class OpenAIError(HTTPException):
    """An error of the OpenAI-compatible routes with its own ``code`` and ``param``."""

    def __init__(self, status: int, message: str, code: str | None = None, param: str | None = None) -> None:
        super().__init__(status, message)
        self.code, self.param = code, param


def is_openai(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in OPENAI_PATHS)


def openai_error(status: int, message: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    """The OpenAI error object for ``status``."""
    kind = _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code or _CODES.get(status)}}


def error_body(path: str, status: int, message: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    """The error body for a request to ``path``."""
    return openai_error(status, message, code, param) if is_openai(path) else {"error": message}


def error_response(request: Request, status: int, message: str, headers: dict[str, str] | None = None,
                   exc: Exception | None = None) -> JSONResponse:
    code, param = (exc.code, exc.param) if isinstance(exc, OpenAIError) else (None, None)
    return JSONResponse(error_body(request.url.path, status, message, code, param), status_code=status, headers=headers)
