/* API suite: read replicas (db/replica.h) as the test stack has them. Instance 2 reads
 * through a "replica" that is the primary under a read-only session (tests/api/run), so
 * that every suite's reads that nginx gives it take the replica's path; here, asked
 * directly (COLLABD_INSTANCE_URLS), its counters and what it leaves in replica_sticky.
 * Replication itself (a standby that lags, stops, and comes back) is tests/topology's. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

/* The base URL of instance n (1 or 2). */
static const char *instance(int n)
{
	const char *all = getenv("COLLABD_INSTANCE_URLS");
	ck_assert_msg(all && *all, "COLLABD_INSTANCE_URLS must be set");
	const char *p = all;
	for (int i = 1; i < n; i++) {
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	ck_assert_msg(*p, "no instance %d in %s", n, all);
	return S(fmt("%.*s", (int)strcspn(p, " "), p));
}

/* METHOD /api/v4<path> on instance n. */
static resp *on(int n, const char *method, const char *path, const char *token,
		const char *form)
{
	char *auth = token ? S(fmt("PRIVATE-TOKEN: %s", token)) : NULL;
	const char *headers[] = {auth, NULL};
	return R(http_request(method, S(fmt("%s/api/v4%s", instance(n), path)), headers, form,
			      form ? strlen(form) : 0,
			      form ? "application/x-www-form-urlencoded" : NULL));
}

/* A counter of instance n's /-/metrics (a labelled one named in full); -1 when absent. */
static double metric(int n, const char *name)
{
	resp *r = R(http_request("GET", S(fmt("%s/-/metrics", instance(n))), NULL, NULL, 0, NULL));
	ck_status(r, 200);
	size_t ln = strlen(name);
	for (const char *l = r->body; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, name, ln) == 0 && l[ln] == ' ')
			return strtod(l + ln + 1, NULL);
	return -1;
}

#define ON_REPLICA "collabd_db_reads_total{target=\"replica\"}"
#define ON_PRIMARY "collabd_db_reads_total{target=\"primary\"}"

/* Reads of instance 2 run on its replica; a write does not count as a read; instance 1,
 * which has no replica, counts none. The counters are one family with one header. */
START_TEST(test_reads_on_replica)
{
	long long uid;
	char *tok = S(make_user("rep", &uid, NULL));
	char *path;
	long long pid = api_project(tok, "private", &path);
	S(path);
	double before = metric(2, ON_REPLICA), primary = metric(2, ON_PRIMARY);
	ck_assert_msg(before >= 0 && primary >= 0, "instance 2 shows no read counters");
	for (int i = 0; i < 5; i++)
		ck_status(on(2, "GET", S(fmt("/projects/%lld", pid)), tok, NULL), 200);
	ck_status(on(2, "GET", S(fmt("/projects/%s", S(enc(path)))), NULL, NULL), 404);
	ck_status(on(2, "POST", S(fmt("/projects/%lld/issues", pid)), tok, "title=one"), 201);
	double after = metric(2, ON_REPLICA);
	/* its own /-/metrics asks no database; other suites' reads may run meanwhile */
	ck_assert_msg(after - before >= 6, "replica reads %g -> %g", before, after);
	ck_assert_msg(metric(1, ON_REPLICA) <= 0, "instance 1 has no replica");
	resp *m = R(http_request("GET", S(fmt("%s/-/metrics", instance(2))), NULL, NULL, 0, NULL));
	const char *h = strstr(m->body, "# HELP collabd_db_reads_total ");
	ck_assert_msg(h && !strstr(h + 1, "# HELP collabd_db_reads_total "),
		      "one header for the family");
	ck_assert_ptr_nonnull(strstr(m->body, "# TYPE collabd_db_reads_total counter"));
}
END_TEST

/* A caller who writes through one instance reads it back at once through the other, and
 * the other way round: its title after each edit, every time. */
START_TEST(test_read_your_writes_across_instances)
{
	long long uid;
	char *tok = S(make_user("ryw", &uid, NULL));
	long long pid = api_project(tok, "private", NULL);
	resp *c = on(1, "POST", S(fmt("/projects/%lld/issues", pid)), tok, "title=t0");
	ck_status(c, 201);
	long long iid = jint(c->json, "iid");
	for (int i = 1; i <= 20; i++) {
		int w = i % 2 ? 1 : 2, rd = 3 - w;
		ck_status(on(w, "PUT", S(fmt("/projects/%lld/issues/%lld", pid, iid)), tok,
			     S(fmt("title=t%d", i))),
			  200);
		resp *g = on(rd, "GET", S(fmt("/projects/%lld/issues/%lld", pid, iid)), tok, NULL);
		ck_status(g, 200);
		ck_assert_str_eq(jstr(g->json, "title"), S(fmt("t%d", i)));
		resp *l = on(rd, "GET", S(fmt("/projects/%lld/issues", pid)), tok, NULL);
		ck_status(l, 200);
		ck_assert_str_eq(jstr(json_object_array_get_idx(l->json, 0), "title"),
				 S(fmt("t%d", i)));
	}
}
END_TEST

/* What the writes leave: the primary's position for the user, no later than the
 * primary's now; the row everyone waits on (user 0) made again by the first read after
 * the table was emptied (as a crash of the primary empties the unlogged table). */
START_TEST(test_sticky_positions)
{
	long long uid;
	char *tok = S(make_user("stk", &uid, NULL));
	long long pid = api_project(tok, "private", NULL);
	ck_status(on(2, "POST", S(fmt("/projects/%lld/labels", pid)), tok,
		     "name=bug&color=%23ff0000"),
		  201);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM replica_sticky WHERE user_id = %lld AND"
				 " lsn <= pg_current_wal_insert_lsn() AND lsn > '0/0'",
				 uid),
			 1);
	/* a read writes no position */
	long long at = sql_int("SELECT (extract(epoch FROM at) * 1000000)::bigint"
			       " FROM replica_sticky WHERE user_id = %lld",
			       uid);
	ck_status(on(2, "GET", S(fmt("/projects/%lld/labels", pid)), tok, NULL), 200);
	ck_assert_int_eq(sql_int("SELECT (extract(epoch FROM at) * 1000000)::bigint"
				 " FROM replica_sticky WHERE user_id = %lld",
				 uid),
			 at);
	/* a refused write (400) writes none either */
	sql_int("WITH d AS (DELETE FROM replica_sticky WHERE user_id = %lld RETURNING 1)"
		" SELECT count(*) FROM d",
		uid);
	ck_status(on(2, "POST", S(fmt("/projects/%lld/labels", pid)), tok, "name=&color=x"), 400);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM replica_sticky WHERE user_id = %lld", uid),
			 0);
	/* emptied: the next read on instance 2 makes user 0's row, at the position then */
	sql_int("WITH d AS (DELETE FROM replica_sticky WHERE user_id = 0 RETURNING 1)"
		" SELECT count(*) FROM d");
	ck_status(on(2, "GET", S(fmt("/projects/%lld", pid)), tok, NULL), 200);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM replica_sticky WHERE user_id = 0"), 1);
}
END_TEST

/* A token made a moment ago, used at once on instance 2 (a replica behind would not know
 * it: the request runs again on the primary), and sudo's writes noted for the token's
 * owner as well as the user it acts as. */
START_TEST(test_new_token_and_sudo)
{
	char *name;
	long long uid;
	S(make_user("nt", &uid, &name));
	S(name);
	char *pat = S(cli_personal_token(name, "api", NULL));
	resp *u = on(2, "GET", "/user", pat, NULL);
	ck_status(u, 200);
	ck_assert_int_eq(jint(u->json, "id"), uid);
	long long admin_id = sql_int("SELECT user_id FROM tokens WHERE digest ="
				     " encode(sha256('%s'::bytea), 'hex')",
				     admin_token());
	sql_int("WITH d AS (DELETE FROM replica_sticky WHERE user_id IN (%lld, %lld) RETURNING 1)"
		" SELECT count(*) FROM d",
		uid, admin_id);
	char *auth = S(fmt("PRIVATE-TOKEN: %s", admin_token()));
	char *sudo = S(fmt("Sudo: %lld", uid));
	const char *headers[] = {auth, sudo, NULL};
	char *pname = S(unique("sudo-made"));
	const char *form = S(fmt("name=%s&path=%s", pname, pname));
	char *url = S(fmt("%s/api/v4/projects", instance(2)));
	ck_status(R(http_request("POST", url, headers, form, strlen(form),
				 "application/x-www-form-urlencoded")),
		  201);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM replica_sticky WHERE user_id IN (%lld, %lld)",
				 uid, admin_id),
			 2);
}
END_TEST

Suite *suite_replicas(void)
{
	Suite *s = suite_create("replicas");
	TCase *tc = tcase_create("replicas");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_reads_on_replica);
	tcase_add_test(tc, test_read_your_writes_across_instances);
	tcase_add_test(tc, test_sticky_positions);
	tcase_add_test(tc, test_new_token_and_sudo);
	suite_add_tcase(s, tc);
	return s;
}
