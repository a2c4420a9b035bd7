"""Retrieval: filters, BM25 terms, rank fusion (z-score, RRF) and the hybrid retriever."""
