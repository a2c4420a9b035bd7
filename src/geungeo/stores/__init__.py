"""Chunk stores: the :class:`ChunkStore` interface and its backends."""

from geungeo.stores.base import ChunkStore, IndexSignature, open_store

__all__ = ["ChunkStore", "IndexSignature", "open_store"]
