-- geungeo PostgreSQL store, schema version 2: citations between articles (geungeo/text/references.py).
-- One row per citation a chunk makes; the cited title and article are resolved to chunks when read, so a
-- citation of a document ingested later resolves then. links_version records the rules that derived the rows
-- (a newer geungeo re-derives them from the stored chunks).

CREATE TABLE links (
    source_id  text NOT NULL,
    doc_id     text NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
    ord        integer NOT NULL,
    target_key text NOT NULL,                  -- the cited title without whitespace
    target     text NOT NULL,                  -- the cited title as cited
    article    text NOT NULL,
    detail     text NOT NULL
);
CREATE INDEX links_source ON links (source_id, ord);
CREATE INDEX links_doc ON links (doc_id);
CREATE INDEX links_article ON links (article, target_key);

CREATE TABLE links_version (
    singleton boolean PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    version   integer NOT NULL
);
