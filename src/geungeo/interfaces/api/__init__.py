"""The HTTP API of geungeo (FastAPI): ask, stream, search, documents, structure, feedback, OpenAI-compatible chat.

    from geungeo.interfaces.api import create_app
    app = create_app(Settings(...))          # or: geungeo serve
"""

from geungeo.interfaces.api.app import create_app

__all__ = ["create_app"]
