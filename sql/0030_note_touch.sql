-- collabd schema: a comment on an issue writes its issue once. GitLab's Note belongs to
-- its noteable with touch: true, and issues.user_notes_count counts the notes that are
-- not system notes: notes.c's insert updated the issue's updated_at and the trigger of
-- sql/0013 its count, two new versions of the same row in every comment's transaction.
-- The trigger now does both when a note that is not a system note is added to an issue
-- (a comment through the API, or the notes a move copies to the new issue, whose
-- updated_at is now() already); system notes still leave updated_at to the change they
-- record, and edits and deletions still touch the issue in notes.c.
CREATE OR REPLACE FUNCTION tracker_note_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' AND OLD.noteable_type = 'Issue' AND NOT OLD.system THEN
		UPDATE issues SET user_notes_count = user_notes_count - 1 WHERE id = OLD.noteable_id;
	END IF;
	IF TG_OP = 'INSERT' AND NEW.noteable_type = 'Issue' AND NOT NEW.system THEN
		UPDATE issues SET user_notes_count = user_notes_count + 1, updated_at = now()
			WHERE id = NEW.noteable_id;
	ELSIF TG_OP = 'UPDATE' AND NEW.noteable_type = 'Issue' AND NOT NEW.system THEN
		UPDATE issues SET user_notes_count = user_notes_count + 1 WHERE id = NEW.noteable_id;
	END IF;
	RETURN NULL;
END $$;
