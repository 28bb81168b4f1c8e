-- collabd schema, part 2: namespaces (users' and groups), projects, membership and
-- access requests, sharing, stars, notification settings, background work.

-- A namespace holds projects: every user has one (kind 'user', path = username) and
-- every group is one (kind 'group', nested through parent_id). traversal_ids lists the
-- ids from the root group down to this one, so that a membership in any ancestor is
-- found with one index probe; full_path and full_name are kept with it on create,
-- rename and transfer.
CREATE TABLE namespaces (
	id bigserial PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('user', 'group')),
	name text NOT NULL,
	path text NOT NULL,
	parent_id bigint REFERENCES namespaces (id),
	owner_id bigint REFERENCES users (id) ON DELETE CASCADE,
	traversal_ids bigint[] NOT NULL DEFAULT '{}',
	full_path text NOT NULL,
	full_name text NOT NULL,
	description text NOT NULL DEFAULT '',
	visibility smallint NOT NULL DEFAULT 0 CHECK (visibility IN (0, 10, 20)),
	lfs_enabled boolean NOT NULL DEFAULT true,
	request_access_enabled boolean NOT NULL DEFAULT false,
	avatar text,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CHECK ((kind = 'user') = (owner_id IS NOT NULL))
);
CREATE UNIQUE INDEX namespaces_full_path_key ON namespaces (lower(full_path));
CREATE UNIQUE INDEX namespaces_owner_key ON namespaces (owner_id) WHERE kind = 'user';
CREATE INDEX namespaces_parent_idx ON namespaces (parent_id);
CREATE INDEX namespaces_traversal_idx ON namespaces USING gin (traversal_ids);
CREATE INDEX namespaces_groups_name_idx ON namespaces (lower(name), id) WHERE kind = 'group';
CREATE INDEX namespaces_groups_path_idx ON namespaces (lower(path), id) WHERE kind = 'group';
CREATE INDEX namespaces_search_idx ON namespaces USING gin (name gin_trgm_ops, path gin_trgm_ops);

INSERT INTO namespaces (kind, name, path, owner_id, full_path, full_name, visibility, created_at)
	SELECT 'user', username, username, id, username, name, 20, created_at FROM users;
UPDATE namespaces SET traversal_ids = ARRAY[id];

CREATE TABLE projects (
	id bigserial PRIMARY KEY,
	namespace_id bigint NOT NULL REFERENCES namespaces (id),
	name text NOT NULL,
	path text NOT NULL,
	description text,
	visibility smallint NOT NULL DEFAULT 0 CHECK (visibility IN (0, 10, 20)),
	default_branch text,
	creator_id bigint REFERENCES users (id) ON DELETE SET NULL,
	forked_from_id bigint REFERENCES projects (id) ON DELETE SET NULL,
	issues_enabled boolean NOT NULL DEFAULT true,
	merge_requests_enabled boolean NOT NULL DEFAULT true,
	jobs_enabled boolean NOT NULL DEFAULT true,
	wiki_enabled boolean NOT NULL DEFAULT true,
	snippets_enabled boolean NOT NULL DEFAULT true,
	container_registry_enabled boolean NOT NULL DEFAULT true,
	shared_runners_enabled boolean NOT NULL DEFAULT true,
	lfs_enabled boolean NOT NULL DEFAULT true,
	request_access_enabled boolean NOT NULL DEFAULT false,
	public_jobs boolean NOT NULL DEFAULT true,
	resolve_outdated_diff_discussions boolean NOT NULL DEFAULT false,
	only_allow_merge_if_pipeline_succeeds boolean NOT NULL DEFAULT false,
	only_allow_merge_if_all_discussions_are_resolved boolean NOT NULL DEFAULT false,
	printing_merge_request_link_enabled boolean NOT NULL DEFAULT true,
	archived boolean NOT NULL DEFAULT false,
	pending_delete boolean NOT NULL DEFAULT false,
	tag_list text[] NOT NULL DEFAULT '{}',
	star_count integer NOT NULL DEFAULT 0,
	forks_count integer NOT NULL DEFAULT 0,
	open_issues_count integer NOT NULL DEFAULT 0,
	import_status text NOT NULL DEFAULT 'none',
	import_error text,
	runners_token_digest text,
	runners_token_sealed text,
	avatar text,
	commit_count bigint NOT NULL DEFAULT 0,
	storage_size bigint NOT NULL DEFAULT 0,
	repository_size bigint NOT NULL DEFAULT 0,
	lfs_objects_size bigint NOT NULL DEFAULT 0,
	job_artifacts_size bigint NOT NULL DEFAULT 0,
	last_activity_at timestamptz NOT NULL DEFAULT now(),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX projects_path_key ON projects (namespace_id, lower(path)) WHERE NOT pending_delete;
CREATE UNIQUE INDEX projects_name_key ON projects (namespace_id, lower(name)) WHERE NOT pending_delete;
CREATE INDEX projects_visibility_idx ON projects (visibility, id) WHERE NOT pending_delete;
CREATE INDEX projects_created_at_idx ON projects (created_at, id) WHERE NOT pending_delete;
CREATE INDEX projects_updated_at_idx ON projects (updated_at, id) WHERE NOT pending_delete;
CREATE INDEX projects_last_activity_idx ON projects (last_activity_at, id) WHERE NOT pending_delete;
CREATE INDEX projects_name_idx ON projects (lower(name), id) WHERE NOT pending_delete;
CREATE INDEX projects_path_idx ON projects (lower(path), id) WHERE NOT pending_delete;
CREATE INDEX projects_creator_idx ON projects (creator_id);
CREATE INDEX projects_forked_from_idx ON projects (forked_from_id);
CREATE INDEX projects_search_idx ON projects USING gin (name gin_trgm_ops, path gin_trgm_ops, description gin_trgm_ops);
CREATE UNIQUE INDEX projects_runners_token_key ON projects (runners_token_digest);

-- Membership of projects ('Project') and groups ('Namespace'); a row with requested_at
-- set is a pending access request, not a membership.
CREATE TABLE members (
	id bigserial PRIMARY KEY,
	source_type text NOT NULL CHECK (source_type IN ('Project', 'Namespace')),
	source_id bigint NOT NULL,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	access_level smallint NOT NULL CHECK (access_level IN (10, 20, 30, 40, 50)),
	requested_at timestamptz,
	expires_at date,
	created_by bigint REFERENCES users (id) ON DELETE SET NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT members_source_user_key UNIQUE (source_type, source_id, user_id)
);
CREATE INDEX members_user_idx ON members (user_id, source_type, source_id) WHERE requested_at IS NULL;

-- A project shared with a group (its members get min(group_access, their level)).
CREATE TABLE project_group_links (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	group_id bigint NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
	group_access smallint NOT NULL DEFAULT 30 CHECK (group_access IN (10, 20, 30, 40)),
	expires_at date,
	created_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT project_group_links_key UNIQUE (project_id, group_id)
);
CREATE INDEX project_group_links_group_idx ON project_group_links (group_id);

CREATE TABLE users_star_projects (
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (user_id, project_id)
);
CREATE INDEX users_star_projects_project_idx ON users_star_projects (project_id);

-- Notification settings: the global one (source_type 'Global', source_id 0) and one per
-- group or project. The 12 custom events are honoured when level is 'custom'.
ALTER TABLE users ADD COLUMN notification_email text;
CREATE TABLE notification_settings (
	id bigserial PRIMARY KEY,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	source_type text NOT NULL CHECK (source_type IN ('Global', 'Project', 'Namespace')),
	source_id bigint NOT NULL DEFAULT 0,
	level text NOT NULL DEFAULT 'global'
		CHECK (level IN ('disabled', 'participating', 'watch', 'global', 'mention', 'custom')),
	new_note boolean NOT NULL DEFAULT false,
	new_issue boolean NOT NULL DEFAULT false,
	reopen_issue boolean NOT NULL DEFAULT false,
	close_issue boolean NOT NULL DEFAULT false,
	reassign_issue boolean NOT NULL DEFAULT false,
	new_merge_request boolean NOT NULL DEFAULT false,
	reopen_merge_request boolean NOT NULL DEFAULT false,
	close_merge_request boolean NOT NULL DEFAULT false,
	reassign_merge_request boolean NOT NULL DEFAULT false,
	merge_merge_request boolean NOT NULL DEFAULT false,
	failed_pipeline boolean NOT NULL DEFAULT false,
	success_pipeline boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT notification_settings_key UNIQUE (user_id, source_type, source_id)
);

-- Members and notification settings of a project or group go with it.
CREATE FUNCTION source_cleanup_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	kind text := CASE TG_TABLE_NAME WHEN 'projects' THEN 'Project' ELSE 'Namespace' END;
BEGIN
	DELETE FROM members WHERE source_type = kind AND source_id = OLD.id;
	DELETE FROM notification_settings WHERE source_type = kind AND source_id = OLD.id;
	RETURN NULL;
END $$;
CREATE TRIGGER projects_cleanup AFTER DELETE ON projects
	FOR EACH ROW EXECUTE FUNCTION source_cleanup_trigger();
CREATE TRIGGER namespaces_cleanup AFTER DELETE ON namespaces
	FOR EACH ROW EXECUTE FUNCTION source_cleanup_trigger();

ALTER TABLE events ADD CONSTRAINT events_project_fk
	FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE;
CREATE INDEX events_created_idx ON events (created_at, id);

-- Work done in the background by any instance, claimed with FOR UPDATE SKIP LOCKED.
CREATE TABLE background_jobs (
	id bigserial PRIMARY KEY,
	kind text NOT NULL,
	payload jsonb NOT NULL DEFAULT '{}',
	run_at timestamptz NOT NULL DEFAULT now(),
	attempts integer NOT NULL DEFAULT 0,
	last_error text,
	created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX background_jobs_run_at_idx ON background_jobs (run_at, id);
