"""``create_app``: the FastAPI application over one :class:`~geungeo.graph.runner.QueryRunner`.

Errors are JSON ``{"error": "…"}`` (on the OpenAI-compatible routes ``{"error": {"message", "type", "code"}}``):
the services' errors become 400 (bad input), 404 (not found), 409 (empty store), 413 (too large), 415 (file type),
503 (store) or 502 (provider); an unknown API key 401, a request past ``api_timeout_s`` 504. Messages never
show the server's folders.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from geungeo import __version__
from geungeo.errors import (
    EmptyStoreError,
    GeungeoError,
    NotFoundError,
    ProviderError,
    StoreError,
    TooLargeError,
    UnsupportedFileError,
)
from geungeo.graph.runner import QueryRunner
from geungeo.interfaces.api import docs
from geungeo.interfaces.api.errors import error_response
from geungeo.interfaces.api.middleware import UPLOAD_PATH, BodyLimitMiddleware, TimeoutMiddleware
from geungeo.interfaces.api.routes import ask, documents, feedback, health, jobs, openai_compat, page_images, search
from geungeo.interfaces.api.security import require_api_key
from geungeo.interfaces.api.state import ApiState
from geungeo.services import Services
from geungeo.settings import Settings

log = logging.getLogger(__name__)


_STATUS: tuple[tuple[type[GeungeoError], int], ...] = (
    (NotFoundError, 404), (EmptyStoreError, 409), (TooLargeError, 413), (UnsupportedFileError, 415),
    (StoreError, 503), (ProviderError, 502),
)


def status_of(exc: GeungeoError) -> int:
    """The HTTP status of a service error (400 for bad input and anything else a user can fix)."""
    return next((status for kind, status in _STATUS if isinstance(exc, kind)), 400)


def _install_handlers(app: FastAPI, state: ApiState) -> None:
    @app.exception_handler(GeungeoError)
    async def geungeo_error(request: Request, exc: GeungeoError) -> JSONResponse:
        return error_response(request, status_of(exc), state.services.documents.redact(str(exc)))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return error_response(request, exc.status_code, str(exc.detail), getattr(exc, "headers", None), exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return error_response(request, 422, f"invalid request / 잘못된 요청: {problems}")


def create_app(settings: Settings | None = None, runner: QueryRunner | None = None) -> FastAPI:
    """The HTTP API over ``runner`` (built from ``settings`` when not given; closed with the app then)."""
    owns = runner is None
    services = Services.build(settings) if runner is None else Services(runner=runner)
    settings = settings or services.settings
    state = ApiState(settings=settings, services=services, owns_services=owns)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await state.call(services.documents.flush)  # readers never have to rebuild a stale index at once
        await anyio.to_thread.run_sync(services.load_models)  # the first question does not wait for the model
        yield
        if state.owns_services:
            await anyio.to_thread.run_sync(services.close)

    app = FastAPI(
        title="geungeo 근거",
        version=__version__,
        summary="Grounded answers with citations over Korean documents.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.api = state
    _install_handlers(app, state)
    secured: dict[str, Any] = {"dependencies": [Depends(require_api_key)]}
    for module in (ask, search, documents, jobs, feedback, openai_compat, page_images):
        app.include_router(module.router, **secured)
    app.include_router(health.router)
    docs.install(app)
    uploads = [UPLOAD_PATH]
    if settings.ui_mount_path.strip():  # the web UI (gradio), its uploads under the upload limit
        from geungeo.interfaces.web.app import mount_ui

        uploads.append(mount_ui(app, state, settings.ui_mount_path).rstrip("/") + "/gradio_api/upload")
    app.add_middleware(TimeoutMiddleware, seconds=settings.api_timeout_s)
    app.add_middleware(BodyLimitMiddleware, request=settings.api_max_request_kb << 10, upload=settings.api_max_upload_mb << 20,
                       upload_paths=tuple(uploads))
    origins = [o.strip() for o in settings.api_cors_origins.split(",") if o.strip()]
    if origins:
        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["*"], allow_headers=["*"],
                           allow_credentials="*" not in origins)
    return app
