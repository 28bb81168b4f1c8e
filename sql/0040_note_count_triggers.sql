-- collabd schema: the counting triggers of notes fire only for their own noteables.
-- tracker_note_counts (sql/0013, sql/0030) counts an issue's notes and
-- merge_request_note_counts (sql/0019) a merge request's; each fired for every note
-- and returned at once for the other kind, a PL/pgSQL call for nothing in every
-- comment's transaction (about 3% of a comment's instructions in PostgreSQL). The WHEN
-- conditions are the functions' own, so the counts do not change; the functions stay.
DROP TRIGGER tracker_note_counts ON notes;
DROP TRIGGER merge_request_note_counts ON notes;

CREATE TRIGGER tracker_note_counts_insert AFTER INSERT ON notes FOR EACH ROW
	WHEN (NEW.noteable_type = 'Issue' AND NOT NEW.system)
	EXECUTE FUNCTION tracker_note_counts();
CREATE TRIGGER tracker_note_counts_delete AFTER DELETE ON notes FOR EACH ROW
	WHEN (OLD.noteable_type = 'Issue' AND NOT OLD.system)
	EXECUTE FUNCTION tracker_note_counts();
CREATE TRIGGER tracker_note_counts_update
	AFTER UPDATE OF noteable_type, noteable_id, system ON notes FOR EACH ROW
	WHEN ((OLD.noteable_type = 'Issue' AND NOT OLD.system)
	      OR (NEW.noteable_type = 'Issue' AND NOT NEW.system))
	EXECUTE FUNCTION tracker_note_counts();

CREATE TRIGGER merge_request_note_counts_insert AFTER INSERT ON notes FOR EACH ROW
	WHEN (NEW.noteable_type = 'MergeRequest' AND NOT NEW.system)
	EXECUTE FUNCTION merge_request_note_counts();
CREATE TRIGGER merge_request_note_counts_delete AFTER DELETE ON notes FOR EACH ROW
	WHEN (OLD.noteable_type = 'MergeRequest' AND NOT OLD.system)
	EXECUTE FUNCTION merge_request_note_counts();
CREATE TRIGGER merge_request_note_counts_update
	AFTER UPDATE OF noteable_type, noteable_id, system ON notes FOR EACH ROW
	WHEN ((OLD.noteable_type = 'MergeRequest' AND NOT OLD.system)
	      OR (NEW.noteable_type = 'MergeRequest' AND NOT NEW.system))
	EXECUTE FUNCTION merge_request_note_counts();
