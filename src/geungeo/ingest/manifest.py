"""Fingerprints of completely ingested files, so that an unchanged file is not even parsed.

Parsing the 64 MB regulation book takes most of a minute; hashing it takes a tenth of a
second. A file is skipped when its fingerprint (content sha256, geungeo version and the
chunking settings) equals the one recorded after its last complete ingestion and every
document it produced is still complete in the store.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Container
from pathlib import Path

from geungeo import __version__


class FileManifest:
    """SQLite table origin → (fingerprint, document ids)."""

    def __init__(self, path: Path, salt: str = "") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.salt = f"{__version__}|{salt}"
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS files (origin TEXT PRIMARY KEY, fingerprint TEXT, doc_ids TEXT)")

    def fingerprint(self, path: Path) -> str:
        """The file's fingerprint, or "" when it cannot be read (its loader will say why)."""
        digest = hashlib.sha256(self.salt.encode())
        try:
            with path.open("rb") as fh:
                while block := fh.read(1 << 20):
                    digest.update(block)
        except OSError:
            return ""
        return digest.hexdigest()

    def unchanged_documents(self, origin: str, fingerprint: str, complete: Container[str]) -> list[str] | None:
        """The file's document ids when nothing needs doing for it, else None."""
        row = self._db.execute("SELECT fingerprint, doc_ids FROM files WHERE origin=?", (origin,)).fetchone()
        if row is None or row[0] != fingerprint:
            return None
        doc_ids: list[str] = json.loads(row[1])
        return doc_ids if all(d in complete for d in doc_ids) else None

    def record(self, origin: str, fingerprint: str, doc_ids: list[str]) -> None:
        self._db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?)", (origin, fingerprint, json.dumps(doc_ids)))

    def forget(self, origin: str) -> None:
        self._db.execute("DELETE FROM files WHERE origin=?", (origin,))

    def close(self) -> None:
        self._db.close()
