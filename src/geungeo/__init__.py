"""geungeo (근거): grounded question answering over Korean documents.

Importing the package is cheap; heavy libraries (chromadb, kiwipiepy, embedders) load on use.
"""

__version__ = "0.1.0"
