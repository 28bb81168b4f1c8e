/* API suite: issue boards (spec 4.10, GitLab 10's lib/api/boards.rb): GET
 * /projects/:id/boards (the default board made on first sight, once however many ask),
 * and the label lists of a board: GET, POST, PUT (move), DELETE; positions stay 0..n-1
 * when lists come, move and go (with their label too). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const BOARD_FIELDS[] = {"id", "lists", NULL};
static const char *const LIST_FIELDS[] = {"id", "label", "position", NULL};
static const char *const LABEL_FIELDS[] = {"id", "name", "color", "description", NULL};

/* ---- fixtures ---- */

typedef struct {
	long long id;
	char *owner;
	long long board;
} fx;

/* A project of a new user, with its board. */
static void project(fx *f, const char *visibility)
{
	f->owner = S(make_user("brd_own", NULL, NULL));
	f->id = api_project(f->owner, visibility, NULL);
	resp *r = R(api("GET", S(fmt("/projects/%lld/boards", f->id)), f->owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	f->board = jint(json_object_array_get_idx(r->json, 0), "id");
}

static char *member(long long pid, int level)
{
	long long uid;
	char *token = S(make_user("brd_m", &uid, NULL));
	if (level)
		fixture_member("Project", pid, uid, level);
	return token;
}

static long long add_label(long long pid, const char *token, const char *name)
{
	resp *r = R(api("POST", S(fmt("/projects/%lld/labels", pid)), token,
			S(fmt("name=%s&color=%%23ff0000&description=about%%20%s", name, name))));
	ck_status(r, 201);
	return jint(r->json, "id");
}

static char *lists(const fx *f, const char *suffix)
{
	return S(fmt("/projects/%lld/boards/%lld/lists%s", f->id, f->board, suffix));
}

static char *list(const fx *f, long long id)
{
	return S(fmt("/projects/%lld/boards/%lld/lists/%lld", f->id, f->board, id));
}

/* Adds the list of label as token; its id. */
static long long add_list(const fx *f, const char *token, long long label)
{
	resp *r = R(api("POST", lists(f, ""), token, S(fmt("label_id=%lld", label))));
	ck_status(r, 201);
	return jint(r->json, "id");
}

/* The board's lists are exactly ids[0..n), at positions 0..n-1. */
static void ck_order(const fx *f, const long long *ids, size_t n)
{
	resp *r = R(api("GET", lists(f, ""), f->owner, NULL));
	ck_status(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == n, "%zu lists expected: %s", n, r->body);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(r->json, i);
		ck_assert_msg(jint(o, "id") == ids[i] && jint(o, "position") == (long long)i,
			      "list %zu: %s", i, r->body);
	}
}

/* ---- tests ---- */

START_TEST(test_boards_default_board)
{
	char *owner = S(make_user("brd_own", NULL, NULL));
	long long pid = api_project(owner, "private", NULL);
	char *path = S(fmt("/projects/%lld/boards", pid));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM boards WHERE project_id = %lld", pid), 0);
	resp *r = R(api("GET", path, owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	json_object *b = json_object_array_get_idx(r->json, 0);
	ck_fields(b, BOARD_FIELDS);
	ck_assert_int_eq(json_object_array_length(jget(b, "lists")), 0);
	ck_pages(r, path, "", 1, 20, 1);
	long long id = jint(b, "id");
	/* with its backlog and closed lists, which are not shown */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM board_lists WHERE board_id = %lld"
				 " AND list_type IN (0, 2)",
				 id),
			 2);
	r = R(api("GET", path, owner, NULL));
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), id);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM boards WHERE project_id = %lld", pid), 1);
	/* lists appear in the board record */
	long long a = add_label(pid, owner, "a");
	fx f = {pid, owner, id};
	long long la = add_list(&f, owner, a);
	r = R(api("GET", path, owner, NULL));
	json_object *l =
		json_object_array_get_idx(jget(json_object_array_get_idx(r->json, 0), "lists"), 0);
	ck_fields(l, LIST_FIELDS);
	ck_assert_int_eq(jint(l, "id"), la);
	ck_assert_int_eq(jint(l, "position"), 0);
	ck_fields(jget(l, "label"), LABEL_FIELDS);
	ck_assert_str_eq(jstr(jget(l, "label"), "name"), "a");
	/* access */
	ck_code(R(api("GET", path, NULL, NULL)), 401);
	ck_body(R(api("GET", path, member(pid, 0), NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_code(R(api("GET", path, member(pid, 10), NULL)), 200);
}
END_TEST

struct boards_call {
	const char *path, *token;
	long status;
};

static void *get_boards(void *arg)
{
	struct boards_call *c = arg;
	resp *r = api("GET", c->path, c->token, NULL);
	c->status = r->status;
	resp_free(r);
	return NULL;
}

START_TEST(test_boards_one_default_board_at_once)
{
	char *owner = S(make_user("brd_own", NULL, NULL));
	for (int round = 0; round < 3; round++) {
		long long pid = api_project(owner, "private", NULL);
		struct boards_call calls[4];
		pthread_t t[4];
		for (int i = 0; i < 4; i++) {
			char *path = S(fmt("/projects/%lld/boards", pid));
			calls[i] = (struct boards_call){path, owner, 0};
			ck_assert(pthread_create(&t[i], NULL, get_boards, &calls[i]) == 0);
		}
		for (int i = 0; i < 4; i++) {
			pthread_join(t[i], NULL);
			ck_assert_int_eq(calls[i].status, 200);
		}
		ck_assert_int_eq(
			sql_int("SELECT count(*) FROM boards WHERE project_id = %lld", pid), 1);
	}
}
END_TEST

START_TEST(test_boards_lists_create_show)
{
	fx f;
	project(&f, "private");
	long long a = add_label(f.id, f.owner, "a"), b = add_label(f.id, f.owner, "b");
	char *reporter = member(f.id, 20), *guest = member(f.id, 10);
	resp *r = R(api("POST", lists(&f, ""), reporter, S(fmt("label_id=%lld", b))));
	ck_status(r, 201);
	ck_fields(r->json, LIST_FIELDS);
	ck_assert_int_eq(jint(r->json, "position"), 0);
	json_object *label = jget(r->json, "label");
	ck_fields(label, LABEL_FIELDS);
	ck_assert_int_eq(jint(label, "id"), b);
	ck_assert_str_eq(jstr(label, "name"), "b");
	ck_assert_str_eq(jstr(label, "color"), "#ff0000");
	ck_assert_str_eq(jstr(label, "description"), "about b");
	long long lb = jint(r->json, "id");
	long long la = add_list(&f, f.owner, a);
	long long both[] = {lb, la};
	ck_order(&f, both, 2);
	r = R(api("GET", list(&f, la), guest, NULL));
	ck_status(r, 200);
	ck_fields(r->json, LIST_FIELDS);
	ck_assert_int_eq(jint(r->json, "position"), 1);
	/* errors */
	ck_body(R(api("POST", lists(&f, ""), f.owner, S(fmt("label_id=%lld", a)))), 400,
		"{\"message\":{\"label_id\":[\"has already been taken\"]}}");
	ck_body(R(api("POST", lists(&f, ""), f.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"label_id\\\" not given\"}");
	ck_body(R(api("POST", lists(&f, ""), f.owner, "label_id=x")), 400,
		"{\"error\":\"label_id is invalid\"}");
	fx other;
	project(&other, "private");
	long long theirs = add_label(other.id, other.owner, "theirs");
	ck_body(R(api("POST", lists(&f, ""), f.owner, S(fmt("label_id=%lld", theirs)))), 400,
		"{\"message\":{\"error\":\"Label not found!\"}}");
	long long c = add_label(f.id, f.owner, "c");
	ck_body(R(api("POST", lists(&f, ""), guest, S(fmt("label_id=%lld", c)))), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("POST", S(fmt("/projects/%lld/boards/%lld/lists", f.id, other.board)),
		      f.owner, S(fmt("label_id=%lld", c)))),
		404, "{\"message\":\"404 Board Not Found\"}");
	ck_code(R(api("GET", S(fmt("/projects/%lld/boards/%lld/lists", f.id, other.board)), f.owner,
		      NULL)),
		404);
	ck_body(R(api("GET", list(&f, 999999999), f.owner, NULL)), 404,
		"{\"message\":\"404 List Not Found\"}");
	ck_code(R(api("GET", S(fmt("/projects/%lld/boards/x/lists", f.id)), f.owner, NULL)), 400);
	/* the backlog and closed lists are not lists of the API */
	long long backlog = sql_int("SELECT id FROM board_lists WHERE board_id = %lld"
				    " AND list_type = 0",
				    f.board);
	ck_code(R(api("GET", list(&f, backlog), f.owner, NULL)), 404);
	ck_code(R(api("PUT", list(&f, backlog), f.owner, "position=0")), 404);
	ck_code(R(api("DELETE", list(&f, backlog), f.owner, NULL)), 404);
	ck_order(&f, both, 2);
	/* a label of a group above the project serves too */
	long long gid = api_group(f.owner, "private", NULL);
	long long gp = fixture_group_project(gid, 0, NULL);
	long long gl = sql_int("INSERT INTO labels (group_id, title, color) VALUES (%lld, 'g',"
			       " '#00ff00') RETURNING id",
			       gid);
	resp *gb = R(api("GET", S(fmt("/projects/%lld/boards", gp)), f.owner, NULL));
	ck_status(gb, 200);
	long long gboard = jint(json_object_array_get_idx(gb->json, 0), "id");
	ck_code(R(api("POST", S(fmt("/projects/%lld/boards/%lld/lists", gp, gboard)), f.owner,
		      S(fmt("label_id=%lld", gl)))),
		201);
}
END_TEST

START_TEST(test_boards_lists_move)
{
	fx f;
	project(&f, "public");
	long long l[4];
	for (int i = 0; i < 4; i++)
		l[i] = add_list(&f, f.owner, add_label(f.id, f.owner, S(fmt("m%d", i))));
	char *reporter = member(f.id, 20), *guest = member(f.id, 10);
	resp *r = R(api("PUT", list(&f, l[3]), reporter, "position=1"));
	ck_status(r, 200);
	ck_fields(r->json, LIST_FIELDS);
	ck_assert_int_eq(jint(r->json, "id"), l[3]);
	ck_assert_int_eq(jint(r->json, "position"), 1);
	long long o1[] = {l[0], l[3], l[1], l[2]};
	ck_order(&f, o1, 4);
	ck_code(R(api("PUT", list(&f, l[0]), f.owner, "position=3")), 200);
	long long o2[] = {l[3], l[1], l[2], l[0]};
	ck_order(&f, o2, 4);
	/* what cannot be done changes nothing */
	const char *bad[] = {"position=3", "position=4", "position=-1"};
	for (size_t i = 0; i < 3; i++)
		ck_body(R(api("PUT", list(&f, l[0]), f.owner, bad[i])), 400,
			"{\"message\":{\"error\":\"List could not be moved!\"}}");
	ck_body(R(api("PUT", list(&f, l[0]), f.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"position\\\" not given\"}");
	ck_body(R(api("PUT", list(&f, l[0]), f.owner, "position=first")), 400,
		"{\"error\":\"position is invalid\"}");
	ck_body(R(api("PUT", list(&f, l[0]), guest, "position=0")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("PUT", list(&f, l[0]), member(f.id, 0), "position=0")), 403);
	ck_code(R(api("PUT", list(&f, 999999999), f.owner, "position=0")), 404);
	ck_order(&f, o2, 4);
}
END_TEST

START_TEST(test_boards_lists_delete)
{
	fx f;
	project(&f, "private");
	long long labels[4], l[4];
	for (int i = 0; i < 4; i++) {
		labels[i] = add_label(f.id, f.owner, S(fmt("d%d", i)));
		l[i] = add_list(&f, f.owner, labels[i]);
	}
	char *reporter = member(f.id, 20), *master = member(f.id, 40);
	ck_body(R(api("DELETE", list(&f, l[1]), reporter, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	resp *r = R(api("DELETE", list(&f, l[1]), master, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	long long o1[] = {l[0], l[2], l[3]};
	ck_order(&f, o1, 3);
	ck_code(R(api("DELETE", list(&f, l[1]), master, NULL)), 404);
	ck_code(R(api("DELETE", list(&f, l[1]), reporter, NULL)), 403);
	/* the label is still there; it may have a list again, last */
	long long again = add_list(&f, f.owner, labels[1]);
	long long o2[] = {l[0], l[2], l[3], again};
	ck_order(&f, o2, 4);
	/* a label removed takes its list with it */
	char *label_d2 = S(fmt("/projects/%lld/labels?name=d2", f.id));
	ck_code(R(api("DELETE", label_d2, f.owner, NULL)), 204);
	long long o3[] = {l[0], l[3], again};
	ck_order(&f, o3, 3);
	ck_code(R(api("DELETE", list(&f, l[0]), admin_token(), NULL)), 204);
	long long o4[] = {l[3], again};
	ck_order(&f, o4, 2);
}
END_TEST

START_TEST(test_boards_pagination)
{
	fx f;
	project(&f, "private");
	long long l[5];
	for (int i = 0; i < 5; i++)
		l[i] = add_list(&f, f.owner, add_label(f.id, f.owner, S(fmt("p%d", i))));
	char *path = lists(&f, "");
	for (int page = 1; page <= 3; page++) {
		resp *r = R(api("GET", S(fmt("%s?per_page=2&page=%d", path, page)), f.owner, NULL));
		ck_status(r, 200);
		ck_assert_int_eq(json_object_array_length(r->json), page < 3 ? 2 : 1);
		json_object *first = json_object_array_get_idx(r->json, 0);
		ck_assert_int_eq(jint(first, "id"), l[(page - 1) * 2]);
		ck_pages(r, path, "", 5, 2, page);
	}
	char *boards = S(fmt("/projects/%lld/boards", f.id));
	resp *r = R(api("GET", S(fmt("%s?page=2", boards)), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	ck_pages(r, boards, "", 1, 20, 2);
	ck_body(R(api("GET", S(fmt("%s?per_page=x", path)), f.owner, NULL)), 400,
		"{\"error\":\"per_page is invalid\"}");
}
END_TEST

Suite *suite_boards(void)
{
	Suite *s = suite_create("boards");
	TCase *tc = tcase_create("boards");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_boards_default_board);
	tcase_add_test(tc, test_boards_one_default_board_at_once);
	tcase_add_test(tc, test_boards_lists_create_show);
	tcase_add_test(tc, test_boards_lists_move);
	tcase_add_test(tc, test_boards_lists_delete);
	tcase_add_test(tc, test_boards_pagination);
	suite_add_tcase(s, tc);
	return s;
}
