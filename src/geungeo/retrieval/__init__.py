"""Retrieval: filters, BM25 terms, reciprocal rank fusion and the hybrid retriever."""
