-- collabd schema: discussions (GitLab 10.8's notes.discussion_id, type, resolved_at,
-- resolved_by_id). Every note belongs to a discussion: a note made through the notes
-- API (type NULL) is a discussion of its own, GitLab's individual note; the notes of a
-- discussion started through the discussions API are DiscussionNotes that share the
-- id of the first. The id is 40 hexadecimal digits, as GitLab's SHA1, from the
-- server's random UUIDs (not to be guessed: a discussion's id is no secret, but
-- neither is there a reason to make it a counter). Existing notes get one each.
CREATE FUNCTION new_discussion_id() RETURNS text LANGUAGE sql VOLATILE AS $$
	SELECT replace(gen_random_uuid()::text, '-', '')
		|| left(replace(gen_random_uuid()::text, '-', ''), 8)
$$;
ALTER TABLE notes
	ADD COLUMN discussion_id text NOT NULL DEFAULT new_discussion_id(),
	ADD COLUMN type text CHECK (type IN ('DiscussionNote', 'DiffNote')),
	ADD COLUMN resolved_at timestamptz,
	ADD COLUMN resolved_by_id bigint REFERENCES users (id) ON DELETE SET NULL;
-- a noteable's discussions (the lists group by it) and one discussion's notes
CREATE INDEX notes_discussion ON notes (noteable_type, noteable_id, discussion_id)
	WHERE noteable_id IS NOT NULL;
CREATE INDEX notes_resolved_by ON notes (resolved_by_id) WHERE resolved_by_id IS NOT NULL;
