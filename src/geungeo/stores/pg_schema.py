"""Opening a PostgreSQL store: connecting, the pgvector extension, migrations, the index signature.

Migrations are the versioned files ``stores/sql/NNN_name.sql``. They are applied in order and
recorded in ``schema_migrations`` inside one transaction that holds a database-wide advisory
lock, so any number of processes may open (and create) the same store at once.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from geungeo.embeddings import settings_for
from geungeo.errors import StoreError
from geungeo.stores.base import IndexSignature

log = logging.getLogger(__name__)

EXTENSION = "vector"
HNSW_MAX_DIM = 2000  # pgvector's HNSW limit for the vector type
_LOCK_KEY = "geungeo.stores.postgres"
_MIGRATION_FILE = re.compile(r"(\d+)_(\w+)\.sql")


@dataclass(frozen=True, slots=True)
class Prepared:
    """What opening found out about the server."""

    extension_schema: str
    iterative_scan: bool  # pgvector >= 0.8: filtered HNSW scans continue until k rows match


def mask_url(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password is not None:
        userinfo, _, hostinfo = parts.netloc.rpartition("@")
        parts = parts._replace(netloc=f"{userinfo.split(':', 1)[0]}:***@{hostinfo}")
    return re.sub(r"(?i)(password=)[^&\s]*", r"\1***", urlunsplit(parts))


def _password(url: str) -> str | None:
    try:
        value = conninfo_to_dict(url).get("password")
    except psycopg.Error:
        value = None
    return str(value) if value else urlsplit(url).password


def connection_kwargs(url: str) -> dict[str, Any]:
    """Connection defaults that the URL does not set itself."""
    try:
        given = conninfo_to_dict(url)
    except psycopg.Error:
        raise StoreError(f"GEUNGEO_STORE_URL {mask_url(url)} is not a valid PostgreSQL URL") from None
    defaults = {"application_name": "geungeo", "connect_timeout": 10}
    return {"autocommit": True, **{k: v for k, v in defaults.items() if k not in given}}


def connect(url: str) -> psycopg.Connection[Any]:
    """A connection for setting up the store; a StoreError (password masked) when unreachable."""
    try:
        return psycopg.connect(url, **connection_kwargs(url))
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        secret = _password(url)
        if secret:
            reason = reason.replace(secret, "***")
        raise StoreError(f"cannot connect to PostgreSQL at {mask_url(url)}: {reason}") from None


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, script) of every migration shipped with geungeo, in order."""
    found = []
    for entry in resources.files("geungeo.stores").joinpath("sql").iterdir():
        m = _MIGRATION_FILE.fullmatch(entry.name)
        if m:
            found.append((int(m[1]), m[2], entry.read_text("utf-8")))
    return sorted(found)


def prepare(conn: psycopg.Connection[Any], schema: str, signature: IndexSignature, where: str) -> Prepared:
    """Enable pgvector, migrate ``schema`` and record or check the index signature."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_LOCK_KEY,))
        ext_schema, version = _extension(conn, where)
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute(
            sql.SQL("SET LOCAL search_path TO {}, {}").format(sql.Identifier(schema), sql.Identifier(ext_schema))
        )
        _migrate(conn, where)
        _check_signature(conn, signature, f"{where} (schema {schema})")
    major_minor = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
    return Prepared(ext_schema, major_minor >= (0, 8))


def drop_schema(conn: psycopg.Connection[Any], schema: str) -> None:
    """Remove the collection's schema and everything in it (the pgvector extension stays)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_LOCK_KEY,))
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def _extension(conn: psycopg.Connection[Any], where: str) -> tuple[str, str]:
    """(schema, version) of the pgvector extension, creating it when the server has it."""
    query = (
        "SELECT n.nspname, e.extversion FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
        "WHERE e.extname = %s"
    )
    row = conn.execute(query, (EXTENSION,)).fetchone()
    if row is not None:
        return str(row[0]), str(row[1])
    if conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = %s", (EXTENSION,)).fetchone() is None:
        raise StoreError(
            f"the PostgreSQL server at {where} does not have the pgvector extension ('{EXTENSION}'): "
            "install pgvector on the server (https://github.com/pgvector/pgvector), or use the embedded store "
            "(leave GEUNGEO_STORE_URL empty)"
        )
    try:
        with conn.transaction():
            conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(EXTENSION)))
    except psycopg.errors.InsufficientPrivilege:
        raise StoreError(
            f"the pgvector extension is not enabled in the database at {where} and this user may not enable it: "
            f"ask an administrator to run CREATE EXTENSION {EXTENSION}; in that database"
        ) from None
    row = conn.execute(query, (EXTENSION,)).fetchone()
    assert row is not None
    return str(row[0]), str(row[1])


def _migrate(conn: psycopg.Connection[Any], where: str) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
    )
    done = {int(v) for (v,) in conn.execute("SELECT version FROM schema_migrations")}
    known = migrations()
    newest = max((v for v, _, _ in known), default=0)
    if done and max(done) > newest:
        raise StoreError(
            f"the store at {where} has schema version {max(done)}, newer than this geungeo knows ({newest}): "
            "upgrade geungeo"
        )
    for version, name, script in known:
        if version not in done:
            log.info("applying store migration %03d_%s", version, name)
            conn.execute(script)  # trusted SQL shipped with the package
            conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (version, name))


def _check_signature(conn: psycopg.Connection[Any], signature: IndexSignature, where: str) -> None:
    row = conn.execute("SELECT embedder, dim, tokenizer FROM index_signature").fetchone()
    if row is None:
        conn.execute(
            "INSERT INTO index_signature (embedder, dim, tokenizer) VALUES (%s, %s, %s)",
            (signature.embedder, signature.dim, signature.tokenizer),
        )
        _add_vectors(conn, signature.dim)
        return
    embedder, dim, tokenizer = row
    if embedder != signature.embedder or dim != signature.dim:
        raise StoreError(
            f"the store at {where} holds {embedder} vectors (dim {dim}) but the configured embedder is "
            f"{signature.embedder} (dim {signature.dim}): set {settings_for(embedder)}, or re-index with "
            "`geungeo ingest --rebuild` (or into another GEUNGEO_COLLECTION)"
        )
    if tokenizer != signature.tokenizer:
        raise StoreError(
            f"the store's sparse terms at {where} were made by {tokenizer}, this install has "
            f"{signature.tokenizer}: re-index with `geungeo ingest --rebuild` (or into another GEUNGEO_COLLECTION)"
        )


def _add_vectors(conn: psycopg.Connection[Any], dim: int) -> None:
    """The embedding column of the recorded dimension and its cosine HNSW index."""
    conn.execute(sql.SQL("ALTER TABLE chunks ADD COLUMN embedding vector({})").format(sql.Literal(dim)))
    if dim <= HNSW_MAX_DIM:
        conn.execute("CREATE INDEX chunks_embedding ON chunks USING hnsw (embedding vector_cosine_ops)")
    else:
        log.warning("dimension %d is above pgvector's HNSW limit (%d): dense search scans exactly", dim, HNSW_MAX_DIM)
