"""Chunk stores: the :class:`ChunkStore` interface and its backends."""

from geungeo.stores.base import ChunkStore, IndexSignature
from geungeo.stores.factory import drop_store, open_store

__all__ = ["ChunkStore", "IndexSignature", "drop_store", "open_store"]
