-- The response cache's key of a project's repository: project id * 16 + 4 (kind 4 of
-- sql/0010_cache_keys.sql), on which the repository reads it keeps depend
-- (branches/:branch, commits, files/:file_path: src/api/commits.c, content_depend).
-- It is bumped, as every key, at the commit of the transaction that changes what they
-- answer:
-- - a ref moved: a push over HTTP or SSH (post-receive), a branch, tag, commit, file,
--   cherry-pick or merge made through the API (hooks_pushed), the merged branches
--   removed (the background job): each counts one more change of the project's refs in
--   repository_refs, in the transaction that records it (src/git/hooks.c,
--   hooks_refs_changed);
-- - a protected branch made, changed or removed (a branch's protected and
--   developers_can_push / developers_can_merge).
-- A ref moved straight on the disk, behind collabd, is not seen.
-- No foreign key: its check would lock the project's row (FOR KEY SHARE) at a project's
-- first change, in the merged-branches job too, against writers that hold it FOR UPDATE
-- and then come here; the statement inserts only for a project that exists, and the row
-- of a removed one (ids are never reused) stays, a counter that nothing reads.
CREATE TABLE repository_refs (
	project_id bigint PRIMARY KEY,
	changes bigint NOT NULL DEFAULT 1
);

CREATE FUNCTION cache_bump_repository() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.project_id * 16 + 4);
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.project_id * 16 + 4);
	END IF;
	RETURN NULL;
END $$;

CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON repository_refs
	FOR EACH ROW EXECUTE FUNCTION cache_bump_repository();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON protected_branches
	FOR EACH ROW EXECUTE FUNCTION cache_bump_repository();

CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON repository_refs
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON protected_branches
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
