-- The merge requests of the benchmark's data set, loaded after gen.sql, gen_tracker.sql
-- (their labels and milestones, when there are any) and the seeded repositories (psql):
--
--   psql -v ON_ERROR_STOP=1 -v seed=42 -v mrs=100000 -v repos_file=/tmp/repos \
--        -v branches_file=/tmp/mr-branches -v list_file=/tmp/mrs \
--        -v changes_file=/tmp/mr-changes -v merges_file=/tmp/mr-merges \
--        -f contrib/bench/gen_mrs.sql "$DATABASE_URL"
--
-- Variables (the defaults are the benchmark's): seed (42, gen.sql's), mrs (100000),
-- repos_file (run's: "TOKEN PROJECT-ID FULL-PATH HASH" a line, the projects with a
-- seeded repository), branches_file ("NAME SHA" a line: bench-changes and the
-- bench-merge-N branches run adds to the seeded repository), and the files the wrk
-- script mrs.lua reads:
-- - list_file: "TOKEN PROJECT-ID" a line, a private project with merge requests of which
--   the token's user is a reporter or more (at most 10 per user);
-- - changes_file: "TOKEN PROJECT-ID IID", the open request of bench-changes (one commit
--   changing 20 files) into master of each seeded repository, with run's token for it;
-- - merges_file: "TOKEN PROJECT-ID IID", the open requests of the bench-merge-N branches
--   (one new file each: they never conflict) into master, with the token of a user who
--   may merge into it (a developer or more of the project, through a membership of the
--   project or of a group); in the order of N, then of the projects, so that consecutive
--   lines name different projects. Projects where no token's user is a developer have
--   no line.
--
-- What it makes over gen.sql's projects whose merge requests are enabled (skewed as the
-- tracker's issues: a few projects have thousands, most a handful or none): requests
-- from a branch of the project into its master, iids per project from 1 (iid_counters set
-- to the last, after the seeded repositories' requests), authors among the users
-- (skewed), 20% opened (a third of them unchecked, a tenth cannot_be_merged), 65% merged
-- (merge_commit_sha, merged_by, merged_at), 15% closed; 5% work in progress; 40% with a
-- milestone of their project, 50% with an assignee, 0..3 labels of their project; the
-- source branch asked to be removed on a third. No notes, award emoji or events.
-- Loaded with session_replication_role = replica (no trigger runs; the rows are right by
-- construction), then one bump of key 0 (everything), as gen.sql. Repeatable: every
-- choice a hash of (seed, what, which).
\set QUIET on
\if :{?seed}
\else
\set seed 42
\endif
\if :{?mrs}
\else
\set mrs 100000
\endif
\if :{?list_file}
\else
\set list_file bench-mrs
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
-- a commit id made of the hash of (k, salt)
CREATE FUNCTION pg_temp.sha(k bigint, salt bigint) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT encode(sha256((k || ':' || salt)::bytea), 'hex')::char(40)::text $$;

-- the seeded repositories and their requests' branches
\if :{?repos_file}
\set repos_text `cat :repos_file`
\set branches_text `cat :branches_file`
\else
\set repos_text ''
\set branches_text ''
\endif
CREATE TEMP TABLE trepo AS
	SELECT f[1] AS token, f[2]::bigint AS project_id FROM (SELECT regexp_split_to_array(l, ' ') AS f
		FROM regexp_split_to_table(:'repos_text', E'\n') l WHERE l <> '') x;
CREATE TEMP TABLE tbranch AS
	SELECT f[1] AS name, f[2] AS sha FROM (SELECT regexp_split_to_array(l, ' ') AS f
		FROM regexp_split_to_table(:'branches_text', E'\n') l WHERE l <> '') x;

BEGIN;

CREATE TEMP TABLE tw (verbs text[], things text[]);
INSERT INTO tw VALUES (
	'{Fix,Add,Remove,Improve,Document,Refactor,Speed up,Test,Deprecate,Support}',
	'{login page,API pagination,search results,merge button,CI config,user settings,issue board,markdown preview,webhooks,LDAP sync,avatar upload,email notifications,diff view,project export,dark theme}');

CREATE TEMP TABLE tp AS
	SELECT row_number() OVER (ORDER BY id) AS idx, id, created_at FROM projects
	WHERE merge_requests_enabled AND NOT pending_delete;
ALTER TABLE tp ADD PRIMARY KEY (idx);
CREATE TEMP TABLE tu AS
	SELECT row_number() OVER (ORDER BY id) AS idx, id FROM users WHERE NOT ghost AND state = 'active';
ALTER TABLE tu ADD PRIMARY KEY (idx);
SELECT count(*) AS np FROM tp \gset
SELECT count(*) AS nu FROM tu \gset
-- the projects' labels and milestones (gen_tracker.sql's), numbered per project
CREATE TEMP TABLE tl AS
	SELECT project_id, id, row_number() OVER (PARTITION BY project_id ORDER BY id) - 1 AS k
	FROM labels WHERE project_id IS NOT NULL;
CREATE INDEX ON tl (project_id, k);
CREATE TEMP TABLE tln AS SELECT project_id, count(*) AS n FROM tl GROUP BY 1;
ALTER TABLE tln ADD PRIMARY KEY (project_id);
CREATE TEMP TABLE tm AS
	SELECT project_id, id, row_number() OVER (PARTITION BY project_id ORDER BY iid) - 1 AS k
	FROM milestones WHERE project_id IS NOT NULL;
CREATE INDEX ON tm (project_id, k);
CREATE TEMP TABLE tmn AS SELECT project_id, count(*) AS n FROM tm GROUP BY 1;
ALTER TABLE tmn ADD PRIMARY KEY (project_id);

-- ---- the mix (ids in the order they were opened) ----
CREATE TEMP TABLE tr0 AS
	SELECT g AS seq, p.id AS project_id,
		p.created_at + pg_temp.rnd(g, 201) * (now() - p.created_at) AS created_at
	FROM generate_series(1, :mrs) g
	JOIN tp p ON p.idx = pg_temp.pick(g, 200, :np, 2.5);
SELECT nextval('merge_requests_id_seq') AS r0 \gset
CREATE TEMP TABLE tr AS
	SELECT row_number() OVER (ORDER BY created_at, seq) AS idx,
		:r0 + row_number() OVER (ORDER BY created_at, seq) - 1 AS id,
		row_number() OVER (PARTITION BY project_id ORDER BY created_at, seq) AS iid,
		project_id, created_at
	FROM tr0;
ALTER TABLE tr ADD PRIMARY KEY (idx);
SELECT setval('merge_requests_id_seq', :r0 + :mrs - 1) \gset
ANALYZE tr;

INSERT INTO merge_requests (id, target_project_id, iid, source_project_id, source_branch,
		target_branch, title, description, state, merge_status, author_id, assignee_id,
		milestone_id, sha, merge_commit_sha, merged_by_id, merged_at, closed_by_id,
		closed_at, force_remove_source_branch, should_remove_source_branch, created_at,
		updated_at)
	SELECT r.id, r.project_id, r.iid, r.project_id,
		lower(replace((tw.things)[1 + floor(pg_temp.rnd(r.idx, 211) * 15)::int], ' ', '-'))
			|| '-' || r.iid,
		'master',
		CASE WHEN pg_temp.rnd(r.idx, 212) < 0.05 THEN 'WIP: ' ELSE '' END
			|| (tw.verbs)[1 + floor(pg_temp.rnd(r.idx, 210) * 10)::int] || ' '
			|| (tw.things)[1 + floor(pg_temp.rnd(r.idx, 211) * 15)::int] || ' (!' || r.iid || ')',
		CASE WHEN pg_temp.rnd(r.idx, 213) < 0.8 THEN 'This changes the '
			|| (tw.things)[1 + floor(pg_temp.rnd(r.idx, 211) * 15)::int]
			|| '. Tested by hand on ' || to_char(r.created_at, 'YYYY-MM-DD') || '.' END,
		s.state,
		CASE WHEN s.state <> 'opened' THEN 'can_be_merged'
			WHEN pg_temp.rnd(r.idx, 214) < 0.33 THEN 'unchecked'
			WHEN pg_temp.rnd(r.idx, 214) < 0.43 THEN 'cannot_be_merged' ELSE 'can_be_merged' END,
		a.id, CASE WHEN pg_temp.rnd(r.idx, 215) < 0.5 THEN asg.id END, m.id,
		pg_temp.sha(r.idx, 216),
		CASE WHEN s.state = 'merged' THEN pg_temp.sha(r.idx, 217) END,
		CASE WHEN s.state = 'merged' THEN cb.id END,
		CASE WHEN s.state = 'merged' THEN s.done_at END,
		CASE WHEN s.state = 'closed' THEN cb.id END,
		CASE WHEN s.state = 'closed' THEN s.done_at END,
		pg_temp.rnd(r.idx, 218) < 0.33, s.state = 'merged' AND pg_temp.rnd(r.idx, 218) < 0.33,
		r.created_at, coalesce(s.done_at, r.created_at)
	FROM tr r CROSS JOIN tw
	CROSS JOIN LATERAL (SELECT x.state, CASE WHEN x.state <> 'opened' THEN r.created_at
			+ pg_temp.rnd(r.idx, 221) * least(now() - r.created_at, interval '30 days') END AS done_at
		FROM (SELECT CASE WHEN pg_temp.rnd(r.idx, 220) < 0.20 THEN 'opened'
			WHEN pg_temp.rnd(r.idx, 220) < 0.85 THEN 'merged' ELSE 'closed' END AS state) x) s
	JOIN tu a ON a.idx = pg_temp.pick(r.idx, 222, :nu, 1.5)
	JOIN tu asg ON asg.idx = pg_temp.pick(r.idx, 223, :nu, 1.5)
	JOIN tu cb ON cb.idx = pg_temp.pick(r.idx, 224, :nu, 1.5)
	LEFT JOIN tmn mn ON mn.project_id = r.project_id AND pg_temp.rnd(r.idx, 225) < 0.4
	LEFT JOIN tm m ON m.project_id = mn.project_id
		AND m.k = floor(pg_temp.rnd(r.idx, 226) * mn.n)::int;

INSERT INTO label_links (label_id, target_type, target_id, created_at)
	SELECT l.id, 'MergeRequest', r.id, r.created_at
	FROM tr r JOIN tln ln ON ln.project_id = r.project_id
	CROSS JOIN LATERAL generate_series(0, least(ln.n, floor(pg_temp.rnd(r.idx, 230) * 4)::int) - 1) s
	JOIN tl l ON l.project_id = r.project_id
		AND l.k = (floor(pg_temp.rnd(r.idx, 231) * ln.n)::int + s) % ln.n;

-- ---- the seeded repositories' requests: bench-changes, then bench-merge-N, opened now
-- by the repository's token user, after the project's others ----
CREATE TEMP TABLE trmax AS SELECT project_id, max(iid) AS iid FROM tr GROUP BY 1;
CREATE TEMP TABLE trr AS
	SELECT nextval('merge_requests_id_seq') AS id, x.project_id,
		coalesce(m.iid, 0) + row_number() OVER (PARTITION BY x.project_id ORDER BY x.n) AS iid,
		x.name, x.sha, x.n, x.author_id
	FROM (SELECT rp.project_id, b.name, b.sha,
		CASE WHEN b.name = 'bench-changes' THEN 0 ELSE substr(b.name, 13)::int END AS n,
		(SELECT t.user_id FROM tokens t WHERE t.kind = 'personal' AND t.name = 'bench'
			AND t.digest = encode(sha256(rp.token::bytea), 'hex')) AS author_id
		FROM trepo rp CROSS JOIN tbranch b) x
	LEFT JOIN trmax m ON m.project_id = x.project_id;
INSERT INTO merge_requests (id, target_project_id, iid, source_project_id, source_branch,
		target_branch, title, description, state, merge_status, author_id, sha,
		created_at, updated_at)
	SELECT id, project_id, iid, project_id, name, 'master',
		CASE WHEN n = 0 THEN 'Change 20 files' ELSE 'Add bench/merge-' || n || '.txt' END,
		'Made by the benchmark.', 'opened', 'can_be_merged', author_id, sha, now(), now()
	FROM trr;

-- merge_requests.label_titles as the triggers of sql/0034 keep them
UPDATE merge_requests m SET label_titles = t.titles
FROM (SELECT ll.target_id, array_agg(l.title ORDER BY l.title) AS titles FROM label_links ll
	JOIN labels l ON l.id = ll.label_id JOIN tr ON tr.id = ll.target_id
	WHERE ll.target_type = 'MergeRequest' GROUP BY 1) t
WHERE t.target_id = m.id;

INSERT INTO iid_counters (kind, scope_type, scope_id, last_value)
	SELECT 'merge_requests', 'Project', project_id, max(iid)
	FROM (SELECT project_id, iid FROM tr UNION ALL SELECT project_id, iid FROM trr) x
	GROUP BY 1, 2, 3
	ON CONFLICT (kind, scope_type, scope_id) DO UPDATE
	SET last_value = greatest(iid_counters.last_value, EXCLUDED.last_value);

SELECT cache_bump(ARRAY[0::bigint]);
COMMIT;
SET session_replication_role = origin;

\pset format unaligned
\pset tuples_only on
\pset fieldsep ' '
\pset footer off
-- (token, private project with merge requests) pairs for the list rows
SELECT token, project_id FROM (
	SELECT x.token, p.id AS project_id,
		row_number() OVER (PARTITION BY t.user_id ORDER BY pg_temp.rnd(p.id, t.user_id)) AS k
	FROM tokens t
	CROSS JOIN LATERAL (SELECT substr(encode(sha256(('token:' || :'seed' || ':' || t.user_id)::bytea), 'hex'), 1, 20) AS token) x
	JOIN project_authorizations a ON a.user_id = t.user_id AND a.access_level >= 20
		AND a.expires_at > current_date
	JOIN projects p ON p.id = a.project_id AND p.visibility = 0 AND NOT p.pending_delete
		AND p.merge_requests_enabled
	WHERE t.kind = 'personal' AND t.name = 'bench' AND t.digest = encode(sha256(x.token::bytea), 'hex')
		AND EXISTS (SELECT 1 FROM merge_requests mr WHERE mr.target_project_id = p.id)
) y WHERE k <= 10 ORDER BY 1, 2 \g :list_file
\if :{?repos_file}
SELECT rp.token, r.project_id, r.iid FROM trr r JOIN trepo rp ON rp.project_id = r.project_id
	WHERE r.n = 0 ORDER BY r.project_id \g :changes_file
-- the merges: a developer or more of the project among the token users
SELECT d.token, r.project_id, r.iid FROM trr r
	JOIN LATERAL (SELECT x.token FROM tokens t
		CROSS JOIN LATERAL (SELECT substr(encode(sha256(('token:' || :'seed' || ':' || t.user_id)::bytea), 'hex'), 1, 20) AS token) x
		JOIN project_authorizations a ON a.user_id = t.user_id AND a.project_id = r.project_id
			AND a.access_level >= 30 AND a.expires_at > current_date
		WHERE t.kind = 'personal' AND t.name = 'bench'
			AND t.digest = encode(sha256(x.token::bytea), 'hex')
		ORDER BY t.user_id LIMIT 1) d ON true
	JOIN projects p ON p.id = r.project_id AND NOT p.archived
	WHERE r.n > 0 ORDER BY r.n, r.project_id \g :merges_file
\endif
\pset format aligned
\pset tuples_only off

VACUUM (ANALYZE) merge_requests, label_links, iid_counters;

\echo merge requests: :mrs, seed: :seed
SELECT (SELECT count(*) FROM merge_requests) AS merge_requests,
	(SELECT count(*) FROM merge_requests WHERE state = 'opened') AS opened,
	(SELECT count(*) FROM merge_requests WHERE state = 'merged') AS merged,
	(SELECT count(DISTINCT target_project_id) FROM merge_requests) AS projects,
	(SELECT max(c) FROM (SELECT count(*) c FROM merge_requests GROUP BY target_project_id) x) AS most_in_a_project,
	(SELECT count(*) FROM label_links WHERE target_type = 'MergeRequest') AS label_links;
