-- A noteable's notes in the order of created_at (then id): the lists in GitLab's
-- default order (created_at, newest first) or its reverse read only the page's notes
-- (src/api/notes.c, notes_list_issue_recent and _oldest). It serves what notes_noteable
-- served (a noteable's notes, their count), which goes.
CREATE INDEX notes_noteable_created ON notes (noteable_type, noteable_id, created_at, id)
	WHERE noteable_id IS NOT NULL;
DROP INDEX notes_noteable;
