-- Repository content over the API: commit statuses (POST /projects/:id/statuses/:sha)
-- and notes, shaped for GitLab's notes in general (commit comments now; issues and merge
-- requests will reuse the table with their noteable_type and noteable_id).
CREATE TABLE commit_statuses (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	sha text NOT NULL,
	ref text NOT NULL,
	name text NOT NULL,
	stage text NOT NULL DEFAULT 'external',
	status text NOT NULL CHECK (status IN ('created', 'pending', 'running', 'success', 'failed',
					       'canceled', 'skipped', 'manual')),
	target_url text,
	description text,
	coverage double precision,
	allow_failure boolean NOT NULL DEFAULT false,
	author_id bigint REFERENCES users (id) ON DELETE SET NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	started_at timestamptz,
	finished_at timestamptz
);
CREATE INDEX commit_statuses_sha ON commit_statuses (project_id, sha, name, ref, id);

CREATE TABLE notes (
	id bigserial PRIMARY KEY,
	project_id bigint REFERENCES projects (id) ON DELETE CASCADE,
	noteable_type text NOT NULL,  -- 'Commit', 'Issue', 'MergeRequest', ...
	noteable_id bigint,           -- the issue's or merge request's id; NULL for commits
	commit_id text,               -- the commit of a commit comment (or of a diff note)
	author_id bigint REFERENCES users (id) ON DELETE SET NULL,
	note text NOT NULL,
	path text,
	line integer,
	line_type text CHECK (line_type IN ('new', 'old')),
	system boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notes_commit ON notes (project_id, commit_id, id) WHERE commit_id IS NOT NULL;
CREATE INDEX notes_noteable ON notes (noteable_type, noteable_id, id) WHERE noteable_id IS NOT NULL;
CREATE INDEX notes_author ON notes (author_id);
CREATE INDEX commit_statuses_author ON commit_statuses (author_id);
