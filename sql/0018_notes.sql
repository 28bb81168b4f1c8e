-- collabd schema: what notes need besides sql/0013. A note's "commented on" event is
-- found by its target, follows the note's edits and goes with the note, however the
-- note goes (deleted, or with its issue or snippet).
CREATE INDEX events_target ON events (target_type, target_id) WHERE target_id IS NOT NULL;

CREATE FUNCTION notes_forget_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM events WHERE target_type = 'Note' AND target_id = OLD.id;
	RETURN NULL;
END $$;
CREATE TRIGGER notes_forget_events AFTER DELETE ON notes FOR EACH ROW
	EXECUTE FUNCTION notes_forget_events();
