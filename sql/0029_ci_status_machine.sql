-- collabd schema: the pipeline's status machine as GitLab 10's (Ci::Pipeline's
-- state_machine, HasStatus, Gitlab::Ci::Pipeline::Duration), where sql/0022 differed:
--
-- - warnings (a set whose jobs are all skipped but for ignored ones is a success when
--   one of those failed): CommitStatus.failed_but_allowed is allow_failure AND status
--   failed OR canceled; 0022 counted failed only.
-- - the pipeline's status moves by the state machine's events, not to the jobs'
--   composite status as such: `pending` is the event enqueue, which moves a created or
--   skipped pipeline to pending and a finished one (success, failed, canceled: a job
--   retried) to running, and leaves a running or manual one as it is; every other
--   composite status is the event of that name (run, succeed, drop, cancel, skip,
--   block) from any other state. A pipeline with YAML errors is failed whatever its jobs.
-- - the times follow the transitions: started_at is set when a created or pending
--   pipeline starts running (only then); finished_at when it becomes success, failed or
--   canceled (each time; never cleared: a retried pipeline that runs again keeps the
--   last one until it finishes again); duration when it becomes success, failed,
--   canceled or manual, if it has started: the time during which at least one of its
--   current jobs ran (the union of their [started_at, finished_at or now] periods), not
--   finished_at - started_at. A skipped pipeline gets no finished_at nor duration.
-- No transition (the same status) changes nothing, updated_at included.
-- - a job's retry (Ci::RetryBuildService#execute: ci_retry_job with enqueue) makes the
--   skipped jobs of the stages after the job's created again
--   (Pipeline#mark_as_processable_after_stage), so that they run when their stage comes.

CREATE OR REPLACE FUNCTION ci_jobs_status(p bigint, below integer) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT ci_composite_status(
		count(*) FILTER (WHERE NOT ign),
		count(*) FILTER (WHERE NOT ign AND status = 'created'),
		count(*) FILTER (WHERE NOT ign AND status = 'pending'),
		count(*) FILTER (WHERE NOT ign AND status = 'running'),
		count(*) FILTER (WHERE NOT ign AND status = 'success'),
		count(*) FILTER (WHERE NOT ign AND status = 'skipped'),
		count(*) FILTER (WHERE NOT ign AND status = 'canceled'),
		count(*) FILTER (WHERE NOT ign AND status = 'manual'),
		coalesce(bool_or(allow_failure AND status IN ('failed', 'canceled')), false))
	FROM (SELECT status, allow_failure,
		     allow_failure AND status IN ('failed', 'canceled', 'manual') AS ign
	      FROM commit_statuses
	      WHERE pipeline_id = p AND NOT retried AND (below IS NULL OR stage_idx < below)) s
$$;

-- GitLab 10's Gitlab::Ci::Pipeline::Duration.from_pipeline: the seconds during which at
-- least one of pipeline p's current jobs (success, failed, running, canceled; started)
-- ran.
CREATE FUNCTION ci_pipeline_duration(p bigint) RETURNS integer LANGUAGE sql STABLE AS $$
	SELECT coalesce(sum(extract(epoch FROM upper(r) - lower(r))), 0)::integer
	FROM unnest((SELECT range_agg(tstzrange(cs.started_at,
			greatest(cs.started_at, coalesce(cs.finished_at, now())), '[]'))
		     FROM commit_statuses cs
		     WHERE cs.pipeline_id = p AND NOT cs.retried AND cs.started_at IS NOT NULL
		     AND cs.status IN ('success', 'failed', 'running', 'canceled')
		     AND EXISTS (SELECT 1 FROM ci_builds b WHERE b.id = cs.id))) r
$$;

-- As sql/0022's (the jobs' part unchanged), the pipeline's part by the state machine
-- (see the head of this file). Answers the pipeline's status after.
CREATE OR REPLACE FUNCTION ci_process_pipeline(p bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	idx integer;
	prior text;
	st text;
	old text;
	errors text;
	started timestamptz;
BEGIN
	SELECT status, yaml_errors, started_at INTO old, errors, started
	FROM ci_pipelines WHERE id = p FOR UPDATE;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	FOR idx IN SELECT DISTINCT stage_idx FROM commit_statuses
		   WHERE pipeline_id = p AND NOT retried AND status = 'created' ORDER BY stage_idx LOOP
		prior := ci_jobs_status(p, idx);
		-- not complete (created, pending, running), or held by a manual job that
		-- blocks (allow_failure false): nothing starts at or after this stage
		IF prior NOT IN ('success', 'failed', 'canceled', 'skipped') THEN
			EXIT;
		END IF;
		UPDATE commit_statuses SET
			status = CASE
				WHEN prior IN ('success', 'skipped') THEN
					CASE "when" WHEN 'on_failure' THEN 'skipped'
						    WHEN 'manual' THEN 'manual' ELSE 'pending' END
				WHEN prior = 'failed' THEN
					CASE "when" WHEN 'on_failure' THEN 'pending'
						    WHEN 'always' THEN 'pending' ELSE 'skipped' END
				ELSE 'skipped' -- canceled
				END,
			queued_at = CASE WHEN "when" <> 'manual' THEN now() END,
			updated_at = now()
		WHERE pipeline_id = p AND stage_idx = idx AND NOT retried AND status = 'created';
	END LOOP;
	st := CASE WHEN errors IS NOT NULL THEN 'failed' ELSE ci_jobs_status(p, NULL) END;
	IF st = 'pending' THEN
		st := CASE WHEN old IN ('created', 'skipped') THEN 'pending'
			   WHEN old IN ('success', 'failed', 'canceled') THEN 'running'
			   ELSE old END;
	END IF;
	IF st = old THEN
		RETURN st;
	END IF;
	IF st = 'running' AND old IN ('created', 'pending') THEN
		started := now();
	END IF;
	UPDATE ci_pipelines SET
		status = st,
		updated_at = now(),
		started_at = started,
		finished_at = CASE WHEN st IN ('success', 'failed', 'canceled') THEN now() ELSE finished_at END,
		duration = CASE WHEN st IN ('success', 'failed', 'canceled', 'manual') AND started IS NOT NULL
				THEN ci_pipeline_duration(p) ELSE duration END
	WHERE id = p;
	RETURN st;
END
$$;

-- As sql/0022's, and a single job's retry (enqueue) makes the skipped jobs of the later
-- stages created again (see the head of this file).
CREATE OR REPLACE FUNCTION ci_retry_job(j bigint, u bigint, enqueue boolean) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	INSERT INTO commit_statuses (project_id, sha, ref, name, stage, status, target_url,
		description, allow_failure, author_id, pipeline_id, stage_idx, "when", queued_at)
	SELECT project_id, sha, ref, name, stage, CASE WHEN enqueue THEN 'pending' ELSE 'created' END,
		target_url, description, allow_failure, u, pipeline_id, stage_idx, "when",
		CASE WHEN enqueue THEN now() END
	FROM commit_statuses WHERE id = j AND pipeline_id IS NOT NULL
	RETURNING id INTO n;
	IF n IS NULL THEN
		RETURN NULL;
	END IF;
	INSERT INTO ci_builds (id, project_id, pipeline_id, tag, protected, tag_list, options,
		yaml_variables, environment, trigger_request_id)
	SELECT n, project_id, pipeline_id, tag, protected, tag_list, options, yaml_variables,
		environment, trigger_request_id
	FROM ci_builds WHERE id = j;
	UPDATE commit_statuses SET retried = true, updated_at = now() WHERE id = j;
	IF enqueue THEN
		UPDATE commit_statuses l SET status = 'created', updated_at = now()
		FROM commit_statuses o
		WHERE o.id = j AND l.pipeline_id = o.pipeline_id AND l.stage_idx > o.stage_idx
		AND NOT l.retried AND l.status = 'skipped'
		AND EXISTS (SELECT 1 FROM ci_builds b WHERE b.id = l.id);
	END IF;
	RETURN n;
END
$$;
