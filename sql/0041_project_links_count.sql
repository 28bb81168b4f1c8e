-- collabd schema: how many groups a project is shared with, kept in its row. The
-- records of projects (PROJECT_SHARED, PROJECT_SHARED_LINKS) and the page of the
-- membership list looked for links in project_group_links for every project, an index
-- probe each, where about one project in eight has any. They now look only where the
-- count says there are some. A trigger keeps it in the links' own transaction (a share,
-- an unshare, a group's or a project's deletion, whose cascades fire it too). It is not
-- a column the response cache compares (sql/0010): the links' own trigger bumps the
-- project's record and lists.
ALTER TABLE projects ADD COLUMN group_links_count integer NOT NULL DEFAULT 0;
UPDATE projects p SET group_links_count = l.n
	FROM (SELECT project_id, count(*) AS n FROM project_group_links GROUP BY project_id) l
	WHERE l.project_id = p.id;

CREATE FUNCTION project_group_links_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		UPDATE projects SET group_links_count = group_links_count - 1 WHERE id = OLD.project_id;
	END IF;
	IF TG_OP <> 'DELETE' THEN
		UPDATE projects SET group_links_count = group_links_count + 1 WHERE id = NEW.project_id;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER project_group_links_count AFTER INSERT OR DELETE OR UPDATE OF project_id
	ON project_group_links FOR EACH ROW EXECUTE FUNCTION project_group_links_count();
