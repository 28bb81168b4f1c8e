-- collabd schema: the rules of environments (GitLab 10's Environment model) in one place,
-- used by the API (src/api/environments.c) and by the trigger below, and the deployments
-- that a successful job records (GitLab 10's BuildSuccessWorker and
-- CreateDeploymentService), done here so that whoever changes a job's status (the runner
-- protocol, a cancel, a test) needs no call.

-- The format of an environment name: Gitlab::Regex.environment_name_regex of 10.x (and
-- at most 255 characters, which the API reports apart).
CREATE FUNCTION ci_environment_name_valid(name text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT name ~ '^[a-zA-Z0-9_\\/${}. -]+$'
$$;

-- The format of an external_url (AddressableUrlValidator of 10.x): an http, https, ssh
-- or git URL with a host, no white space or control characters (and at most 255
-- characters, which the API reports apart).
CREATE FUNCTION ci_environment_url_valid(url text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT url ~ '^(https?|ssh|git)://[^/?#[:space:][:cntrl:]]+([/?#][^[:space:][:cntrl:]]*)?$'
$$;

-- Environment#generate_slug: the name in lower case, every other character than a-z and
-- 0-9 a dash, 'env-' in front unless it starts with a letter, runs of dashes as one, at
-- most 24 characters, no dash at the end; when that is not the name itself, cut to 17
-- characters and a dash and six random characters added, so that the slug stays unique.
CREATE FUNCTION ci_environment_slug(name text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	s text := regexp_replace(lower(name), '[^a-z0-9]', '-', 'g');
BEGIN
	IF s !~ '^[a-z]' THEN
		s := 'env-' || s;
	END IF;
	s := left(regexp_replace(s, '-+', '-', 'g'), 24);
	IF right(s, 1) = '-' THEN
		s := left(s, -1);
	END IF;
	IF s <> name THEN
		s := left(s, 17);
		IF right(s, 1) <> '-' THEN
			s := s || '-';
		END IF;
		s := s || (SELECT string_agg(substr('abcdefghijklmnopqrstuvwxyz0123456789',
						    1 + floor(random() * 36)::integer, 1), '')
			   FROM generate_series(1, 6));
	END IF;
	RETURN s;
END
$$;

-- ExpandVariables.expand of 10.x: $NAME, ${NAME} and %NAME% in s replaced by their value in
-- vars ({"NAME": "value"}), by nothing when vars has none.
CREATE FUNCTION ci_expand_variables(s text, vars jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	pat constant text :=
		'\$\{[a-zA-Z_][a-zA-Z0-9_]*\}|\$[a-zA-Z_][a-zA-Z0-9_]*|%[a-zA-Z_][a-zA-Z0-9_]*%';
	res text := '';
	pos integer := 1;
	i integer;
	tok text;
BEGIN
	IF s IS NULL THEN
		RETURN NULL;
	END IF;
	LOOP
		i := regexp_instr(s, pat, pos);
		EXIT WHEN i = 0;
		tok := regexp_substr(s, pat, pos);
		res := res || substr(s, pos, i - pos) || coalesce(vars ->> coalesce(
			substring(tok FROM '^\$\{(.*)\}$'), substring(tok FROM '^%(.*)%$'),
			substring(tok FROM '^\$(.*)$')), '');
		pos := i + length(tok);
	END LOOP;
	RETURN res || substr(s, pos);
END
$$;

-- Gitlab::Utils.slugify (CI_COMMIT_REF_SLUG).
CREATE FUNCTION ci_ref_slug(ref text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT regexp_replace(left(regexp_replace(lower(ref), '[^a-z0-9]', '-', 'g'), 63),
			      '(^-+|-+$)', '', 'g')
$$;

-- A job that succeeds with an environment (ci_builds.environment, options -> 'environment'
-- {name, url, action, on_stop}): its environment, found or made (as the pipeline's
-- creation does in GitLab 10; a name the model refuses makes none), is stopped by a job
-- whose action is `stop`; otherwise it is (again) available, takes the job's url (its
-- variables expanded) as external_url when that is a valid URL, and gets a deployment of
-- the job's ref and sha by the job's user, numbered per project.
CREATE FUNCTION ci_job_deploy() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	b record;
	env_id bigint;
	opts jsonb;
	url text;
	vars jsonb;
BEGIN
	SELECT cb.environment, cb.tag, cb.yaml_variables, cb.options -> 'environment' AS env,
	       p.path, p.name AS project_name, n.full_path
	INTO b
	FROM ci_builds cb JOIN projects p ON p.id = cb.project_id
	     JOIN namespaces n ON n.id = p.namespace_id
	WHERE cb.id = NEW.id;
	IF NOT FOUND OR b.environment IS NULL OR NOT ci_environment_name_valid(b.environment)
	   OR char_length(b.environment) > 255 THEN
		RETURN NULL;
	END IF;
	opts := CASE WHEN jsonb_typeof(b.env) = 'object' THEN b.env ELSE '{}' END;
	SELECT id INTO env_id FROM environments
	WHERE project_id = NEW.project_id AND name = b.environment FOR UPDATE;
	IF NOT FOUND THEN
		INSERT INTO environments (project_id, name, slug)
		VALUES (NEW.project_id, b.environment, ci_environment_slug(b.environment))
		ON CONFLICT DO NOTHING RETURNING id INTO env_id;
		IF env_id IS NULL THEN
			SELECT id INTO env_id FROM environments
			WHERE project_id = NEW.project_id AND name = b.environment FOR UPDATE;
			IF NOT FOUND THEN
				RETURN NULL;
			END IF;
		END IF;
	END IF;
	IF opts ->> 'action' = 'stop' THEN
		UPDATE environments SET state = 'stopped', updated_at = now()
		WHERE id = env_id AND state <> 'stopped';
		RETURN NULL;
	END IF;
	IF opts ? 'url' THEN
		SELECT coalesce(jsonb_object_agg(v ->> 'key', v ->> 'value'), '{}') INTO vars
		FROM jsonb_array_elements(CASE WHEN jsonb_typeof(b.yaml_variables) = 'array'
					  THEN b.yaml_variables ELSE '[]' END) v
		WHERE jsonb_typeof(v) = 'object' AND v ? 'key';
		vars := vars || jsonb_build_object(
			'CI_ENVIRONMENT_NAME', b.environment,
			'CI_ENVIRONMENT_SLUG', (SELECT slug FROM environments WHERE id = env_id),
			'CI_COMMIT_REF_NAME', NEW.ref, 'CI_COMMIT_REF_SLUG', ci_ref_slug(NEW.ref),
			'CI_COMMIT_SHA', NEW.sha, 'CI_JOB_ID', NEW.id::text,
			'CI_JOB_NAME', NEW.name,
			'CI_JOB_STAGE', NEW.stage, 'CI_PIPELINE_ID', NEW.pipeline_id::text,
			'CI_PROJECT_ID', NEW.project_id::text, 'CI_PROJECT_NAME', b.path,
			'CI_PROJECT_PATH', b.full_path || '/' || b.path,
			'CI_PROJECT_NAMESPACE', b.full_path);
		IF b.tag THEN
			vars := vars || jsonb_build_object('CI_COMMIT_TAG', NEW.ref);
		END IF;
		url := ci_expand_variables(opts ->> 'url', vars);
		IF NOT ci_environment_url_valid(url) OR char_length(url) > 255 THEN
			url := NULL;
		END IF;
	END IF;
	UPDATE environments SET state = 'available', external_url = coalesce(url, external_url),
		updated_at = now()
	WHERE id = env_id;
	INSERT INTO deployments (iid, project_id, environment_id, ref, tag, sha, user_id,
		deployable_id, on_stop)
	VALUES (next_iid('deployments', 'Project', NEW.project_id), NEW.project_id, env_id,
		NEW.ref, b.tag, NEW.sha, NEW.author_id, NEW.id, opts ->> 'on_stop');
	RETURN NULL;
END
$$;

CREATE TRIGGER commit_statuses_deploy AFTER UPDATE OF status ON commit_statuses
	FOR EACH ROW WHEN (NEW.status = 'success' AND OLD.status <> 'success'
			   AND NEW.pipeline_id IS NOT NULL)
	EXECUTE FUNCTION ci_job_deploy();

-- GitLab 10's Environment#stop_with_action!: an available environment is stopped, and
-- the on_stop job of its last deployment played by user u (Deployment#stop_action: a
-- manual action of the deployment's pipeline, not retried, with that name and another
-- than the deployment's job; Ci::PlayBuildService: a `manual` or `skipped` one is
-- enqueued as u's, a finished one retried), its pipeline processed. Answers whether a
-- job was played.
CREATE FUNCTION ci_environment_stop(e bigint, u bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	d record;
	j record;
BEGIN
	UPDATE environments SET state = 'stopped', updated_at = now()
	WHERE id = e AND state = 'available';
	IF NOT FOUND THEN
		RETURN false;
	END IF;
	SELECT dp.on_stop, cs.pipeline_id, cs.name INTO d
	FROM deployments dp JOIN commit_statuses cs ON cs.id = dp.deployable_id
	WHERE dp.environment_id = e ORDER BY dp.id DESC LIMIT 1;
	IF NOT FOUND OR d.on_stop IS NULL OR d.pipeline_id IS NULL THEN
		RETURN false;
	END IF;
	SELECT cs.id, cs.status INTO j FROM commit_statuses cs
	WHERE cs.pipeline_id = d.pipeline_id AND cs.name = d.on_stop AND cs.name <> d.name
	  AND NOT cs.retried
	  AND cs."when" = 'manual'
	  AND cs.status IN ('manual', 'success', 'failed', 'canceled', 'skipped')
	ORDER BY cs.id DESC LIMIT 1 FOR UPDATE;
	IF NOT FOUND THEN
		RETURN false;
	END IF;
	IF j.status IN ('manual', 'skipped') THEN
		UPDATE commit_statuses SET status = 'pending', author_id = u, queued_at = now(),
			updated_at = now()
		WHERE id = j.id AND status IN ('manual', 'skipped');
	ELSE
		PERFORM ci_retry_job(j.id, u, true);
	END IF;
	PERFORM ci_process_pipeline(d.pipeline_id);
	RETURN true;
END
$$;

CREATE INDEX environments_project ON environments (project_id, id);
