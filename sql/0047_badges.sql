-- collabd schema: badges of projects and groups (GitLab 10.6's ProjectBadge and
-- GroupBadge, one table as GitLab's STI: exactly one owner). A project's list is its
-- own badges and those of its group and the group's ancestors, in the order they were
-- made: the two partial indexes serve both halves. The owner's deletion takes them.
CREATE TABLE badges (
	id bigserial PRIMARY KEY,
	link_url text NOT NULL,
	image_url text NOT NULL,
	project_id bigint REFERENCES projects (id) ON DELETE CASCADE,
	group_id bigint REFERENCES namespaces (id) ON DELETE CASCADE,
	created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CHECK ((project_id IS NULL) <> (group_id IS NULL))
);
CREATE INDEX badges_project_idx ON badges (project_id, created_at, id) WHERE project_id IS NOT NULL;
CREATE INDEX badges_group_idx ON badges (group_id, created_at, id) WHERE group_id IS NOT NULL;
