-- A project import inserts its issues in one transaction (src/api/project_import.c); the
-- counts trigger of sql/0013/0037 updated the project's row once per open or closed
-- issue, and every later check of a foreign key to that row walked all those versions:
-- the import's time grew with the square of its issues (contrib/bench/results/
-- import-2026-12-02.md). While the transaction-local setting collabd.import is on, the
-- trigger leaves the counts alone; the import sets them once from the issues at its end.
CREATE OR REPLACE FUNCTION tracker_issue_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	was_open int := (TG_OP <> 'INSERT' AND OLD.state = 'opened' AND NOT OLD.confidential)::int;
	was_closed int := (TG_OP <> 'INSERT' AND OLD.state = 'closed' AND NOT OLD.confidential)::int;
	now_open int := (TG_OP <> 'DELETE' AND NEW.state = 'opened' AND NOT NEW.confidential)::int;
	now_closed int := (TG_OP <> 'DELETE' AND NEW.state = 'closed' AND NOT NEW.confidential)::int;
BEGIN
	IF current_setting('collabd.import', true) = 'on' THEN
		RETURN NULL;
	END IF;
	IF TG_OP = 'UPDATE' AND OLD.project_id = NEW.project_id THEN
		IF was_open <> now_open OR was_closed <> now_closed THEN
			UPDATE projects SET open_issues_count = open_issues_count + now_open - was_open,
				closed_issues_count = closed_issues_count + now_closed - was_closed
				WHERE id = NEW.project_id;
		END IF;
		RETURN NULL;
	END IF;
	IF was_open + was_closed > 0 THEN
		UPDATE projects SET open_issues_count = open_issues_count - was_open,
			closed_issues_count = closed_issues_count - was_closed WHERE id = OLD.project_id;
	END IF;
	IF now_open + now_closed > 0 THEN
		UPDATE projects SET open_issues_count = open_issues_count + now_open,
			closed_issues_count = closed_issues_count + now_closed WHERE id = NEW.project_id;
	END IF;
	RETURN NULL;
END $$;
