-- The response cache's versions (sql/0007_cache.sql), bumped per key instead of one
-- transaction at a time.
--
-- Keys. Point keys, as before: id * 16 + kind, kind 1 one user, 2 one project, 3 one
-- namespace; 0 everything (bumped by hand after a bulk load). Set keys: what a list's
-- membership or order reads, one per kind of change (1 users, 2 projects, 3 namespaces,
-- 4 the projects' name, path and description, 5 the projects' updated_at and
-- last_activity_at), each in 64 stripes: stripe s of set n is the key -(n * 64 + s) - 1
-- (a contiguous range of negative keys per set). A writer bumps the one stripe its row's
-- id falls on; a reader sums the 64 (src/http/cache.c, statement cache_versions). Versions
-- only grow, so the sum of a set's stripes changes whenever any of them does.
--
-- Which rows bump what: one trigger function per table (cache_bump_<table>), so that a
-- table added later brings its own and changes no other. A row's own key always; a set
-- key only when the row enters or leaves a list, or changes a column a list filters or
-- sorts on. Columns that are only shown (a star count, last_activity_at, the statistics,
-- the flags no filter reads) bump the row's key alone: a list that shows the row depends
-- on that key (its presenters declare it), and a list sorted by such a column on the set
-- of that column (5 for the times). Columns not named below count as filtered: a column
-- added later bumps the sets until it is named here.
--
-- When. The row triggers (cache_bump, AFTER ROW, immediate) only collect the keys in a
-- transaction-local setting (collabd.cache_keys; a subtransaction rolled back takes its
-- keys with it, as it takes its rows). One deferred constraint trigger event per
-- transaction (cache_bump_commit: queued by the row event that finds nothing collected
-- yet) bumps them all at commit, distinct and in ascending order, in one statement.
-- Writers whose keys are disjoint do not wait for each other; two whose keys overlap
-- lock the common keys in the same order, and a transaction takes these locks last
-- (nothing runs after it but the commit), holding none that another bumping transaction
-- may be waiting for but keys, which are always taken in ascending order: no cycle of
-- waits, no deadlock. A bulk load may disable the triggers (ALTER TABLE ... DISABLE
-- TRIGGER cache_bump, and cache_bump_commit) and bump key 0 after: cache_bump('{0}').

DROP TRIGGER cache_bump ON users;
DROP TRIGGER cache_bump ON identities;
DROP TRIGGER cache_bump ON tokens;
DROP TRIGGER cache_bump ON notification_settings;
DROP TRIGGER cache_bump ON members;
DROP TRIGGER cache_bump ON users_star_projects;
DROP TRIGGER cache_bump ON projects;
DROP TRIGGER cache_bump ON project_group_links;
DROP TRIGGER cache_bump ON namespaces;
DROP FUNCTION cache_bump_row();

-- Bumps keys, distinct, in ascending order (no lock beyond the keys' rows): what the
-- commit of a writing transaction does, and what a bulk load calls with key 0 after.
CREATE OR REPLACE FUNCTION cache_bump(keys bigint[]) RETURNS void LANGUAGE sql AS $$
	INSERT INTO cache_epochs AS e (k, v)
	SELECT DISTINCT x, 1 FROM unnest(keys) x WHERE x IS NOT NULL ORDER BY 1
	ON CONFLICT (k) DO UPDATE SET v = e.v + 1
$$;

-- Stripe of set n for the row whose id is id.
CREATE FUNCTION cache_stripe(n integer, id bigint) RETURNS bigint
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT -(n * 64 + id % 64) - 1 $$;

-- Whether rows a and b differ in a column other than those named (the columns a list
-- only shows, or reads through another set).
CREATE FUNCTION cache_differs(a jsonb, b jsonb, shown text[]) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (a - shown) IS DISTINCT FROM (b - shown) $$;

-- Adds keys (NULLs and those already there skipped) to the transaction's keys to bump
-- at commit, kept as ",k1,k2,...,": a statement that changes many rows of one project or
-- user (a cascade, a removal) keeps one copy of each key.
CREATE FUNCTION cache_collect(VARIADIC keys bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	have text := coalesce(nullif(current_setting('collabd.cache_keys', true), ''), ',');
	was text := have;
	k bigint;
BEGIN
	FOREACH k IN ARRAY keys LOOP
		CONTINUE WHEN k IS NULL OR strpos(have, ',' || k || ',') > 0;
		have := have || k || ',';
	END LOOP;
	IF have <> was THEN
		PERFORM set_config('collabd.cache_keys', have, true);
	END IF;
END $$;

-- At commit: bumps the collected keys, distinct, in ascending order.
CREATE FUNCTION cache_bump_commit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	ks text := current_setting('collabd.cache_keys', true);
BEGIN
	IF ks IS NULL OR ks = '' THEN
		RETURN NULL;
	END IF;
	PERFORM set_config('collabd.cache_keys', '', true);
	PERFORM cache_bump(string_to_array(trim(BOTH ',' FROM ks), ',')::bigint[]);
	RETURN NULL;
END $$;

CREATE FUNCTION cache_bump_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		PERFORM cache_collect(OLD.id * 16 + 1, cache_stripe(1, OLD.id));
	ELSIF TG_OP = 'INSERT' THEN
		PERFORM cache_collect(NEW.id * 16 + 1, cache_stripe(1, NEW.id));
	ELSE
		-- the lists filter on state, names, email, external, created_at (and ghost)
		PERFORM cache_collect(OLD.id * 16 + 1, NEW.id * 16 + 1,
			CASE WHEN cache_differs(to_jsonb(OLD), to_jsonb(NEW), ARRAY['is_admin',
				'password_hash', 'password_expires_at', 'bio', 'location', 'skype',
				'linkedin', 'twitter', 'website_url', 'organization', 'projects_limit',
				'can_create_group', 'theme_id', 'color_scheme_id', 'avatar',
				'confirmed_at', 'last_sign_in_at', 'current_sign_in_at',
				'last_activity_on', 'updated_at', 'notification_email'])
			THEN cache_stripe(1, NEW.id) END);
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION cache_bump_identities() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- shown in the admin's view of the user; GET /users filters on them
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.user_id * 16 + 1, cache_stripe(1, OLD.user_id));
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.user_id * 16 + 1, cache_stripe(1, NEW.user_id));
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION cache_bump_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- the caller's answers (every cached one names the caller's key)
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.user_id * 16 + 1);
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.user_id * 16 + 1);
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION cache_bump_notification_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.user_id * 16 + 1);
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.user_id * 16 + 1);
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION cache_bump_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- the member's answers (access, membership lists); a project's own members
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.user_id * 16 + 1,
			CASE WHEN OLD.source_type = 'Project' THEN OLD.source_id * 16 + 2 END);
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.user_id * 16 + 1,
			CASE WHEN NEW.source_type = 'Project' THEN NEW.source_id * 16 + 2 END);
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION cache_bump_users_star_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- the starring user's starred list; the count is the project's row (its key alone)
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.user_id * 16 + 1, OLD.project_id * 16 + 2);
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.user_id * 16 + 1, NEW.project_id * 16 + 2);
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION cache_bump_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		PERFORM cache_collect(OLD.id * 16 + 2, cache_stripe(2, OLD.id));
	ELSIF TG_OP = 'INSERT' THEN
		PERFORM cache_collect(NEW.id * 16 + 2, cache_stripe(2, NEW.id));
	ELSE
		-- the lists filter on visibility, archived, pending_delete, the namespace and
		-- the issues and merge requests flags, and sort on id and created_at (set 2);
		-- search and sort on name, path, description (4); sort on the times (5)
		PERFORM cache_collect(OLD.id * 16 + 2, NEW.id * 16 + 2,
			CASE WHEN cache_differs(to_jsonb(OLD), to_jsonb(NEW), ARRAY['name', 'path',
				'description', 'updated_at', 'last_activity_at', 'default_branch',
				'creator_id', 'forked_from_id', 'jobs_enabled', 'wiki_enabled',
				'snippets_enabled', 'container_registry_enabled',
				'shared_runners_enabled', 'lfs_enabled', 'request_access_enabled',
				'public_jobs', 'resolve_outdated_diff_discussions',
				'only_allow_merge_if_pipeline_succeeds',
				'only_allow_merge_if_all_discussions_are_resolved',
				'printing_merge_request_link_enabled', 'tag_list', 'star_count',
				'forks_count', 'open_issues_count', 'import_status', 'import_error',
				'runners_token_digest', 'runners_token_sealed', 'avatar', 'commit_count',
				'storage_size', 'repository_size', 'lfs_objects_size',
				'job_artifacts_size', 'ci_config_path'])
			THEN cache_stripe(2, NEW.id) END,
			CASE WHEN (OLD.name, OLD.path, OLD.description)
				IS DISTINCT FROM (NEW.name, NEW.path, NEW.description)
			THEN cache_stripe(4, NEW.id) END,
			CASE WHEN (OLD.updated_at, OLD.last_activity_at)
				IS DISTINCT FROM (NEW.updated_at, NEW.last_activity_at)
			THEN cache_stripe(5, NEW.id) END);
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION cache_bump_project_group_links() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- the project's record (shared_with_groups, access) and the group's list
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.project_id * 16 + 2, cache_stripe(2, OLD.project_id));
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.project_id * 16 + 2, cache_stripe(2, NEW.project_id));
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION cache_bump_namespaces() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- a group's rename rewrites every namespace below it: each of those rows comes here
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.id * 16 + 3, cache_stripe(3, OLD.id));
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.id * 16 + 3, cache_stripe(3, NEW.id));
	END IF;
	RETURN NULL;
END $$;

CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON users
	FOR EACH ROW EXECUTE FUNCTION cache_bump_users();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON identities
	FOR EACH ROW EXECUTE FUNCTION cache_bump_identities();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON tokens
	FOR EACH ROW EXECUTE FUNCTION cache_bump_tokens();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON notification_settings
	FOR EACH ROW EXECUTE FUNCTION cache_bump_notification_settings();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON members
	FOR EACH ROW EXECUTE FUNCTION cache_bump_members();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON users_star_projects
	FOR EACH ROW EXECUTE FUNCTION cache_bump_users_star_projects();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON projects
	FOR EACH ROW EXECUTE FUNCTION cache_bump_projects();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON project_group_links
	FOR EACH ROW EXECUTE FUNCTION cache_bump_project_group_links();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON namespaces
	FOR EACH ROW EXECUTE FUNCTION cache_bump_namespaces();

-- The commit's bump, queued once per transaction: by the first row event while nothing
-- is collected (its WHEN is evaluated as the row changes, before the statement's
-- cache_bump triggers run; again after a SET CONSTRAINTS ... IMMEDIATE has bumped).
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON users
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON identities
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON tokens
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON notification_settings
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON members
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON users_star_projects
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON projects
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON project_group_links
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON namespaces
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
