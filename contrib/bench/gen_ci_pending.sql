-- The pending jobs of the benchmark's hand-out row (POST /jobs/request with jobs to
-- give), loaded after gen_ci.sql, just before that row (earlier rows must not take them):
--
--   psql -v ON_ERROR_STOP=1 -v seed=42 -v pending=10000 -v projects=10 \
--        -f contrib/bench/gen_ci_pending.sql "$DATABASE_URL"
--
-- Variables (optional): seed (42), pending (10000 jobs), projects (10: spread over that
-- many private projects with jobs and shared runners enabled). Each pipeline (running) has
-- a build job that succeeded and 4 pending test jobs (when on_success, untagged, not
-- protected: any shared runner may take them), as ci_process_pipeline leaves a pipeline
-- once its first stage is done; their options have a script, so that the runner's
-- payload is made. Inserted with the triggers (no replica mode): these are the rows the
-- API would have written.
\set QUIET on
\if :{?seed}
\else
\set seed 42
\endif
\if :{?pending}
\else
\set pending 10000
\endif
\if :{?projects}
\else
\set projects 10
\endif

BEGIN;
CREATE TEMP TABLE hp AS
	SELECT row_number() OVER (ORDER BY md5(:'seed' || ':' || id)) AS idx, id, creator_id FROM projects
	WHERE visibility = 0 AND jobs_enabled AND shared_runners_enabled AND NOT pending_delete
	ORDER BY md5(:'seed' || ':' || id) LIMIT :projects;
SELECT nextval('ci_pipelines_id_seq') AS q0 \gset
CREATE TEMP TABLE hq AS
	SELECT :q0 + g - 1 AS id, g AS k, h.id AS project_id, h.creator_id,
		substr(encode(sha256((:'seed' || ':pending:' || g)::bytea), 'hex'), 1, 40) AS sha
	FROM generate_series(1, (:pending + 3) / 4) g JOIN hp h ON h.idx = 1 + g % (SELECT count(*) FROM hp);
SELECT setval('ci_pipelines_id_seq', (SELECT max(id) FROM hq)) \gset
INSERT INTO ci_pipelines (id, project_id, ref, sha, status, user_id, started_at)
	SELECT id, project_id, 'master', sha, 'running', creator_id, now() FROM hq ORDER BY id;
SELECT nextval('commit_statuses_id_seq') AS j0 \gset
CREATE TEMP TABLE hj AS
	SELECT :j0 + row_number() OVER (ORDER BY q.id, s.n) - 1 AS id,
		q.id AS pipeline_id, q.project_id, q.sha, q.creator_id, s.n,
		CASE WHEN s.n = 0 THEN 'build' ELSE (ARRAY['rspec', 'jest', 'rubocop', 'karma'])[s.n] END AS name
	FROM hq q CROSS JOIN generate_series(0, 4) s(n)
	WHERE s.n = 0 OR (q.k - 1) * 4 + s.n <= :pending;
SELECT setval('commit_statuses_id_seq', (SELECT max(id) FROM hj)) \gset
INSERT INTO commit_statuses (id, project_id, sha, ref, name, stage, status, author_id,
			     pipeline_id, stage_idx, queued_at, started_at, finished_at)
	SELECT id, project_id, sha, 'master', name, CASE n WHEN 0 THEN 'build' ELSE 'test' END,
		CASE n WHEN 0 THEN 'success' ELSE 'pending' END, creator_id, pipeline_id,
		CASE n WHEN 0 THEN 0 ELSE 1 END, now(),
		CASE n WHEN 0 THEN now() END, CASE n WHEN 0 THEN now() END
	FROM hj ORDER BY id;
INSERT INTO ci_builds (id, project_id, pipeline_id, options)
	SELECT id, project_id, pipeline_id,
		jsonb_build_object('script', jsonb_build_array('make ' || name))
	FROM hj ORDER BY id;
COMMIT;
ANALYZE commit_statuses, ci_builds, ci_pipelines;
SELECT count(*) AS pending FROM commit_statuses WHERE status = 'pending' AND pipeline_id IS NOT NULL;
