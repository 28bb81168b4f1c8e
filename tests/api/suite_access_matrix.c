/* API suite: the access matrix. Visibility (private, internal, public) x role
 * (anonymous, non-member, guest, reporter, developer, master, owner, admin) x the
 * endpoints of projects, groups, members, events, notification settings and wikis: the status
 * of every cell is asserted. Each visibility has a group of that visibility owned by the
 * owner, with a project of the same visibility in it; guest..master are project members,
 * owner is the group's owner (which makes them owner of its projects). */
#include <stdlib.h>
#include <string.h>

#include "client.h"

enum role { ANON, NONMEMBER, GUEST, REPORTER, DEVELOPER, MASTER, OWNER, ADMIN, NROLES };
static const char *role_names[] = {"anonymous", "non-member", "guest", "reporter",
				   "developer", "master",     "owner", "admin"};
static const int role_levels[] = {0, 0, 10, 20, 30, 40, 0, 0};
enum vis { PRIVATE, INTERNAL, PUBLIC, NVIS };
static const char *vis_names[] = {"private", "internal", "public"};

struct world {
	char *tokens[NROLES];
	long long ids[NROLES];
	long long group[NVIS];
	long long project[NVIS];
	long long target_id; /* a user added and removed as a member */
};

static struct world w;

static long long create(const char *path, const char *token, const char *form, int status)
{
	resp *r = api("POST", path, token, form);
	ck_assert_msg(r->status == status, "POST %s: %ld %s", path, r->status, r->body);
	long long id = jint(r->json, "id");
	resp_free(r);
	return id;
}

static void setup_world(void)
{
	if (w.tokens[OWNER])
		return;
	for (int i = NONMEMBER; i < NROLES; i++) {
		if (i == ADMIN)
			w.tokens[i] = make_admin("mxadmin", &w.ids[i]);
		else
			w.tokens[i] = make_user("mx", &w.ids[i], NULL);
	}
	free(make_user("mxtarget", &w.target_id, NULL));
	for (int v = 0; v < NVIS; v++) {
		char *name = unique("mxg");
		char *form = fmt("name=%s&path=%s&visibility=%s", name, name, vis_names[v]);
		w.group[v] = create("/groups", w.tokens[OWNER], form, 201);
		free(form);
		free(name);
		name = unique("mxp");
		form = fmt("name=%s&path=%s&namespace_id=%lld&visibility=%s", name, name,
			   w.group[v], vis_names[v]);
		w.project[v] = create("/projects", w.tokens[OWNER], form, 201);
		free(form);
		free(name);
		for (int role = GUEST; role <= MASTER; role++) {
			char *path = fmt("/projects/%lld/members", w.project[v]);
			form = fmt("user_id=%lld&access_level=%d", w.ids[role], role_levels[role]);
			create(path, w.tokens[OWNER], form, 201);
			free(form);
			free(path);
		}
	}
}

static bool project_visible(int v, int role)
{
	if (role >= GUEST)
		return true;
	if (role == NONMEMBER)
		return v >= INTERNAL;
	return v == PUBLIC;
}

/* Groups are visible to their members and to members of their projects. */
static bool group_visible(int v, int role)
{
	return project_visible(v, role);
}

static long call(const char *method, const char *path, int role, const char *form)
{
	resp *r = api(method, path, w.tokens[role], form);
	long status = r->status;
	if (status >= 500 || status < 0)
		ck_abort_msg("%s %s as %s: %ld %s", method, path, role_names[role], status,
			     r->body);
	resp_free(r);
	return status;
}

static void expect(const char *what, int v, int role, long got, long want)
{
	ck_assert_msg(got == want, "%s on a %s project/group as %s: expected %ld, got %ld", what,
		      vis_names[v], role_names[role], want, got);
}

START_TEST(test_matrix_read_project)
{
	setup_world();
	for (int v = 0; v < NVIS; v++)
		for (int role = 0; role < NROLES; role++) {
			char *path = fmt("/projects/%lld", w.project[v]);
			expect("GET /projects/:id", v, role, call("GET", path, role, NULL),
			       project_visible(v, role) ? 200 : 404);
			free(path);
		}
}
END_TEST

START_TEST(test_matrix_update_project)
{
	setup_world();
	for (int v = 0; v < NVIS; v++)
		for (int role = 0; role < NROLES; role++) {
			char *path = fmt("/projects/%lld", w.project[v]);
			long want = role == ANON                ? 401
				    : !project_visible(v, role) ? 404
				    : role >= MASTER            ? 200
								: 403;
			expect("PUT /projects/:id", v, role,
			       call("PUT", path, role, "description=matrix"), want);
			free(path);
		}
}
END_TEST

START_TEST(test_matrix_members)
{
	setup_world();
	for (int v = 0; v < NVIS; v++)
		for (int role = 0; role < NROLES; role++) {
			char *path = fmt("/projects/%lld/members", w.project[v]);
			long want = role == ANON ? 401 : !project_visible(v, role) ? 404 : 200;
			expect("GET /projects/:id/members", v, role, call("GET", path, role, NULL),
			       want);
			char *form = fmt("user_id=%lld&access_level=30", w.target_id);
			want = role == ANON                ? 401
			       : !project_visible(v, role) ? 404
			       : role >= MASTER            ? 201
							   : 403;
			expect("POST /projects/:id/members", v, role,
			       call("POST", path, role, form), want);
			if (want == 201) {
				char *one = fmt("%s/%lld", path, w.target_id);
				expect("DELETE /projects/:id/members/:user_id", v, role,
				       call("DELETE", one, role, NULL), 204);
				free(one);
			}
			free(form);
			free(path);
		}
}
END_TEST

START_TEST(test_matrix_groups)
{
	setup_world();
	for (int v = 0; v < NVIS; v++)
		for (int role = 0; role < NROLES; role++) {
			char *path = fmt("/groups/%lld", w.group[v]);
			bool visible = group_visible(v, role);
			expect("GET /groups/:id", v, role, call("GET", path, role, NULL),
			       visible ? 200 : 404);
			long want = role == ANON ? 401 : !visible ? 404 : role >= OWNER ? 200 : 403;
			expect("PUT /groups/:id", v, role,
			       call("PUT", path, role, "description=matrix"), want);
			free(path);
		}
}
END_TEST

START_TEST(test_matrix_events_and_notifications)
{
	setup_world();
	for (int v = 0; v < NVIS; v++)
		for (int role = NONMEMBER; role < NROLES; role++) {
			char *path = fmt("/projects/%lld/events", w.project[v]);
			expect("GET /projects/:id/events", v, role, call("GET", path, role, NULL),
			       project_visible(v, role) ? 200 : 404);
			free(path);
			path = fmt("/projects/%lld/notification_settings", w.project[v]);
			expect("GET /projects/:id/notification_settings", v, role,
			       call("GET", path, role, NULL), project_visible(v, role) ? 200 : 404);
			free(path);
		}
	for (int v = 0; v < NVIS; v++) {
		char *path = fmt("/projects/%lld/notification_settings", w.project[v]);
		expect("GET /projects/:id/notification_settings", v, ANON,
		       call("GET", path, ANON, NULL), 401);
		free(path);
	}
}
END_TEST

/* Wikis: whoever sees the project reads; developers and up write; masters and up delete
 * (GitLab 10's read_wiki, create_wiki, admin_wiki). */
START_TEST(test_matrix_wikis)
{
	setup_world();
	for (int v = 0; v < NVIS; v++)
		for (int role = 0; role < NROLES; role++) {
			char *path = fmt("/projects/%lld/wikis", w.project[v]);
			bool visible = project_visible(v, role);
			expect("GET /projects/:id/wikis", v, role, call("GET", path, role, NULL),
			       visible ? 200 : 404);
			char *title = unique("mxwiki");
			char *form = fmt("title=%s&content=matrix", title);
			long want = role == ANON ? 401 : !visible ? 404 : 403;
			if (want == 403 && role >= DEVELOPER)
				want = 201;
			expect("POST /projects/:id/wikis", v, role, call("POST", path, role, form),
			       want);
			char *one = fmt("%s/%s", path, title);
			if (want == 201) {
				expect("GET /projects/:id/wikis/:slug", v, role,
				       call("GET", one, role, NULL), 200);
				expect("PUT /projects/:id/wikis/:slug", v, role,
				       call("PUT", one, role, "content=again"), 200);
			}
			want = role == ANON ? 401 : !visible ? 404 : role >= MASTER ? 204 : 403;
			expect("DELETE /projects/:id/wikis/:slug", v, role,
			       call("DELETE", one, role, NULL), want);
			free(one);
			free(form);
			free(title);
			free(path);
		}
}
END_TEST

/* Only the owner (and admins) delete; everyone else is refused and nothing happens. */
START_TEST(test_matrix_delete_project)
{
	setup_world();
	for (int v = 0; v < NVIS; v++) {
		char *path = fmt("/projects/%lld", w.project[v]);
		for (int role = 0; role < OWNER; role++) {
			long want = role == ANON ? 401 : !project_visible(v, role) ? 404 : 403;
			expect("DELETE /projects/:id", v, role, call("DELETE", path, role, NULL),
			       want);
		}
		expect("GET /projects/:id after refused deletes", v, OWNER,
		       call("GET", path, OWNER, NULL), 200);
		free(path);
		for (int role = OWNER; role <= ADMIN; role++) {
			char *name = unique("mxdel");
			char *form = fmt("name=%s&path=%s&namespace_id=%lld&visibility=%s", name,
					 name, w.group[v], vis_names[v]);
			long long id = create("/projects", w.tokens[OWNER], form, 201);
			char *one = fmt("/projects/%lld", id);
			expect("DELETE /projects/:id", v, role, call("DELETE", one, role, NULL),
			       202);
			expect("GET /projects/:id after delete", v, role,
			       call("GET", one, role, NULL), 404);
			free(one);
			free(form);
			free(name);
		}
	}
}
END_TEST

Suite *suite_access_matrix(void)
{
	Suite *s = suite_create("access_matrix");
	TCase *tc = tcase_create("access_matrix");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_matrix_read_project);
	tcase_add_test(tc, test_matrix_update_project);
	tcase_add_test(tc, test_matrix_members);
	tcase_add_test(tc, test_matrix_groups);
	tcase_add_test(tc, test_matrix_events_and_notifications);
	tcase_add_test(tc, test_matrix_wikis);
	tcase_add_test(tc, test_matrix_delete_project);
	suite_add_tcase(s, tc);
	return s;
}
