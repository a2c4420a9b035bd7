"""Which store the settings name: opening one and dropping everything it holds."""

from __future__ import annotations

from geungeo.errors import ConfigError
from geungeo.settings import Settings
from geungeo.stores.base import ChunkStore, IndexSignature


def open_store(settings: Settings, signature: IndexSignature) -> ChunkStore:
    """The store named by ``settings.store_url`` (empty: embedded Chroma under data_dir)."""
    url = settings.store_url.strip()
    if not url or url.startswith("chroma"):
        from geungeo.stores.chroma import ChromaStore

        return ChromaStore(settings, signature)
    if url.startswith(("postgresql://", "postgres://")):
        try:
            from geungeo.stores.postgres import PostgresStore  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:
            raise ConfigError("The PostgreSQL store needs psycopg and pgvector: pip install 'geungeo[postgres]'") from exc
        return PostgresStore(settings, signature)  # type: ignore[no-any-return,unused-ignore]
    raise ConfigError(f"GEUNGEO_STORE_URL: unsupported store '{url.split(':', 1)[0]}' (use empty or postgresql://…)")


def drop_store(settings: Settings) -> None:
    """Delete everything the configured store holds (``geungeo ingest --rebuild``); the embedding cache stays."""
    url = settings.store_url.strip()
    if not url or url.startswith("chroma"):
        import shutil

        shutil.rmtree(settings.data_dir / "store", ignore_errors=True)
    elif url.startswith(("postgresql://", "postgres://")):
        from geungeo.stores.postgres import PostgresStore  # type: ignore[import-not-found,unused-ignore]

        PostgresStore.drop(settings)
    (settings.data_dir / "manifest.sqlite").unlink(missing_ok=True)
