-- collabd schema: CI/CD (GitLab 10's ci_* tables, the same split).
--
-- A job IS a commit status, as in GitLab (whose ci_builds holds both): the columns every
-- status has (name, stage, status, ref, sha, allow_failure, author, times, coverage) stay
-- in commit_statuses, which gains the pipeline it belongs to; what only a job has (its
-- runner, token, script and options, trace and artifacts) is in ci_builds, one row per
-- job with the same id. The commit statuses API thus lists jobs with no copy, and job
-- and status ids share one sequence.
--
-- Status changes are transitions in SQL: UPDATE ... WHERE status = <expected> (or IN
-- (...)), so that two runners or a runner and a cancel cannot race a job into two
-- states. After changing the status of any job of a pipeline, the same transaction calls
-- ci_process_pipeline(pipeline id): it locks the pipeline row (writers of one pipeline
-- go one at a time), starts the jobs whose earlier stages are done (GitLab 10's
-- ProcessPipelineService) and recomputes the pipeline's status and times (its
-- HasStatus composite).
--
-- Files: a job's trace is <storage_path>/ci/traces/<project id>/<job id>.log (appended by
-- PATCH /jobs/:id/trace; ci_builds.trace_size is its length), its artifacts archive
-- <storage_path>/ci/artifacts/<project id>/<job id>/artifacts.zip (ci_builds.artifacts_*);
-- nginx sends both from an internal location.

-- The instance's settings that are not configuration: one row.
CREATE TABLE ci_settings (
	id integer PRIMARY KEY DEFAULT 1 CHECK (id = 1),
	-- the shared runners' registration token (GitLab's
	-- application_settings.runners_registration_token), made by `collabd migrate`'s
	-- first run of the code that needs it
	runners_token_digest text UNIQUE,
	runners_token_sealed text
);
INSERT INTO ci_settings (id) VALUES (1);

CREATE TABLE ci_runners (
	id bigserial PRIMARY KEY,
	token_digest text NOT NULL UNIQUE,
	token_sealed text NOT NULL,        -- shown again to admins and owners (runner details)
	description text,
	name text,
	version text,
	revision text,
	platform text,
	architecture text,
	ip_address text,
	active boolean NOT NULL DEFAULT true,
	is_shared boolean NOT NULL DEFAULT false,
	locked boolean NOT NULL DEFAULT false,
	run_untagged boolean NOT NULL DEFAULT true,
	access_level text NOT NULL DEFAULT 'not_protected'
		CHECK (access_level IN ('not_protected', 'ref_protected')),
	tag_list text[] NOT NULL DEFAULT '{}',
	contacted_at timestamptz,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ci_runners_shared ON ci_runners (id) WHERE is_shared;

-- The projects a specific runner serves.
CREATE TABLE ci_runner_projects (
	runner_id bigint NOT NULL REFERENCES ci_runners (id) ON DELETE CASCADE,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (runner_id, project_id)
);
CREATE INDEX ci_runner_projects_project ON ci_runner_projects (project_id, runner_id);

CREATE TABLE ci_triggers (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	owner_id bigint REFERENCES users (id) ON DELETE SET NULL,
	description text,
	token_digest text NOT NULL UNIQUE,
	token_sealed text NOT NULL,
	last_used timestamptz,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	deleted_at timestamptz
);
CREATE INDEX ci_triggers_project ON ci_triggers (project_id, id);
CREATE INDEX ci_triggers_owner ON ci_triggers (owner_id);

-- One invocation of a trigger, with the variables it passed.
CREATE TABLE ci_trigger_requests (
	id bigserial PRIMARY KEY,
	trigger_id bigint NOT NULL REFERENCES ci_triggers (id) ON DELETE CASCADE,
	variables jsonb,                   -- {"KEY": "value", ...} as given (not secrets)
	created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ci_trigger_requests_trigger ON ci_trigger_requests (trigger_id);

CREATE TABLE ci_pipeline_schedules (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	owner_id bigint REFERENCES users (id) ON DELETE SET NULL,
	description text NOT NULL,
	ref text NOT NULL,
	cron text NOT NULL,
	cron_timezone text NOT NULL DEFAULT 'UTC',
	next_run_at timestamptz,
	active boolean NOT NULL DEFAULT true,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ci_pipeline_schedules_project ON ci_pipeline_schedules (project_id, id);
CREATE INDEX ci_pipeline_schedules_owner ON ci_pipeline_schedules (owner_id);
-- what the background process looks for
CREATE INDEX ci_pipeline_schedules_due ON ci_pipeline_schedules (next_run_at) WHERE active;

CREATE TABLE ci_pipeline_schedule_variables (
	id bigserial PRIMARY KEY,
	pipeline_schedule_id bigint NOT NULL REFERENCES ci_pipeline_schedules (id) ON DELETE CASCADE,
	key text NOT NULL,
	value_sealed text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (pipeline_schedule_id, key)
);

-- Project and group variables; values sealed with the instance key.
CREATE TABLE ci_variables (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	key text NOT NULL,
	value_sealed text NOT NULL,
	protected boolean NOT NULL DEFAULT false,
	UNIQUE (project_id, key)
);
CREATE TABLE ci_group_variables (
	id bigserial PRIMARY KEY,
	group_id bigint NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
	key text NOT NULL,
	value_sealed text NOT NULL,
	protected boolean NOT NULL DEFAULT false,
	UNIQUE (group_id, key)
);

CREATE TABLE ci_pipelines (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	ref text NOT NULL,
	sha text NOT NULL,
	before_sha text NOT NULL DEFAULT '0000000000000000000000000000000000000000',
	tag boolean NOT NULL DEFAULT false,
	protected boolean NOT NULL DEFAULT false, -- the ref was protected at creation
	source text NOT NULL DEFAULT 'push'
		CHECK (source IN ('push', 'web', 'api', 'trigger', 'schedule', 'external')),
	status text NOT NULL DEFAULT 'created'
		CHECK (status IN ('created', 'pending', 'running', 'success', 'failed', 'canceled',
				  'skipped', 'manual')),
	yaml_errors text,
	user_id bigint REFERENCES users (id) ON DELETE SET NULL,
	trigger_request_id bigint REFERENCES ci_trigger_requests (id) ON DELETE SET NULL,
	pipeline_schedule_id bigint REFERENCES ci_pipeline_schedules (id) ON DELETE SET NULL,
	-- variables given to POST /pipeline (later releases) or by a trigger: [{key, value}]
	variables jsonb,
	coverage text,
	duration integer,
	committed_at timestamptz,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	started_at timestamptz,
	finished_at timestamptz
);
CREATE INDEX ci_pipelines_project ON ci_pipelines (project_id, id);
CREATE INDEX ci_pipelines_project_status ON ci_pipelines (project_id, status, id);
CREATE INDEX ci_pipelines_project_ref ON ci_pipelines (project_id, ref, id);
CREATE INDEX ci_pipelines_project_sha ON ci_pipelines (project_id, sha, id);
CREATE INDEX ci_pipelines_user ON ci_pipelines (user_id);
CREATE INDEX ci_pipelines_schedule ON ci_pipelines (pipeline_schedule_id, id)
	WHERE pipeline_schedule_id IS NOT NULL;

-- A job is a commit status of a pipeline (see the head of this file).
ALTER TABLE commit_statuses
	ADD COLUMN pipeline_id bigint REFERENCES ci_pipelines (id) ON DELETE CASCADE,
	ADD COLUMN stage_idx integer NOT NULL DEFAULT 0,
	-- on_success, on_failure, always, manual (a job's `when`)
	ADD COLUMN "when" text NOT NULL DEFAULT 'on_success'
		CHECK ("when" IN ('on_success', 'on_failure', 'always', 'manual')),
	-- a job that was retried: its newer copy counts, it is kept for the record
	ADD COLUMN retried boolean NOT NULL DEFAULT false,
	ADD COLUMN queued_at timestamptz;
CREATE INDEX commit_statuses_pipeline ON commit_statuses (pipeline_id, stage_idx, id)
	WHERE pipeline_id IS NOT NULL;
CREATE INDEX commit_statuses_project_jobs ON commit_statuses (project_id, id)
	WHERE pipeline_id IS NOT NULL;
-- the jobs a runner may be given, oldest first (POST /jobs/request)
CREATE INDEX commit_statuses_pending ON commit_statuses (id)
	WHERE status = 'pending' AND pipeline_id IS NOT NULL;

CREATE TABLE ci_builds (
	id bigint PRIMARY KEY REFERENCES commit_statuses (id) ON DELETE CASCADE,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	pipeline_id bigint NOT NULL REFERENCES ci_pipelines (id) ON DELETE CASCADE,
	runner_id bigint REFERENCES ci_runners (id) ON DELETE SET NULL,
	-- the job token: made when a runner takes the job, valid while it runs
	token_digest text UNIQUE,
	tag boolean NOT NULL DEFAULT false,
	protected boolean NOT NULL DEFAULT false,
	tag_list text[] NOT NULL DEFAULT '{}',
	-- what .gitlab-ci.yml says of the job, as the runner's payload needs it: script,
	-- before_script, after_script, image, services, artifacts, cache, dependencies,
	-- retry, environment {name, url, action, on_stop}, coverage (the regex)
	options jsonb NOT NULL DEFAULT '{}',
	-- the global and the job's variables of .gitlab-ci.yml: [{key, value, public}]
	yaml_variables jsonb NOT NULL DEFAULT '[]',
	environment text,                  -- the environment's name, variables expanded
	trigger_request_id bigint REFERENCES ci_trigger_requests (id) ON DELETE SET NULL,
	trace_size bigint NOT NULL DEFAULT 0,
	artifacts_file text,               -- the uploaded archive's file name (its filename)
	artifacts_size bigint,
	artifacts_expire_at timestamptz,
	erased_at timestamptz
);
CREATE INDEX ci_builds_pipeline ON ci_builds (pipeline_id);
CREATE INDEX ci_builds_runner ON ci_builds (runner_id) WHERE runner_id IS NOT NULL;
CREATE INDEX ci_builds_project ON ci_builds (project_id, id);

CREATE TABLE environments (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	name text NOT NULL,
	slug text NOT NULL,
	external_url text,
	state text NOT NULL DEFAULT 'available' CHECK (state IN ('available', 'stopped')),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (project_id, name),
	UNIQUE (project_id, slug)
);

CREATE TABLE deployments (
	id bigserial PRIMARY KEY,
	iid bigint NOT NULL,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	environment_id bigint NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
	ref text NOT NULL,
	tag boolean NOT NULL DEFAULT false,
	sha text NOT NULL,
	user_id bigint REFERENCES users (id) ON DELETE SET NULL,
	deployable_id bigint REFERENCES commit_statuses (id) ON DELETE SET NULL,
	on_stop text,                      -- the name of the job that stops the environment
	created_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (project_id, iid)
);
CREATE INDEX deployments_environment ON deployments (environment_id, id);
CREATE INDEX deployments_deployable ON deployments (deployable_id);

-- The status of a set of statuses (GitLab 10's HasStatus.status_sql): `ignored` are the
-- failed, canceled or manual jobs that allow failure; `warnings` whether any failed job
-- allows failure.
CREATE FUNCTION ci_composite_status(total bigint, created bigint, pending bigint,
	running bigint, success bigint, skipped bigint, canceled bigint, manual bigint,
	warnings boolean) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN total = skipped AND warnings THEN 'success'
		WHEN total = skipped THEN 'skipped'
		WHEN total = success THEN 'success'
		WHEN total = created THEN 'created'
		WHEN total = success + skipped THEN 'success'
		WHEN total = success + skipped + canceled THEN 'canceled'
		WHEN total = created + skipped + pending THEN 'pending'
		WHEN running + pending > 0 THEN 'running'
		WHEN manual > 0 THEN 'manual'
		WHEN created > 0 THEN 'running'
		ELSE 'failed'
	END
$$;

-- The composite status of pipeline p's current (not retried) jobs whose stage index is
-- below `below` (all of them with NULL).
CREATE FUNCTION ci_jobs_status(p bigint, below integer) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT ci_composite_status(
		count(*) FILTER (WHERE NOT ign),
		count(*) FILTER (WHERE NOT ign AND status = 'created'),
		count(*) FILTER (WHERE NOT ign AND status = 'pending'),
		count(*) FILTER (WHERE NOT ign AND status = 'running'),
		count(*) FILTER (WHERE NOT ign AND status = 'success'),
		count(*) FILTER (WHERE NOT ign AND status = 'skipped'),
		count(*) FILTER (WHERE NOT ign AND status = 'canceled'),
		count(*) FILTER (WHERE NOT ign AND status = 'manual'),
		coalesce(bool_or(allow_failure AND status = 'failed'), false))
	FROM (SELECT status, allow_failure,
		     allow_failure AND status IN ('failed', 'canceled', 'manual') AS ign
	      FROM commit_statuses
	      WHERE pipeline_id = p AND NOT retried AND (below IS NULL OR stage_idx < below)) s
$$;

-- GitLab 10's ProcessPipelineService and pipeline status update, in one call: with the
-- pipeline row locked, each stage's `created` jobs are started in stage order as long as
-- the stages before them are complete: on_success (pending) when they succeeded,
-- on_failure (pending) when they failed, always (pending) either way, manual (manual)
-- when they succeeded; the others become skipped. Then the pipeline's status, started_at,
-- finished_at and duration follow its jobs. Answers the pipeline's new status.
CREATE FUNCTION ci_process_pipeline(p bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	idx integer;
	prior text;
	st text;
BEGIN
	PERFORM 1 FROM ci_pipelines WHERE id = p FOR UPDATE;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	FOR idx IN SELECT DISTINCT stage_idx FROM commit_statuses
		   WHERE pipeline_id = p AND NOT retried ORDER BY stage_idx LOOP
		prior := ci_jobs_status(p, idx);
		-- no jobs before: success
		IF prior IN ('created', 'pending', 'running') THEN
			EXIT;
		END IF;
		IF prior = 'manual' THEN
			-- a manual job that blocks (allow_failure false) holds the stages after it
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
	st := ci_jobs_status(p, NULL);
	UPDATE ci_pipelines SET
		status = st,
		updated_at = now(),
		started_at = CASE WHEN started_at IS NULL AND st NOT IN ('created', 'pending', 'skipped', 'manual')
				  THEN now() ELSE started_at END,
		finished_at = CASE WHEN st IN ('success', 'failed', 'canceled', 'skipped')
				   THEN coalesce(finished_at, now()) ELSE NULL END,
		duration = CASE WHEN st IN ('success', 'failed', 'canceled', 'skipped')
				THEN extract(epoch FROM coalesce(finished_at, now()) - coalesce(started_at, now()))::integer
				ELSE NULL END
	WHERE id = p;
	RETURN st;
END
$$;

-- GitLab 10's Ci::RetryBuildService: job j is copied as a new job of its pipeline (a new
-- id, the same name, stage, options and variables, no runner, trace or artifacts), by
-- user u, `created` (or `pending` when enqueue: a single job's retry, which starts it at
-- once; a pipeline's retry leaves the copies to ci_process_pipeline), and j is marked
-- retried. Answers the new job's id, or NULL when j is no job.
CREATE FUNCTION ci_retry_job(j bigint, u bigint, enqueue boolean) RETURNS bigint
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
	RETURN n;
END
$$;
