"""``/docs`` (Swagger UI) and ``/redoc`` served offline: their scripts and styles come from the ``fastapi-offline``
package's static files, served under ``/static-docs``, never from a CDN."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = Path(fastapi_offline.__file__).parent / "static"
PREFIX = "/static-docs"


def install(app: FastAPI) -> None:
    """Serve ``/docs`` and ``/redoc`` with local assets (the app is created with ``docs_url=None, redoc_url=None``)."""
    app.mount(PREFIX, StaticFiles(directory=ASSETS), name="static-docs")
    title = app.title

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=app.openapi_url or "/openapi.json", title=f"{title} — API",
                                   swagger_js_url=f"{PREFIX}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{PREFIX}/swagger-ui.css", swagger_favicon_url=f"{PREFIX}/favicon.png")

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url=app.openapi_url or "/openapi.json", title=f"{title} — API",
                              redoc_js_url=f"{PREFIX}/redoc.standalone.js", redoc_favicon_url=f"{PREFIX}/favicon.png",
                              with_google_fonts=False)
