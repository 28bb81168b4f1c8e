-- CI/CD's part of the benchmark's data set, loaded after gen.sql (psql):
--
--   psql -v ON_ERROR_STOP=1 -v seed=42 -v pipelines=50000 -v ci_file=/tmp/ci \
--        [-v repo_projects=12,34 -v shas=SHA,SHA,...] -f contrib/bench/gen_ci.sql "$DATABASE_URL"
--
-- Variables (optional; the defaults are the benchmark's): seed (42, gen.sql's), pipelines
-- (50000), ci_file (the file the pipelines' and jobs' wrk scripts read: "TOKEN PROJECT-ID"
-- a line, a private project with pipelines of which the token's user is a reporter or
-- more; at most 10 per user), repo_projects (the projects with a seeded repository,
-- comma-separated: they come first in the skew, so they have the most pipelines, and
-- ci_file lists only them) and shas (commits of that repository's master: their
-- pipelines are on those, so that a job's commit is found in the repository).
--
-- What it makes over gen.sql's projects whose jobs are enabled (skewed: a few projects
-- have hundreds of pipelines, most a handful or none): pipelines on master (70%) or a
-- feature branch, on about 50 commits a project (a few pipelines per commit), each with
-- three stages: build (one job), test (1..4 jobs), deploy (half of them: a manual job,
-- allow_failure as GitLab 10's manual jobs); statuses: 60% success (5% of them after a
-- retried failed test job), 18% failed (a test job failed, deploy skipped), 5% canceled,
-- 2% skipped, 3% manual (a blocking manual deploy), 12% running (build done, tests
-- running, deploy created). No job is pending: the runners' "no pending job" row must
-- find none (gen_ci_pending.sql makes the pending ones, just before the hand-out row).
-- Loaded with session_replication_role = replica (no trigger; the rows are right by
-- construction), then one bump of key 0 (everything), as gen.sql. Repeatable as gen.sql.
\set QUIET on
\if :{?seed}
\else
\set seed 42
\endif
\if :{?pipelines}
\else
\set pipelines 50000
\endif
\if :{?ci_file}
\else
\set ci_file bench-ci
\endif
\if :{?repo_projects}
\else
\set repo_projects ''
\endif
\if :{?shas}
\else
\set shas ''
\endif

SET synchronous_commit = off;
SET session_replication_role = replica;
SET work_mem = '256MB';
SELECT format($f$CREATE FUNCTION pg_temp.rnd(k bigint, salt bigint) RETURNS float8
	LANGUAGE sql IMMUTABLE AS $$ SELECT (hashint8extended(k, %s::bigint * 1000003 + salt)
	& 4503599627370495)::float8 / 4503599627370496 $$$f$, (:'seed')::bigint) \gexec
CREATE FUNCTION pg_temp.pick(k bigint, salt bigint, n bigint, skew float8) RETURNS bigint
LANGUAGE sql IMMUTABLE AS
$$ SELECT least(n, 1 + floor(n * power(pg_temp.rnd(k, salt), skew))::bigint) $$;

BEGIN;

CREATE TEMP TABLE trp AS
	SELECT DISTINCT x::bigint AS id FROM unnest(string_to_array(:'repo_projects', ',')) x WHERE x <> '';
CREATE TEMP TABLE tsha AS
	SELECT array_agg(x ORDER BY n) AS shas FROM unnest(string_to_array(:'shas', ',')) WITH ORDINALITY s(x, n)
	WHERE x <> '';
-- the projects whose jobs are enabled, the ones with a repository first
CREATE TEMP TABLE tp AS
	SELECT row_number() OVER (ORDER BY p.id NOT IN (SELECT id FROM trp), p.id) AS idx,
		p.id, p.creator_id, p.created_at, p.id IN (SELECT id FROM trp) AS has_repo
	FROM projects p WHERE p.jobs_enabled AND NOT p.pending_delete;
ALTER TABLE tp ADD PRIMARY KEY (idx);
SELECT count(*) AS np FROM tp \gset

-- ---- pipelines (ids in the order they were made) ----
CREATE TEMP TABLE tq0 AS
	SELECT g AS seq, p.id AS project_id, p.creator_id, p.has_repo,
		greatest(p.created_at, now() - interval '90 days')
			+ pg_temp.rnd(g, 201) * (now() - greatest(p.created_at, now() - interval '90 days')) AS created_at,
		floor(pg_temp.rnd(g, 202) * 50)::int AS commit_no,
		pg_temp.rnd(g, 203) AS st, pg_temp.rnd(g, 204) < 0.7 AS on_master,
		1 + floor(pg_temp.rnd(g, 205) * 4)::int AS ntests, pg_temp.rnd(g, 206) < 0.5 AS deploy,
		pg_temp.rnd(g, 207) < 0.05 AS retried
	FROM generate_series(1, :pipelines) g
	JOIN tp p ON p.idx = pg_temp.pick(g, 200, :np, 2.5);
SELECT nextval('ci_pipelines_id_seq') AS q0 \gset
CREATE TEMP TABLE tq AS
	SELECT :q0 + row_number() OVER (ORDER BY created_at, seq) - 1 AS id, q.*,
		CASE WHEN st < 0.60 THEN 'success' WHEN st < 0.78 THEN 'failed'
		     WHEN st < 0.83 THEN 'canceled' WHEN st < 0.85 THEN 'skipped'
		     WHEN st < 0.88 THEN 'manual' ELSE 'running' END AS status,
		CASE WHEN on_master THEN 'master' ELSE 'feature-' || commit_no % 7 END AS ref,
		CASE WHEN q.has_repo AND cardinality(tsha.shas) > 0
		     THEN tsha.shas[1 + commit_no % cardinality(tsha.shas)]
		     ELSE substr(encode(sha256((:'seed' || ':' || q.project_id || ':' || commit_no)::bytea), 'hex'), 1, 40)
		END AS sha,
		-- seconds: queued, then each stage
		10 + floor(pg_temp.rnd(seq, 210) * 50)::int AS wait, 30 + floor(pg_temp.rnd(seq, 211) * 120)::int AS build_s,
		60 + floor(pg_temp.rnd(seq, 212) * 600)::int AS test_s
	FROM tq0 q CROSS JOIN tsha;
ALTER TABLE tq ADD PRIMARY KEY (id);
SELECT setval('ci_pipelines_id_seq', :q0 + :pipelines - 1) \gset

INSERT INTO ci_pipelines (id, project_id, ref, sha, source, status, user_id, duration,
			  created_at, updated_at, started_at, finished_at)
	SELECT id, project_id, ref, sha, CASE WHEN id % 10 = 0 THEN 'web' ELSE 'push' END, status, creator_id,
		CASE WHEN status IN ('success', 'failed', 'canceled', 'manual') THEN build_s + test_s END,
		created_at, created_at + (wait + build_s + test_s) * interval '1 second',
		CASE WHEN status <> 'skipped' THEN created_at + wait * interval '1 second' END,
		CASE WHEN status IN ('success', 'failed', 'canceled')
		     THEN created_at + (wait + build_s + test_s) * interval '1 second' END
	FROM tq;

-- ---- jobs: build (stage 0), tests (stage 1), deploy (stage 2), a retried test ----
CREATE TEMP TABLE tj0 AS
	SELECT q.id AS pipeline_id, 0 AS stage_idx, 'build' AS stage, 'build' AS name, 0 AS k,
		'on_success' AS "when", false AS allow_failure, false AS retried,
		CASE q.status WHEN 'skipped' THEN 'skipped' ELSE 'success' END AS status
	FROM tq q
	UNION ALL
	SELECT q.id, 1, 'test', (ARRAY['rspec', 'jest', 'rubocop', 'karma'])[k], k, 'on_success', false, false,
		CASE q.status WHEN 'failed' THEN CASE WHEN k = 1 THEN 'failed' ELSE 'success' END
			      WHEN 'canceled' THEN 'canceled' WHEN 'skipped' THEN 'skipped'
			      WHEN 'running' THEN 'running' ELSE 'success' END
	FROM tq q CROSS JOIN LATERAL generate_series(1, q.ntests) k
	UNION ALL
	SELECT q.id, 1, 'test', 'rspec', 0, 'on_success', false, true, 'failed'
	FROM tq q WHERE q.status = 'success' AND q.retried
	UNION ALL
	SELECT q.id, 2, 'deploy', 'deploy', 9, 'manual', q.status <> 'manual', false,
		CASE q.status WHEN 'success' THEN 'manual' WHEN 'manual' THEN 'manual'
			      WHEN 'running' THEN 'created' ELSE 'skipped' END
	FROM tq q WHERE q.deploy OR q.status = 'manual';
SELECT nextval('commit_statuses_id_seq') AS j0 \gset
SELECT count(*) AS nj FROM tj0 \gset
-- in each pipeline: stage order, the retried copy before the current one
CREATE TEMP TABLE tj AS
	SELECT :j0 + row_number() OVER (ORDER BY j.pipeline_id, j.stage_idx, NOT j.retried, j.k) - 1 AS id, j.*,
		q.project_id, q.sha, q.ref, q.creator_id, q.created_at AS pcreated, q.wait, q.build_s, q.test_s
	FROM tj0 j JOIN tq q ON q.id = j.pipeline_id;
SELECT setval('commit_statuses_id_seq', :j0 + :nj - 1) \gset

INSERT INTO commit_statuses (id, project_id, sha, ref, name, stage, status, allow_failure,
			     author_id, pipeline_id, stage_idx, "when", retried, queued_at,
			     created_at, updated_at, started_at, finished_at)
	SELECT id, project_id, sha, ref, name, stage, status, allow_failure, creator_id,
		pipeline_id, stage_idx, "when", retried,
		CASE WHEN status NOT IN ('created', 'skipped', 'manual') THEN t0 END,
		pcreated, coalesce(t2, t1, pcreated), t1, t2
	FROM tj CROSS JOIN LATERAL (SELECT
		CASE WHEN status IN ('running', 'success', 'failed', 'canceled')
		     THEN pcreated + (wait + CASE stage_idx WHEN 0 THEN 0 ELSE build_s END) * interval '1 second' END AS t1,
		CASE WHEN status IN ('success', 'failed', 'canceled')
		     THEN pcreated + (wait + build_s + CASE stage_idx WHEN 0 THEN 0 ELSE test_s END) * interval '1 second' END AS t2,
		pcreated + CASE stage_idx WHEN 0 THEN 0 ELSE wait + build_s END * interval '1 second' AS t0) t;
-- A running job's runner sends its trace, which keeps the job's updated_at fresh: as
-- of now, so that the background's stuck-job sweep (an hour without news fails a running
-- job) does not fail the data set's 12% of running jobs, 100 a sweep, during the run.
UPDATE commit_statuses SET updated_at = now() WHERE id >= :j0 AND status = 'running';
INSERT INTO ci_builds (id, project_id, pipeline_id, options, yaml_variables)
	SELECT id, project_id, pipeline_id,
		jsonb_build_object('script', jsonb_build_array(CASE stage WHEN 'build' THEN 'make'
			WHEN 'test' THEN 'make ' || name ELSE 'make deploy' END)),
		'[{"key":"RAILS_ENV","value":"test","public":true}]'
	FROM tj;

-- ci_project_counts: what the triggers of sql/0039 would have added for these rows
SELECT ci_counts_add(array_agg(project_id), array_agg(n), array_agg(m)) FROM (
	SELECT project_id, count(*) AS n, 0::bigint AS m FROM tq GROUP BY 1
	UNION ALL SELECT project_id, 0, count(*) FROM tj GROUP BY 1) x;

ANALYZE ci_pipelines, commit_statuses, ci_builds, ci_project_counts;
SELECT cache_bump(ARRAY[0::bigint]);
COMMIT;
SET session_replication_role = origin;

-- (token, private project with pipelines) pairs for the pipelines' and jobs' rows
CREATE TEMP TABLE tt AS
	SELECT token, project_id FROM (
		SELECT x.token, p.id AS project_id,
			row_number() OVER (PARTITION BY t.user_id ORDER BY pg_temp.rnd(p.id, t.user_id)) AS k
		FROM tokens t
		CROSS JOIN LATERAL (SELECT substr(encode(sha256(('token:' || :'seed' || ':' || t.user_id)::bytea), 'hex'), 1, 20) AS token) x
		JOIN project_authorizations a ON a.user_id = t.user_id AND a.access_level >= 20
			AND a.expires_at > current_date
		JOIN projects p ON p.id = a.project_id AND p.visibility = 0 AND NOT p.pending_delete
			AND p.jobs_enabled
		WHERE t.kind = 'personal' AND t.name = 'bench' AND t.digest = encode(sha256(x.token::bytea), 'hex')
			AND EXISTS (SELECT 1 FROM ci_pipelines q WHERE q.project_id = p.id)
			AND (NOT EXISTS (SELECT 1 FROM trp) OR p.id IN (SELECT id FROM trp))
	) y WHERE k <= 10;
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' '
\pset footer off
SELECT token, project_id FROM tt ORDER BY 1, 2 \g :ci_file
\pset format aligned
\pset tuples_only off

VACUUM (ANALYZE) ci_pipelines, commit_statuses, ci_builds;

\echo pipelines: :pipelines, seed: :seed
SELECT (SELECT count(*) FROM ci_pipelines) AS pipelines,
	(SELECT count(*) FROM commit_statuses WHERE pipeline_id IS NOT NULL) AS jobs,
	(SELECT count(DISTINCT project_id) FROM ci_pipelines) AS projects_with_pipelines,
	(SELECT max(c) FROM (SELECT count(*) c FROM ci_pipelines GROUP BY project_id) x) AS most_in_a_project,
	(SELECT count(*) FROM tt) AS pairs;
