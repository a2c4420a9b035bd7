"""``GET /v1/page_images/{digest}/{name}``: a rendered PDF page that an answer cites (``structured.page_images[].url``)."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import FileResponse

from geungeo.ingest import page_images
from geungeo.interfaces.api.schemas import ErrorBody
from geungeo.interfaces.api.state import ApiState, api_state

router = APIRouter(tags=["documents"])

_DIGEST = re.compile(r"^[0-9a-f]{8,128}$")
_NAME = re.compile(r"^p\d{1,5}\.png$")


@router.get(
    "/v1/page_images/{digest}/{name}",
    response_class=FileResponse,
    responses={404: {"model": ErrorBody}, 200: {"content": {"image/png": {}}}},
    summary="A PDF page rendered at ingestion (PNG)",
)
async def page_image(digest: str, name: str, state: Annotated[ApiState, Depends(api_state)]) -> FileResponse:
    valid = _DIGEST.match(digest) and _NAME.match(name)
    path = page_images.resolve(state.settings.data_dir, f"{page_images.FOLDER}/{digest}/{name}") if valid else None
    if path is None:
        raise HTTPException(404, "no such page image / 페이지 이미지가 없습니다")
    return FileResponse(path, media_type="image/png")
