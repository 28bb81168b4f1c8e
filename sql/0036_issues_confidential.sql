-- The confidential issues by project: GET /issues?scope=all (src/api/issues.c,
-- issues_list_all_state and _any) finds the confidential ones a caller may see through
-- the projects where they are a reporter or more, the projects of their own namespace,
-- or all of them for an admin, without reading every issue. Few issues are
-- confidential: a small index.
CREATE INDEX issues_confidential ON issues (project_id, state) WHERE confidential;
