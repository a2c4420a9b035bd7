"""``create_app``: the FastAPI application over one :class:`~geungeo.graph.runner.QueryRunner`.

Errors are JSON ``{"error": "…"}``: a GeungeoError is 400 (a store or provider failure 503/502),
an unknown API key 401, a too large body 413, a request past ``api_timeout_s`` 504.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from geungeo import __version__
from geungeo.errors import GeungeoError, ProviderError, StoreError
from geungeo.graph.runner import QueryRunner
from geungeo.interfaces.api.middleware import UPLOAD_PATH, BodyLimitMiddleware, TimeoutMiddleware
from geungeo.interfaces.api.routes import ask, documents, feedback, health, openai_compat, page_images, search
from geungeo.interfaces.api.security import require_api_key
from geungeo.interfaces.api.state import ApiState
from geungeo.settings import Settings

log = logging.getLogger(__name__)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _install_handlers(app: FastAPI) -> None:
    @app.exception_handler(GeungeoError)
    async def geungeo_error(_: Request, exc: GeungeoError) -> JSONResponse:
        status = 503 if isinstance(exc, StoreError) else 502 if isinstance(exc, ProviderError) else 400
        return _error(status, str(exc))

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return _error(422, f"invalid request / 잘못된 요청: {problems}")


def create_app(settings: Settings | None = None, runner: QueryRunner | None = None) -> FastAPI:
    """The HTTP API over ``runner`` (built from ``settings`` when not given; closed with the app then)."""
    owns = runner is None
    if runner is None:
        from geungeo.engine import build_engine

        runner = QueryRunner(build_engine(settings or Settings()))
    settings = settings or runner.settings
    state = ApiState(settings=settings, runner=runner, owns_runner=owns)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await state.call(runner.engine.store.flush)  # readers never have to rebuild a stale index at once
        yield
        if state.owns_runner:
            runner.close()

    app = FastAPI(
        title="geungeo 근거",
        version=__version__,
        summary="Grounded answers with citations over Korean documents.",
        lifespan=lifespan,
    )
    app.state.api = state
    _install_handlers(app)
    secured: dict[str, Any] = {"dependencies": [Depends(require_api_key)]}
    for module in (ask, search, documents, feedback, openai_compat, page_images):
        app.include_router(module.router, **secured)
    app.include_router(health.router)
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
