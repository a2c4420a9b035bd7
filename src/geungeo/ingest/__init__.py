"""Loaders: files in, structured :class:`~geungeo.types.Document` objects out."""

from geungeo.ingest.base import LOADERS, Loader, load_file, loader, supported_suffixes

__all__ = ["LOADERS", "Loader", "load_file", "loader", "supported_suffixes"]
