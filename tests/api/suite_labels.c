/* API suite: labels (spec 4.8, GitLab 10's lib/api/labels.rb and the label routes of
 * lib/api/subscriptions.rb): GET/POST/PUT/DELETE /projects/:id/labels and POST
 * /projects/:id/labels/:label_id/subscribe and unsubscribe; the counts of a label's
 * issues as each caller may see them; the labels of the groups above a project, and
 * the same routes under /groups/:id (GitLab 11.8's group labels). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const LABEL_FIELDS[] = {"id",
					   "name",
					   "color",
					   "description",
					   "open_issues_count",
					   "closed_issues_count",
					   "open_merge_requests_count",
					   "priority",
					   "subscribed",
					   NULL};

/* ---- fixtures ---- */

/* A project of a new user (its owner); the owner's token and id. */
typedef struct {
	long long id;
	char *owner;
	long long owner_id;
	char *path; /* full path */
} fx;

static void project(fx *f, const char *visibility)
{
	f->owner = S(make_user("lbl_own", &f->owner_id, NULL));
	f->id = api_project(f->owner, visibility, &f->path);
	S(f->path);
}

/* A new user with level on project pid (0: none); its token, id in *id. */
static char *member(long long pid, int level, long long *id)
{
	long long uid;
	char *token = S(make_user("lbl_m", &uid, NULL));
	if (level)
		fixture_member("Project", pid, uid, level);
	if (id)
		*id = uid;
	return token;
}

static char *labels_path(long long pid, const char *suffix)
{
	return S(fmt("/projects/%lld/labels%s", pid, suffix));
}

/* POST a label; the response. */
static resp *create(long long pid, const char *token, const char *form)
{
	return R(api("POST", labels_path(pid, ""), token, form));
}

/* Creates label name (color) as token; its id. */
static long long add_label(long long pid, const char *token, const char *name, const char *color)
{
	resp *r = create(pid, token, S(fmt("name=%s&color=%s", S(enc(name)), S(enc(color)))));
	ck_status(r, 201);
	return jint(r->json, "id");
}

/* An issue of project pid in SQL (the issues API is another module's), with label ids
 * labels[0..n); its id. */
static long long sql_issue(long long pid, long long author, const char *state, bool confidential,
			   const long long *labels, int n)
{
	long long id = sql_int("INSERT INTO issues (project_id, iid, title, author_id, state,"
			       " confidential) VALUES (%lld, next_iid('issues', 'Project', %lld),"
			       " 'an issue', %lld, '%s', %s) RETURNING id",
			       pid, pid, author, state, confidential ? "true" : "false");
	for (int i = 0; i < n; i++)
		free(sql_value("INSERT INTO label_links (label_id, target_type, target_id)"
			       " VALUES (%lld, 'Issue', %lld)",
			       labels[i], id));
	return id;
}

/* The label of name in a list response (NULL when absent). */
static json_object *find(resp *r, const char *name)
{
	ck_status(r, 200);
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *o = json_object_array_get_idx(r->json, i);
		if (strcmp(jstr(o, "name"), name) == 0)
			return o;
	}
	return NULL;
}

/* ---- tests ---- */

START_TEST(test_labels_auth_and_visibility)
{
	fx f;
	project(&f, "private");
	ck_code(R(api("GET", labels_path(f.id, ""), NULL, NULL)), 401);
	ck_code(R(api("POST", labels_path(f.id, ""), NULL, "name=a&color=red")), 401);
	char *stranger = member(f.id, 0, NULL);
	ck_body(R(api("GET", labels_path(f.id, ""), stranger, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_body(create(f.id, stranger, "name=a&color=red"), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("GET", "/projects/999999999/labels", f.owner, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	/* a guest reads, a reporter writes */
	char *guest = member(f.id, 10, NULL), *reporter = member(f.id, 20, NULL);
	add_label(f.id, f.owner, "bug", "#ff0000");
	resp *r = R(api("GET", labels_path(f.id, ""), guest, NULL));
	ck_assert(find(r, "bug") != NULL);
	ck_body(create(f.id, guest, "name=g&color=red"), 403, "{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("PUT", labels_path(f.id, ""), guest, "name=bug&color=blue")), 403);
	ck_code(R(api("DELETE", labels_path(f.id, "?name=bug"), guest, NULL)), 403);
	add_label(f.id, reporter, "rep", "blue");
	/* a public project: any signed-in user reads, but may not write */
	fx pub;
	project(&pub, "public");
	add_label(pub.id, pub.owner, "feature", "green");
	r = R(api("GET", labels_path(pub.id, ""), stranger, NULL));
	ck_assert(find(r, "feature") != NULL);
	ck_code(create(pub.id, stranger, "name=x&color=red"), 403);
	/* an internal project: signed-in users read, external ones do not see it */
	fx in;
	project(&in, "internal");
	add_label(in.id, in.owner, "inside", "red");
	r = R(api("GET", labels_path(in.id, ""), stranger, NULL));
	ck_assert(find(r, "inside") != NULL);
	long long ext_id;
	char *external = member(in.id, 0, &ext_id);
	free(sql_value("UPDATE users SET external = true WHERE id = %lld", ext_id));
	ck_code(R(api("GET", labels_path(in.id, ""), external, NULL)), 404);
	/* the admin may do anything */
	add_label(f.id, admin_token(), "admin made", "#123");
}
END_TEST

START_TEST(test_labels_create_shape)
{
	fx f;
	project(&f, "private");
	resp *r = create(f.id, f.owner, "name=Bug&color=%23FFAABB&description=Broken&priority=3");
	ck_status(r, 201);
	ck_fields(r->json, LABEL_FIELDS);
	ck_jstr(r, "name", "Bug");
	ck_jstr(r, "color", "#ffaabb");
	ck_jstr(r, "description", "Broken");
	ck_assert_int_eq(jint(r->json, "priority"), 3);
	ck_assert_int_eq(jint(r->json, "open_issues_count"), 0);
	ck_assert_int_eq(jint(r->json, "closed_issues_count"), 0);
	ck_assert_int_eq(jint(r->json, "open_merge_requests_count"), 0);
	ck_assert(!jbool(r->json, "subscribed"));
	long long id = jint(r->json, "id");
	ck_assert(id > 0);
	/* CSS color names (case and blanks aside) and #rgb are kept as #rrggbb */
	r = create(f.id, f.owner, "name=css&color=%20DarkSlateGray%20");
	ck_status(r, 201);
	ck_jstr(r, "color", "#2f4f4f");
	ck_assert(jnull(r->json, "description") && jnull(r->json, "priority"));
	r = create(f.id, f.owner, "name=short&color=%23aBc&priority=");
	ck_status(r, 201);
	ck_jstr(r, "color", "#aabbcc");
	ck_assert(jnull(r->json, "priority"));
	/* listed by title; the stored record is what was answered */
	r = R(api("GET", labels_path(f.id, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	const char *order[] = {"Bug", "css", "short"};
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, i), "name"), order[i]);
	json_object *bug = json_object_array_get_idx(r->json, 0);
	ck_fields(bug, LABEL_FIELDS);
	ck_assert_int_eq(jint(bug, "id"), id);
	ck_assert_str_eq(jstr(bug, "color"), "#ffaabb");
	ck_assert_int_eq(jint(bug, "priority"), 3);
	/* the project's path serves as well as its id */
	r = R(api("GET", S(fmt("/projects/%s/labels", S(enc(f.path)))), f.owner, NULL));
	ck_assert(find(r, "short") != NULL);
}
END_TEST

START_TEST(test_labels_create_errors)
{
	fx f;
	project(&f, "private");
	ck_body(create(f.id, f.owner, "color=red"), 400,
		"{\"message\":\"400 (Bad request) \\\"name\\\" not given\"}");
	ck_body(create(f.id, f.owner, "name=x"), 400,
		"{\"message\":\"400 (Bad request) \\\"color\\\" not given\"}");
	ck_body(create(f.id, f.owner, "name=x&color=notacolor"), 400,
		"{\"message\":{\"color\":[\"must be a valid color code\"]}}");
	ck_body(create(f.id, f.owner, "name=x&color=%23ggg"), 400,
		"{\"message\":{\"color\":[\"must be a valid color code\"]}}");
	ck_body(create(f.id, f.owner, "name=x&color=%231234"), 400,
		"{\"message\":{\"color\":[\"must be a valid color code\"]}}");
	ck_body(create(f.id, f.owner, "name=a%2Cb&color=red"), 400,
		"{\"message\":{\"title\":[\"is invalid\"]}}");
	ck_body(create(f.id, f.owner, "name=x&color=red&priority=high"), 400,
		"{\"error\":\"priority is invalid\"}");
	ck_body(create(f.id, f.owner, "name=x&color=red&priority=-1"), 400,
		"{\"message\":{\"priority\":[\"must be greater than or equal to 0\"]}}");
	char *longname = S(malloc(300));
	memset(longname, 'n', 256);
	longname[256] = '\0';
	ck_body(create(f.id, f.owner, S(fmt("name=%s&color=red", longname))), 400,
		"{\"message\":{\"title\":[\"is too long (maximum is 255 characters)\"]}}");
	/* 400 before 404 */
	ck_code(R(api("POST", "/projects/999999999/labels", f.owner, "color=red")), 400);
	/* nothing was made */
	resp *r = R(api("GET", labels_path(f.id, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	/* a title taken */
	add_label(f.id, f.owner, "dup", "red");
	ck_body(create(f.id, f.owner, "name=dup&color=blue"), 409,
		"{\"message\":\"Label already exists\"}");
	/* titles are per project */
	fx g;
	project(&g, "private");
	add_label(g.id, g.owner, "dup", "red");
}
END_TEST

START_TEST(test_labels_update)
{
	fx f;
	project(&f, "private");
	long long id = add_label(f.id, f.owner, "old", "red");
	add_label(f.id, f.owner, "other", "red");
	resp *r = R(api("PUT", labels_path(f.id, ""), f.owner,
			"name=old&new_name=new&color=%23000&description=d&priority=7"));
	ck_status(r, 200);
	ck_fields(r->json, LABEL_FIELDS);
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_jstr(r, "name", "new");
	ck_jstr(r, "color", "#000000");
	ck_jstr(r, "description", "d");
	ck_assert_int_eq(jint(r->json, "priority"), 7);
	/* one attribute at a time; a blank priority removes it */
	r = R(api("PUT", labels_path(f.id, ""), f.owner, "name=new&priority="));
	ck_status(r, 200);
	ck_assert(jnull(r->json, "priority"));
	ck_jstr(r, "color", "#000000");
	ck_jstr(r, "description", "d");
	r = R(api("PUT", labels_path(f.id, ""), f.owner, "name=new&color=white"));
	ck_status(r, 200);
	ck_jstr(r, "color", "#ffffff");
	ck_jstr(r, "name", "new");
	/* errors: nothing changes */
	ck_body(R(api("PUT", labels_path(f.id, ""), f.owner, "name=new")), 400,
		"{\"error\":\"new_name, color, description, priority are missing, at least one "
		"parameter must be provided\"}");
	ck_body(R(api("PUT", labels_path(f.id, ""), f.owner, "color=red")), 400,
		"{\"message\":\"400 (Bad request) \\\"name\\\" not given\"}");
	ck_body(R(api("PUT", labels_path(f.id, ""), f.owner, "name=nope&color=red")), 404,
		"{\"message\":\"404 Label not found Not Found\"}");
	ck_body(R(api("PUT", labels_path(f.id, ""), f.owner, "name=new&new_name=other")), 400,
		"{\"message\":{\"title\":[\"has already been taken\"]}}");
	ck_body(R(api("PUT", labels_path(f.id, ""), f.owner, "name=new&color=nope&new_name=x")),
		400, "{\"message\":{\"color\":[\"must be a valid color code\"]}}");
	ck_body(R(api("PUT", labels_path(f.id, ""), f.owner, "name=new&priority=-2")), 400,
		"{\"message\":{\"priority\":[\"must be greater than or equal to 0\"]}}");
	ck_body(R(api("PUT", labels_path(f.id, ""), f.owner, "name=new&new_name=a%2Cb")), 400,
		"{\"message\":{\"title\":[\"is invalid\"]}}");
	r = R(api("GET", labels_path(f.id, ""), f.owner, NULL));
	json_object *o = find(r, "new");
	ck_assert(o && strcmp(jstr(o, "color"), "#ffffff") == 0 && jnull(o, "priority"));
	ck_assert(find(r, "x") == NULL);
}
END_TEST

START_TEST(test_labels_delete)
{
	fx f;
	project(&f, "private");
	char *reporter = member(f.id, 20, NULL);
	long long gone = add_label(f.id, f.owner, "gone", "red");
	add_label(f.id, f.owner, "kept", "red");
	long long uid;
	char *sub = member(f.id, 10, &uid);
	ck_code(R(api("POST", labels_path(f.id, S(fmt("/%lld/subscribe", gone))), sub, NULL)), 201);
	long long issue = sql_issue(f.id, f.owner_id, "opened", false, &gone, 1);
	ck_body(R(api("DELETE", labels_path(f.id, ""), f.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"name\\\" not given\"}");
	ck_body(R(api("DELETE", labels_path(f.id, "?name=nope"), f.owner, NULL)), 404,
		"{\"message\":\"404 Label Not Found\"}");
	resp *r = R(api("DELETE", labels_path(f.id, "?name=gone"), reporter, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_code(R(api("DELETE", labels_path(f.id, "?name=gone"), f.owner, NULL)), 404);
	r = R(api("GET", labels_path(f.id, ""), f.owner, NULL));
	ck_assert(find(r, "gone") == NULL && find(r, "kept") != NULL);
	/* its links and subscriptions went with it */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM label_links WHERE target_id = %lld", issue),
			 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM subscriptions WHERE subscribable_type ="
				 " 'Label' AND subscribable_id = %lld",
				 gone),
			 0);
}
END_TEST

START_TEST(test_labels_subscriptions)
{
	fx f;
	project(&f, "public");
	long long id = add_label(f.id, f.owner, "sub me", "red");
	char *user = member(f.id, 0, NULL); /* signed in, not a member: may read */
	char *by_id = labels_path(f.id, S(fmt("/%lld/subscribe", id)));
	char *by_title = labels_path(f.id, "/sub%20me/subscribe");
	resp *r = R(api("POST", by_id, user, NULL));
	ck_status(r, 201);
	ck_fields(r->json, LABEL_FIELDS);
	ck_assert(jbool(r->json, "subscribed"));
	r = R(api("POST", by_title, user, NULL));
	ck_status(r, 304);
	ck_assert_str_eq(r->body, "");
	/* the subscription is the caller's own */
	r = R(api("GET", labels_path(f.id, ""), user, NULL));
	ck_assert(jbool(find(r, "sub me"), "subscribed"));
	r = R(api("GET", labels_path(f.id, ""), f.owner, NULL));
	ck_assert(!jbool(find(r, "sub me"), "subscribed"));
	r = R(api("POST", labels_path(f.id, "/sub%20me/unsubscribe"), user, NULL));
	ck_status(r, 201);
	ck_assert(!jbool(r->json, "subscribed"));
	char *unsub = labels_path(f.id, S(fmt("/%lld/unsubscribe", id)));
	ck_code(R(api("POST", unsub, user, NULL)), 304);
	ck_code(R(api("POST", by_title, user, NULL)), 201);
	/* never subscribed: 304 */
	ck_code(R(api("POST", labels_path(f.id, S(fmt("/%lld/unsubscribe", id))), f.owner, NULL)),
		304);
	ck_body(R(api("POST", labels_path(f.id, "/999999999/subscribe"), user, NULL)), 404,
		"{\"message\":\"404 Label Not Found\"}");
	ck_body(R(api("POST", labels_path(f.id, "/nothing/subscribe"), user, NULL)), 404,
		"{\"message\":\"404 Label Not Found\"}");
	ck_code(R(api("POST", by_id, NULL, NULL)), 401);
	/* a label of another project is not found here */
	fx g;
	project(&g, "public");
	ck_code(R(api("POST", labels_path(g.id, S(fmt("/%lld/subscribe", id))), user, NULL)), 404);
}
END_TEST

/* The titles an issue or a merge request shows, sorted, which their rows keep
 * (sql/0034_label_titles.sql): after labels are set, renamed (a project's and a group's),
 * removed, and links written in SQL, each list and issue shows what label_links and
 * labels say. */
static void ck_titles(const char *path, const char *token, const char *want)
{
	resp *r = R(api("GET", path, token, NULL));
	ck_status(r, 200);
	json_object *o = json_object_is_type(r->json, json_type_array)
				 ? json_object_array_get_idx(r->json, 0)
				 : r->json;
	ck_assert_str_eq(json_object_to_json_string_ext(jget(o, "labels"), JSON_C_TO_STRING_PLAIN),
			 want);
}

START_TEST(test_labels_titles_on_rows)
{
	long long gid;
	char *gpath;
	gid = fixture_group(0, &gpath);
	S(gpath);
	long long owner_id;
	char *owner = S(make_user("lbl_t", &owner_id, NULL));
	fixture_member("Namespace", gid, owner_id, 50);
	long long pid = fixture_group_project(gid, 0, NULL);
	fixture_member("Project", pid, owner_id, 40);
	add_label(pid, owner, "zeta", "red");
	add_label(pid, owner, "alpha", "red");
	add_label(pid, owner, "mid", "red");
	ck_code(R(api("POST", S(fmt("/groups/%lld/labels", gid)), owner,
		      "name=grp&color=%23000000")),
		201);
	const char *list = S(fmt("/projects/%lld/issues", pid));
	const char *one = S(fmt("/projects/%lld/issues/1", pid));
	ck_code(R(api("POST", list, owner, "title=t&labels=zeta,alpha,grp")), 201);
	long long mr =
		sql_int("INSERT INTO merge_requests (target_project_id, iid, source_project_id,"
			" source_branch, target_branch, title, state, merge_status, author_id)"
			" VALUES (%lld, next_iid('merge_requests', 'Project', %lld), %lld, 'f',"
			" 'master', 'm', 'opened', 'can_be_merged', %lld) RETURNING id",
			pid, pid, pid, owner_id);
	free(sql_value("INSERT INTO label_links (label_id, target_type, target_id)"
		       " SELECT id, 'MergeRequest', %lld FROM labels WHERE project_id = %lld",
		       mr, pid));
	const char *mrs = S(fmt("/projects/%lld/merge_requests", pid));
	ck_titles(list, owner, "[\"alpha\",\"grp\",\"zeta\"]");
	ck_titles(one, owner, "[\"alpha\",\"grp\",\"zeta\"]");
	ck_titles(mrs, owner, "[\"alpha\",\"mid\",\"zeta\"]");
	ck_code(R(api("PUT", labels_path(pid, ""), owner, "name=zeta&new_name=beta")), 200);
	ck_code(R(api("PUT", S(fmt("/groups/%lld/labels", gid)), owner, "name=grp&new_name=aaa")),
		200);
	ck_titles(list, owner, "[\"aaa\",\"alpha\",\"beta\"]");
	ck_titles(mrs, owner, "[\"alpha\",\"beta\",\"mid\"]");
	ck_code(R(api("DELETE", labels_path(pid, "?name=alpha"), owner, NULL)), 204);
	ck_titles(one, owner, "[\"aaa\",\"beta\"]");
	ck_titles(mrs, owner, "[\"beta\",\"mid\"]");
	ck_code(R(api("PUT", one, owner, "labels=mid,beta")), 200);
	ck_titles(list, owner, "[\"beta\",\"mid\"]");
	ck_code(R(api("PUT", one, owner, "labels=")), 200);
	ck_titles(list, owner, "[]");
	/* every row of the database as its links say */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM issues WHERE label_titles <>"
				 " label_titles('Issue', id)"),
			 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM merge_requests WHERE label_titles <>"
				 " label_titles('MergeRequest', id)"),
			 0);
}
END_TEST

START_TEST(test_labels_issue_counts)
{
	fx f;
	project(&f, "public");
	long long a = add_label(f.id, f.owner, "a", "red");
	long long b = add_label(f.id, f.owner, "b", "red");
	long long ab[2] = {a, b};
	long long author;
	char *author_token = member(f.id, 0, &author);
	char *reporter = member(f.id, 20, NULL);
	char *stranger = member(f.id, 0, NULL);
	sql_issue(f.id, f.owner_id, "opened", false, ab, 2);
	sql_issue(f.id, f.owner_id, "opened", false, &a, 1);
	sql_issue(f.id, f.owner_id, "closed", false, &a, 1);
	sql_issue(f.id, author, "opened", true, &a, 1); /* confidential */
	sql_issue(f.id, f.owner_id, "closed", true, &b, 1);
	struct {
		const char *token;
		long long a_open, a_closed, b_open, b_closed;
	} cases[] = {
		{f.owner, 3, 1, 1, 1},      {reporter, 3, 1, 1, 1}, {admin_token(), 3, 1, 1, 1},
		{author_token, 3, 1, 1, 0}, {stranger, 2, 1, 1, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		resp *r = R(api("GET", labels_path(f.id, ""), cases[i].token, NULL));
		json_object *la = find(r, "a"), *lb = find(r, "b");
		ck_assert_msg(jint(la, "open_issues_count") == cases[i].a_open &&
				      jint(la, "closed_issues_count") == cases[i].a_closed &&
				      jint(lb, "open_issues_count") == cases[i].b_open &&
				      jint(lb, "closed_issues_count") == cases[i].b_closed,
			      "case %zu: %s", i, r->body);
	}
}
END_TEST

START_TEST(test_labels_group_labels)
{
	long long owner_id;
	char *owner = S(make_user("lbl_grp", &owner_id, NULL));
	long long gid = api_group(owner, "private", NULL);
	long long sub = fixture_subgroup(gid, 0, NULL);
	long long pid = fixture_group_project(sub, 0, NULL);
	free(sql_value("INSERT INTO labels (group_id, title, color) VALUES (%lld, 'from top',"
		       " '#111111'), (%lld, 'from sub', '#222222')",
		       gid, sub));
	long long top = sql_int("SELECT id FROM labels WHERE group_id = %lld", gid);
	add_label(pid, owner, "own", "red");
	resp *r = R(api("GET", labels_path(pid, ""), owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	const char *order[] = {"from sub", "from top", "own"};
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, i), "name"), order[i]);
	/* a group's label is taken for the project's labels */
	ck_body(create(pid, owner, "name=from%20top&color=red"), 409,
		"{\"message\":\"Label already exists\"}");
	char *gname = S(sql_value("SELECT name FROM namespaces WHERE id = %lld", gid));
	ck_body(R(api("PUT", labels_path(pid, ""), owner, "name=own&new_name=from%20top")), 400,
		S(fmt("{\"message\":{\"title\":[\"already exists at group level for %s. Please "
		      "choose another one.\"]}}",
		      gname)));
	/* but is not the project's to change or remove */
	ck_code(R(api("PUT", labels_path(pid, ""), owner, "name=from%20top&color=red")), 404);
	ck_code(R(api("DELETE", labels_path(pid, "?name=from%20top"), owner, NULL)), 404);
	/* subscribed in this project */
	ck_code(R(api("POST", labels_path(pid, S(fmt("/%lld/subscribe", top))), owner, NULL)), 201);
	ck_assert_int_eq(sql_int("SELECT project_id FROM subscriptions WHERE subscribable_type ="
				 " 'Label' AND subscribable_id = %lld",
				 top),
			 pid);
	ck_code(R(api("POST", labels_path(pid, "/from%20top/subscribe"), owner, NULL)), 304);
	/* a project of another group does not see them */
	fx f;
	project(&f, "private");
	ck_code(R(api("POST", labels_path(f.id, S(fmt("/%lld/subscribe", top))), f.owner, NULL)),
		404);
}
END_TEST

START_TEST(test_labels_features_off)
{
	fx f;
	project(&f, "private");
	add_label(f.id, f.owner, "x", "red");
	free(sql_value("UPDATE projects SET issues_enabled = false WHERE id = %lld", f.id));
	ck_code(R(api("GET", labels_path(f.id, ""), f.owner, NULL)), 200); /* merge requests on */
	free(sql_value("UPDATE projects SET merge_requests_enabled = false WHERE id = %lld", f.id));
	ck_body(R(api("GET", labels_path(f.id, ""), f.owner, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(create(f.id, f.owner, "name=y&color=red"), 403);
	ck_code(R(api("POST", labels_path(f.id, "/x/subscribe"), f.owner, NULL)), 403);
}
END_TEST

START_TEST(test_labels_pagination)
{
	fx f;
	project(&f, "private");
	for (int i = 0; i < 5; i++)
		add_label(f.id, f.owner, S(fmt("l%d", i)), "red");
	char *path = labels_path(f.id, "");
	for (int page = 1; page <= 3; page++) {
		resp *r = R(api("GET", S(fmt("%s?per_page=2&page=%d", path, page)), f.owner, NULL));
		ck_status(r, 200);
		ck_assert_int_eq(json_object_array_length(r->json), page < 3 ? 2 : 1);
		ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "name"),
				 S(fmt("l%d", (page - 1) * 2)));
		ck_pages(r, path, "", 5, 2, page);
	}
	resp *r = R(api("GET", S(fmt("%s?per_page=2&page=9", path)), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	ck_pages(r, path, "", 5, 2, 9);
	ck_body(R(api("GET", S(fmt("%s?page=x", path)), f.owner, NULL)), 400,
		"{\"error\":\"page is invalid\"}");
}
END_TEST

START_TEST(test_labels_group_routes)
{
	long long owner_id, rid, gid_member;
	char *owner = S(make_user("lbl_grp", &owner_id, NULL));
	long long gid = api_group(owner, "private", NULL);
	long long sub = fixture_subgroup(gid, 0, NULL);
	long long pid = fixture_group_project(sub, 0, NULL);
	char *top_path = S(fmt("/groups/%lld/labels", gid));
	char *sub_path = S(fmt("/groups/%lld/labels", sub));
	resp *r = R(api("POST", top_path, owner, "name=top&color=teal&description=t"));
	ck_status(r, 201);
	ck_fields(r->json, LABEL_FIELDS);
	ck_jstr(r, "color", "#008080");
	long long top = jint(r->json, "id");
	ck_assert_int_eq(sql_int("SELECT group_id FROM labels WHERE id = %lld", top), gid);
	/* a subgroup sees its own and its ancestors' labels, a project its groups' */
	add_label(pid, owner, "proj", "red");
	r = R(api("POST", sub_path, owner, "name=sub&color=red"));
	ck_status(r, 201);
	r = R(api("GET", sub_path, owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_assert(find(r, "sub") && find(r, "top"));
	r = R(api("GET", top_path, owner, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	r = R(api("GET", labels_path(pid, ""), owner, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	/* titles taken above are taken */
	ck_body(R(api("POST", sub_path, owner, "name=top&color=red")), 409,
		"{\"message\":\"Label already exists\"}");
	ck_body(R(api("POST", top_path, owner, "name=top&color=red")), 409,
		"{\"message\":\"Label already exists\"}");
	/* counts over the group's projects */
	sql_issue(pid, owner_id, "opened", false, &top, 1);
	r = R(api("GET", top_path, owner, NULL));
	ck_assert_int_eq(jint(find(r, "top"), "open_issues_count"), 1);
	/* who may */
	char *guest = member(pid, 0, &gid_member);
	fixture_member("Namespace", gid, gid_member, 10);
	char *reporter = member(pid, 0, &rid);
	fixture_member("Namespace", gid, rid, 20);
	ck_code(R(api("GET", top_path, guest, NULL)), 200);
	ck_body(R(api("POST", top_path, guest, "name=g&color=red")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("PUT", top_path, guest, "name=top&color=red")), 403);
	ck_code(R(api("DELETE", S(fmt("%s?name=top", top_path)), guest, NULL)), 403);
	ck_code(R(api("POST", sub_path, reporter, "name=byrep&color=red")), 201);
	char *stranger = member(pid, 0, NULL);
	ck_body(R(api("GET", top_path, stranger, NULL)), 404,
		"{\"message\":\"404 Group Not Found\"}");
	ck_code(R(api("GET", top_path, NULL, NULL)), 401);
	/* update and delete act on the group's own */
	r = R(api("PUT", top_path, reporter, "name=top&new_name=Top&color=%23abcdef"));
	ck_status(r, 200);
	ck_jstr(r, "name", "Top");
	ck_jstr(r, "color", "#abcdef");
	ck_body(R(api("PUT", sub_path, owner, "name=Top&color=red")), 404,
		"{\"message\":\"404 Label not found Not Found\"}");
	ck_body(R(api("PUT", sub_path, owner, "name=sub&new_name=byrep")), 400,
		"{\"message\":{\"title\":[\"has already been taken\"]}}");
	/* subscriptions: in the group, apart from those in its projects */
	r = R(api("POST", S(fmt("%s/Top/subscribe", top_path)), guest, NULL));
	ck_status(r, 201);
	ck_assert(jbool(r->json, "subscribed"));
	ck_code(R(api("POST", S(fmt("%s/%lld/subscribe", top_path, top)), guest, NULL)), 304);
	ck_assert(sql_int("SELECT count(*) FROM subscriptions WHERE subscribable_id = %lld"
			  " AND project_id IS NULL",
			  top) == 1);
	r = R(api("GET", labels_path(pid, ""), guest, NULL));
	ck_assert(!jbool(find(r, "Top"), "subscribed"));
	ck_code(R(api("POST", S(fmt("%s/Top/unsubscribe", top_path)), guest, NULL)), 201);
	ck_code(R(api("POST", S(fmt("%s/Top/unsubscribe", top_path)), guest, NULL)), 304);
	ck_code(R(api("POST", S(fmt("%s/sub/subscribe", top_path)), guest, NULL)), 404);
	/* removal */
	ck_code(R(api("DELETE", S(fmt("%s?name=Top", sub_path)), owner, NULL)), 404);
	ck_code(R(api("DELETE", S(fmt("%s?name=Top", top_path)), owner, NULL)), 204);
	r = R(api("GET", labels_path(pid, ""), owner, NULL));
	ck_assert(find(r, "Top") == NULL && find(r, "sub") != NULL);
}
END_TEST

Suite *suite_labels(void)
{
	Suite *s = suite_create("labels");
	TCase *tc = tcase_create("labels");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_labels_auth_and_visibility);
	tcase_add_test(tc, test_labels_create_shape);
	tcase_add_test(tc, test_labels_create_errors);
	tcase_add_test(tc, test_labels_update);
	tcase_add_test(tc, test_labels_delete);
	tcase_add_test(tc, test_labels_subscriptions);
	tcase_add_test(tc, test_labels_issue_counts);
	tcase_add_test(tc, test_labels_group_labels);
	tcase_add_test(tc, test_labels_group_routes);
	tcase_add_test(tc, test_labels_features_off);
	tcase_add_test(tc, test_labels_pagination);
	tcase_add_test(tc, test_labels_titles_on_rows);
	suite_add_tcase(s, tc);
	return s;
}
