-- Epochs for the response cache of the workers (src/http/cache.h).
--
-- A cached response names the keys it depends on; each key has a version here that
-- only grows. A worker serves a cached response only after reading, in one statement,
-- the sum of its keys' versions and finding it unchanged (versions only grow, so any
-- change of any of them changes the sum). The versions are bumped by the triggers
-- below in the transaction that changes the rows, so that a reader sees the new data
-- and the new version together, from whichever instance it reads.
--
-- Keys are id * 16 + kind: kind 0 the global keys (0 everything, 16 every user, 32
-- every project, 48 every namespace), 1 one user (id), 2 one project (id), 3 one
-- namespace (id; a group's rename rewrites the paths of every namespace below it, so
-- each of those is bumped too).
--
-- The bumps run at commit (deferred constraint triggers), one transaction at a time
-- (an advisory lock taken last, after every lock of the transaction's own work): no
-- deadlock between writers that bump the same keys in different orders. A bulk load may
-- disable the triggers (ALTER TABLE ... DISABLE TRIGGER cache_bump) and bump key 0 after.
CREATE TABLE cache_epochs (
	k bigint PRIMARY KEY,
	v bigint NOT NULL
);

CREATE FUNCTION cache_bump(keys bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(4242424242);
	INSERT INTO cache_epochs AS e (k, v)
	SELECT DISTINCT x, 1 FROM unnest(keys) x WHERE x IS NOT NULL ORDER BY 1
	ON CONFLICT (k) DO UPDATE SET v = e.v + 1;
END $$;

-- The keys a row of each table is part of.
CREATE FUNCTION cache_bump_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	IF TG_OP = 'DELETE' THEN
		r := OLD;
	ELSE
		r := NEW;
	END IF;
	CASE TG_TABLE_NAME
	WHEN 'users' THEN
		PERFORM cache_bump(ARRAY[r.id * 16 + 1, 16]);
	WHEN 'identities' THEN
		PERFORM cache_bump(ARRAY[r.user_id * 16 + 1, 16]);
	WHEN 'tokens', 'notification_settings' THEN
		PERFORM cache_bump(ARRAY[r.user_id * 16 + 1]);
	WHEN 'members' THEN
		PERFORM cache_bump(ARRAY[r.user_id * 16 + 1,
			CASE WHEN r.source_type = 'Project' THEN r.source_id * 16 + 2 END]);
	WHEN 'users_star_projects' THEN
		PERFORM cache_bump(ARRAY[r.user_id * 16 + 1, r.project_id * 16 + 2, 32]);
	WHEN 'projects' THEN
		PERFORM cache_bump(ARRAY[r.id * 16 + 2, 32]);
	WHEN 'project_group_links' THEN
		PERFORM cache_bump(ARRAY[r.project_id * 16 + 2, 32]);
	WHEN 'namespaces' THEN
		PERFORM cache_bump(ARRAY[r.id * 16 + 3, 48]);
	END CASE;
	RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON users
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_row();
CREATE CONSTRAINT TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON identities
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_row();
CREATE CONSTRAINT TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON tokens
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_row();
CREATE CONSTRAINT TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON notification_settings
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_row();
CREATE CONSTRAINT TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON members
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_row();
CREATE CONSTRAINT TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON users_star_projects
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_row();
CREATE CONSTRAINT TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON projects
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_row();
CREATE CONSTRAINT TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON project_group_links
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_row();
CREATE CONSTRAINT TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON namespaces
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_row();
