-- GitLab's merge_method of a project (API v4's merge_method: merge, rebase_merge, ff):
-- how PUT .../merge_requests/:iid/merge merges. merge: a merge commit; rebase_merge: a
-- merge commit, only when the target branch is an ancestor of the source (GitLab's
-- should_be_rebased?, semi-linear history); ff: the target branch moved to the source's
-- head, only when that is a fast-forward (no merge commit).
ALTER TABLE projects ADD COLUMN merge_method text NOT NULL DEFAULT 'merge'
	CHECK (merge_method IN ('merge', 'rebase_merge', 'ff'));

-- The project's record shows it: a change bumps the lists' stripe too (0010's function,
-- with merge_method in the columns the lists' records show).
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
				'forks_count', 'open_issues_count', 'import_status', 'import_error',
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
