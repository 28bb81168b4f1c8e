/* API suite: runners (spec 4.1, GitLab 10's lib/api/runners.rb): GET /runners and
 * /runners/all with their scopes, GET/PUT/DELETE /runners/:id, and GET/POST
 * /projects/:id/runners, DELETE /projects/:id/runners/:runner_id; who may see, change,
 * remove, enable and disable which runner. Runners are registered as gitlab-runner
 * registers them (POST /runners with a project's or the shared registration token). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const RUNNER_FIELDS[] = {"id",        "description", "active",
					    "is_shared", "name",        NULL};
static const char *const DETAIL_FIELDS[] = {
	"id",           "description", "active",   "is_shared",    "name",     "tag_list",
	"run_untagged", "locked",      "version",  "revision",     "platform", "architecture",
	"contacted_at", "token",       "projects", "access_level", NULL};
static const char *const PROJECT_FIELDS[] = {
	"id", "name", "name_with_namespace", "path", "path_with_namespace", NULL};

/* ---- fixtures ---- */

/* The shared runners' registration token (`collabd runners-token`). */
static const char *shared_registration_token(void)
{
	static char token[128];
	if (!token[0]) {
		const char *bin = getenv("COLLABD_BIN");
		ck_assert_msg(bin && getenv("COLLABD_CONFIG"), "COLLABD_BIN and COLLABD_CONFIG");
		FILE *f = popen(S(fmt("'%s' runners-token", bin)), "r");
		ck_assert(f != NULL);
		if (!fgets(token, sizeof(token), f))
			token[0] = '\0';
		ck_assert_int_eq(pclose(f), 0);
		token[strcspn(token, "\r\n")] = '\0';
		ck_assert(token[0]);
	}
	return token;
}

/* Project pid's registration token (its runners_token, shown to admins). */
static const char *project_registration_token(long long pid)
{
	resp *r = R(api("GET", S(fmt("/projects/%lld", pid)), admin_token(), NULL));
	ck_status(r, 200);
	ck_assert(jstr(r->json, "runners_token") != NULL);
	return jstr(r->json, "runners_token");
}

typedef struct {
	long long id;
	char *token;
	char *description;
} fx_runner;

/* A runner registered as gitlab-runner does (POST /runners): shared, or specific to the
 * first of the n projects pids and enabled in the others; then the columns cols (SQL,
 * "" for none: ", active") set to vals (", false"), as its contacts would. */
static void runner(fx_runner *out, bool shared, const char *cols, const char *vals,
		   const long long *pids, int n)
{
	const char *reg = shared ? shared_registration_token()
				 : project_registration_token(pids[0]);
	out->description = S(unique("runner"));
	resp *r = R(api("POST", "/runners", NULL,
			S(fmt("token=%s&description=%s", reg, out->description))));
	ck_status(r, 201);
	out->id = jint(r->json, "id");
	out->token = S(strdup(jstr(r->json, "token")));
	if (*cols)
		free(sql_value("UPDATE ci_runners SET (%s) = ROW(%s) WHERE id = %lld", cols + 2,
			       vals + 2, out->id));
	for (int i = shared ? 0 : 1; i < n; i++)
		free(sql_value("INSERT INTO ci_runner_projects (runner_id, project_id)"
			       " VALUES (%lld, %lld)",
			       out->id, pids[i]));
}

typedef struct {
	long long id;
	char *owner;
	long long owner_id;
	char *path;
} fx_project;

static void project(fx_project *p, const char *visibility)
{
	p->owner = S(make_user("run_own", &p->owner_id, NULL));
	p->id = api_project(p->owner, visibility, &p->path);
	S(p->path);
}

/* A new user with that level on project pid (0: none). */
static char *member(long long pid, int level)
{
	long long uid;
	char *token = S(make_user("run_m", &uid, NULL));
	if (level)
		fixture_member("Project", pid, uid, level);
	return token;
}

static bool has_id(resp *r, long long id)
{
	for (size_t i = 0; i < json_object_array_length(r->json); i++)
		if (jint(json_object_array_get_idx(r->json, i), "id") == id)
			return true;
	return false;
}

/* The ids of a list response, in order, compared with want[0..n). */
static void ck_ids(resp *r, const long long *want, size_t n)
{
	ck_status(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == n, "%zu ids expected: %s", n, r->body);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(jint(json_object_array_get_idx(r->json, i), "id"), want[i]);
}

static char *rpath(long long id, const char *suffix)
{
	return S(fmt("/runners/%lld%s", id, suffix));
}

static char *ppath(long long pid, const char *suffix)
{
	return S(fmt("/projects/%lld/runners%s", pid, suffix));
}

/* ---- tests ---- */

START_TEST(test_runners_list_mine)
{
	fx_project p, q;
	project(&p, "private");
	project(&q, "private");
	fx_runner a, b, c, s;
	runner(&a, false, "", "", &p.id, 1);
	runner(&b, false, ", active, contacted_at", ", false, now()", &p.id, 1);
	runner(&c, false, "", "", &q.id, 1);
	runner(&s, true, "", "", NULL, 0);
	resp *r = R(api("GET", "/runners", p.owner, NULL));
	ck_ids(r, (long long[]){a.id, b.id}, 2);
	ck_fields(json_object_array_get_idx(r->json, 0), RUNNER_FIELDS);
	json_object *first = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(first, "description"), a.description);
	ck_assert(jbool(first, "active"));
	ck_assert(!jbool(first, "is_shared"));
	ck_assert(jnull(first, "name"));
	ck_ids(R(api("GET", "/runners?scope=active", p.owner, NULL)), (long long[]){a.id}, 1);
	ck_ids(R(api("GET", "/runners?scope=paused", p.owner, NULL)), (long long[]){b.id}, 1);
	ck_ids(R(api("GET", "/runners?scope=online", p.owner, NULL)), (long long[]){b.id}, 1);
	/* contacted over an hour ago: not online */
	free(sql_value("UPDATE ci_runners SET contacted_at = now() - interval '61 minutes'"
		       " WHERE id = %lld",
		       b.id));
	ck_ids(R(api("GET", "/runners?scope=online", p.owner, NULL)), NULL, 0);
	ck_body(R(api("GET", "/runners?scope=shared", p.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	ck_body(R(api("GET", "/runners?scope=specific", p.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	ck_body(R(api("GET", "/runners?scope=x", p.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	ck_code(R(api("GET", "/runners", NULL, NULL)), 401);
	/* masters see their projects' runners; developers and below none */
	ck_ids(R(api("GET", "/runners", member(p.id, 40), NULL)), (long long[]){a.id, b.id}, 2);
	ck_ids(R(api("GET", "/runners", member(p.id, 30), NULL)), NULL, 0);
	ck_ids(R(api("GET", "/runners", member(p.id, 10), NULL)), NULL, 0);
	/* a group's master sees the runners of the group's projects */
	long long g = fixture_group(0, NULL);
	long long gp = fixture_group_project(g, 0, NULL);
	fx_runner d;
	runner(&d, false, "", "", &gp, 1);
	long long uid;
	char *gm = S(make_user("run_gm", &uid, NULL));
	fixture_member("Namespace", g, uid, 40);
	ck_ids(R(api("GET", "/runners", gm, NULL)), (long long[]){d.id}, 1);
	/* an expired membership gives none */
	free(sql_value("UPDATE members SET expires_at = current_date WHERE user_id = %lld", uid));
	ck_ids(R(api("GET", "/runners", gm, NULL)), NULL, 0);
}
END_TEST

START_TEST(test_runners_pagination)
{
	fx_project p;
	project(&p, "private");
	fx_runner x[3];
	for (int i = 0; i < 3; i++)
		runner(&x[i], false, "", "", &p.id, 1);
	resp *r = R(api("GET", "/runners?per_page=2", p.owner, NULL));
	ck_ids(r, (long long[]){x[0].id, x[1].id}, 2);
	ck_pages(r, "/runners", "", 3, 2, 1);
	r = R(api("GET", "/runners?per_page=2&page=2", p.owner, NULL));
	ck_ids(r, (long long[]){x[2].id}, 1);
	ck_pages(r, "/runners", "", 3, 2, 2);
	r = R(api("GET", "/runners?scope=active&per_page=1&page=3", p.owner, NULL));
	ck_ids(r, (long long[]){x[2].id}, 1);
	ck_pages(r, "/runners", "scope=active", 3, 1, 3);
	r = R(api("GET", ppath(p.id, "?per_page=2&page=2"), p.owner, NULL));
	ck_status(r, 200);
	ck_body(R(api("GET", "/runners?per_page=x", p.owner, NULL)), 400,
		"{\"error\":\"per_page is invalid\"}");
	/* /runners/all as admin */
	r = R(api("GET", "/runners/all?scope=specific&per_page=1", admin_token(), NULL));
	ck_status(r, 200);
	long long total = atoll(resp_header(r, "X-Total"));
	ck_assert_int_ge(total, 3);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
}
END_TEST

START_TEST(test_runners_all)
{
	fx_project p;
	project(&p, "private");
	fx_runner a, b, s;
	runner(&a, false, "", "", &p.id, 1);
	runner(&b, false, ", active", ", false", &p.id, 1);
	runner(&s, true, ", contacted_at", ", now()", NULL, 0);
	const char *admin = admin_token();
	resp *r = R(api("GET", "/runners/all?per_page=100&page=1", admin, NULL));
	ck_status(r, 200);
	/* the newest are on the last page */
	long long pages = atoll(resp_header(r, "X-Total-Pages"));
	r = R(api("GET", S(fmt("/runners/all?per_page=100&page=%lld", pages)), admin, NULL));
	ck_assert(has_id(r, a.id) && has_id(r, b.id) && has_id(r, s.id));
	ck_fields(json_object_array_get_idx(r->json, 0), RUNNER_FIELDS);
	struct {
		const char *scope;
		bool a, b, s;
	} want[] = {{"specific", true, true, false},
		    {"shared", false, false, true},
		    {"active", true, false, true},
		    {"paused", false, true, false},
		    {"online", false, false, true}};
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		r = R(api("GET", S(fmt("/runners/all?scope=%s&per_page=1", want[i].scope)), admin,
			  NULL));
		ck_status(r, 200);
		pages = atoll(resp_header(r, "X-Total-Pages"));
		/* the last three pages of one runner hold the newest runners */
		bool seen_a = false, seen_b = false, seen_s = false;
		for (long long pg = pages > 3 ? pages - 2 : 1; pg <= pages; pg++) {
			r = R(api("GET",
				  S(fmt("/runners/all?scope=%s&per_page=1&page=%lld", want[i].scope,
					pg)),
				  admin, NULL));
			seen_a = seen_a || has_id(r, a.id);
			seen_b = seen_b || has_id(r, b.id);
			seen_s = seen_s || has_id(r, s.id);
		}
		ck_assert_msg(seen_a == want[i].a && seen_b == want[i].b && seen_s == want[i].s,
			      "scope %s", want[i].scope);
	}
	ck_body(R(api("GET", "/runners/all?scope=x", admin, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	ck_body(R(api("GET", "/runners/all", p.owner, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("GET", "/runners/all", NULL, NULL)), 401);
}
END_TEST

START_TEST(test_runners_show)
{
	fx_project p, q;
	project(&p, "private");
	project(&q, "private");
	fx_runner a, two, s;
	runner(&a, false,
	       ", tag_list, version, revision, platform, architecture, contacted_at,"
	       " access_level, name",
	       ", '{docker,linux}', '10.0.0', 'abc', 'linux', 'amd64', now(), 'ref_protected',"
	       " 'gitlab-runner'",
	       &p.id, 1);
	runner(&two, false, "", "", (long long[]){p.id, q.id}, 2);
	runner(&s, true, "", "", NULL, 0);
	resp *r = R(api("GET", rpath(a.id, ""), p.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, DETAIL_FIELDS);
	ck_jstr(r, "token", a.token);
	ck_jstr(r, "version", "10.0.0");
	ck_jstr(r, "revision", "abc");
	ck_jstr(r, "platform", "linux");
	ck_jstr(r, "architecture", "amd64");
	ck_jstr(r, "access_level", "ref_protected");
	ck_jstr(r, "name", "gitlab-runner");
	ck_assert(jbool(r->json, "run_untagged"));
	ck_assert(!jbool(r->json, "locked"));
	const char *t = jstr(r->json, "contacted_at");
	ck_assert_msg(t && strlen(t) == 24 && t[23] == 'Z', "contacted_at %s", t ? t : "null");
	json_object *tags = jget(r->json, "tag_list");
	ck_assert_int_eq(json_object_array_length(tags), 2);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(tags, 0)), "docker");
	json_object *projects = jget(r->json, "projects");
	ck_assert_int_eq(json_object_array_length(projects), 1);
	json_object *pr = json_object_array_get_idx(projects, 0);
	ck_fields(pr, PROJECT_FIELDS);
	ck_assert_int_eq(jint(pr, "id"), p.id);
	ck_assert_str_eq(jstr(pr, "path_with_namespace"), p.path);
	const char *slash = strchr(p.path, '/');
	ck_assert_str_eq(jstr(pr, "path"), slash + 1);
	ck_assert_str_eq(jstr(pr, "name_with_namespace"),
			 S(fmt("%.*s / %s", (int)(slash - p.path), p.path, slash + 1)));
	/* a never contacted runner */
	r = R(api("GET", rpath(two.id, ""), p.owner, NULL));
	ck_status(r, 200);
	ck_assert(jnull(r->json, "contacted_at"));
	ck_assert_int_eq(json_object_array_length(jget(r->json, "tag_list")), 0);
	/* the projects a master is authorized for; all of them for an admin */
	ck_assert_int_eq(json_object_array_length(jget(r->json, "projects")), 1);
	r = R(api("GET", rpath(two.id, ""), admin_token(), NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(jget(r->json, "projects")), 2);
	ck_jstr(r, "token", two.token);
	/* a shared runner: anyone sees it, admins only its token */
	r = R(api("GET", rpath(s.id, ""), member(p.id, 0), NULL));
	ck_status(r, 200);
	ck_assert(!jhas(r->json, "token"));
	ck_assert(jbool(r->json, "is_shared"));
	r = R(api("GET", rpath(s.id, ""), admin_token(), NULL));
	ck_jstr(r, "token", s.token);
	/* per role on a specific runner: masters and up, admins */
	struct {
		int level;
		long status;
	} roles[] = {{0, 403}, {10, 403}, {20, 403}, {30, 403}, {40, 200}};
	for (size_t i = 0; i < sizeof(roles) / sizeof(*roles); i++) {
		r = R(api("GET", rpath(a.id, ""), member(p.id, roles[i].level), NULL));
		ck_code(r, roles[i].status);
		if (roles[i].status == 403)
			ck_body(r, 403, "{\"message\":\"403 Forbidden - No access granted\"}");
		else
			ck_jstr(r, "token", a.token);
	}
	long long g = fixture_group(0, NULL);
	long long gp = fixture_group_project(g, 0, NULL);
	fx_runner d;
	runner(&d, false, "", "", &gp, 1);
	long long uid;
	char *owner = S(make_user("run_go", &uid, NULL));
	fixture_member("Namespace", g, uid, 50);
	ck_code(R(api("GET", rpath(d.id, ""), owner, NULL)), 200);
	ck_code(R(api("GET", rpath(a.id, ""), q.owner, NULL)), 403);
	/* errors */
	ck_body(R(api("GET", "/runners/999999999", p.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", "/runners/abc", p.owner, NULL)), 400, "{\"error\":\"id is invalid\"}");
	ck_code(R(api("GET", rpath(a.id, ""), NULL, NULL)), 401);
}
END_TEST

START_TEST(test_runners_update)
{
	fx_project p, q;
	project(&p, "private");
	project(&q, "private");
	fx_runner a, s;
	runner(&a, false, "", "", &p.id, 1);
	runner(&s, true, "", "", NULL, 0);
	resp *r = R(api("PUT", rpath(a.id, ""), p.owner,
			"description=new%20one&active=false&tag_list=ruby,%20docker,ruby,&"
			"run_untagged=false&locked=true&access_level=ref_protected"));
	ck_status(r, 200);
	ck_fields(r->json, DETAIL_FIELDS);
	ck_jstr(r, "description", "new one");
	ck_assert(!jbool(r->json, "active"));
	ck_assert(!jbool(r->json, "run_untagged"));
	ck_assert(jbool(r->json, "locked"));
	ck_jstr(r, "access_level", "ref_protected");
	ck_jstr(r, "token", a.token);
	json_object *tags = jget(r->json, "tag_list");
	ck_assert_int_eq(json_object_array_length(tags), 2);
	char *row = S(sql_value("SELECT concat_ws(' ', description, active, tag_list, run_untagged,"
				" locked, access_level) FROM ci_runners WHERE id = %lld",
				a.id));
	ck_assert_str_eq(row, "new one f {ruby,docker} f t ref_protected");
	/* the array form, and one attribute alone */
	r = R(api("PUT", rpath(a.id, ""), p.owner, "tag_list[]=a&tag_list[]=b"));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(jget(r->json, "tag_list")), 2);
	ck_jstr(r, "description", "new one");
	r = R(api_json("PUT", rpath(a.id, ""), p.owner, "{\"active\":true}"));
	ck_status(r, 200);
	ck_assert(jbool(r->json, "active"));
	/* no tags while untagged jobs are refused: nothing changed */
	r = R(api("PUT", rpath(a.id, ""), p.owner, "tag_list=&description=x"));
	ck_body(r, 400,
		"{\"message\":{\"tags_list\":[\"can not be empty when runner is not allowed to "
		"pick untagged jobs\"]}}");
	ck_assert_str_eq(S(sql_value("SELECT description || tag_list::text FROM ci_runners"
				     " WHERE id = %lld",
				     a.id)),
			 "new one{a,b}");
	/* bad input */
	ck_body(R(api("PUT", rpath(a.id, ""), p.owner, NULL)), 400,
		"{\"error\":\"description, active, tag_list, run_untagged, locked, "
		"access_level are missing, at least one parameter must be provided\"}");
	ck_body(R(api("PUT", rpath(a.id, ""), p.owner, "access_level=x")), 400,
		"{\"error\":\"access_level does not have a valid value\"}");
	ck_body(R(api("PUT", rpath(a.id, ""), p.owner, "active=maybe")), 400,
		"{\"error\":\"active is invalid\"}");
	ck_body(R(api("PUT", rpath(a.id, ""), p.owner, "locked=2")), 400,
		"{\"error\":\"locked is invalid\"}");
	ck_body(R(api("PUT", "/runners/abc", p.owner, "active=true")), 400,
		"{\"error\":\"id is invalid\"}");
	ck_body(R(api("PUT", "/runners/999999999", p.owner, "active=true")), 404,
		"{\"message\":\"404 Not found\"}");
	/* who may */
	ck_body(R(api("PUT", rpath(s.id, ""), p.owner, "description=x")), 403,
		"{\"message\":\"403 Forbidden - Runner is shared\"}");
	ck_body(R(api("PUT", rpath(a.id, ""), q.owner, "description=x")), 403,
		"{\"message\":\"403 Forbidden - No access granted\"}");
	ck_code(R(api("PUT", rpath(a.id, ""), member(p.id, 30), "description=x")), 403);
	ck_code(R(api("PUT", rpath(a.id, ""), member(p.id, 40), "description=m")), 200);
	r = R(api("PUT", rpath(s.id, ""), admin_token(), "description=shared%20one"));
	ck_status(r, 200);
	ck_jstr(r, "description", "shared one");
	ck_code(R(api("PUT", rpath(a.id, ""), NULL, "description=x")), 401);
}
END_TEST

START_TEST(test_runners_delete)
{
	fx_project p, q;
	project(&p, "private");
	project(&q, "private");
	fx_runner a, two, s, other;
	runner(&a, false, "", "", &p.id, 1);
	runner(&two, false, "", "", (long long[]){p.id, q.id}, 2);
	runner(&s, true, "", "", NULL, 0);
	runner(&other, false, "", "", &q.id, 1);
	ck_body(R(api("DELETE", rpath(two.id, ""), p.owner, NULL)), 403,
		"{\"message\":\"403 Forbidden - Runner associated with more than one project\"}");
	ck_body(R(api("DELETE", rpath(s.id, ""), p.owner, NULL)), 403,
		"{\"message\":\"403 Forbidden - Runner is shared\"}");
	ck_body(R(api("DELETE", rpath(other.id, ""), p.owner, NULL)), 403,
		"{\"message\":\"403 Forbidden - No access granted\"}");
	ck_code(R(api("DELETE", rpath(a.id, ""), member(p.id, 30), NULL)), 403);
	ck_code(R(api("DELETE", rpath(a.id, ""), NULL, NULL)), 401);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_runners WHERE id IN (%lld, %lld, %lld,"
				 " %lld)",
				 a.id, two.id, s.id, other.id),
			 4);
	resp *r = R(api("DELETE", rpath(a.id, ""), p.owner, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_runners WHERE id = %lld", a.id), 0);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM ci_runner_projects WHERE runner_id = %lld", a.id), 0);
	ck_body(R(api("DELETE", rpath(a.id, ""), p.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("DELETE", "/runners/abc", p.owner, NULL)), 400,
		"{\"error\":\"id is invalid\"}");
	/* admins remove any */
	ck_code(R(api("DELETE", rpath(two.id, ""), admin_token(), NULL)), 204);
	ck_code(R(api("DELETE", rpath(s.id, ""), admin_token(), NULL)), 204);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_runners WHERE id IN (%lld, %lld)", two.id,
				 s.id),
			 0);
}
END_TEST

START_TEST(test_project_runners_list)
{
	fx_project p, q;
	project(&p, "private");
	project(&q, "private");
	fx_runner a, b, c, s;
	runner(&a, false, "", "", &p.id, 1);
	runner(&b, false, "", "", (long long[]){p.id, q.id}, 2);
	runner(&c, false, "", "", &q.id, 1);
	runner(&s, true, "", "", NULL, 0);
	/* shared runners are listed after the specific ones of the page that holds them */
	resp *r = R(api("GET", ppath(p.id, "?per_page=100"), p.owner, NULL));
	ck_status(r, 200);
	long long pages = atoll(resp_header(r, "X-Total-Pages"));
	r = R(api("GET", ppath(p.id, S(fmt("?per_page=100&page=%lld", pages))), p.owner, NULL));
	ck_assert(has_id(r, s.id));
	ck_assert(!has_id(r, c.id));
	ck_fields(json_object_array_get_idx(r->json, 0), RUNNER_FIELDS);
	/* without shared runners: its own only */
	free(sql_value("UPDATE projects SET shared_runners_enabled = false WHERE id = %lld", p.id));
	r = R(api("GET", ppath(p.id, ""), p.owner, NULL));
	ck_ids(r, (long long[]){a.id, b.id}, 2);
	ck_pages(r, S(fmt("/projects/%lld/runners", p.id)), "", 2, 20, 1);
	r = R(api("GET", ppath(p.id, "?per_page=1&page=2"), p.owner, NULL));
	ck_ids(r, (long long[]){b.id}, 1);
	ck_pages(r, S(fmt("/projects/%lld/runners", p.id)), "", 2, 1, 2);
	/* scopes (GitLab 10.x's filter_runners) */
	free(sql_value("UPDATE ci_runners SET active = false WHERE id = %lld", b.id));
	ck_ids(R(api("GET", ppath(p.id, "?scope=paused"), p.owner, NULL)), (long long[]){b.id}, 1);
	ck_ids(R(api("GET", ppath(p.id, "?scope=active"), p.owner, NULL)), (long long[]){a.id}, 1);
	ck_ids(R(api("GET", ppath(p.id, "?scope=shared"), p.owner, NULL)), NULL, 0);
	ck_body(R(api("GET", ppath(p.id, "?scope=x"), p.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	free(sql_value("UPDATE projects SET shared_runners_enabled = true WHERE id = %lld", p.id));
	r = R(api("GET", ppath(p.id, "?scope=shared&per_page=100"), p.owner, NULL));
	ck_status(r, 200);
	ck_assert(!has_id(r, a.id) && !has_id(r, b.id));
	free(sql_value("UPDATE projects SET shared_runners_enabled = false WHERE id = %lld", p.id));
	/* by path too */
	ck_ids(R(api("GET", S(fmt("/projects/%s/runners", S(enc(p.path)))), p.owner, NULL)),
	       (long long[]){a.id, b.id}, 2);
	/* masters and up */
	ck_ids(R(api("GET", ppath(p.id, ""), member(p.id, 40), NULL)), (long long[]){a.id, b.id},
	       2);
	ck_ids(R(api("GET", ppath(p.id, ""), admin_token(), NULL)), (long long[]){a.id, b.id}, 2);
	for (int level = 10; level <= 30; level += 10)
		ck_body(R(api("GET", ppath(p.id, ""), member(p.id, level), NULL)), 403,
			"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("GET", ppath(p.id, ""), member(p.id, 0), NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_code(R(api("GET", ppath(p.id, ""), NULL, NULL)), 401);
	fx_project pub;
	project(&pub, "public");
	ck_code(R(api("GET", ppath(pub.id, ""), member(pub.id, 0), NULL)), 403);
}
END_TEST

START_TEST(test_project_runners_enable)
{
	fx_project p, q, other;
	project(&p, "private");
	project(&other, "private");
	/* q: a second project of p's owner */
	q.owner = p.owner;
	q.id = api_project(p.owner, "private", &q.path);
	S(q.path);
	fx_runner a, locked, s, c;
	runner(&a, false, "", "", &p.id, 1);
	runner(&locked, false, ", locked", ", true", &p.id, 1);
	runner(&s, true, "", "", NULL, 0);
	runner(&c, false, "", "", &other.id, 1);
	resp *r = R(api("POST", ppath(q.id, ""), p.owner, S(fmt("runner_id=%lld", a.id))));
	ck_status(r, 201);
	ck_fields(r->json, RUNNER_FIELDS);
	ck_assert_int_eq(jint(r->json, "id"), a.id);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM ci_runner_projects WHERE runner_id = %lld", a.id), 2);
	ck_body(R(api("POST", ppath(q.id, ""), p.owner, S(fmt("runner_id=%lld", a.id)))), 409,
		"{\"message\":\"Runner was already enabled for this project\"}");
	ck_body(R(api("POST", ppath(q.id, ""), p.owner, S(fmt("runner_id=%lld", locked.id)))), 403,
		"{\"message\":\"403 Forbidden - Runner is locked\"}");
	ck_body(R(api("POST", ppath(q.id, ""), p.owner, S(fmt("runner_id=%lld", s.id)))), 403,
		"{\"message\":\"403 Forbidden - Runner is shared\"}");
	ck_body(R(api("POST", ppath(q.id, ""), p.owner, S(fmt("runner_id=%lld", c.id)))), 403,
		"{\"message\":\"403 Forbidden - No access granted\"}");
	ck_body(R(api("POST", ppath(q.id, ""), p.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"runner_id\\\" not given\"}");
	ck_body(R(api("POST", ppath(q.id, ""), p.owner, "runner_id=abc")), 400,
		"{\"error\":\"runner_id is invalid\"}");
	ck_body(R(api("POST", ppath(q.id, ""), p.owner, "runner_id=999999999")), 404,
		"{\"message\":\"404 Not found\"}");
	/* developers may not; an admin may enable anyone's runner */
	ck_body(R(api("POST", ppath(q.id, ""), member(q.id, 30), S(fmt("runner_id=%lld", c.id)))),
		403, "{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("POST", ppath(q.id, ""), admin_token(), S(fmt("runner_id=%lld", c.id)))),
		201);
	ck_code(R(api("POST", ppath(q.id, ""), NULL, S(fmt("runner_id=%lld", c.id)))), 401);
	ck_code(R(api("POST", ppath(q.id, ""), member(q.id, 0), S(fmt("runner_id=%lld", c.id)))),
		404);
	r = R(api("GET", rpath(a.id, ""), p.owner, NULL));
	ck_assert_int_eq(json_object_array_length(jget(r->json, "projects")), 2);
}
END_TEST

START_TEST(test_project_runners_disable)
{
	fx_project p;
	project(&p, "private");
	fx_project q = {.owner = p.owner};
	q.id = api_project(p.owner, "private", &q.path);
	S(q.path);
	fx_runner a, c;
	runner(&a, false, "", "", (long long[]){p.id, q.id}, 2);
	runner(&c, false, "", "", &p.id, 1);
	ck_body(R(api("DELETE", ppath(q.id, S(fmt("/%lld", c.id))), p.owner, NULL)), 404,
		"{\"message\":\"404 Runner Not Found\"}");
	ck_code(R(api("DELETE", ppath(q.id, S(fmt("/%lld", a.id))), member(q.id, 30), NULL)), 403);
	ck_body(R(api("DELETE", ppath(q.id, "/abc"), p.owner, NULL)), 400,
		"{\"error\":\"runner_id is invalid\"}");
	resp *r = R(api("DELETE", ppath(q.id, S(fmt("/%lld", a.id))), p.owner, NULL));
	ck_status(r, 204);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM ci_runner_projects WHERE runner_id = %lld", a.id), 1);
	/* the last project: remove the runner instead */
	ck_body(R(api("DELETE", ppath(p.id, S(fmt("/%lld", a.id))), p.owner, NULL)), 403,
		"{\"message\":\"403 Forbidden - Only one project associated with the runner. "
		"Please remove the runner instead\"}");
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM ci_runner_projects WHERE runner_id = %lld", a.id), 1);
	ck_code(R(api("DELETE", ppath(p.id, S(fmt("/%lld", a.id))), NULL, NULL)), 401);
}
END_TEST

Suite *suite_runners(void)
{
	Suite *s = suite_create("runners");
	TCase *tc = tcase_create("runners");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_runners_list_mine);
	tcase_add_test(tc, test_runners_pagination);
	tcase_add_test(tc, test_runners_all);
	tcase_add_test(tc, test_runners_show);
	tcase_add_test(tc, test_runners_update);
	tcase_add_test(tc, test_runners_delete);
	tcase_add_test(tc, test_project_runners_list);
	tcase_add_test(tc, test_project_runners_enable);
	tcase_add_test(tc, test_project_runners_disable);
	suite_add_tcase(s, tc);
	return s;
}
