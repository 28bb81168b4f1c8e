-- An issue's assignee (GitLab 10 CE shows one: the lowest user id of issue_assignees),
-- kept on its row (assignee_id): the lists show it without one index probe of
-- issue_assignees for every row (about a quarter of a list statement's time). Statement
-- triggers on issue_assignees write it again for the issues whose assignees an insert,
-- delete or update touched, in that transaction; a removed user or issue takes its rows
-- with it (ON DELETE CASCADE), whose removal comes here too. No foreign key: the column
-- follows issue_assignees, which has them.
ALTER TABLE issues ADD COLUMN assignee_id bigint;

-- Writes again the assignee of the issues of ids.
CREATE FUNCTION issue_assignee_write(ids bigint[]) RETURNS void LANGUAGE sql AS $$
	UPDATE issues i SET assignee_id = a.user_id
	FROM (SELECT x.id, (SELECT min(ia.user_id) FROM issue_assignees ia WHERE ia.issue_id = x.id)
		AS user_id FROM unnest(ids) x (id)) a
	WHERE i.id = a.id AND i.assignee_id IS DISTINCT FROM a.user_id;
$$;

CREATE FUNCTION issue_assignees_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM issue_assignee_write(array_agg(DISTINCT issue_id)) FROM changed;
	RETURN NULL;
END $$;

CREATE FUNCTION issue_assignees_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM issue_assignee_write(array_agg(issue_id))
	FROM (SELECT issue_id FROM was UNION SELECT issue_id FROM changed) x;
	RETURN NULL;
END $$;

CREATE TRIGGER issue_assignee_insert AFTER INSERT ON issue_assignees
	REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION issue_assignees_changed();
CREATE TRIGGER issue_assignee_delete AFTER DELETE ON issue_assignees
	REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION issue_assignees_changed();
CREATE TRIGGER issue_assignee_update AFTER UPDATE ON issue_assignees
	REFERENCING OLD TABLE AS was NEW TABLE AS changed
	FOR EACH STATEMENT EXECUTE FUNCTION issue_assignees_moved();

UPDATE issues i SET assignee_id = a.user_id
FROM (SELECT issue_id, min(user_id) AS user_id FROM issue_assignees GROUP BY issue_id) a
WHERE i.id = a.issue_id;
