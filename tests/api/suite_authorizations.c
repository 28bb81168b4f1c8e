/* API suite: project_authorizations (sql/0009) against the derivation it replaces.
 *
 * test_authorizations_random makes a random series of changes (seeded: AUTHZ_SEED, or
 * the time; the seed is printed) over HTTP, and in SQL where the API has no endpoint:
 * project and group members added, updated (level, end date) and removed, end dates
 * reached, access requests made and approved, projects shared with groups and not,
 * projects transferred to another group, groups moved under another one, groups,
 * projects and users deleted, projects and subgroups created. Every few changes it
 * compares, over the whole database, each caller's level on each project as the table
 * gives it (the highest unexpired row) with the level derived from scratch from members,
 * namespaces.traversal_ids and project_group_links (the former SQL_PROJECT_ACCESS), the
 * rows themselves with their recomputation, and each project's count of the groups it is
 * shared with (projects.group_links_count, sql/0041) with its links.
 *
 * test_authorizations_concurrent runs changes of the same user's access in two
 * transactions on two connections, interleaved (both statements before either commit),
 * in both commit orders: both must commit (no deadlock) and the rows must reflect both. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"

/* The differences between the table and the derivation from scratch: the effective
 * levels (user, project, table's level, derived level) and the rows (user, project,
 * expires_at, table's level, recomputed level); the first few of each and their count. */
#define DERIVED                                                                                    \
	"SELECT u, p, max(l) AS l FROM ("                                                          \
	" SELECT m.user_id u, m.source_id p, m.access_level l FROM members m"                      \
	"  JOIN projects p ON p.id = m.source_id WHERE m.source_type = 'Project' AND " ACTIVE      \
	" UNION ALL SELECT m.user_id, p.id, m.access_level FROM projects p JOIN namespaces an"     \
	"  ON an.id = p.namespace_id AND an.kind = 'group' JOIN members m"                         \
	"  ON m.source_type = 'Namespace' AND m.source_id = ANY (an.traversal_ids) AND " ACTIVE    \
	" UNION ALL SELECT m.user_id, l.project_id, least(l.group_access, m.access_level)"         \
	"  FROM project_group_links l JOIN namespaces lg ON lg.id = l.group_id JOIN members m"     \
	"  ON m.source_type = 'Namespace' AND m.source_id = ANY (lg.traversal_ids) AND " ACTIVE    \
	") x GROUP BY u, p"
#define ACTIVE "m.requested_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > current_date)"
#define TABLE_LEVELS                                                                               \
	"SELECT user_id u, project_id p, max(access_level) l FROM project_authorizations"          \
	" WHERE expires_at > current_date GROUP BY 1, 2"
#define DIFF_LEVELS                                                                                \
	"WITH d AS (SELECT u, p, t.l AS tl, o.l AS ol FROM (" TABLE_LEVELS ") t"                   \
	" FULL JOIN (" DERIVED ") o USING (u, p) WHERE t.l IS DISTINCT FROM o.l)"                  \
	" SELECT count(*) || ' ' || coalesce((SELECT string_agg(format('(user %s, project %s:"     \
	" table %s, derived %s)', u, p, tl, ol), ' ') FROM (SELECT * FROM d ORDER BY u, p"         \
	" LIMIT 5) f), '') FROM d"
#define DIFF_ROWS                                                                                  \
	"WITH r AS (SELECT * FROM project_authorizations_of(ARRAY(SELECT id FROM users), '{}')),"  \
	" d AS (SELECT user_id, project_id, expires_at, t.access_level tl, r.access_level rl"      \
	" FROM project_authorizations t FULL JOIN r USING (user_id, project_id, expires_at)"       \
	" WHERE t.access_level IS DISTINCT FROM r.access_level)"                                   \
	" SELECT count(*) || ' ' || coalesce((SELECT string_agg(format('(user %s, project %s,"     \
	" until %s: table %s, recomputed %s)', user_id, project_id, expires_at, tl, rl), ' ')"     \
	" FROM (SELECT * FROM d ORDER BY 1, 2, 3 LIMIT 5) f), '') FROM d"

static void check_consistent(const char *when, unsigned seed)
{
	char *levels = sql_value("%s", DIFF_LEVELS);
	ck_assert_msg(
		strncmp(levels, "0 ", 2) == 0,
		"seed %u, %s: levels of project_authorizations differ from the derivation: %s",
		seed, when, levels);
	free(levels);
	char *rows = sql_value("%s", DIFF_ROWS);
	ck_assert_msg(
		strncmp(rows, "0 ", 2) == 0,
		"seed %u, %s: rows of project_authorizations differ from their recomputation: %s",
		seed, when, rows);
	free(rows);
	/* the count of links each project keeps (sql/0041) */
	char *counts = sql_value(
		"SELECT count(*) || ' ' || coalesce(string_agg(format('(project %%s: %%s, counted %%s)',"
		" id, group_links_count, n), ' '), '') FROM (SELECT p.id, p.group_links_count,"
		" (SELECT count(*) FROM project_group_links l WHERE l.project_id = p.id) AS n"
		" FROM projects p) c WHERE group_links_count <> n");
	ck_assert_msg(strncmp(counts, "0 ", 2) == 0,
		      "seed %u, %s: projects' counts of links differ from their links: %s", seed,
		      when, counts);
	free(counts);
}

/* ---- the random series ---- */

#define MAXN 64
struct pool {
	long long id[MAXN];
	int n;
};

static unsigned rng;
static unsigned rnd(unsigned n)
{
	rng = rng * 1103515245u + 12345u;
	return ((rng >> 16) & 0x7fff) % n;
}

/* The ids the SQL query prints, comma-separated, as the pool. */
static void pool_load(struct pool *p, const char *sql)
{
	char *v = sql_value("%s", sql);
	p->n = 0;
	for (char *s = v; *s && p->n < MAXN;) {
		p->id[p->n++] = strtoll(s, &s, 10);
		if (*s == ',')
			s++;
	}
	free(v);
}

static long long pick(const struct pool *p)
{
	return p->n ? p->id[rnd((unsigned)p->n)] : 0;
}

static struct pool users, groups, projects;
static char *tokens[MAXN]; /* of users.id[i] while the pool is in creation order */
static char *prefix;

static void pools_load(void)
{
	char *sql = fmt("SELECT string_agg(id::text, ',' ORDER BY id) FROM namespaces"
			" WHERE kind = 'group' AND path LIKE '%sg%%'",
			prefix);
	pool_load(&groups, sql);
	free(sql);
	sql = fmt("SELECT string_agg(id::text, ',' ORDER BY id) FROM projects"
		  " WHERE path LIKE '%sp%%' AND NOT pending_delete",
		  prefix);
	pool_load(&projects, sql);
	free(sql);
}

static long long user_alive(void)
{
	for (int tries = 0; tries < 8; tries++) {
		int i = (int)rnd((unsigned)users.n);
		if (sql_int("SELECT count(*) FROM users WHERE id = %lld", users.id[i]))
			return users.id[i];
	}
	return users.id[0];
}

static const char *token_of(long long id)
{
	for (int i = 0; i < users.n; i++)
		if (users.id[i] == id)
			return tokens[i];
	return NULL;
}

static void add_user(void)
{
	if (users.n >= MAXN)
		return;
	tokens[users.n] = make_user(prefix, &users.id[users.n], NULL);
	users.n++;
}

/* A request that must not fail with a server error; its status. */
static long call(unsigned seed, const char *method, const char *path, const char *token,
		 const char *form)
{
	resp *r = api(method, path, token, form);
	long status = r->status;
	ck_assert_msg(status > 0 && status < 500, "seed %u: %s %s %s: %ld %s", seed, method, path,
		      form ? form : "", status, r->body);
	resp_free(r);
	return status;
}

static void new_group(unsigned seed)
{
	char *pre = fmt("%sg", prefix), *name = unique(pre);
	free(pre);
	long long parent = groups.n && rnd(2) ? pick(&groups) : 0;
	char *form = parent ? fmt("name=%s&path=%s&parent_id=%lld", name, name, parent)
			    : fmt("name=%s&path=%s", name, name);
	/* as a user, who becomes its owner; a subgroup as the admin */
	long long owner = user_alive();
	const char *t = parent ? admin_token() : token_of(owner);
	call(seed, "POST", "/groups", t ? t : admin_token(), form);
	free(form);
	free(name);
}

static void new_project(unsigned seed)
{
	char *pre = fmt("%sp", prefix), *name = unique(pre);
	char *form, *path;
	free(pre);
	if (groups.n && rnd(3)) {
		form = fmt("name=%s&path=%s&namespace_id=%lld", name, name, pick(&groups));
		path = fmt("/projects");
	} else {
		form = fmt("name=%s&path=%s", name, name);
		path = fmt("/projects/user/%lld", user_alive());
	}
	call(seed, "POST", path, admin_token(), form);
	free(form);
	free(path);
	free(name);
}

static const char *level(bool group)
{
	static const char *levels[] = {"10", "20", "30", "40", "50"};
	return levels[rnd(group ? 5 : 4)];
}

/* An end date: none, today (no access from now on) or later. */
static const char *end_date(void)
{
	switch (rnd(4)) {
	case 0:
		return "&expires_at=";
	case 1:
		return "&expires_at=2999-01-01";
	case 2:
		return "";
	default: {
		static char today[32];
		char *d = sql_value("SELECT current_date");
		snprintf(today, sizeof(today), "&expires_at=%s", d);
		free(d);
		return today;
	}
	}
}

enum op {
	OP_PROJECT_MEMBER_ADD,
	OP_PROJECT_MEMBER_UPDATE,
	OP_PROJECT_MEMBER_REMOVE,
	OP_GROUP_MEMBER_ADD,
	OP_GROUP_MEMBER_UPDATE,
	OP_GROUP_MEMBER_REMOVE,
	OP_EXPIRE,
	OP_REQUEST,
	OP_SHARE,
	OP_UNSHARE,
	OP_TRANSFER,
	OP_MOVE_GROUP,
	OP_DELETE_GROUP,
	OP_DELETE_PROJECT,
	OP_DELETE_USER,
	OP_NEW_PROJECT,
	OP_NEW_GROUP,
	NOPS
};
static const char *op_names[] = {
	"project member add",
	"project member update",
	"project member remove",
	"group member add",
	"group member update",
	"group member remove",
	"expiry",
	"access request",
	"share",
	"unshare",
	"transfer",
	"group move",
	"group delete",
	"project delete",
	"user delete",
	"project create",
	"group create",
};

static void run_op(unsigned seed, enum op op)
{
	long long u = user_alive(), p = pick(&projects), g = pick(&groups);
	char *path = NULL, *form = NULL;
	switch (op) {
	case OP_PROJECT_MEMBER_ADD:
	case OP_GROUP_MEMBER_ADD: {
		bool group = op == OP_GROUP_MEMBER_ADD;
		if (!(group ? g : p))
			break;
		path = fmt("/%s/%lld/members", group ? "groups" : "projects", group ? g : p);
		form = fmt("user_id=%lld&access_level=%s%s", u, level(group), end_date());
		call(seed, "POST", path, admin_token(), form);
		break;
	}
	case OP_PROJECT_MEMBER_UPDATE:
	case OP_GROUP_MEMBER_UPDATE: {
		bool group = op == OP_GROUP_MEMBER_UPDATE;
		/* a member of one of ours */
		char *m = sql_value(
			"SELECT source_id || ',' || user_id FROM members m"
			" WHERE source_type = '%s' AND requested_at IS NULL AND source_id"
			" IN (SELECT id FROM %s WHERE path LIKE '%s%s%%')"
			" ORDER BY id OFFSET %u LIMIT 1",
			group ? "Namespace" : "Project", group ? "namespaces" : "projects", prefix,
			group ? "g" : "p", rnd(8));
		long long src, mu;
		if (sscanf(m, "%lld,%lld", &src, &mu) == 2) {
			path = fmt("/%s/%lld/members/%lld", group ? "groups" : "projects", src, mu);
			form = fmt("access_level=%s%s", level(group), end_date());
			call(seed, "PUT", path, admin_token(), form);
		}
		free(m);
		break;
	}
	case OP_PROJECT_MEMBER_REMOVE:
	case OP_GROUP_MEMBER_REMOVE: {
		bool group = op == OP_GROUP_MEMBER_REMOVE;
		char *m = sql_value("SELECT source_id || ',' || user_id FROM members m"
				    " WHERE source_type = '%s' AND source_id"
				    " IN (SELECT id FROM %s WHERE path LIKE '%s%s%%')"
				    " ORDER BY id OFFSET %u LIMIT 1",
				    group ? "Namespace" : "Project",
				    group ? "namespaces" : "projects", prefix, group ? "g" : "p",
				    rnd(8));
		long long src, mu;
		if (sscanf(m, "%lld,%lld", &src, &mu) == 2) {
			path = fmt("/%s/%lld/members/%lld", group ? "groups" : "projects", src, mu);
			call(seed, "DELETE", path, admin_token(), NULL);
		}
		free(m);
		break;
	}
	case OP_EXPIRE:
		/* an end date reached (the API takes none in the past): today or yesterday */
		free(sql_value(
			"UPDATE members SET expires_at = current_date - %u WHERE id = (SELECT id"
			" FROM members WHERE requested_at IS NULL AND ((source_type = 'Project'"
			" AND source_id IN (SELECT id FROM projects WHERE path LIKE '%sp%%'))"
			" OR (source_type = 'Namespace' AND source_id IN (SELECT id FROM"
			" namespaces WHERE path LIKE '%sg%%'))) ORDER BY id OFFSET %u LIMIT 1)",
			rnd(2), prefix, prefix, rnd(10)));
		break;
	case OP_REQUEST: {
		bool group = rnd(2);
		if (!(group ? g : p))
			break;
		const char *t = token_of(u);
		if (!t)
			break;
		/* requests are for internal and public sources */
		free(sql_value("UPDATE %s SET visibility = 20, request_access_enabled = true"
			       " WHERE id = %lld",
			       group ? "namespaces" : "projects", group ? g : p));
		path = fmt("/%s/%lld/access_requests", group ? "groups" : "projects",
			   group ? g : p);
		call(seed, "POST", path, t, NULL);
		if (rnd(2)) {
			free(path);
			path = fmt("/%s/%lld/access_requests/%lld/approve",
				   group ? "groups" : "projects", group ? g : p, u);
			form = fmt("access_level=%s", level(false));
			call(seed, "PUT", path, admin_token(), form);
		}
		break;
	}
	case OP_SHARE:
		if (p && g)
			free(sql_value(
				"INSERT INTO project_group_links (project_id, group_id,"
				" group_access) VALUES (%lld, %lld, %s) ON CONFLICT (project_id,"
				" group_id) DO UPDATE SET group_access = EXCLUDED.group_access",
				p, g, level(false)));
		break;
	case OP_UNSHARE:
		free(sql_value("DELETE FROM project_group_links WHERE id = (SELECT l.id FROM"
			       " project_group_links l JOIN projects p ON p.id = l.project_id"
			       " WHERE p.path LIKE '%sp%%' ORDER BY l.id OFFSET %u LIMIT 1)",
			       prefix, rnd(4)));
		break;
	case OP_TRANSFER:
		if (p && g) {
			path = fmt("/groups/%lld/projects/%lld", g, p);
			call(seed, "POST", path, admin_token(), NULL);
		}
		break;
	case OP_MOVE_GROUP: {
		/* g and the groups below it under another group of ours (not below g), or to the
		 * top (the API has no group transfer in 10.0: in SQL) */
		long long to = rnd(4) ? pick(&groups) : 0;
		if (!g || (to && sql_int("SELECT count(*) FROM namespaces WHERE id = %lld"
					 " AND traversal_ids @> ARRAY[%lld::bigint]",
					 to, g)))
			break;
		free(sql_value(
			"UPDATE namespaces d SET traversal_ids = coalesce((SELECT traversal_ids"
			" FROM namespaces WHERE id = %lld), '{}') || d.traversal_ids["
			"array_position(d.traversal_ids, %lld::bigint):],"
			" parent_id = CASE WHEN d.id = %lld THEN nullif(%lld, 0)"
			" ELSE d.parent_id END WHERE d.traversal_ids @> ARRAY[%lld::bigint]",
			to, g, g, to, g));
		break;
	}
	case OP_DELETE_GROUP:
		if (g && groups.n > 3) {
			path = fmt("/groups/%lld", g);
			call(seed, "DELETE", path, admin_token(), NULL);
		}
		break;
	case OP_DELETE_PROJECT:
		if (p && projects.n > 4) {
			path = fmt("/projects/%lld", p);
			call(seed, "DELETE", path, admin_token(), NULL);
		}
		break;
	case OP_DELETE_USER:
		if (users.n < MAXN - 1 && rnd(2)) {
			path = fmt("/users/%lld", u);
			call(seed, "DELETE", path, admin_token(), NULL);
			add_user();
		}
		break;
	case OP_NEW_PROJECT:
		new_project(seed);
		break;
	case OP_NEW_GROUP:
		new_group(seed);
		break;
	case NOPS:
		break;
	}
	free(path);
	free(form);
	pools_load();
}

START_TEST(test_authorizations_random)
{
	const char *env = getenv("AUTHZ_SEED");
	unsigned seed = env && *env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
	fprintf(stderr, "suite_authorizations: AUTHZ_SEED=%u\n", seed);
	rng = seed;
	prefix = unique("az");
	for (int i = 0; i < 6; i++)
		add_user();
	for (int i = 0; i < 4; i++)
		new_group(seed), pools_load();
	for (int i = 0; i < 6; i++)
		new_project(seed), pools_load();
	check_consistent("after the set-up", seed);
	/* rounds of every kind of change in a random order, then random ones */
	enum op order[NOPS];
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < NOPS; i++)
			order[i] = (enum op)i;
		for (int i = NOPS - 1; i > 0; i--) {
			int j = (int)rnd((unsigned)i + 1);
			enum op t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (int i = 0; i < NOPS; i++) {
			run_op(seed, order[i]);
			if (i % 6 == 5) {
				char *when = fmt("round %d, after a %s", round, op_names[order[i]]);
				check_consistent(when, seed);
				free(when);
			}
		}
		check_consistent("at the end of a round", seed);
	}
	for (int i = 0; i < 40; i++) {
		enum op op = (enum op)rnd(NOPS);
		run_op(seed, op);
		if (i % 8 == 7) {
			char *when = fmt("random change %d (%s)", i, op_names[op]);
			check_consistent(when, seed);
			free(when);
		}
	}
	check_consistent("at the end", seed);
	for (int i = 0; i < users.n; i++)
		free(tokens[i]);
	users.n = 0;
	free(prefix);
}
END_TEST

/* ---- two transactions at once ---- */

static PGconn *connect_db(void)
{
	PGconn *c = PQconnectdb(getenv("COLLABD_DATABASE_URL"));
	ck_assert_msg(PQstatus(c) == CONNECTION_OK, "connect: %s", PQerrorMessage(c));
	PGresult *r = PQexec(c, "SET statement_timeout = '20s'");
	PQclear(r);
	return c;
}

static void exec_ok(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
		      "%s: %s", sql, PQresultErrorMessage(r));
	PQclear(r);
}

static long long level_of(long long user, long long project)
{
	return sql_int("SELECT coalesce(max(access_level), 0) FROM project_authorizations"
		       " WHERE user_id = %lld AND project_id = %lld AND expires_at > current_date",
		       user, project);
}

/* a and b, each in its own transaction, both before either commits; then the commits in
 * the order given. */
static void interleave(PGconn *ca, PGconn *cb, const char *a, const char *b, bool a_first)
{
	exec_ok(ca, "BEGIN");
	exec_ok(cb, "BEGIN");
	exec_ok(ca, a);
	exec_ok(cb, b);
	exec_ok(a_first ? ca : cb, "COMMIT");
	exec_ok(a_first ? cb : ca, "COMMIT");
}

START_TEST(test_authorizations_concurrent)
{
	PGconn *ca = connect_db(), *cb = connect_db();
	for (int order = 0; order < 2; order++) {
		bool a_first = order == 0;
		long long u;
		free(make_user("azc", &u, NULL));
		/* p1 in g1, p2 in g2, p3 in g1 and shared with g2 at developer */
		long long g1 = fixture_group(0, NULL), g2 = fixture_group(0, NULL);
		long long p1 = fixture_group_project(g1, 0, NULL);
		long long p2 = fixture_group_project(g2, 0, NULL);
		long long p3 = fixture_group_project(g1, 0, NULL);
		free(sql_value("INSERT INTO project_group_links (project_id, group_id, group_access)"
			       " VALUES (%lld, %lld, 30)",
			       p3, g2));

		/* two memberships of the same user through different groups */
		char *a = fmt("INSERT INTO members (source_type, source_id, user_id, access_level)"
			      " VALUES ('Namespace', %lld, %lld, 20)",
			      g1, u);
		char *b = fmt("INSERT INTO members (source_type, source_id, user_id, access_level)"
			      " VALUES ('Namespace', %lld, %lld, 40)",
			      g2, u);
		interleave(ca, cb, a, b, a_first);
		ck_assert_int_eq(level_of(u, p1), 20);
		ck_assert_int_eq(level_of(u, p2), 40);
		ck_assert_int_eq(level_of(u, p3), 30);
		free(a);
		free(b);

		/* one removed while another is lowered: p3 through g2 only, at reporter */
		a = fmt("DELETE FROM members WHERE source_type = 'Namespace' AND source_id = %lld"
			" AND user_id = %lld",
			g1, u);
		b = fmt("UPDATE members SET access_level = 20 WHERE source_type = 'Namespace'"
			" AND source_id = %lld AND user_id = %lld",
			g2, u);
		interleave(ca, cb, a, b, a_first);
		ck_assert_int_eq(level_of(u, p1), 0);
		ck_assert_int_eq(level_of(u, p2), 20);
		ck_assert_int_eq(level_of(u, p3), 20);
		free(a);
		free(b);

		/* a group moved under g1 while the user is added to g1: its project reached */
		long long s = fixture_group(0, NULL);
		long long ps = fixture_group_project(s, 0, NULL);
		a = fmt("UPDATE namespaces SET parent_id = %lld, traversal_ids = ARRAY[%lld, %lld]::bigint[]"
			" WHERE id = %lld",
			g1, g1, s, s);
		b = fmt("INSERT INTO members (source_type, source_id, user_id, access_level)"
			" VALUES ('Namespace', %lld, %lld, 30)",
			g1, u);
		interleave(ca, cb, a, b, a_first);
		ck_assert_int_eq(level_of(u, ps), 30);
		ck_assert_int_eq(level_of(u, p1), 30);
		free(a);
		free(b);

		/* a project moved into g2 while the user's membership of g2 ends */
		a = fmt("UPDATE projects SET namespace_id = %lld WHERE id = %lld", g2, p1);
		b = fmt("UPDATE members SET expires_at = current_date WHERE source_type = 'Namespace'"
			" AND source_id = %lld AND user_id = %lld",
			g2, u);
		interleave(ca, cb, a, b, a_first);
		ck_assert_int_eq(level_of(u, p1), 0);
		ck_assert_int_eq(level_of(u, p2), 0);
		free(a);
		free(b);
		check_consistent(
			a_first ? "concurrent changes, a first" : "concurrent changes, b first", 0);
	}
	PQfinish(ca);
	PQfinish(cb);
}
END_TEST

Suite *suite_authorizations(void)
{
	Suite *s = suite_create("authorizations");
	TCase *tc = tcase_create("authorizations");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_authorizations_concurrent);
	tcase_add_test(tc, test_authorizations_random);
	suite_add_tcase(s, tc);
	return s;
}
