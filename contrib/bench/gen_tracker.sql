-- The tracker's part of the benchmark's data set, loaded after gen.sql (psql):
--
--   psql -v ON_ERROR_STOP=1 -v seed=42 -v issues=200000 -v notes=1000000 \
--        -v tracker_file=/tmp/tracker -f contrib/bench/gen_tracker.sql "$DATABASE_URL"
--
-- Variables (optional; the defaults are the benchmark's): seed (42, gen.sql's), issues
-- (200000), notes (1000000), tracker_file (the file the tracker's wrk scripts read:
-- "TOKEN PROJECT-ID IID" a line, an issue that is not confidential in a private
-- project of which the token's user is a reporter or more, through a membership of
-- the project or of a group; at most 10 per user).
--
-- What it makes over gen.sql's projects whose issues are enabled (skewed: a few
-- projects have thousands of issues, most a handful or none):
-- - labels, 0..7 a project (unique titles), and milestones, 0..3 a project (the older
--   ones closed);
-- - issues, with iids per project from 1 (iid_counters set to the last), authors among
--   the users (skewed), 40% closed (closed_at, closed_by), 5% confidential, half with a
--   milestone of their project, 60% with an assignee, 0..3 labels of their project;
-- - notes on them (skewed: a few issues have hundreds), 10% system notes, each after
--   its issue was opened; issues.user_notes_count and updated_at follow them and
--   projects.open_issues_count (of every project: gen.sql gives them made-up ones) and
--   closed_issues_count count the open and the closed issues that are not confidential,
--   as the triggers of sql/0013 and sql/0037 keep them.
-- No "opened" / "commented on" events for these (events are not what the tracker's
-- rows read). Loaded with session_replication_role = replica (no trigger runs: no
-- counter trigger, no foreign key check, no response cache bump; the rows are right by
-- construction), counters computed after, then one bump of key 0 (everything), as
-- gen.sql. Repeatable as gen.sql: every choice a hash of (seed, what, which).
\set QUIET on
\if :{?seed}
\else
\set seed 42
\endif
\if :{?issues}
\else
\set issues 200000
\endif
\if :{?notes}
\else
\set notes 1000000
\endif
\if :{?tracker_file}
\else
\set tracker_file bench-tracker
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

CREATE TEMP TABLE tw (labels text[], colors text[], verbs text[], things text[]);
INSERT INTO tw VALUES (
	'{bug,feature,documentation,enhancement,performance,security,regression,ux,backend,frontend,"needs review",wontfix}',
	'{#d9534f,#5cb85c,#428bca,#f0ad4e,#5843ad,#ad4363,#8e44ad,#69d100,#004e00,#a8d695,#7f8c8d,#34495e}',
	'{Fix,Add,Remove,Improve,Document,Refactor,Speed up,Test,Deprecate,Support}',
	'{login page,API pagination,search results,merge button,CI config,user settings,issue board,markdown preview,webhooks,LDAP sync,avatar upload,email notifications,diff view,project export,dark theme}');

-- the projects whose issues are enabled, in a dense order (gen.sql's order: by id)
CREATE TEMP TABLE tp AS
	SELECT row_number() OVER (ORDER BY id) AS idx, id, created_at FROM projects
	WHERE issues_enabled AND NOT pending_delete;
ALTER TABLE tp ADD PRIMARY KEY (idx);
CREATE TEMP TABLE tu AS
	SELECT row_number() OVER (ORDER BY id) AS idx, id FROM users WHERE NOT ghost AND state = 'active';
ALTER TABLE tu ADD PRIMARY KEY (idx);
SELECT count(*) AS np FROM tp \gset
SELECT count(*) AS nu FROM tu \gset

-- ---- labels and milestones ----
CREATE TEMP TABLE tl AS
	SELECT p.id AS project_id, s AS k, nextval('labels_id_seq') AS id,
		(tw.labels)[1 + (floor(pg_temp.rnd(p.idx, 110) * 12)::int + s) % 12] AS title,
		(tw.colors)[1 + (floor(pg_temp.rnd(p.idx, 110) * 12)::int + s) % 12] AS color, p.created_at
	FROM tp p CROSS JOIN LATERAL generate_series(0, floor(pg_temp.rnd(p.idx, 111) * 8)::int - 1) s, tw;
INSERT INTO labels (id, project_id, title, color, created_at, updated_at)
	SELECT id, project_id, title, color, created_at, created_at FROM tl;
CREATE TEMP TABLE tln AS SELECT project_id, count(*) AS n FROM tl GROUP BY 1;
ALTER TABLE tln ADD PRIMARY KEY (project_id);
CREATE INDEX ON tl (project_id, k);

CREATE TEMP TABLE tm AS
	SELECT p.id AS project_id, s AS iid, nextval('milestones_id_seq') AS id, n, p.created_at
	FROM tp p CROSS JOIN LATERAL (SELECT floor(pg_temp.rnd(p.idx, 120) * 4)::int AS n) c
	CROSS JOIN LATERAL generate_series(1, c.n) s;
INSERT INTO milestones (id, project_id, iid, title, description, state, due_date, created_at, updated_at)
	SELECT id, project_id, iid, iid || '.0', 'Release ' || iid || '.0',
		CASE WHEN iid < n THEN 'closed' ELSE 'active' END,
		(created_at + iid * interval '90 days')::date, created_at, created_at
	FROM tm;
INSERT INTO iid_counters (kind, scope_type, scope_id, last_value)
	SELECT 'milestones', 'Project', project_id, max(iid) FROM tm GROUP BY 1, 2, 3;
ALTER TABLE tm ADD PRIMARY KEY (project_id, iid);

-- ---- issues (ids in the order they were opened) ----
CREATE TEMP TABLE ti0 AS
	SELECT g AS seq, p.id AS project_id, p.created_at AS pcreated,
		p.created_at + pg_temp.rnd(g, 101) * (now() - p.created_at) AS created_at
	FROM generate_series(1, :issues) g
	JOIN tp p ON p.idx = pg_temp.pick(g, 100, :np, 2.5);
SELECT nextval('issues_id_seq') AS i0 \gset
CREATE TEMP TABLE ti AS
	SELECT row_number() OVER (ORDER BY created_at, seq) AS idx,
		:i0 + row_number() OVER (ORDER BY created_at, seq) - 1 AS id,
		row_number() OVER (PARTITION BY project_id ORDER BY created_at, seq) AS iid,
		project_id, created_at
	FROM ti0;
ALTER TABLE ti ADD PRIMARY KEY (idx);
SELECT setval('issues_id_seq', :i0 + :issues - 1) \gset
ANALYZE ti;

-- ---- notes, counted into their issues ----
SELECT nextval('notes_id_seq') AS n0 \gset
CREATE TEMP TABLE tn AS
	SELECT :n0 + g - 1 AS id, i.id AS issue_id, i.project_id,
		u.id AS author_id, pg_temp.rnd(g, 131) < 0.1 AS system,
		i.created_at + pg_temp.rnd(g, 132) * (now() - i.created_at) AS created_at, g
	FROM generate_series(1, :notes) g
	JOIN ti i ON i.idx = pg_temp.pick(g, 130, :issues, 1.7)
	JOIN tu u ON u.idx = pg_temp.pick(g, 133, :nu, 1.5);
SELECT setval('notes_id_seq', :n0 + :notes - 1) \gset
CREATE TEMP TABLE tnc AS
	SELECT issue_id, count(*) FILTER (WHERE NOT system) AS user_notes, max(created_at) AS last
	FROM tn GROUP BY 1;
ALTER TABLE tnc ADD PRIMARY KEY (issue_id);

INSERT INTO issues (id, project_id, iid, title, description, state, author_id, milestone_id,
		    confidential, user_notes_count, closed_at, closed_by_id, created_at, updated_at)
	SELECT i.id, i.project_id, i.iid,
		(tw.verbs)[1 + floor(pg_temp.rnd(i.idx, 140) * 10)::int] || ' '
			|| (tw.things)[1 + floor(pg_temp.rnd(i.idx, 141) * 15)::int] || ' (' || i.iid || ')',
		CASE WHEN pg_temp.rnd(i.idx, 142) < 0.8 THEN 'Steps to reproduce: open the '
			|| (tw.things)[1 + floor(pg_temp.rnd(i.idx, 141) * 15)::int]
			|| '. Expected it to work; it did not. Seen on ' || to_char(i.created_at, 'YYYY-MM-DD') || '.' END,
		CASE WHEN c.closed THEN 'closed' ELSE 'opened' END,
		a.id, m.id, pg_temp.rnd(i.idx, 144) < 0.05, coalesce(nc.user_notes, 0),
		CASE WHEN c.closed THEN c.closed_at END, CASE WHEN c.closed THEN cb.id END,
		i.created_at, greatest(i.created_at, nc.last, CASE WHEN c.closed THEN c.closed_at END)
	FROM ti i CROSS JOIN tw
	CROSS JOIN LATERAL (SELECT pg_temp.rnd(i.idx, 143) < 0.4 AS closed,
		i.created_at + pg_temp.rnd(i.idx, 145) * (now() - i.created_at) AS closed_at) c
	JOIN tu a ON a.idx = pg_temp.pick(i.idx, 146, :nu, 1.5)
	JOIN tu cb ON cb.idx = pg_temp.pick(i.idx, 147, :nu, 1.5)
	LEFT JOIN tm m ON m.project_id = i.project_id AND pg_temp.rnd(i.idx, 148) < 0.5
		AND m.iid = 1 + floor(pg_temp.rnd(i.idx, 149) * m.n)::int
	LEFT JOIN tnc nc ON nc.issue_id = i.id;
INSERT INTO iid_counters (kind, scope_type, scope_id, last_value)
	SELECT 'issues', 'Project', project_id, max(iid) FROM ti GROUP BY 1, 2, 3;

INSERT INTO issue_assignees (issue_id, user_id)
	SELECT i.id, u.id FROM ti i JOIN tu u ON u.idx = pg_temp.pick(i.idx, 151, :nu, 1.5)
	WHERE pg_temp.rnd(i.idx, 150) < 0.6;
INSERT INTO label_links (label_id, target_type, target_id, created_at)
	SELECT l.id, 'Issue', i.id, i.created_at
	FROM ti i JOIN tln ln ON ln.project_id = i.project_id
	CROSS JOIN LATERAL generate_series(0, least(ln.n, floor(pg_temp.rnd(i.idx, 160) * 4)::int) - 1) s
	JOIN tl l ON l.project_id = i.project_id
		AND l.k = (floor(pg_temp.rnd(i.idx, 161) * ln.n)::int + s) % ln.n;

INSERT INTO notes (id, project_id, noteable_type, noteable_id, author_id, note, system,
		   created_at, updated_at)
	SELECT id, project_id, 'Issue', issue_id, author_id,
		CASE WHEN system THEN 'changed milestone to %' || (1 + g % 3) || '.0'
		ELSE 'I can reproduce this (' || g || '). Looking into it; see the logs of the '
			|| CASE g % 3 WHEN 0 THEN 'worker' WHEN 1 THEN 'scheduler' ELSE 'web node' END || '.' END,
		system, created_at, created_at
	FROM tn;

-- issues.label_titles as the triggers of sql/0034 keep them
UPDATE issues i SET label_titles = t.titles
FROM (SELECT ll.target_id, array_agg(l.title ORDER BY l.title) AS titles FROM label_links ll
	JOIN labels l ON l.id = ll.label_id JOIN ti ON ti.id = ll.target_id
	WHERE ll.target_type = 'Issue' GROUP BY 1) t
WHERE t.target_id = i.id;

-- issues.assignee_id as the triggers of sql/0038 keep it
SELECT issue_assignee_write(ARRAY(SELECT DISTINCT issue_id FROM issue_assignees ia
	JOIN ti ON ti.id = ia.issue_id));

-- projects.open_issues_count and closed_issues_count as tracker_issue_counts keeps them
ANALYZE issues, notes, issue_assignees, label_links, labels, milestones;
UPDATE projects p SET open_issues_count = c.o, closed_issues_count = c.c
	FROM (SELECT q.id, count(i.id) FILTER (WHERE i.state = 'opened') AS o,
		count(i.id) FILTER (WHERE i.state = 'closed') AS c FROM projects q
		LEFT JOIN issues i ON i.project_id = q.id AND NOT i.confidential GROUP BY q.id) c
	WHERE c.id = p.id AND (p.open_issues_count, p.closed_issues_count) <> (c.o, c.c);

SELECT cache_bump(ARRAY[0::bigint]);
COMMIT;
SET session_replication_role = origin;

-- (token, private project, issue) triples for the tracker's rows
CREATE TEMP TABLE tt AS
	SELECT token, project_id, iid FROM (
		SELECT x.token, i.project_id, i.iid,
			row_number() OVER (PARTITION BY t.user_id ORDER BY pg_temp.rnd(i.id, t.user_id)) AS k
		FROM tokens t
		CROSS JOIN LATERAL (SELECT substr(encode(sha256(('token:' || :'seed' || ':' || t.user_id)::bytea), 'hex'), 1, 20) AS token) x
		JOIN project_authorizations a ON a.user_id = t.user_id AND a.access_level >= 20
			AND a.expires_at > current_date
		JOIN projects p ON p.id = a.project_id AND p.visibility = 0 AND NOT p.pending_delete
			AND p.issues_enabled
		JOIN issues i ON i.project_id = p.id AND NOT i.confidential
		WHERE t.kind = 'personal' AND t.name = 'bench' AND t.digest = encode(sha256(x.token::bytea), 'hex')
	) y WHERE k <= 10;
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' '
\pset footer off
SELECT token, project_id, iid FROM tt ORDER BY 1, 2, 3 \g :tracker_file
\pset format aligned
\pset tuples_only off

VACUUM (ANALYZE) issues, notes, labels, label_links, milestones, issue_assignees, iid_counters, projects;

\echo issues: :issues, notes: :notes, seed: :seed
SELECT (SELECT count(*) FROM issues) AS issues,
	(SELECT count(*) FROM issues WHERE state = 'closed') AS closed,
	(SELECT count(*) FROM issues WHERE confidential) AS confidential,
	(SELECT count(DISTINCT project_id) FROM issues) AS projects_with_issues,
	(SELECT max(c) FROM (SELECT count(*) c FROM issues GROUP BY project_id) x) AS most_in_a_project,
	(SELECT count(*) FROM notes WHERE noteable_type = 'Issue') AS notes,
	(SELECT max(user_notes_count) FROM issues) AS most_user_notes,
	(SELECT count(*) FROM labels) AS labels, (SELECT count(*) FROM milestones) AS milestones,
	(SELECT count(*) FROM label_links) AS label_links, (SELECT count(*) FROM issue_assignees) AS assignees,
	(SELECT count(*) FROM tt) AS triples;
