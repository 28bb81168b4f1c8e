-- Groups: a group's name is unique among its siblings (GitLab validates it with the
-- parent as scope); full paths are already unique (namespaces_full_path_key).
CREATE UNIQUE INDEX namespaces_group_name_key ON namespaces (coalesce(parent_id, 0), name)
	WHERE kind = 'group';
-- Owners of a group (GET /groups?owned=true, the sole-owner check of a user's removal).
CREATE INDEX members_owners_idx ON members (source_id, user_id)
	WHERE source_type = 'Namespace' AND access_level = 50 AND requested_at IS NULL;
-- A group's (or user's) projects, also those being deleted: removing a namespace removes
-- them all.
CREATE INDEX projects_namespace_idx ON projects (namespace_id);
