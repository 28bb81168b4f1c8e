-- Protected branches and the rule every push follows (git over HTTP and SSH, the
-- repository API's commits, merges), as GitLab 10: a protected branch names a branch or
-- a pattern with '*' wildcards; who may push to it and who may merge into it are access
-- levels (0 no one, 30 developers and up, 40 masters and up). Nobody force-pushes to a
-- protected branch or deletes it.
CREATE TABLE protected_branches (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	name text NOT NULL,
	push_access_level integer NOT NULL DEFAULT 40 CHECK (push_access_level IN (0, 30, 40)),
	merge_access_level integer NOT NULL DEFAULT 40 CHECK (merge_access_level IN (0, 30, 40)),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (project_id, name)
);

-- Whether protected branch name (a pattern with '*') covers branch.
CREATE FUNCTION protected_branch_matches(name text, branch text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN strpos(name, '*') = 0 THEN name = branch
	ELSE branch LIKE replace(replace(replace(replace(name, '\', '\\'), '%', '\%'), '_', '\_'),
				 '*', '%') END
$$;

-- The level a push to branch of project needs (the lowest that any protection covering
-- it allows: GitLab lets a push through when one of them allows it), 0 when no one may
-- push, NULL when the branch is not protected (developers and up push).
CREATE FUNCTION branch_push_level(project bigint, branch text) RETURNS integer
LANGUAGE sql STABLE AS $$
	SELECT min(CASE WHEN push_access_level = 0 THEN 1000 ELSE push_access_level END)
	FROM protected_branches WHERE project_id = project AND protected_branch_matches(name, branch)
$$;

-- The same for merging into branch.
CREATE FUNCTION branch_merge_level(project bigint, branch text) RETURNS integer
LANGUAGE sql STABLE AS $$
	SELECT min(CASE WHEN merge_access_level = 0 THEN 1000 ELSE merge_access_level END)
	FROM protected_branches WHERE project_id = project AND protected_branch_matches(name, branch)
$$;

-- Release notes of tags (GitLab 10 keeps them in the database, not in git).
CREATE TABLE releases (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	tag text NOT NULL,
	description text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (project_id, tag)
);
