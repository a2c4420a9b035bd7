"""The one way geungeo opens its small SQLite files (caches, indexes, corrections)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def use_wal(db: sqlite3.Connection) -> None:
    """WAL mode, with commits that do not wait for the disk (``synchronous=NORMAL``: WAL syncs at its checkpoints),
    which a request writing a cache entry or a checkpoint would otherwise do behind an ingestion's writes. A power cut
    may lose the last commits; an application crash loses nothing."""
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")


def open_db(path: Path, *schema: str) -> sqlite3.Connection:
    """A connection in autocommit and WAL mode (:func:`use_wal`), shared across threads (callers hold their own
    lock), with the parent folder made and each ``CREATE … IF NOT EXISTS`` statement of ``schema`` run."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
    use_wal(db)
    for statement in schema:
        db.execute(statement)
    return db
