-- What the background process's sweep for stuck jobs looks for (ci_jobs_drop_stuck,
-- src/ci/job.c): the jobs running or pending, by the time they last changed.
CREATE INDEX commit_statuses_unfinished ON commit_statuses (updated_at)
	WHERE status IN ('running', 'pending') AND pipeline_id IS NOT NULL;
