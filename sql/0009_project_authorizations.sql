-- The caller's level on a project, precomputed (GitLab's project_authorizations): one
-- row per user, project and end date of the memberships that give it, with the highest
-- level those memberships give. The level of user U on project P is the highest
-- access_level of U's rows for P whose expires_at is after today (access ends on a
-- membership's expires_at at once, before the background process removes the member;
-- 'infinity' for memberships without an end). A membership counts when it is not an
-- access request (requested_at IS NULL); it gives
-- - its level on the project it is a membership of (source_type 'Project');
-- - its level on every project of the group it is a membership of and of every group
--   below it (the project's namespace is a group whose traversal_ids hold the group);
-- - least(group_access, its level) on every project shared with that group or a group
--   below it (project_group_links).
-- Admins, the owner of a personal namespace and visibility are not here: the statements
-- test those on their own columns. A project being deleted (pending_delete) keeps its
-- rows until the row goes: every statement skips those projects on projects.
--
-- How the rows follow the data. A change that can alter rows marks, in the same
-- statement (statement-level triggers over the transition tables), what it touches:
-- the users of the memberships changed, the projects created, deleted, moved to another
-- namespace or whose links changed, the groups moved (their traversal_ids). The marks
-- are transaction-local settings (set_config(..., true)), gone with the transaction or
-- the savepoint that made them. The first mark of a transaction also inserts its row in
-- project_authorizations_pending, whose deferred constraint trigger fires once, at
-- commit: it recomputes the rows of every marked user and of every marked project (for a
-- moved group: of every project below it or shared with a group below it, found then)
-- from the data as it is then, and writes the difference (rows deleted, inserted or
-- their level updated). Deferred events on members, projects... themselves would stop a
-- bulk load in one transaction from re-enabling their triggers (contrib/bench/gen.sql).
--
-- Concurrency: that recomputation runs under the advisory lock 4242424242, held until
-- the commit is done; the response cache's bumps take the same lock at commit
-- (0007_cache.sql). So the recomputations of concurrent transactions run one at a time,
-- each one from a snapshot taken after the lock is granted, which holds every change
-- committed before it: when two transactions add memberships of the same user through
-- different groups (or one removes one while the other adds another), the second to
-- commit computes that user's rows from both changes, not from its own start. What each
-- recomputes is found under the lock as well (the projects below a moved group), so a
-- membership of a group above committed meanwhile is seen. tests/api/suite_authorizations.c
-- runs such pairs on two connections, in both commit orders.
-- No deadlock: the lock is taken at commit, after every lock of the transaction's own
-- statements; under it a transaction writes only project_authorizations (and the cache's
-- epochs), whose rows nobody writes without it, and reads without locking; no foreign
-- keys (a key check would wait on the users or projects row lock of a transaction that
-- may be waiting for this lock). Should the cache's bumps take other locks at commit
-- instead (per key), they must all be taken by every transaction on the same side of
-- this lock: the pending row is inserted at the end of the first statement that marks,
-- so its event fires after a commit event that the cache queues at the first changed
-- row (and, for the same row, a trigger named cache_* before project_authorizations_*):
-- this lock last, nothing after it but the commit.
-- Statements that read the table inside the transaction that changed the data see the
-- rows as they were before (every handler reads them after its commit). Write
-- transactions must be READ COMMITTED (the recomputation needs the fresh snapshot; the
-- flush refuses otherwise).
CREATE TABLE project_authorizations (
	user_id bigint NOT NULL,
	project_id bigint NOT NULL,
	access_level smallint NOT NULL,
	expires_at date NOT NULL DEFAULT 'infinity',
	PRIMARY KEY (user_id, project_id, expires_at) INCLUDE (access_level)
);
CREATE INDEX project_authorizations_project_idx ON project_authorizations (project_id, user_id);

-- The rows of users us and of projects ps, from the memberships, groups and links.
CREATE FUNCTION project_authorizations_of(us bigint[], ps bigint[])
RETURNS TABLE (user_id bigint, project_id bigint, access_level smallint, expires_at date)
LANGUAGE sql STABLE AS $$
SELECT c.user_id, c.project_id, max(c.access_level)::smallint, c.expires_at FROM (
	SELECT m.user_id, p.id AS project_id, m.access_level,
		coalesce(m.expires_at, 'infinity') AS expires_at
	FROM members m JOIN projects p ON p.id = m.source_id
	WHERE m.user_id IN (SELECT unnest(us)) AND m.source_type = 'Project' AND m.requested_at IS NULL
	UNION ALL
	SELECT m.user_id, p.id, m.access_level, coalesce(m.expires_at, 'infinity')
	FROM members m JOIN namespaces d ON d.traversal_ids @> ARRAY[m.source_id]
		AND d.kind = 'group'
	JOIN projects p ON p.namespace_id = d.id
	WHERE m.user_id IN (SELECT unnest(us)) AND m.source_type = 'Namespace' AND m.requested_at IS NULL
	UNION ALL
	SELECT m.user_id, l.project_id, least(l.group_access, m.access_level),
		coalesce(m.expires_at, 'infinity')
	FROM members m JOIN namespaces d ON d.traversal_ids @> ARRAY[m.source_id]
	JOIN project_group_links l ON l.group_id = d.id
	WHERE m.user_id IN (SELECT unnest(us)) AND m.source_type = 'Namespace' AND m.requested_at IS NULL
	UNION ALL
	SELECT m.user_id, p.id, m.access_level, coalesce(m.expires_at, 'infinity')
	FROM projects p JOIN members m ON m.source_type = 'Project' AND m.source_id = p.id
		AND m.requested_at IS NULL
	WHERE p.id IN (SELECT unnest(ps))
	UNION ALL
	SELECT m.user_id, p.id, m.access_level, coalesce(m.expires_at, 'infinity')
	FROM projects p JOIN namespaces n ON n.id = p.namespace_id AND n.kind = 'group'
	JOIN members m ON m.source_type = 'Namespace' AND m.source_id = ANY (n.traversal_ids)
		AND m.requested_at IS NULL
	WHERE p.id IN (SELECT unnest(ps))
	UNION ALL
	SELECT m.user_id, l.project_id, least(l.group_access, m.access_level),
		coalesce(m.expires_at, 'infinity')
	FROM project_group_links l JOIN namespaces lg ON lg.id = l.group_id
	JOIN members m ON m.source_type = 'Namespace' AND m.source_id = ANY (lg.traversal_ids)
		AND m.requested_at IS NULL
	WHERE l.project_id IN (SELECT unnest(ps))
) c GROUP BY c.user_id, c.project_id, c.expires_at
$$;

INSERT INTO project_authorizations
	SELECT * FROM project_authorizations_of(ARRAY(SELECT DISTINCT user_id FROM members), '{}');

-- One row per transaction that marked something, inserted with its first mark: the
-- deferred trigger on it recomputes at commit (the pending event is on this table, not on
-- the changed ones, which a bulk load may still ALTER before its commit). The row goes
-- before the commit: no other transaction ever sees one.
CREATE TABLE project_authorizations_pending (
	xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);

-- Marks ids (users, projects or groups: kind) for the recomputation at commit.
CREATE FUNCTION project_authorizations_mark(kind text, ids bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF cardinality(ids) > 0 THEN
		PERFORM set_config('collabd.pa_' || kind,
			(coalesce(nullif(current_setting('collabd.pa_' || kind, true), ''), '{}')::bigint[]
			 || ids)::text, true);
		IF current_setting('collabd.pa_queued', true) IS DISTINCT FROM 'y' THEN
			INSERT INTO project_authorizations_pending DEFAULT VALUES;
			PERFORM set_config('collabd.pa_queued', 'y', true);
		END IF;
	END IF;
END $$;

-- The marks of a statement, from its transition tables (o: old rows, n: new rows).
CREATE FUNCTION project_authorizations_members_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('users',
		ARRAY(SELECT DISTINCT user_id FROM n WHERE requested_at IS NULL));
	RETURN NULL;
END $$;
CREATE FUNCTION project_authorizations_members_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('users',
		ARRAY(SELECT DISTINCT user_id FROM o WHERE requested_at IS NULL));
	RETURN NULL;
END $$;
CREATE FUNCTION project_authorizations_members_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('users', ARRAY(
		SELECT o.user_id FROM o JOIN n ON n.id = o.id
		WHERE (o.source_type, o.source_id, o.user_id, o.access_level, o.requested_at IS NULL,
			o.expires_at) IS DISTINCT FROM (n.source_type, n.source_id, n.user_id,
			n.access_level, n.requested_at IS NULL, n.expires_at)
		UNION SELECT n.user_id FROM o JOIN n ON n.id = o.id
		WHERE (o.source_type, o.source_id, o.user_id, o.access_level, o.requested_at IS NULL,
			o.expires_at) IS DISTINCT FROM (n.source_type, n.source_id, n.user_id,
			n.access_level, n.requested_at IS NULL, n.expires_at)));
	RETURN NULL;
END $$;
CREATE FUNCTION project_authorizations_links_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('projects', ARRAY(SELECT DISTINCT project_id FROM n));
	RETURN NULL;
END $$;
CREATE FUNCTION project_authorizations_links_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('projects', ARRAY(SELECT DISTINCT project_id FROM o));
	RETURN NULL;
END $$;
CREATE FUNCTION project_authorizations_links_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('projects', ARRAY(
		SELECT o.project_id FROM o JOIN n ON n.id = o.id
		WHERE (o.project_id, o.group_id, o.group_access)
			IS DISTINCT FROM (n.project_id, n.group_id, n.group_access)
		UNION SELECT n.project_id FROM o JOIN n ON n.id = o.id
		WHERE (o.project_id, o.group_id, o.group_access)
			IS DISTINCT FROM (n.project_id, n.group_id, n.group_access)));
	RETURN NULL;
END $$;
CREATE FUNCTION project_authorizations_projects_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('projects', ARRAY(SELECT id FROM n));
	RETURN NULL;
END $$;
CREATE FUNCTION project_authorizations_projects_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('projects', ARRAY(SELECT id FROM o));
	RETURN NULL;
END $$;
CREATE FUNCTION project_authorizations_projects_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('projects', ARRAY(
		SELECT o.id FROM o JOIN n ON n.id = o.id WHERE o.namespace_id <> n.namespace_id));
	RETURN NULL;
END $$;
CREATE FUNCTION project_authorizations_namespaces_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM project_authorizations_mark('groups', ARRAY(
		SELECT n.id FROM o JOIN n ON n.id = o.id
		WHERE (o.traversal_ids, o.kind) IS DISTINCT FROM (n.traversal_ids, n.kind)));
	RETURN NULL;
END $$;
-- A deleted namespace has no projects left (projects.namespace_id), its memberships go
-- with it (source_cleanup_trigger) and so do the links to it: those mark what changes.

CREATE TRIGGER project_authorizations_mark AFTER INSERT ON members
	REFERENCING NEW TABLE AS n FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_members_ins();
CREATE TRIGGER project_authorizations_mark_del AFTER DELETE ON members
	REFERENCING OLD TABLE AS o FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_members_del();
CREATE TRIGGER project_authorizations_mark_upd AFTER UPDATE ON members
	REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_members_upd();
CREATE TRIGGER project_authorizations_mark AFTER INSERT ON project_group_links
	REFERENCING NEW TABLE AS n FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_links_ins();
CREATE TRIGGER project_authorizations_mark_del AFTER DELETE ON project_group_links
	REFERENCING OLD TABLE AS o FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_links_del();
CREATE TRIGGER project_authorizations_mark_upd AFTER UPDATE ON project_group_links
	REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_links_upd();
CREATE TRIGGER project_authorizations_mark AFTER INSERT ON projects
	REFERENCING NEW TABLE AS n FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_projects_ins();
CREATE TRIGGER project_authorizations_mark_del AFTER DELETE ON projects
	REFERENCING OLD TABLE AS o FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_projects_del();
CREATE TRIGGER project_authorizations_mark_upd AFTER UPDATE ON projects
	REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_projects_upd();
CREATE TRIGGER project_authorizations_mark_upd AFTER UPDATE ON namespaces
	REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH STATEMENT
	EXECUTE FUNCTION project_authorizations_namespaces_upd();

-- At commit: the rows of what the transaction marked, recomputed under the lock.
CREATE FUNCTION project_authorizations_flush() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	us bigint[] := nullif(current_setting('collabd.pa_users', true), '')::bigint[];
	ps bigint[] := nullif(current_setting('collabd.pa_projects', true), '')::bigint[];
	gs bigint[] := nullif(current_setting('collabd.pa_groups', true), '')::bigint[];
BEGIN
	DELETE FROM project_authorizations_pending WHERE xid = pg_current_xact_id();
	PERFORM set_config('collabd.pa_queued', '', true);
	IF us IS NULL AND ps IS NULL AND gs IS NULL THEN
		RETURN NULL;
	END IF;
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'project_authorizations: a change of access in a % transaction',
			current_setting('transaction_isolation');
	END IF;
	PERFORM set_config('collabd.pa_users', '', true);
	PERFORM set_config('collabd.pa_projects', '', true);
	PERFORM set_config('collabd.pa_groups', '', true);
	PERFORM pg_advisory_xact_lock(4242424242);
	-- from here every statement sees what was committed before the lock was granted
	us := ARRAY(SELECT DISTINCT x FROM unnest(us) x ORDER BY 1);
	ps := ARRAY(SELECT DISTINCT x FROM (
		SELECT unnest(ps) x
		UNION ALL SELECT p.id FROM namespaces d JOIN projects p ON p.namespace_id = d.id
		WHERE d.traversal_ids && gs
		UNION ALL SELECT l.project_id FROM namespaces d
		JOIN project_group_links l ON l.group_id = d.id WHERE d.traversal_ids && gs) t
		WHERE x IS NOT NULL ORDER BY 1);
	WITH want AS MATERIALIZED (SELECT * FROM project_authorizations_of(us, ps)),
	gone_u AS (DELETE FROM project_authorizations a WHERE a.user_id IN (SELECT unnest(us))
		AND NOT EXISTS (SELECT 1 FROM want w WHERE w.user_id = a.user_id
			AND w.project_id = a.project_id AND w.expires_at = a.expires_at)),
	gone_p AS (DELETE FROM project_authorizations a WHERE a.project_id IN (SELECT unnest(ps))
		AND NOT EXISTS (SELECT 1 FROM want w WHERE w.user_id = a.user_id
			AND w.project_id = a.project_id AND w.expires_at = a.expires_at))
	INSERT INTO project_authorizations AS a (user_id, project_id, access_level, expires_at)
	SELECT w.user_id, w.project_id, w.access_level, w.expires_at FROM want w
	ORDER BY w.user_id, w.project_id, w.expires_at
	ON CONFLICT (user_id, project_id, expires_at) DO UPDATE
		SET access_level = EXCLUDED.access_level
		WHERE a.access_level <> EXCLUDED.access_level;
	RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER project_authorizations_flush AFTER INSERT
	ON project_authorizations_pending DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	EXECUTE FUNCTION project_authorizations_flush();
