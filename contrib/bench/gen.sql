-- The benchmark's data set, loaded by SQL into a migrated collabd database (psql):
--
--   psql -v ON_ERROR_STOP=1 -v seed=42 -v users=10000 -v groups=1000 -v projects=20000 \
--        -v token_users=1000 -v tokens_file=/tmp/tokens -v pairs_file=/tmp/pairs \
--        -f contrib/bench/gen.sql "$DATABASE_URL"
--
-- Variables (all optional; the defaults are the benchmark's): seed (42), users (10000),
-- groups (1000), projects (20000), token_users (1000) users that get a personal access
-- token, tokens_file and pairs_file (the files the wrk scripts read: one token a line;
-- "TOKEN PROJECT-ID HOW" a line, HOW being 'project' or 'group').
--
-- What it makes, the way collabd makes it:
-- - users, each with a namespace of kind 'user' (users_namespace_insert: name = path =
--   full_path = username, full_name = name, visibility 20, traversal_ids {id}) and a
--   private token (the sealed text is the one `collabd user-create` made for the first
--   user: gen.sql cannot seal, and a sealed value makes presenting it cost what it
--   costs in production; NULL when there is none); about 1% blocked;
-- - groups, a third nested under an earlier group (traversal_ids root..self, full_path
--   'parent/child', full_name 'Parent / Child', visibility never above the parent's),
--   each with an owner (50) and 0..15 more members at levels 10..50;
-- - projects, 55% in users' namespaces (the owner a master member, as POST /projects
--   does), 45% in groups (visibility never above the group's), all three visibilities,
--   3% forks, 3% archived, each with 0..5 more members at levels 10..40 (2% of them
--   pending access requests), a runners token (sealed as above, digest unique);
-- - project_group_links, stars (star_count kept), and personal access tokens (scopes
--   {api}) for token_users users chosen among the active members of private projects.
--
-- Repeatable: every random choice is a hash of (seed, what, which), not random(), so the
-- same seed on the same starting database gives the same rows whatever plan PostgreSQL
-- picks. Ids are allocated from the sequences in one block each, after whatever rows the
-- database already holds (the admin user made by `collabd user-create`). The users are
-- skewed (a few own and belong to many projects, most to a handful), as on a real
-- instance. Loads in about 20 seconds (2 cores); ends with VACUUM ANALYZE. The token and
-- pair files are written by psql (\g), so they are on the machine that runs psql.
\set QUIET on
\if :{?seed}
\else
\set seed 42
\endif
\if :{?users}
\else
\set users 10000
\endif
\if :{?groups}
\else
\set groups 1000
\endif
\if :{?projects}
\else
\set projects 20000
\endif
\if :{?token_users}
\else
\set token_users 1000
\endif
\if :{?tokens_file}
\else
\set tokens_file bench-tokens
\endif
\if :{?pairs_file}
\else
\set pairs_file bench-pairs
\endif

SET synchronous_commit = off;
-- rnd(key, salt): a number in [0, 1) that depends only on seed, key and salt (the seed
-- written into the function: IMMUTABLE, so PostgreSQL inlines it).
SELECT format($f$CREATE FUNCTION pg_temp.rnd(k bigint, salt bigint) RETURNS float8
	LANGUAGE sql IMMUTABLE AS $$ SELECT (hashint8extended(k, %s::bigint * 1000003 + salt)
	& 4503599627370495)::float8 / 4503599627370496 $$$f$, (:'seed')::bigint) \gexec
-- pick(key, salt, n, skew): 1..n, skewed towards 1 for skew > 1 (skew 2: the first 1% of
-- the range gets 10% of the picks).
CREATE FUNCTION pg_temp.pick(k bigint, salt bigint, n bigint, skew float8) RETURNS bigint
LANGUAGE sql IMMUTABLE AS
$$ SELECT least(n, 1 + floor(n * power(pg_temp.rnd(k, salt), skew))::bigint) $$;
CREATE FUNCTION pg_temp.word(k bigint, salt bigint, words text[]) RETURNS text
LANGUAGE sql IMMUTABLE AS
$$ SELECT words[1 + floor(pg_temp.rnd(k, salt) * cardinality(words))::int] $$;

BEGIN;

-- No bump of the response cache's keys per row (sql/0010_cache_keys.sql): one bump of
-- key 0 (everything) once the data is in.
SELECT format('ALTER TABLE %I DISABLE TRIGGER %I', tgrelid::regclass, tgname)
	FROM pg_trigger WHERE tgname IN ('cache_bump', 'cache_bump_commit') \gexec

CREATE TEMP TABLE w (firsts text[], lasts text[], nouns text[], adjs text[]);
INSERT INTO w VALUES (
	'{Alice,Bob,Carol,Dave,Erin,Frank,Grace,Heidi,Ivan,Judy,Karl,Laura,Mallory,Nina,Oscar,Peggy,Quinn,Rupert,Sybil,Trent,Uma,Victor,Walter,Xena,Yusuf,Zoe,Amir,Bea,Chen,Dmitri,Elena,Farid,Giulia,Hana,Ines,Jonas,Kenji,Lena,Mateo,Noor}',
	'{Smith,Jones,Garcia,Miller,Davis,Lopez,Wilson,Anderson,Thomas,Taylor,Moore,Martin,Lee,Walker,Hall,Young,King,Wright,Scott,Green,Baker,Adams,Nelson,Hill,Campbell,Mitchell,Roberts,Carter,Phillips,Evans,Turner,Torres,Parker,Collins,Edwards,Stewart,Morris,Murphy,Cook,Rogers}',
	'{api,backend,frontend,docs,infra,tools,cli,sdk,website,pipeline,runner,monitor,gateway,auth,billing,search,storage,mobile,dashboard,scheduler,parser,compiler,cache,queue,proxy,notifier,exporter,importer,agent,plugin}',
	'{fast,tiny,blue,red,green,open,shared,legacy,next,core,main,light,dark,smart,simple,quick,solid,bright,silent,rapid}');

-- ---- users and their namespaces ----
SELECT nextval('users_id_seq') AS u0 \gset
SELECT nextval('namespaces_id_seq') AS n0 \gset
SELECT nextval('projects_id_seq') AS p0 \gset
SELECT coalesce((SELECT sealed FROM tokens WHERE sealed IS NOT NULL ORDER BY id LIMIT 1), '') AS sealed \gset

CREATE TEMP TABLE bu AS
	SELECT g AS idx, :u0 + g - 1 AS id, :n0 + g - 1 AS ns_id,
		pg_temp.word(g, 1, w.firsts) AS first, pg_temp.word(g, 2, w.lasts) AS last,
		now() - pg_temp.rnd(g, 3) * interval '3 years' AS created_at,
		pg_temp.rnd(g, 4) < 0.01 AS blocked
	FROM generate_series(1, :users) g, w;
ALTER TABLE bu ADD PRIMARY KEY (idx);

ALTER TABLE users DISABLE TRIGGER users_count;
INSERT INTO users (id, username, email, name, state, bio, location, organization,
		   confirmed_at, last_sign_in_at, current_sign_in_at, last_activity_on, created_at, updated_at)
	SELECT id, lower(first || '.' || last) || idx, lower(first || '.' || last) || idx || '@example.test',
		first || ' ' || last, CASE WHEN blocked THEN 'blocked' ELSE 'active' END,
		CASE WHEN pg_temp.rnd(idx, 5) < 0.3 THEN 'Works on ' || pg_temp.word(idx, 6, w.nouns) END,
		CASE WHEN pg_temp.rnd(idx, 7) < 0.2 THEN 'Berlin' END,
		CASE WHEN pg_temp.rnd(idx, 8) < 0.2 THEN 'ACME' END,
		created_at, created_at + pg_temp.rnd(idx, 9) * (now() - created_at),
		created_at + pg_temp.rnd(idx, 9) * (now() - created_at),
		(created_at + pg_temp.rnd(idx, 9) * (now() - created_at))::date, created_at, created_at
	FROM bu, w;
ALTER TABLE users ENABLE TRIGGER users_count;
SELECT setval('users_id_seq', :u0 + :users - 1) \gset
UPDATE counters SET value = (SELECT count(*) FROM users WHERE NOT ghost) WHERE name = 'users';

INSERT INTO namespaces (id, kind, name, path, owner_id, full_path, full_name, visibility,
			traversal_ids, created_at, updated_at)
	SELECT b.ns_id, 'user', u.username, u.username, u.id, u.username, u.name, 20,
		ARRAY[b.ns_id], u.created_at, u.created_at
	FROM bu b JOIN users u ON u.id = b.id;

-- every user has a private token, as POST /users makes it
INSERT INTO tokens (user_id, kind, name, digest, sealed, created_at)
	SELECT id, 'private', 'private_token',
		encode(sha256(('private:' || :'seed' || ':' || id)::bytea), 'hex'), nullif(:'sealed', ''), created_at
	FROM bu;

-- ---- groups ----
CREATE TEMP TABLE bg AS
	SELECT g AS idx, :n0 + :users + g - 1 AS id,
		CASE WHEN g > 20 AND pg_temp.rnd(g, 10) < 0.34
			THEN pg_temp.pick(g, 11, g - 1, 1.0) END AS parent_idx,
		pg_temp.word(g, 12, w.adjs) || '-' || pg_temp.word(g, 13, w.nouns) || '-' || g AS path,
		initcap(pg_temp.word(g, 12, w.adjs)) || ' ' || initcap(pg_temp.word(g, 13, w.nouns)) || ' ' || g AS name,
		(ARRAY[0, 0, 10, 20, 20])[1 + floor(pg_temp.rnd(g, 14) * 5)::int]::smallint AS vis,
		pg_temp.pick(g, 15, :users, 1.5) AS owner_idx,
		now() - pg_temp.rnd(g, 16) * interval '3 years' AS created_at
	FROM generate_series(1, :groups) g, w;
ALTER TABLE bg ADD PRIMARY KEY (idx);

CREATE TEMP TABLE bgt AS
	WITH RECURSIVE t AS (
		SELECT idx, id, NULL::bigint AS parent_id, ARRAY[id] AS tids, path AS fp, name AS fn, vis
		FROM bg WHERE parent_idx IS NULL
		UNION ALL
		SELECT c.idx, c.id, t.id, t.tids || c.id, t.fp || '/' || c.path, t.fn || ' / ' || c.name,
			least(t.vis, c.vis)
		FROM bg c JOIN t ON c.parent_idx = t.idx)
	SELECT * FROM t;
ALTER TABLE bgt ADD PRIMARY KEY (idx);

INSERT INTO namespaces (id, kind, name, path, parent_id, traversal_ids, full_path, full_name,
			description, visibility, request_access_enabled, created_at, updated_at)
	SELECT t.id, 'group', g.name, g.path, t.parent_id, t.tids, t.fp, t.fn,
		'The ' || g.name || ' group', t.vis, pg_temp.rnd(g.idx, 17) < 0.3, g.created_at, g.created_at
	FROM bgt t JOIN bg g USING (idx);
SELECT setval('namespaces_id_seq', :n0 + :users + :groups - 1) \gset

-- owners, then 0..15 more members each (a repeat of a user is dropped)
INSERT INTO members (source_type, source_id, user_id, access_level, created_by, created_at, updated_at)
	SELECT 'Namespace', g.id, u.id, 50, u.id, g.created_at, g.created_at
	FROM bg g JOIN bu u ON u.idx = g.owner_idx;
INSERT INTO members (source_type, source_id, user_id, access_level, created_by, created_at, updated_at)
	SELECT 'Namespace', g.id, u.id,
		(ARRAY[10, 20, 20, 30, 30, 30, 40, 40, 50, 50])[1 + floor(pg_temp.rnd(g.idx * 64 + s, 21) * 10)::int],
		o.id, g.created_at, g.created_at
	FROM bg g CROSS JOIN LATERAL generate_series(1, floor(pg_temp.rnd(g.idx, 20) * 16)::int) s
	JOIN bu u ON u.idx = pg_temp.pick(g.idx * 64 + s, 22, :users, 1.5)
	JOIN bu o ON o.idx = g.owner_idx
	ON CONFLICT DO NOTHING;

-- ---- projects ----
CREATE TEMP TABLE bp AS
	SELECT x.*, CASE WHEN x.personal THEN u.id ELSE go.id END AS creator_id,
		CASE WHEN x.personal THEN u.ns_id ELSE g.id END AS namespace_id,
		CASE WHEN x.personal THEN x.vis_pick ELSE least(x.vis_pick, t.vis) END AS vis
	FROM (SELECT i AS idx, :p0 + i - 1 AS id, pg_temp.rnd(i, 30) < 0.55 AS personal,
		pg_temp.pick(i, 31, :users, 2.0) AS owner_idx, pg_temp.pick(i, 32, :groups, 1.5) AS group_idx,
		(ARRAY[0, 0, 0, 0, 10, 10, 20, 20, 20, 20])[1 + floor(pg_temp.rnd(i, 33) * 10)::int]::smallint AS vis_pick,
		pg_temp.word(i, 34, w.adjs) AS adj, pg_temp.word(i, 35, w.nouns) AS noun,
		now() - pg_temp.rnd(i, 36) * interval '3 years' AS created_at,
		CASE WHEN i > 100 AND pg_temp.rnd(i, 37) < 0.03 THEN :p0 + pg_temp.pick(i, 38, i - 1, 1.0) - 1 END AS forked_from_id
	FROM generate_series(1, :projects) i, w) x
	JOIN bu u ON u.idx = x.owner_idx
	JOIN bg g ON g.idx = x.group_idx JOIN bgt t ON t.idx = x.group_idx
	JOIN bu go ON go.idx = g.owner_idx;
ALTER TABLE bp ADD PRIMARY KEY (idx);
ANALYZE bu, bg, bgt, bp;

-- stars (a few projects get most of them), counted into the projects' star_count
CREATE TEMP TABLE bs AS
	SELECT DISTINCT ON (u.id, p.id) u.id AS user_id, p.id AS project_id, p.created_at
	FROM generate_series(1, :projects * 2) i
	JOIN bu u ON u.idx = pg_temp.pick(i, 71, :users, 1.5)
	JOIN bp p ON p.idx = pg_temp.pick(i, 72, :projects, 3.0);

INSERT INTO projects (id, namespace_id, name, path, description, visibility, default_branch,
		      creator_id, forked_from_id, issues_enabled, wiki_enabled, request_access_enabled,
		      archived, tag_list, open_issues_count, import_status, star_count, forks_count,
		      runners_token_digest,
		      runners_token_sealed, commit_count, repository_size, storage_size,
		      last_activity_at, created_at, updated_at)
	SELECT id, namespace_id, initcap(adj) || ' ' || initcap(noun) || ' ' || idx, adj || '-' || noun || '-' || idx,
		CASE WHEN pg_temp.rnd(idx, 40) < 0.8 THEN 'The ' || adj || ' ' || noun || ', project ' || idx END,
		vis, 'master', creator_id, forked_from_id, pg_temp.rnd(idx, 41) < 0.9, pg_temp.rnd(idx, 42) < 0.7,
		pg_temp.rnd(idx, 43) < 0.2, pg_temp.rnd(idx, 44) < 0.03,
		CASE WHEN pg_temp.rnd(idx, 45) < 0.3 THEN ARRAY[noun, adj] ELSE '{}' END,
		floor(pg_temp.rnd(idx, 46) * 50)::int, CASE WHEN forked_from_id IS NULL THEN 'none' ELSE 'finished' END,
		coalesce(sc.n, 0), coalesce(fc.n, 0),
		encode(sha256(('runners:' || :'seed' || ':' || id)::bytea), 'hex'), nullif(:'sealed', ''),
		floor(pg_temp.rnd(idx, 47) * 5000)::bigint, floor(pg_temp.rnd(idx, 48) * 50000000)::bigint,
		floor(pg_temp.rnd(idx, 48) * 50000000)::bigint,
		created_at + pg_temp.rnd(idx, 49) * (now() - created_at), created_at,
		created_at + pg_temp.rnd(idx, 49) * (now() - created_at)
	FROM bp
	LEFT JOIN (SELECT project_id AS pid, count(*) AS n FROM bs GROUP BY 1) sc ON sc.pid = bp.id
	LEFT JOIN (SELECT forked_from_id AS src, count(*) AS n FROM bp GROUP BY 1) fc ON fc.src = bp.id;
SELECT setval('projects_id_seq', :p0 + :projects - 1) \gset

-- the owner of a personal project is its master (projects_member_insert)
INSERT INTO members (source_type, source_id, user_id, access_level, created_by, created_at, updated_at)
	SELECT 'Project', id, creator_id, 40, creator_id, created_at, created_at FROM bp WHERE personal;
-- 0..5 more members each; 2% of them are pending access requests
INSERT INTO members (source_type, source_id, user_id, access_level, requested_at, created_by,
		     created_at, updated_at)
	SELECT 'Project', p.id, u.id,
		CASE WHEN r.req THEN 30
		ELSE (ARRAY[10, 20, 20, 30, 30, 30, 40, 40])[1 + floor(pg_temp.rnd(p.idx * 64 + s, 51) * 8)::int] END,
		CASE WHEN r.req THEN p.created_at END, CASE WHEN NOT r.req THEN p.creator_id END,
		p.created_at, p.created_at
	FROM bp p CROSS JOIN LATERAL generate_series(1, floor(pg_temp.rnd(p.idx, 50) * 6)::int) s
	CROSS JOIN LATERAL (SELECT pg_temp.rnd(p.idx * 64 + s, 52) < 0.02 AS req) r
	JOIN bu u ON u.idx = pg_temp.pick(p.idx * 64 + s, 53, :users, 1.5)
	ON CONFLICT DO NOTHING;

-- ---- sharing (the stars were counted into the projects above) ----
INSERT INTO project_group_links (project_id, group_id, group_access, created_at)
	SELECT p.id, g.id, (ARRAY[10, 20, 30, 40])[1 + floor(pg_temp.rnd(i, 61) * 4)::int], p.created_at
	FROM generate_series(1, :projects / 8) i
	JOIN bp p ON p.idx = pg_temp.pick(i, 62, :projects, 1.0)
	JOIN bg g ON g.idx = pg_temp.pick(i, 63, :groups, 1.5)
	WHERE p.namespace_id <> g.id
	ON CONFLICT DO NOTHING;

INSERT INTO users_star_projects (user_id, project_id, created_at)
	SELECT user_id, project_id, created_at FROM bs;

-- ---- personal access tokens: active members of private projects ----
ANALYZE users, namespaces, projects, members;
CREATE TEMP TABLE bt AS
	SELECT u.id AS user_id,
		substr(encode(sha256(('token:' || :'seed' || ':' || u.id)::bytea), 'hex'), 1, 20) AS token
	FROM bu u JOIN users uu ON uu.id = u.id AND uu.state = 'active'
	WHERE EXISTS (SELECT 1 FROM members m JOIN projects p ON p.id = m.source_id
		      WHERE m.source_type = 'Project' AND m.user_id = u.id AND m.requested_at IS NULL
		      AND p.visibility = 0 AND NOT p.pending_delete)
	ORDER BY pg_temp.rnd(u.idx, 80)
	LIMIT :token_users;
INSERT INTO tokens (user_id, kind, name, digest, scopes)
	SELECT user_id, 'personal', 'bench', encode(sha256(token::bytea), 'hex'), '{api}' FROM bt;

-- (token, private project) pairs: the user's own memberships of private projects, and
-- those through a group or an ancestor of it; at most 10 of each kind per user
CREATE TEMP TABLE bpairs AS
	SELECT token, project_id, how FROM (
		SELECT t.token, x.project_id, x.how,
			row_number() OVER (PARTITION BY t.user_id, x.how ORDER BY pg_temp.rnd(x.project_id, t.user_id)) AS k
		FROM bt t CROSS JOIN LATERAL (
			SELECT p.id AS project_id, 'project' AS how FROM members m JOIN projects p ON p.id = m.source_id
			WHERE m.source_type = 'Project' AND m.user_id = t.user_id AND m.requested_at IS NULL
			AND p.visibility = 0 AND NOT p.pending_delete
			UNION
			SELECT p.id, 'group' FROM members m JOIN namespaces d ON d.traversal_ids @> ARRAY[m.source_id]
			JOIN projects p ON p.namespace_id = d.id
			WHERE m.source_type = 'Namespace' AND m.user_id = t.user_id AND m.requested_at IS NULL
			AND p.visibility = 0 AND NOT p.pending_delete
			AND NOT EXISTS (SELECT 1 FROM members pm WHERE pm.source_type = 'Project'
				AND pm.source_id = p.id AND pm.user_id = t.user_id AND pm.requested_at IS NULL)) x
	) y WHERE k <= 10;

SELECT format('ALTER TABLE %I ENABLE TRIGGER %I', tgrelid::regclass, tgname)
	FROM pg_trigger WHERE tgname IN ('cache_bump', 'cache_bump_commit') \gexec
SELECT cache_bump(ARRAY[0::bigint]);

COMMIT;

\pset format unaligned
\pset tuples_only on
\pset fieldsep ' '
\pset footer off
SELECT token FROM bt ORDER BY user_id \g :tokens_file
SELECT token, project_id, how FROM bpairs ORDER BY token, project_id \g :pairs_file
\pset format aligned
\pset tuples_only off

VACUUM (ANALYZE);

\echo users: :users, groups: :groups, projects: :projects, seed: :seed
SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM namespaces WHERE kind = 'group') AS groups,
	(SELECT count(*) FROM namespaces WHERE kind = 'group' AND parent_id IS NOT NULL) AS nested,
	(SELECT count(*) FROM projects) AS projects,
	(SELECT count(*) FILTER (WHERE visibility = 0) || '/' || count(*) FILTER (WHERE visibility = 10) || '/'
		|| count(*) FILTER (WHERE visibility = 20) FROM projects) AS "private/internal/public",
	(SELECT count(*) FROM members WHERE requested_at IS NULL) AS members,
	(SELECT count(*) FROM project_group_links) AS links, (SELECT count(*) FROM users_star_projects) AS stars,
	(SELECT count(*) FROM bt) AS token_users, (SELECT count(*) FROM bpairs) AS pairs;
