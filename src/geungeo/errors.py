"""Exception hierarchy: every error a user can see derives from :class:`GeungeoError`.

The services raise these; each interface translates them (HTTP status, CLI one-line message, MCP tool error).
"""

from __future__ import annotations


class GeungeoError(Exception):
    """Base class for geungeo errors; the message is meant for the user."""


class ConfigError(GeungeoError):
    """A setting is missing, invalid, or names something that is not installed."""


class LoaderError(GeungeoError):
    """A file could not be turned into documents (unknown type, empty, broken, encrypted)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class IngestionError(GeungeoError):
    """An ingestion stopped before it finished (its process died); what it wrote stays, the rest is redone."""


class StoreError(GeungeoError):
    """The chunk store is unreachable, inconsistent or was built with different settings."""


class ProviderError(GeungeoError):
    """An embedding or LLM provider failed (timeout, bad response, missing weights)."""


class InvalidInputError(GeungeoError):
    """What the user sent cannot be used as given (HTTP 400)."""


class QueryError(InvalidInputError):
    """A query cannot be run as given (empty, too long, not valid Unicode)."""


class UnsupportedFileError(InvalidInputError):
    """An upload of a type no loader reads (HTTP 415)."""


class TooLargeError(InvalidInputError):
    """An upload or request over its size limit (HTTP 413)."""


class NotFoundError(GeungeoError):
    """The named document, job, model or article does not exist (HTTP 404)."""


class EmptyStoreError(GeungeoError):
    """The store holds no documents yet: nothing can be searched or answered."""
