-- The pipeline list's filters and orders that sql/0022's indexes leave to a scan of the
-- project's pipelines: by user (username, name, order_by=user_id) and with yaml errors.
CREATE INDEX ci_pipelines_project_user ON ci_pipelines (project_id, user_id, id);
CREATE INDEX ci_pipelines_project_yaml_errors ON ci_pipelines (project_id, id)
	WHERE yaml_errors IS NOT NULL;
