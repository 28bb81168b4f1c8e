-- collabd schema: the pipeline and job events of webhooks. GitLab 10.8 sends a pipeline
-- event on every transition of a pipeline's status (Ci::Pipeline's after_transition,
-- loopbacks aside) and a job event when a job's status changes (Ci::Build's
-- transitions: enqueued, run, finished). The statuses move in many statements (the
-- runner API, ci_process_pipeline, cancels, retries, plays, timeouts), so triggers queue
-- the event, in the transaction of the change: the deliveries without their payload (so
-- their ids follow the transitions) and a `ci_hook` background job carrying what the
-- row was at the transition, which builds the payload (git, URLs: src/hooks_sender.c)
-- and fills them in, as a push's deliveries are.

-- A time as 10.8's CI payloads show it (Ruby's Time#to_s in UTC: "2016-08-12 15:23:28 UTC")
CREATE FUNCTION hook_time(timestamptz) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"') $$;

-- Queues an event of project proj for its hooks with flag (job_events or
-- pipeline_events), header the X-Gitlab-Event they get, snapshot the job's payload.
CREATE FUNCTION webhooks_ci_event(proj bigint, flag text, header text, snapshot jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	key text;
	job bigint;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM web_hooks w WHERE w.project_id = proj
		       AND CASE flag WHEN 'job_events' THEN w.job_events ELSE w.pipeline_events END) THEN
		RETURN;
	END IF;
	key := 'ci-' || gen_random_uuid()::text;
	INSERT INTO web_hook_deliveries (hook_id, event, build_key)
	SELECT w.id, header, key FROM web_hooks w
	WHERE w.project_id = proj
	AND CASE flag WHEN 'job_events' THEN w.job_events ELSE w.pipeline_events END
	ORDER BY w.id;
	INSERT INTO background_jobs (kind, payload)
	VALUES ('ci_hook', snapshot || jsonb_build_object('hooks_key', key, 'project_id', proj))
	RETURNING id INTO job;
	PERFORM pg_notify('collabd_jobs', job::text);
END
$$;

-- A job's status changed (commit_statuses), or a job was made queued at once (a retry:
-- its ci_builds row comes after its commit_statuses row). External commit statuses
-- (no ci_builds row) are no jobs.
CREATE FUNCTION webhooks_job_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	cs commit_statuses;
BEGIN
	IF TG_TABLE_NAME = 'commit_statuses' THEN
		cs := NEW;
		IF cs.pipeline_id IS NULL OR NOT EXISTS (SELECT 1 FROM ci_builds b WHERE b.id = cs.id) THEN
			RETURN NULL;
		END IF;
	ELSE
		SELECT * INTO cs FROM commit_statuses WHERE id = NEW.id;
		IF NOT FOUND OR cs.status = 'created' THEN
			RETURN NULL;
		END IF;
	END IF;
	PERFORM webhooks_ci_event(cs.project_id, 'job_events', 'Job Hook',
		jsonb_build_object('kind', 'job', 'id', cs.id, 'status', cs.status,
			'started_at', hook_time(cs.started_at), 'finished_at', hook_time(cs.finished_at),
			'duration', CASE WHEN cs.started_at IS NOT NULL THEN
				extract(epoch FROM coalesce(cs.finished_at, now()) - cs.started_at) END));
	RETURN NULL;
END
$$;
CREATE TRIGGER commit_statuses_job_hooks AFTER UPDATE OF status ON commit_statuses
	FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
	EXECUTE FUNCTION webhooks_job_changed();
CREATE TRIGGER ci_builds_job_hooks AFTER INSERT ON ci_builds
	FOR EACH ROW EXECUTE FUNCTION webhooks_job_changed();

CREATE FUNCTION webhooks_pipeline_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM webhooks_ci_event(NEW.project_id, 'pipeline_events', 'Pipeline Hook',
		jsonb_build_object('kind', 'pipeline', 'id', NEW.id, 'status', NEW.status,
			'finished_at', hook_time(NEW.finished_at), 'duration', NEW.duration));
	RETURN NULL;
END
$$;
CREATE TRIGGER ci_pipelines_hooks AFTER UPDATE OF status ON ci_pipelines
	FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
	EXECUTE FUNCTION webhooks_pipeline_changed();
