-- Project import and export in GitLab 10's format (issue 33, src/api/project_import.c).

-- GitLab's max_import_size (MB): the largest archive POST /projects/import takes (0: no
-- limit below nginx's ceiling); the import also stops an archive whose files expand
-- past ten times it (a tar bomb).
ALTER TABLE application_settings ADD COLUMN max_import_size integer NOT NULL DEFAULT 50
	CHECK (max_import_size >= 0);

-- A project's export (POST /projects/:id/export): started while its job is queued or
-- running, finished with the archive's file name (under <storage>/ci/exports/<project
-- id>/), which the next export replaces. GitLab 10.8 shows no failed export: a failed
-- one is "none" again.
CREATE TABLE project_exports (
	project_id bigint PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
	status text NOT NULL CHECK (status IN ('started', 'finished')),
	file text,
	updated_at timestamptz NOT NULL DEFAULT now(),
	CHECK ((status = 'finished') = (file IS NOT NULL))
);
