"""The SQL of the PostgreSQL store (tables: ``stores/sql/``; search path: the collection's schema).

Sparse scores are the Lucene BM25 variant that bm25s computes, summed over the query terms
(a repeated term counts again): ``ln(1 + (N - df + 0.5) / (df + 0.5)) * tf / (tf + k1 * (1 - b
+ b * dl / avgdl))``. N and avgdl come from the documents table; each query term's df is counted
on its own (index-only) into a weight, and its postings (tf, dl) are joined to that weight and
summed per chunk in one pass: counting df from the joined postings instead sorted and spilled
every posting of a frequent term ("관하다" is in 61% of the statute book's chunks), 2.5x slower
at 124k chunks (`benchmarks/reports/scale-stores.md`). A filter only restricts which chunks
come back.
"""

from __future__ import annotations

from psycopg import sql

from geungeo.stores.pg_filters import COLUMNS

CHUNK_COLS = "id, doc_id, ordinal, header, text, meta, prev_id, next_id"
DOC_COLS = "doc_id, source, title, kind, code, content_hash, chunk_count, origin, extract(epoch FROM ingested_at)"
# One row, one value that changes with every write or delete of a complete document (see documents_version): how many
# there are and the sum of their rows' writing transactions (xmin; every insert or update of a row gives it a new one,
# so a rewrite changes the sum and a delete the count). Summing needs no sort: 0.4 ms at 1,720 documents against
# 1.4 ms for an md5 of their sorted ids, hashes and times (benchmarks/reports/documents_version.md); a search reads it.
DOCUMENTS_VERSION = "SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM documents WHERE state = 'complete'"

# Each complete document's mean chunk vector over its body (pgvector's avg over vectors; 부칙 chunks left out).
DOCUMENT_VECTORS = (
    "SELECT c.doc_id, avg(c.embedding)::real[] FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
    "WHERE d.state = 'complete' AND c.embedding IS NOT NULL AND coalesce((c.meta->>'addendum')::boolean, false) = false "
    "GROUP BY c.doc_id ORDER BY c.doc_id"
)

COPY_CHUNKS = sql.SQL("COPY chunks ({}) FROM STDIN").format(
    sql.SQL(", ").join(
        sql.Identifier(c)
        for c in ("id", "doc_id", "ordinal", "header", "text", "prev_id", "next_id", "meta", *COLUMNS, "embedding", "lexemes")
    )
)
COPY_POSTINGS = "COPY postings (term, chunk_id, tf, n_terms) FROM STDIN"

UPSERT_DOCUMENT = """
INSERT INTO documents (doc_id, source, title, kind, code, content_hash, chunk_count, term_count, origin, state)
VALUES (%(doc_id)s, %(source)s, %(title)s, %(kind)s, %(code)s, %(content_hash)s, %(chunk_count)s, %(term_count)s,
        %(origin)s, 'complete')
ON CONFLICT (doc_id) DO UPDATE SET
    source = EXCLUDED.source, title = EXCLUDED.title, kind = EXCLUDED.kind, code = EXCLUDED.code,
    content_hash = EXCLUDED.content_hash, chunk_count = EXCLUDED.chunk_count, term_count = EXCLUDED.term_count,
    origin = EXCLUDED.origin, state = EXCLUDED.state, ingested_at = now()
"""
LOCK_DOCUMENT = "SELECT 1 FROM documents WHERE doc_id = %s FOR UPDATE"
DELETE_POSTINGS = """
DELETE FROM postings p USING (
    SELECT c.id, t.term FROM chunks c, unnest(tsvector_to_array(c.lexemes)) AS t (term) WHERE c.doc_id = %s
) old
WHERE p.term = old.term AND p.chunk_id = old.id
"""
DELETE_CHUNKS = "DELETE FROM chunks WHERE doc_id = %s"
DELETE_LINKS = "DELETE FROM links WHERE doc_id = %s"
COPY_LINKS = "COPY links (source_id, doc_id, ord, target_key, target, article, detail) FROM STDIN"
LINK_COLS = "doc_id, source_id, target, article, detail"
LINKS_FROM = f"SELECT {LINK_COLS} FROM links WHERE source_id = ANY(%s) ORDER BY source_id, ord"
LINKS_INTO = (
    f"SELECT {LINK_COLS} FROM links WHERE article = ANY(%s) AND right(%s, length(target_key)) = target_key "
    "ORDER BY doc_id, source_id, ord"
)
ARTICLE_CHUNKS = (
    "SELECT id, doc_id, article FROM chunks WHERE doc_id = ANY(%s) AND article = ANY(%s) "
    "AND NOT coalesce((meta->>'addendum')::boolean, false) ORDER BY doc_id, ordinal"
)
DELETE_DOCUMENT = "DELETE FROM documents WHERE doc_id = %s"

SIZE = (
    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
    "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'"
)

DENSE = sql.SQL(
    "SELECT id, 1 - (embedding <=> %(vector)s) FROM chunks WHERE embedding IS NOT NULL AND {where} "
    "ORDER BY embedding <=> %(vector)s LIMIT %(k)s"
)

BM25 = sql.SQL("""
WITH query AS (
    SELECT * FROM unnest(%(terms)s::text[], %(repeats)s::float8[]) AS q (term, repeats)
), stats AS (
    SELECT greatest(sum(chunk_count), 1)::float8 AS n,
           greatest(sum(term_count)::float8 / greatest(sum(chunk_count), 1), 1e-9) AS avgdl
    FROM documents WHERE state = 'complete'
), weights AS MATERIALIZED (
    SELECT q.term, q.repeats * ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) AS w
    FROM query q CROSS JOIN stats s
    CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM postings p WHERE p.term = q.term) d
    WHERE d.df > 0
)
SELECT h.chunk_id, sum(w.w * h.tf / (h.tf + %(k1)s * (1 - %(b)s + %(b)s * h.n_terms / s.avgdl))) AS score
FROM weights w JOIN postings h USING (term) CROSS JOIN stats s
WHERE {wanted}
GROUP BY h.chunk_id ORDER BY score DESC, h.chunk_id LIMIT %(k)s
""")
# With a filter, the chunks that match it (adding ``lexemes @@ query`` here measured 1.3-3x slower).
BM25_WANTED = sql.SQL("h.chunk_id IN (SELECT id FROM chunks WHERE {where})")
