-- geungeo PostgreSQL store, schema version 1: one schema per collection.
-- The vector column and its HNSW index are added when the index signature is recorded
-- (their dimension comes from the embedder), see geungeo/stores/pg_schema.py.

CREATE TABLE index_signature (
    singleton  boolean PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    embedder   text NOT NULL,
    dim        integer NOT NULL CHECK (dim > 0),
    tokenizer  text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
    doc_id       text PRIMARY KEY,
    source       text NOT NULL,
    title        text NOT NULL,
    kind         text NOT NULL,
    code         text,
    content_hash text NOT NULL,
    chunk_count  integer NOT NULL,
    term_count   bigint NOT NULL,              -- number of terms of all its chunks (BM25 average length)
    origin       text NOT NULL DEFAULT '',
    meta         jsonb NOT NULL DEFAULT '{}',
    state        text NOT NULL CHECK (state IN ('pending', 'complete')),
    ingested_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE chunks (
    id       text PRIMARY KEY,
    doc_id   text NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
    ordinal  integer NOT NULL,
    header   text NOT NULL,
    text     text NOT NULL,
    prev_id  text,
    next_id  text,
    meta     jsonb NOT NULL,                   -- all filterable metadata, as the chunk had it
    doc      text,                             -- typed copies of common meta fields
    source   text,
    code     text,
    category text,
    article  text,
    chapter  text,
    page     integer,
    lexemes  tsvector NOT NULL                 -- the chunk's distinct sparse terms, verbatim (its postings)
);

CREATE INDEX chunks_doc_ordinal ON chunks (doc_id, ordinal);
CREATE INDEX chunks_doc ON chunks (doc);
CREATE INDEX chunks_source ON chunks (source);
CREATE INDEX chunks_category ON chunks (category);
CREATE INDEX chunks_page ON chunks (page);
CREATE INDEX chunks_meta ON chunks USING gin (meta jsonb_path_ops);

-- BM25 postings: one row per distinct term of a chunk. The covering primary key lets a
-- query read every posting of its terms with an index-only scan. Rows are written and
-- removed together with their chunk (found through chunks.lexemes), in the same transaction.
CREATE TABLE postings (
    term     text NOT NULL,
    chunk_id text NOT NULL,
    tf       integer NOT NULL,                 -- occurrences of term in the chunk
    n_terms  integer NOT NULL,                 -- the chunk's number of terms (BM25 length)
    PRIMARY KEY (term, chunk_id) INCLUDE (tf, n_terms)
);
