"""Optional API-key auth: ``Authorization: Bearer <key>`` or ``X-API-Key: <key>`` when GEUNGEO_API_KEYS is set."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from geungeo.interfaces.api.state import ApiState, api_state

_bearer = HTTPBearer(auto_error=False, description="An API key from GEUNGEO_API_KEYS.")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="An API key from GEUNGEO_API_KEYS.")


def require_api_key(
    state: Annotated[ApiState, Depends(api_state)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header)],
) -> None:
    """Let the request through when no keys are configured or it carries one of them (401 otherwise)."""
    keys = state.api_keys
    if not keys:
        return
    given = (bearer.credentials if bearer else None) or header or ""
    if not any(hmac.compare_digest(given.encode(), k.encode()) for k in keys):
        raise HTTPException(
            401, "missing or invalid API key / API 키가 없거나 올바르지 않습니다", headers={"WWW-Authenticate": "Bearer"}
        )
