-- collabd schema: the text search of GET /search (src/api/search.c). Every scope finds
-- records with ILIKE '%text%' on their text columns, which a btree cannot serve; trigram
-- indexes (pg_trgm, shipped with PostgreSQL and trusted: the database's owner may create
-- it) serve any such pattern of three characters or more, so that a search reads the
-- records that match, not every record the caller may read.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX projects_name_trgm ON projects USING gin (name gin_trgm_ops);
CREATE INDEX projects_path_trgm ON projects USING gin (path gin_trgm_ops);
CREATE INDEX projects_description_trgm ON projects USING gin (description gin_trgm_ops);
CREATE INDEX issues_title_trgm ON issues USING gin (title gin_trgm_ops);
CREATE INDEX issues_description_trgm ON issues USING gin (description gin_trgm_ops);
CREATE INDEX merge_requests_title_trgm ON merge_requests USING gin (title gin_trgm_ops);
CREATE INDEX merge_requests_description_trgm ON merge_requests USING gin (description gin_trgm_ops);
CREATE INDEX milestones_title_trgm ON milestones USING gin (title gin_trgm_ops);
CREATE INDEX milestones_description_trgm ON milestones USING gin (description gin_trgm_ops);
CREATE INDEX notes_note_trgm ON notes USING gin (note gin_trgm_ops);
CREATE INDEX snippets_title_trgm ON snippets USING gin (title gin_trgm_ops);
CREATE INDEX snippets_file_name_trgm ON snippets USING gin (file_name gin_trgm_ops);
CREATE INDEX snippets_content_trgm ON snippets USING gin (content gin_trgm_ops);
