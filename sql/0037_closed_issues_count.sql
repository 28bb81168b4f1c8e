-- projects.closed_issues_count: the closed issues of the project that are not
-- confidential, kept with open_issues_count by the trigger of sql/0013 (now one update
-- of the project for both). GET /issues?scope=all in every state, or closed, counts the
-- issues of the projects a caller sees from them (src/api/issues.c, issues_list_all_*),
-- as the open ones are counted from open_issues_count. No view shows it: a change bumps
-- the project's key alone, as open_issues_count's does.
ALTER TABLE projects ADD COLUMN closed_issues_count integer NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION tracker_issue_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	was_open int := (TG_OP <> 'INSERT' AND OLD.state = 'opened' AND NOT OLD.confidential)::int;
	was_closed int := (TG_OP <> 'INSERT' AND OLD.state = 'closed' AND NOT OLD.confidential)::int;
	now_open int := (TG_OP <> 'DELETE' AND NEW.state = 'opened' AND NOT NEW.confidential)::int;
	now_closed int := (TG_OP <> 'DELETE' AND NEW.state = 'closed' AND NOT NEW.confidential)::int;
BEGIN
	IF TG_OP = 'UPDATE' AND OLD.project_id = NEW.project_id THEN
		IF was_open <> now_open OR was_closed <> now_closed THEN
			UPDATE projects SET open_issues_count = open_issues_count + now_open - was_open,
				closed_issues_count = closed_issues_count + now_closed - was_closed
				WHERE id = NEW.project_id;
		END IF;
		RETURN NULL;
	END IF;
	IF was_open + was_closed > 0 THEN
		UPDATE projects SET open_issues_count = open_issues_count - was_open,
			closed_issues_count = closed_issues_count - was_closed WHERE id = OLD.project_id;
	END IF;
	IF now_open + now_closed > 0 THEN
		UPDATE projects SET open_issues_count = open_issues_count + now_open,
			closed_issues_count = closed_issues_count + now_closed WHERE id = NEW.project_id;
	END IF;
	RETURN NULL;
END $$;

-- The lists do not filter on it either: 0028's function with it among the columns only
-- the project's own key follows.
CREATE OR REPLACE FUNCTION cache_bump_projects() RETURNS trigger LANGUAGE plpgsql AS $$
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
				'forks_count', 'open_issues_count', 'closed_issues_count', 'import_status',
				'import_error',
				'runners_token_digest', 'runners_token_sealed', 'avatar', 'commit_count',
				'storage_size', 'repository_size', 'lfs_objects_size',
				'job_artifacts_size', 'ci_config_path', 'merge_method'])
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

-- the counts of the issues there are
UPDATE projects p SET closed_issues_count = c.n
	FROM (SELECT project_id, count(*) AS n FROM issues WHERE state = 'closed' AND NOT confidential
		GROUP BY project_id) c
	WHERE c.project_id = p.id;
