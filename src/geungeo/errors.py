"""Exception hierarchy: every error a user can see derives from :class:`GeungeoError`."""

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


class StoreError(GeungeoError):
    """The chunk store is unreachable, inconsistent or was built with different settings."""


class ProviderError(GeungeoError):
    """An embedding or LLM provider failed (timeout, bad response, missing weights)."""


class QueryError(GeungeoError):
    """A query cannot be run as given (empty, too long)."""
