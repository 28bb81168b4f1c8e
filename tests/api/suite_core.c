/* The core below the handlers, against the stack's database: scope resolution, the
 * dispatcher's transactions (the guard against one left open, undo on rollback, hooks
 * on commit) and the statement shapes checked when a connection prepares them. The
 * code runs in this process, linked with libcollabd, on the configuration of the
 * stack's first instance (COLLABD_CONFIG): its database and its storage path. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "client.h"

#undef fail

#include "api/api.h"
#include "auth/scope.h"
#include "db/db.h"
#include "git/repo.h"
#include "modules.h"
#include "worker.h"

static config cfg;
static db D;
static arena *A;

static void setup(void)
{
	ck_assert_int_eq(config_load(&cfg, getenv("COLLABD_CONFIG")), 0);
	ck_assert_int_eq(db_connect(&D, cfg.database_url, statements), 0);
	A = arena_new();
}

static void teardown(void)
{
	arena_destroy(A);
	db_close(&D);
	config_free(&cfg);
}

/* A context for user id (0: anonymous), an admin when admin. */
static ctx as(long long id, bool admin)
{
	ctx c;
	ctx_init(&c, A, &cfg, &D, NULL);
	if (id) {
		caller *u = arena_alloc(A, sizeof(*u));
		memset(u, 0, sizeof(*u));
		u->id = id;
		u->admin = admin;
		c.user = u;
	}
	return c;
}

/* m (malloc'd by the client's helpers) kept in the arena until the test's end. */
static char *keep(char *m)
{
	char *s = arena_strdup(A, m);
	free(m);
	return s;
}

static char *upper(const char *s)
{
	char *u = arena_strdup(A, s);
	for (char *p = u; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return u;
}

/* ---- scope resolution ---- */

START_TEST(test_scope_project)
{
	long long owner_id, other_id;
	char *owner = keep(make_user("scope", &owner_id, NULL));
	(void)keep(make_user("scope", &other_id, NULL));
	char *path;
	long long id = api_project(owner, "private", &path);
	path = keep(path);
	char *id_text = keep(fmt("%lld", id)), *shouting = upper(path);
	project_scope p;

	ctx c = as(owner_id, false);
	ck_assert_int_eq(scope_project(&c, id_text, false, &p), 0);
	ck_assert_str_eq(p.id, id_text);
	ck_assert(p.pa.ns_owner);
	ck_assert_str_eq(p.ns_kind, "user");
	ck_assert_str_eq(p.ns_owner_id, keep(fmt("%lld", owner_id)));
	/* a full path, matched without regard to case; the same project */
	ck_assert_int_eq(scope_project(&c, shouting, false, &p), 0);
	ck_assert_str_eq(p.id, id_text);
	/* what is no reference: 19 digits, no slash, an empty last segment, nothing */
	const char *none[] = {"1234567890123456789", "nopath", keep(fmt("%s/", path)), "", NULL};
	for (int i = 0; i < 5; i++) {
		c = as(owner_id, false);
		ck_assert_int_eq(scope_project(&c, none[i], false, &p), ERR_NOT_FOUND);
		ck_assert_str_eq(c.err_detail, "Project");
	}
	/* invisible is not found, for the anonymous and for another user alike */
	c = as(0, false);
	ck_assert_int_eq(scope_project(&c, id_text, false, &p), ERR_NOT_FOUND);
	ck_assert_str_eq(c.err_detail, "Project");
	c = as(other_id, false);
	ck_assert_int_eq(scope_project(&c, path, false, &p), ERR_NOT_FOUND);
	/* admins see it */
	c = as(other_id, true);
	ck_assert_int_eq(scope_project(&c, path, false, &p), 0);
	ck_assert(p.pa.admin);
	/* a project being deleted is gone */
	(void)keep(sql_value("UPDATE projects SET pending_delete = true WHERE id = %lld", id));
	c = as(owner_id, false);
	ck_assert_int_eq(scope_project(&c, id_text, false, &p), ERR_NOT_FOUND);
}
END_TEST

START_TEST(test_scope_group)
{
	long long owner_id;
	char *owner = keep(make_user("scope", &owner_id, NULL));
	char *path;
	long long id = api_group(owner, "private", &path);
	path = keep(path);
	char *shouting = upper(path);
	group_scope g;
	ctx c = as(owner_id, false);
	ck_assert_int_eq(scope_group(&c, keep(fmt("%lld", id)), false, &g), 0);
	ck_assert_int_eq(g.ga.level, 50);
	ck_assert(g.root);
	ck_assert_int_eq(scope_group(&c, shouting, false, &g), 0);
	ck_assert_str_eq(g.id, keep(fmt("%lld", id)));
	c = as(0, false);
	ck_assert_int_eq(scope_group(&c, path, false, &g), ERR_NOT_FOUND);
	ck_assert_str_eq(c.err_detail, "Group");
	/* a user's namespace is no group */
	c = as(owner_id, false);
	char *username = keep(sql_value("SELECT username FROM users WHERE id = %lld", owner_id));
	ck_assert_int_eq(scope_group(&c, username, false, &g), ERR_NOT_FOUND);
}
END_TEST

/* ---- the dispatcher ---- */

static int undone, committed;

static void count_undo(void *arg)
{
	(void)arg;
	undone++;
}

static void count_commit(void *arg)
{
	(void)arg;
	committed++;
}

/* a handler that forgets a transaction it opened */
static int h_leak(request *r)
{
	(void)db_begin(&r->ctx);
	respond_empty(r, 204);
	return 0;
}

static int h_fail(request *r)
{
	db_on_rollback(&r->ctx, count_undo, NULL);
	db_on_commit(&r->ctx, count_commit, NULL);
	(void)db_query(&r->ctx, "queue_enqueue", 2, (const char *const[]){"core_test", "{}"}, NULL);
	return fail_invalid(r, "x");
}

/* a 409 answered by the handler itself: nothing it wrote stays */
static int h_conflict(request *r)
{
	db_on_rollback(&r->ctx, count_undo, NULL);
	(void)db_query(&r->ctx, "queue_enqueue", 2, (const char *const[]){"core_test", "{}"}, NULL);
	respond_json(r, 409, json_object_new_object());
	return 0;
}

static int h_ok(request *r)
{
	db_on_rollback(&r->ctx, count_undo, NULL);
	db_on_commit(&r->ctx, count_commit, NULL);
	respond_empty(r, 204);
	return 0;
}

/* a repository made, then a failure: the rollback removes it */
static int h_repo(request *r)
{
	if (repo_create(&r->ctx, param_str(r, "id")) < 0)
		return ERR_INTERNAL;
	return param_str(r, "keep") ? 0 : fail_invalid(r, "x");
}

/* db_defer: a job queued with the commit, or (kind core_bad: an invalid payload, which
 * the database refuses) a failure that surfaces there; with :then, a statement after it
 * (a valid job, in the same round trip: the deferred one first); with :fail, the handler
 * fails after it. */
static const char *const defer_ok[] = {"core_defer", "{}"};
static const char *const defer_bad[] = {"core_defer", "{"};

static int h_defer(request *r)
{
	const char *how = param_str(r, "how");
	bool bad = strcmp(how, "bad") == 0 || strcmp(how, "bad_then") == 0;
	db_on_rollback(&r->ctx, count_undo, NULL);
	db_on_commit(&r->ctx, count_commit, NULL);
	int rc = db_defer(&r->ctx, "queue_enqueue", 2, bad ? defer_bad : defer_ok);
	if (rc < 0)
		return rc;
	if (strcmp(how, "then") == 0 || strcmp(how, "bad_then") == 0) {
		int err;
		if (!db_query(&r->ctx, "queue_enqueue", 2, defer_ok, &err))
			return err;
	}
	if (strcmp(how, "fail") == 0)
		return fail_invalid(r, "x");
	respond_empty(r, 204);
	return 0;
}

/* Prefetch (api_query): the check names core_echo(:v) ("echo"), core_when ("when") or
 * core_echo('x'), which fails ("bad"); the handler asks core_echo(want) or core_when and
 * answers its value, and for core_when whether it was taken before the handler began. */
static const db_stmt pf_stmts[] = {
	{"core_echo", "SELECT ($1::int + 0)::text", 1, 1},
	{"core_when", "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text", 0,
	 1},
	{NULL, NULL, 0, 0},
};

static int pf_check(request *r)
{
	const char *pf = param_str(r, "pf");
	const char **v = arena_alloc(r->ctx.a, sizeof(*v));
	if (pf && strcmp(pf, "echo") == 0) {
		v[0] = param_str(r, "v");
		r->prefetch = (db_call){"core_echo", 1, v};
	} else if (pf && strcmp(pf, "bad") == 0) {
		v[0] = "x";
		r->prefetch = (db_call){"core_echo", 1, v};
	} else if (pf && strcmp(pf, "when") == 0) {
		r->prefetch = (db_call){"core_when", 0, v};
	}
	return param_str(r, "invalid") ? fail_invalid(r, "invalid") : 0;
}

static int h_pf(request *r)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	long long began = (long long)tv.tv_sec * 1000000 + tv.tv_usec;
	const char *want = param_str(r, "want");
	int err;
	PGresult *res = want ? api_query(r, "core_echo", 1, (const char *[]){want}, &err)
			     : api_query(r, "core_when", 0, NULL, &err);
	if (!res)
		return err;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "value", json_object_new_string(PQgetvalue(res, 0, 0)));
	if (!want)
		json_object_object_add(
			o, "before", json_object_new_boolean(atoll(PQgetvalue(res, 0, 0)) < began));
	respond_json(r, 200, o);
	return 0;
}

static int h_scope(request *r)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_string(r->project->id));
	respond_json(r, 200, o);
	return 0;
}

static const route table[] = {
	{"POST", "/leak", h_leak, ROUTE_NO_AUTH, NULL},
	{"POST", "/fail", h_fail, ROUTE_NO_AUTH | ROUTE_TX, NULL},
	{"POST", "/conflict", h_conflict, ROUTE_NO_AUTH | ROUTE_TX, NULL},
	{"POST", "/ok", h_ok, ROUTE_NO_AUTH | ROUTE_TX, NULL},
	{"POST", "/repo/:id", h_repo, ROUTE_NO_AUTH | ROUTE_TX, NULL},
	{"POST", "/repo/:id/:keep", h_repo, ROUTE_NO_AUTH | ROUTE_TX, NULL},
	{"GET", "/scope/:id", h_scope, ROUTE_NO_AUTH | ROUTE_PROJECT, NULL},
	{"POST", "/defer/:how", h_defer, ROUTE_NO_AUTH | ROUTE_TX, NULL},
	{"GET", "/pf/:id", h_pf, ROUTE_AUTH | ROUTE_PROJECT, pf_check},
	{"POST", "/pf/:id", h_pf, ROUTE_AUTH | ROUTE_PROJECT | ROUTE_TX, pf_check},
	{"POST", "/defer_now/:how", h_defer, ROUTE_NO_AUTH, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
static const route *const tables[] = {table, NULL};

static request Req;

static int serve(const char *method, const char *path)
{
	request_init(&Req, A, &cfg);
	ctx_init(&Req.ctx, A, &cfg, &D, NULL);
	ck_assert_int_eq(request_parse(&Req, method, path, NULL, NULL, 0), 0);
	worker_dispatch_tables(&Req, tables);
	ck_assert_msg(!db_in_transaction(&Req.ctx), "%s %s left a transaction open", method, path);
	return Req.status;
}

static const char *serve_token;

static const char *token_header(void *hctx, const char *name)
{
	(void)hctx;
	return strcmp(name, "HTTP_PRIVATE_TOKEN") == 0 ? serve_token : NULL;
}

/* serve() with the token's credential. */
static int serve_as(const char *token, const char *method, const char *path)
{
	request_init(&Req, A, &cfg);
	ctx_init(&Req.ctx, A, &cfg, &D, NULL);
	serve_token = token;
	Req.header_fn = token_header;
	ck_assert_int_eq(request_parse(&Req, method, path, NULL, NULL, 0), 0);
	worker_dispatch_tables(&Req, tables);
	ck_assert_msg(!db_in_transaction(&Req.ctx), "%s %s left a transaction open", method, path);
	return Req.status;
}

static long long test_jobs(void)
{
	return sql_int("SELECT count(*) FROM background_jobs WHERE kind = 'core_test'");
}

START_TEST(test_transaction_guard)
{
	/* the leak is answered 500 and rolled back: the next request starts clean */
	ck_assert_int_eq(serve("POST", "/leak"), 500);
	ck_assert_int_eq(PQtransactionStatus(D.conn), PQTRANS_IDLE);
	ck_assert_int_eq(serve("POST", "/ok"), 204);
}
END_TEST

START_TEST(test_transaction_outcomes)
{
	long long jobs = test_jobs();
	undone = committed = 0;
	ck_assert_int_eq(serve("POST", "/fail"), 400);
	ck_assert_int_eq(undone, 1);
	ck_assert_int_eq(committed, 0);
	ck_assert_int_eq(test_jobs(), jobs);
	undone = 0;
	ck_assert_int_eq(serve("POST", "/conflict"), 409);
	ck_assert_int_eq(undone, 1);
	ck_assert_int_eq(test_jobs(), jobs);
	undone = 0;
	ck_assert_int_eq(serve("POST", "/ok"), 204);
	ck_assert_int_eq(undone, 0);
	ck_assert_int_eq(committed, 1);
}
END_TEST

static long long deferred_jobs(void)
{
	return sql_int("SELECT count(*) FROM background_jobs WHERE kind = 'core_defer'");
}

/* A transaction's BEGIN goes with its first statement and db_defer's statements with the
 * next one or the COMMIT: the outcomes stay those of statements run one by one. */
START_TEST(test_deferred_statements)
{
	long long n = deferred_jobs();
	undone = committed = 0;
	/* with the commit */
	ck_assert_int_eq(serve("POST", "/defer/ok"), 204);
	ck_assert_int_eq(deferred_jobs(), n + 1);
	ck_assert_int_eq(committed, 1);
	/* before the next statement, in order: both stay */
	ck_assert_int_eq(serve("POST", "/defer/then"), 204);
	ck_assert_int_eq(deferred_jobs(), n + 3);
	/* the handler fails after it: nothing stays */
	ck_assert_int_eq(serve("POST", "/defer/fail"), 400);
	ck_assert_int_eq(deferred_jobs(), n + 3);
	ck_assert_int_eq(undone, 1);
	/* it fails at the commit: the commit fails, nothing stays, the rollback hooks run */
	undone = committed = 0;
	ck_assert_int_eq(serve("POST", "/defer/bad"), 400);
	ck_assert_int_eq(deferred_jobs(), n + 3);
	ck_assert_int_eq(undone, 1);
	ck_assert_int_eq(committed, 0);
	/* it fails at the next statement: that statement fails with its error */
	ck_assert_int_eq(serve("POST", "/defer/bad_then"), 400);
	ck_assert_int_eq(deferred_jobs(), n + 3);
	ck_assert_int_eq(PQtransactionStatus(D.conn), PQTRANS_IDLE);
	/* outside a transaction it runs at once */
	ck_assert_int_eq(serve("POST", "/defer_now/ok"), 204);
	ck_assert_int_eq(deferred_jobs(), n + 4);
	ck_assert_int_eq(serve("POST", "/defer_now/bad"), 400);
	ck_assert_int_eq(deferred_jobs(), n + 4);
	/* a transaction that runs nothing commits without a statement */
	undone = committed = 0;
	ck_assert_int_eq(serve("POST", "/ok"), 204);
	ck_assert_int_eq(committed, 1);
	ck_assert_int_eq(PQtransactionStatus(D.conn), PQTRANS_IDLE);
	(void)keep(sql_value("DELETE FROM background_jobs WHERE kind = 'core_defer' RETURNING 1"));
}
END_TEST

/* A statement the checks name goes with the project's and is answered only to a handler
 * that asks for exactly it; a failed one, one for a project the caller may not see, or
 * one in a writing route's transaction changes no answer. */
START_TEST(test_prefetch)
{
	/* the suite's connection, with pf_stmts prepared too */
	const db_stmt *reg[64];
	int k = 0;
	reg[k++] = pf_stmts;
	for (int i = 0; statements[i] && k < 63; i++)
		reg[k++] = statements[i];
	reg[k] = NULL;
	db_close(&D);
	ck_assert_int_eq(db_connect(&D, cfg.database_url, reg), 0);

	long long owner_id;
	char *owner = keep(make_user("prefetch", &owner_id, NULL));
	char *other = keep(make_user("prefetch", NULL, NULL));
	long long id = api_project(owner, "private", NULL);
	/* asked for exactly: the prefetched answer, taken before the handler began */
	ck_assert_int_eq(serve_as(owner, "GET", keep(fmt("/pf/%lld?pf=when", id))), 200);
	ck_assert_msg(strstr(Req.body, "\"before\":true"), "%s", Req.body);
	ck_assert_int_eq(serve_as(owner, "GET", keep(fmt("/pf/%lld?pf=echo&v=5&want=5", id))), 200);
	ck_assert_str_eq(Req.body, "{\"value\":\"5\"}");
	/* other parameters: run again */
	ck_assert_int_eq(serve_as(owner, "GET", keep(fmt("/pf/%lld?pf=echo&v=5&want=7", id))), 200);
	ck_assert_str_eq(Req.body, "{\"value\":\"7\"}");
	/* none named: run when asked */
	ck_assert_int_eq(serve_as(owner, "GET", keep(fmt("/pf/%lld", id))), 200);
	ck_assert_msg(strstr(Req.body, "\"before\":false"), "%s", Req.body);
	/* a prefetch that fails: the handler's own statement answers */
	ck_assert_int_eq(serve_as(owner, "GET", keep(fmt("/pf/%lld?pf=bad&want=3", id))), 200);
	ck_assert_str_eq(Req.body, "{\"value\":\"3\"}");
	ck_assert_int_eq(PQtransactionStatus(D.conn), PQTRANS_IDLE);
	/* the project is not the caller's to see: 404, the handler never runs */
	ck_assert_int_eq(serve_as(other, "GET", keep(fmt("/pf/%lld?pf=echo&v=5&want=5", id))), 404);
	ck_assert_str_eq(Req.body, "{\"message\":\"404 Project Not Found\"}");
	/* the answers keep their order: credentials, then the checks */
	ck_assert_int_eq(serve_as("nope", "GET", keep(fmt("/pf/%lld?pf=echo&v=5&invalid=1", id))),
			 401);
	ck_assert_int_eq(serve_as(owner, "GET", keep(fmt("/pf/%lld?pf=echo&v=5&invalid=1", id))),
			 400);
	/* a writing route's transaction: nothing is sent ahead */
	ck_assert_int_eq(serve_as(owner, "POST", keep(fmt("/pf/%lld?pf=when", id))), 200);
	ck_assert_msg(strstr(Req.body, "\"before\":false"), "%s", Req.body);
	/* a project named by its path: nothing is sent ahead either */
	char *path = keep(sql_value("SELECT n.full_path || '/' || p.path FROM projects p"
				    " JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = %lld",
				    id));
	ck_assert_int_eq(serve_as(owner, "GET", keep(fmt("/pf/%s?pf=when", keep(enc(path))))), 200);
	ck_assert_msg(strstr(Req.body, "\"before\":false"), "%s", Req.body);
}
END_TEST

START_TEST(test_undo_repository)
{
	/* ids far above any project's */
	long long id = 9000000000000LL + (long long)getpid();
	ctx c = as(0, false);
	const char *dir = repo_path(&c, keep(fmt("%lld", id)));
	struct stat st;
	ck_assert_int_eq(serve("POST", keep(fmt("/repo/%lld", id))), 400);
	ck_assert_msg(stat(dir, &st) < 0, "%s stayed after the rollback", dir);
	ck_assert_int_eq(serve("POST", keep(fmt("/repo/%lld/keep", id))), 200);
	ck_assert_msg(stat(dir, &st) == 0, "%s is gone after the commit", dir);
	ck_assert_int_eq(repo_remove(&c, keep(fmt("%lld", id))), 0);
}
END_TEST

START_TEST(test_dispatcher_scope)
{
	long long owner_id;
	char *owner = keep(make_user("scope", &owner_id, NULL));
	char *pub_path, *priv_path;
	long long pub = api_project(owner, "public", &pub_path);
	long long priv = api_project(owner, "private", &priv_path);
	pub_path = keep(pub_path);
	priv_path = keep(priv_path);
	ck_assert_int_eq(serve("GET", keep(fmt("/scope/%lld", pub))), 200);
	ck_assert_str_eq(Req.body, keep(fmt("{\"id\":\"%lld\"}", pub)));
	ck_assert_int_eq(serve("GET", keep(fmt("/scope/%s", keep(enc(pub_path))))), 200);
	/* anonymous: the private project is not found, as one that does not exist */
	ck_assert_int_eq(serve("GET", keep(fmt("/scope/%lld", priv))), 404);
	ck_assert_str_eq(Req.body, "{\"message\":\"404 Project Not Found\"}");
	ck_assert_int_eq(serve("GET", "/scope/999999999999"), 404);
	ck_assert_str_eq(Req.body, "{\"message\":\"404 Project Not Found\"}");
}
END_TEST

/* ---- statement shapes ---- */

static const db_stmt wrong_params[] = {
	{"core_shape_params", "SELECT $1::int, $2::int", 1, 2},
	{NULL, NULL, 0, 0},
};
static const db_stmt wrong_cols[] = {
	{"core_shape_cols", "SELECT $1::int, 2", 1, 1},
	{NULL, NULL, 0, 0},
};
static const db_stmt right[] = {
	{"core_shape_right", "SELECT $1::int, 2", 1, 2},
	{"core_shape_command", "DELETE FROM background_jobs WHERE id = $1", 1, 0},
	{NULL, NULL, 0, 0},
};

static int connect_with(const db_stmt *t)
{
	const db_stmt *const registry[] = {t, NULL};
	db d;
	int rc = db_connect(&d, cfg.database_url, registry);
	db_close(&d);
	return rc;
}

START_TEST(test_statement_shapes)
{
	ck_assert_int_eq(connect_with(right), 0);
	ck_assert_int_eq(connect_with(wrong_params), -1);
	ck_assert_int_eq(connect_with(wrong_cols), -1);
	/* and every statement of the program prepares with the shape it declares */
	ck_assert_int_eq(db_describe(&D, false, stderr), 0);
}
END_TEST

/* The prepared statements of d's connection, as PostgreSQL lists them. */
static long long prepared_count(db *d)
{
	PGresult *r = PQexec(d->conn, "SELECT count(*) FROM pg_prepared_statements");
	ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
	long long n = atoll(PQgetvalue(r, 0, 0));
	PQclear(r);
	return n;
}

/* db_open prepares nothing; a statement is prepared the first time the connection runs
 * it, in the same round trip (also in a pipeline, also twice in one, not when an earlier
 * statement of the pipeline failed), and again on a new connection. */
START_TEST(test_lazy_prepare)
{
	const db_stmt *const registry[] = {right, NULL};
	db d;
	ck_assert_int_eq(db_open(&d, cfg.database_url, registry), 0);
	ck_assert_int_eq(prepared_count(&d), 0);
	ctx c;
	ctx_init(&c, A, &cfg, &d, NULL);
	const char *v[] = {"7"};
	PGresult *r = db_query(&c, "core_shape_right", 1, v, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(PQgetvalue(r, 0, 0), "7");
	ck_assert_int_eq(prepared_count(&d), 1);
	r = db_query(&c, "core_shape_right", 1, v, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(prepared_count(&d), 1);
	/* BEGIN, the same statement deferred twice, and the COMMIT: one pipeline */
	const char *none[] = {"-1"};
	ck_assert_int_eq(db_begin(&c), 0);
	ck_assert_int_eq(db_defer(&c, "core_shape_command", 1, none), 0);
	ck_assert_int_eq(db_defer(&c, "core_shape_command", 1, none), 0);
	ck_assert_int_eq(db_commit(&c), 0);
	ck_assert_int_eq(prepared_count(&d), 4); /* and tx_begin, tx_commit */
	/* a statement after a failed one is not prepared, and is prepared the next time */
	db_close(&d);
	ck_assert_int_eq(db_open(&d, cfg.database_url, registry), 0);
	ctx_init(&c, A, &cfg, &d, NULL);
	const char *bad[] = {"x"};
	int err = 0;
	ck_assert_int_eq(db_begin(&c), 0);
	ck_assert_int_eq(db_defer(&c, "core_shape_command", 1, bad), 0);
	ck_assert_ptr_null(db_query(&c, "core_shape_right", 1, v, &err));
	db_rollback(&c);
	r = db_query(&c, "core_shape_right", 1, v, &err);
	ck_assert_msg(r != NULL, "error %d", err);
	ck_assert_str_eq(PQgetvalue(r, 0, 0), "7");
	/* a new connection (the server ended the old one) prepares anew */
	int pid = PQbackendPID(d.conn);
	(void)keep(sql_value("SELECT pg_terminate_backend(%d)", pid));
	for (int i = 0; i < 100 && strcmp(keep(sql_value("SELECT count(*) FROM pg_stat_activity"
							 " WHERE pid = %d",
							 pid)),
					  "0") != 0;
	     i++)
		usleep(20000);
	ck_assert_int_eq(db_ensure_idle(&d), 0);
	ck_assert_int_ne(PQbackendPID(d.conn), pid);
	ck_assert_int_eq(prepared_count(&d), 0);
	r = db_query(&c, "core_shape_right", 1, v, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(PQgetvalue(r, 0, 0), "7");
	db_close(&d);
}
END_TEST

Suite *suite_core(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_scope_project);
	tcase_add_test(tc, test_scope_group);
	tcase_add_test(tc, test_transaction_guard);
	tcase_add_test(tc, test_transaction_outcomes);
	tcase_add_test(tc, test_undo_repository);
	tcase_add_test(tc, test_deferred_statements);
	tcase_add_test(tc, test_prefetch);
	tcase_add_test(tc, test_dispatcher_scope);
	tcase_add_test(tc, test_statement_shapes);
	tcase_add_test(tc, test_lazy_prepare);
	suite_add_tcase(s, tc);
	return s;
}
