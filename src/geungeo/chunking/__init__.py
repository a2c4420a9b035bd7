"""Structure-following chunking: documents in, :class:`~geungeo.types.Chunk` objects out."""

from geungeo.chunking.base import chunk_document

__all__ = ["chunk_document"]
