"""Optional API-key auth: ``Authorization: Bearer <key>`` or ``X-API-Key: <key>`` when GEUNGEO_API_KEYS is set,
and the reviewer role (``GEUNGEO_REVIEWER_KEYS``) that accepts or rejects proposed corrections."""

from __future__ import annotations

import hashlib
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
    if not _one_of(given, keys | _keys(state.settings.reviewer_keys.get_secret_value())):
        raise HTTPException(
            401, "missing or invalid API key / API 키가 없거나 올바르지 않습니다", headers={"WWW-Authenticate": "Bearer"}
        )


def require_reviewer(
    state: Annotated[ApiState, Depends(api_state)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header)],
) -> str:
    """The reviewer's key fingerprint (``key:1a2b3c4d``) when the request carries a reviewer key (403 otherwise)."""
    keys = _keys(state.settings.reviewer_keys.get_secret_value())
    if not keys:
        raise HTTPException(
            403,
            "no reviewer keys configured (GEUNGEO_REVIEWER_KEYS): review with `geungeo corrections` on the server / "
            "검토자 키가 설정되지 않았습니다: 서버에서 `geungeo corrections`로 검토하세요",
        )
    given = (bearer.credentials if bearer else None) or header or ""
    if not _one_of(given, keys):
        raise HTTPException(403, "a reviewer key is required / 검토자 키가 필요합니다")
    return "key:" + hashlib.sha256(given.encode()).hexdigest()[:8]


def _keys(value: str) -> frozenset[str]:
    return frozenset(k.strip() for k in value.split(",") if k.strip())


def _one_of(given: str, keys: frozenset[str]) -> bool:
    return any(hmac.compare_digest(given.encode(), k.encode()) for k in keys)
