/* A small HTTP client for the API suites (libcurl + json-c), and fixtures that make
 * users and tokens through the API itself. */
#ifndef COLLABD_TEST_CLIENT_H
#define COLLABD_TEST_CLIENT_H

#include <check.h>
#include <json-c/json.h>
#include <stdbool.h>

typedef struct {
	long status;
	char *body; /* raw body, NUL-terminated ("" when none) */
	size_t body_len;
	json_object *json; /* parsed body, NULL when not JSON */
	char *headers;     /* raw response headers */
	char *content_type;
} resp;

/* Base URL of the stack (COLLABD_URL) and the admin's private token. */
const char *api_url(void);
const char *admin_token(void);

/* METHOD /api/v4<path> with the token sent as PRIVATE-TOKEN (NULL: none) and an
 * optional application/x-www-form-urlencoded body. path may carry a query string. */
resp *api(const char *method, const char *path, const char *token, const char *form);
/* Same with a JSON body. */
resp *api_json(const char *method, const char *path, const char *token, const char *json);
/* Full control: url is absolute; headers is a NULL-terminated list of "Name: value". */
resp *http_request(const char *method, const char *url, const char *const *headers,
		   const char *body, size_t body_len, const char *content_type);
/* printf into a static-per-call buffer owned by the caller (free it). */
char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* URL-encodes s (caller frees). */
char *enc(const char *s);

/* Value of a response header (case-insensitive name), in a buffer the resp owns. */
const char *resp_header(resp *r, const char *name);
/* Members of the JSON body. */
const char *jstr(json_object *o, const char *key);
long long jint(json_object *o, const char *key);
bool jbool(json_object *o, const char *key);
bool jnull(json_object *o, const char *key);
bool jhas(json_object *o, const char *key);
json_object *jget(json_object *o, const char *key);
void resp_free(resp *r);

/* A unique name with the given prefix (prefix + counter + pid + random). */
char *unique(const char *prefix);
/* Creates a user through POST /users (as admin) and an impersonation token with the
 * api scope for it; returns the token (caller frees) and the id in *id. */
char *make_user(const char *prefix, long long *id, char **username);
/* Same, with admin rights. */
char *make_admin(const char *prefix, long long *id);

/* Asserts status and, when not NULL, the exact JSON of a string member. */
#define ck_status(r, s)                                                                            \
	ck_assert_msg((r)->status == (s), "expected %d, got %ld: %s", (s), (r)->status, (r)->body)

/* ---- helpers of the auth, conventions and broadcast suites ---- */

/* METHOD /api/v4<path> with extra headers (NULL-terminated "Name: value" list, may be
 * NULL) and an optional body of the given content type. */
resp *api_h(const char *method, const char *path, const char *const *headers, const char *body,
	    const char *content_type);
/* `$COLLABD_BIN token-create USERNAME --scopes SCOPES [--expires DATE]`: the personal
 * access token it prints (caller frees); asserts that the command succeeds. */
char *cli_personal_token(const char *username, const char *scopes, const char *expires);
/* `$COLLABD_BIN private-token USERNAME`: the user's private token (caller frees). */
char *cli_private_token(const char *username);
/* POST /oauth/token with the password grant: the access token (caller frees), or NULL
 * when the grant is refused. */
char *oauth_password_token(const char *login, const char *password);
/* Asserts that the JSON string member key of r's body is exactly want. */
#define ck_jstr(r, key, want)                                                                      \
	do {                                                                                       \
		const char *v_ = jstr((r)->json, (key));                                           \
		ck_assert_msg(v_ &&strcmp(v_, (want)) == 0, "%s: expected \"%s\", got %s in %s",   \
			      (key), (want), v_ ? v_ : "(none)", (r)->body);                       \
	} while (0)
/* Asserts that header name of r is exactly want (NULL: absent). */
#define ck_header(r, name, want)                                                                   \
	do {                                                                                       \
		const char *h_ = resp_header((r), (name));                                         \
		const char *w_ = (want);                                                           \
		ck_assert_msg(w_ ? h_ &&strcmp(h_, w_) == 0 : !h_,                                 \
			      "header %s: expected %s, got %s", (name), w_ ? w_ : "(absent)",      \
			      h_ ? h_ : "(absent)");                                               \
	} while (0)

/* ---- helpers of the users and keys suites ---- */

/* Asserts r's status and that its body is the JSON value json (member order aside). */
#define ck_body(r, status, json) ck_body_at(__FILE__, __LINE__, (r), (status), (json))
/* Asserts that o is an object whose members are exactly names (NULL-terminated). */
#define ck_fields(o, names) ck_fields_at(__FILE__, __LINE__, (o), (names))
/* Asserts every pagination header of a list response of GET /api/v4<path>?<query>:
 * X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page, and Link with
 * prev, next, first, last in that order. query is the request's query without page and
 * per_page, in request order ("" or "a=1&b=2"). */
#define ck_pages(r, path, query, total, per_page, page)                                            \
	ck_pages_at(__FILE__, __LINE__, (r), (path), (query), (total), (per_page), (page))
/* ck_status for an expression with side effects (evaluated once). */
#define ck_code(r, status) ck_code_at(__FILE__, __LINE__, (r), (status))
/* The same, naming the caller's file and line in the failure message. */
void ck_code_at(const char *file, int line, resp *r, long status);
void ck_body_at(const char *file, int line, resp *r, long status, const char *json);
void ck_fields_at(const char *file, int line, json_object *o, const char *const *names);
void ck_pages_at(const char *file, int line, resp *r, const char *path, const char *query,
		 long long total, long long per_page, long long page);

/* ---- helpers of the notifications and events suites ---- */

/* Runs SQL (printf format) on the stack's database (COLLABD_DATABASE_URL) with psql, for
 * fixtures the API cannot make; the first column of the first row it prints (caller
 * frees; "" when none). Asserts that psql succeeds. */
char *sql_value(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* The same, as an integer (asserts that it is one). */
long long sql_int(const char *f, ...) __attribute__((format(printf, 1, 2)));

/* A project (POST /projects) made by the token's user, with visibility private,
 * internal or public; its id, and its full path in *full_path (caller frees) unless
 * NULL. api_group: the same for a top-level group (POST /groups). fixture_project is
 * api_project. */
long long api_project(const char *token, const char *visibility, char **full_path);
long long api_group(const char *token, const char *visibility, char **full_path);
long long fixture_project(const char *token, const char *visibility, char **full_path);

/* Fixtures in SQL (visibility 0 private, 10 internal, 20 public): a top-level group, a
 * membership ('Project' or 'Namespace'; sql_member is the same), a project in a group,
 * and a subgroup; full_path (caller frees) may be NULL. */
long long fixture_group(int visibility, char **full_path);
void fixture_member(const char *source_type, long long source_id, long long user_id, int level);
void sql_member(const char *source_type, long long source_id, long long user_id, int level);
long long fixture_group_project(long long group_id, int visibility, char **full_path);
long long fixture_subgroup(long long parent_id, int visibility, char **full_path);

/* Repositories are stored by project id: the absolute path of project_id's repository
 * (<storage>/repositories/@hashed/ab/cd/<sha256 of the id>.git on its storage: the
 * stack's "second" is COLLABD_DIR/storage2), of the live project at
 * full path ns/path (asserts that there is one), and the number of repositories (and
 * wikis) under the storage path. Callers free the paths. */
char *repo_dir_of(long long project_id);
char *repo_dir_at(const char *full_path);
long long repo_count(void);
/* Waits (at most 30 s) until path is gone, as the background process removes the
 * repositories of removed projects: true when it is. */
bool wait_gone(const char *path);

/* A project (scope 0) or a group (scope 1) made through the API by a new user, its
 * owner, for the suites that test both scopes alike. */
typedef struct {
	bool project;
	long long id;
	char *path; /* full path */
	long long owner;
	char *owner_name;
	char *owner_token;
} fx_source;
void fixture_source(fx_source *out, int scope, int visibility);
/* Frees the strings of s (not s itself). */
void fixture_source_free(fx_source *s);
/* "/projects/<id><suffix>" or "/groups/<id><suffix>" (caller frees). */
char *source_path(const fx_source *s, const char *suffix);

/* ---- what a test allocates, released by the checked teardown ----
 * S(s) and R(r) keep a string or a response (and return it) until release(), which the
 * suites add as their test cases' checked teardown. */
char *S(char *s);
resp *R(resp *r);
void release(void);

/* ---- a list's fast statement against its general one ---- */

/* Asserts that a and b have the same status and body, and (what names them in the
 * message) the same pagination headers but Link, whose query differs: present in both
 * when the status is a success, else equal or absent from both. */
#define ck_same_answer(a, b, what) ck_same_answer_at(__FILE__, __LINE__, (a), (b), (what))
void ck_same_answer_at(const char *file, int line, resp *a, resp *b, const char *what);
/* GET path_a and path_b, each with pages appended (per_page and page, after ? or & as
 * the path needs), as token: ck_same_answer of the two. */
void ck_same_list(const char *path_a, const char *path_b, const char *token, const char *pages);

/* ---- tracker fixtures (notes and award emoji suites) ----
 * Issues and snippets made in SQL while their create endpoints are being written: the
 * one place to switch to POST /projects/:id/issues and /snippets. */

/* An open issue of project_id by author_id titled title, its iid from next_iid(); its
 * id, and its iid in *iid unless NULL. */
long long fixture_issue(long long project_id, long long author_id, const char *title,
			bool confidential, long long *iid);
/* Adds assignee user_id to issue_id; locks or unlocks the issue's discussion. */
void fixture_issue_assign(long long issue_id, long long user_id);
void fixture_issue_lock(long long issue_id, bool locked);
/* A snippet of project_id by author_id, visibility 0 private, 10 internal, 20 public. */
long long fixture_snippet(long long project_id, long long author_id, int visibility);

/* Waits (at most 30 s) for the `push` background job of ref (refs/heads/...) of
 * project_id to have been recorded (to after, a commit id, unless NULL): pending in
 * background_jobs, or run (the background process logs "push job: project <id> <ref>
 * <after>: ..." in the instances' logs). True when it was. */
bool push_job_seen(long long project_id, const char *ref, const char *after);

/* ---- helpers of the git suites (git over HTTP and over SSH) ---- */

/* A scratch directory for clones, also git's HOME (a .gitconfig that names the
 * committer and makes master the default branch); caller frees with git_work_remove,
 * which removes it. */
char *git_work_new(void);
void git_work_remove(char *work);
/* Runs the shell command `git ARGS` (ARGS from f) in work with git's prompts off: its
 * exit status, and its output (stdout and stderr) in *out when out is not NULL (caller
 * frees). The environment passes on (GIT_SSH_COMMAND). */
int git_sh(const char *work, char **out, const char *f, ...) __attribute__((format(printf, 3, 4)));

/* ---- ref names ---- */

/* Names no branch or tag may have (DESIGN.md's one ref name check), NULL-terminated:
 * options to a git command line, git's own names, DEL and each of check-ref-format's
 * rules broken once. None has '*' (a protected branch's wildcard). Send them with enc. */
extern const char *const bad_ref_names[];
/* Puts branches git itself takes but the API must not (-D, --all, --upload-pack=id, -, @)
 * into the project's repository at its master, with git update-ref, so that a test of a
 * bad name sees it refused for the name, not because no such branch exists. */
void put_bad_branches(long long project_id);

#endif
