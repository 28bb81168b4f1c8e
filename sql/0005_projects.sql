-- collabd schema, part 3: projects.

-- The CI configuration path a project shows and takes (GitLab 10's ci_config_path;
-- NULL: the default .gitlab-ci.yml).
ALTER TABLE projects ADD COLUMN ci_config_path text;
