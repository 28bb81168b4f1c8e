/* Git smart HTTP: the access question nginx asks before it hands a git request to
 * git-http-backend (auth_request to /_internal/git-auth, nginx/collabd.conf). collabd
 * finds the project with the caller's access (auth/scope.c, as every API route) and
 * answers where its repository is, so that the path on disk never comes from the URL:
 *   200 + X-Collabd-Repo: /@hashed/ab/cd/<h>.git (under X-Collabd-Root),
 *         X-Collabd-Root: <storage>/repositories of the project's storage
 *         (core/storages.h; git-http-backend's GIT_PROJECT_ROOT),
 *         X-Collabd-User: user-<id> (empty when anonymous), X-Collabd-Project: <id>
 *   401 + WWW-Authenticate: Basic        no credentials (or bad ones) and not allowed
 *   403                                  visible, but not allowed (pull or push)
 *   403 + X-Collabd-Status: 404          not found, or not visible to the caller (nginx
 *                                        answers 404: auth_request passes on only 401
 *                                        and 403)
 *   403                                  an info/refs query naming more than one
 *                                        service, or another than git's two
 * A 503 (database down) is made a 503 for git by nginx (@collabd_git_auth_unavailable).
 * Credentials: HTTP Basic with a personal access, impersonation or private token (the
 * username is not checked against a token, as GitLab 10), "oauth2" and an OAuth token,
 * or else a username and its password (tried last, as GitLab 10: its hash is slow);
 * gitlab-ci-token and a running job's token (api/runner.c) pulls the job's project and
 * what the job's user may read, never pushes, and stops when the job ends. Pull: anyone who may see a public or
 * internal project, reporters and up of a private one; push: developers and up, not on
 * an archived project. Protected branches are the pre-receive hook's (git/hooks.c).
 * <full path>.wiki[.git] is the project's wiki (unless a project has that path), with
 * the wiki's rules (auth/access.h): pull for whoever sees the project, push for
 * developers and up, neither while wiki_enabled is off; X-Collabd-Repo then names
 * <h>.wiki.git, made empty by its first use. */
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "db/settings.h"
#include "core/crypto.h"
#include "core/log.h"
#include "db/activity.h"
#include "git/repo.h"

/* The token's user (no OAuth token unless oauth): id, admin, external, whether a pull
 * is the day's first activity (db/activity.h). Blocked users,
 * revoked and expired tokens, and tokens without the api scope find nothing. */
#define GIT_TOKEN_USER                                                                                       \
	"SELECT u.id, u.is_admin, u.external, " SQL_ACTIVITY_STALE(                                          \
		"u") " FROM tokens t"                                                                        \
		     " JOIN users u ON u.id = t.user_id"                                                     \
		     " WHERE t.digest = $1 AND (t.kind = 'oauth') = $2::boolean AND NOT t.revoked"           \
		     " AND (t.expires_at IS NULL OR t.expires_at > current_date) AND 'api' = ANY (t.scopes)" \
		     " AND u.state = 'active' AND NOT u.ghost"

/* The user rows: id, admin, external, activity stale, then the job's project
 * (git_job_user) or the password hash (git_password_user) */
enum {
	GU_ID,
	GU_ADMIN,
	GU_EXTERNAL,
	GU_ACTIVITY_STALE,
	GU_NCOLS,
	GU_JOB_PROJECT = GU_NCOLS,
	GU_PASSWORD_HASH = GU_NCOLS,
	GU_MORE_NCOLS
};

const db_stmt git_http_stmts[] = {
	{"git_token_user", GIT_TOKEN_USER, 2, GU_NCOLS},
	/* $1 a job token's digest: the running job's user (id, admin, external; no activity:
	 * a job's pull is not its user's) and project */
	{"git_job_user",
	 "SELECT u.id, u.is_admin, u.external, false, b.project_id FROM ci_builds b"
	 " JOIN commit_statuses cs ON cs.id = b.id JOIN ci_pipelines pl ON pl.id = b.pipeline_id"
	 " JOIN users u ON u.id = coalesce(cs.author_id, pl.user_id)"
	 " WHERE b.token_digest = $1 AND cs.status = 'running' AND u.state = 'active'"
	 " AND NOT u.ghost",
	 1, GU_MORE_NCOLS},
	/* $1 username or email: id, admin, external, activity stale, password hash */
	{"git_password_user",
	 "SELECT u.id, u.is_admin, u.external, " SQL_ACTIVITY_STALE(
		 "u") ", u.password_hash"
		      " FROM users u WHERE (lower(u.username) = lower($1) OR lower(u.email) = lower($1))"
		      " AND u.state = 'active' AND NOT u.ghost",
	 1, GU_MORE_NCOLS},
	{NULL, NULL, 0, 0},
};

/* The row (id, admin, external first) of the user that login and password name: with
 * the user gitlab-ci-token and a running job's token, the job's user, and the job's
 * project in *job_project; else a token's user, or a user and their password (tried last,
 * as GitLab 10's find_for_git_client: the password hash is slow on purpose, and most git
 * clients send a token). 0 with *out, ERR_UNAUTHORIZED when they do not match. */
static int credentials_user(request *r, const char *login, const char *password, PGresult **out,
			    const char **job_project)
{
	int err;
	PGresult *res;
	const char *digest = crypto_sha256_hex(r->ctx.a, password, strlen(password));
	if (strcmp(login, "gitlab-ci-token") == 0) {
		if (!(res = db_query(&r->ctx, "git_job_user", 1, &digest, &err)))
			return err;
		if (PQntuples(res) != 1)
			return ERR_UNAUTHORIZED;
		*job_project = db_val(res, 0, GU_JOB_PROJECT);
		*out = res;
		return 0;
	}
	bool oauth = strcmp(login, "oauth2") == 0;
	const char *tv[2] = {digest, oauth ? "true" : "false"};
	if (!(res = db_query(&r->ctx, "git_token_user", 2, tv, &err)))
		return err;
	if (PQntuples(res) != 1) {
		/* GitLab 10.8's find_with_user_password: no password tried while the
		 * application settings' password_authentication_enabled_for_git is off */
		if (oauth || !settings_password_authentication_for_git(&r->ctx))
			return ERR_UNAUTHORIZED;
		const char *v[1] = {login};
		if (!(res = db_query(&r->ctx, "git_password_user", 1, v, &err)))
			return err;
		if (PQntuples(res) != 1 ||
		    !crypto_password_check(password, db_val(res, 0, GU_PASSWORD_HASH)))
			return ERR_UNAUTHORIZED;
	}
	*out = res;
	return 0;
}

/* The caller of the Basic credentials in header h: 0 with *out (NULL when none were
 * sent), ERR_UNAUTHORIZED when they do not match; *job_project as credentials_user's,
 * *stale whether the caller has no activity recorded today. */
static int basic_caller(request *r, const char *h, caller **out, const char **job_project,
			bool *stale)
{
	*out = NULL;
	*job_project = NULL;
	*stale = false;
	if (!h || !*h)
		return 0;
	if (strncasecmp(h, "Basic ", 6) != 0)
		return ERR_UNAUTHORIZED;
	unsigned char *raw;
	size_t n;
	const char *b64 = h + 6;
	while (*b64 == ' ')
		b64++;
	if (crypto_base64_decode(r->ctx.a, b64, &raw, &n) < 0 || memchr(raw, '\0', n))
		return ERR_UNAUTHORIZED;
	char *login = arena_strndup(r->ctx.a, (const char *)raw, n);
	char *password = strchr(login, ':');
	if (!password)
		return ERR_UNAUTHORIZED;
	*password++ = '\0';
	if (!*login || !*password)
		return ERR_UNAUTHORIZED;
	PGresult *res = NULL;
	int rc = credentials_user(r, login, password, &res, job_project);
	if (rc < 0)
		return rc;
	caller *c = arena_alloc(r->ctx.a, sizeof(*c));
	memset(c, 0, sizeof(*c));
	c->id = db_int(res, 0, GU_ID);
	c->admin = db_bool(res, 0, GU_ADMIN);
	c->external = db_bool(res, 0, GU_EXTERNAL);
	*stale = db_bool(res, 0, GU_ACTIVITY_STALE);
	*out = c;
	return 0;
}

static int unauthorized(request *r)
{
	respond_header(r, "WWW-Authenticate", "Basic realm=\"collabd\"");
	return ERR_UNAUTHORIZED;
}

static int not_found(request *r)
{
	respond_header(r, "X-Collabd-Status", "404");
	return fail(r, ERR_FORBIDDEN, "404 Project Not Found");
}

/* Whether the query of an info/refs request names one service, git's upload-pack or
 * receive-pack (*push for the latter), or none (the dumb protocol, which only reads).
 * git-http-backend decodes the parameters' names and values and serves the last
 * "service": a query naming two would be authorised for one and served as the other, so
 * more than one, or any other, is no request to answer. */
static bool info_refs_service(request *r, const char *query, bool *push)
{
	int seen = 0;
	*push = false;
	for (const char *p = query; p && *p;) {
		const char *amp = strchr(p, '&');
		size_t len = amp ? (size_t)(amp - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		size_t klen = eq ? (size_t)(eq - p) : len;
		const char *key = url_decode(r->ctx.a, p, klen, true);
		if (!key)
			return false;
		if (strcmp(key, "service") == 0) {
			const char *value = eq ? url_decode(r->ctx.a, eq + 1, len - klen - 1, true)
					       : "";
			if (!value || ++seen > 1)
				return false;
			if (strcmp(value, "git-receive-pack") == 0)
				*push = true;
			else if (strcmp(value, "git-upload-pack") != 0)
				return false;
		}
		p = amp ? amp + 1 : NULL;
	}
	return true;
}

enum { GIT_URI_OK, GIT_URI_NONE, GIT_URI_BAD_SERVICE };

/* Splits the git request's URI (/<full path>[.git]/<operation>?<query>) into the
 * project's full path (decoded) and whether it pushes: GIT_URI_OK, GIT_URI_NONE when it
 * is no smart HTTP request of a project, GIT_URI_BAD_SERVICE when its service is not
 * one (info_refs_service). */
static int parse_git_uri(request *r, const char *method, const char *uri, const char **full,
			 bool *push)
{
	static const char *const ops[] = {"/info/refs", "/git-upload-pack", "/git-receive-pack"};
	const char *q = strchr(uri, '?');
	size_t len = q ? (size_t)(q - uri) : strlen(uri);
	int op = -1;
	for (int i = 0; i < 3 && op < 0; i++) {
		size_t n = strlen(ops[i]);
		if (len > n && strncmp(uri + len - n, ops[i], n) == 0) {
			op = i;
			len -= n;
		}
	}
	if (op < 0 || uri[0] != '/')
		return GIT_URI_NONE;
	if (len > 5 && strncmp(uri + len - 4, ".git", 4) == 0)
		len -= 4;
	char *path = url_decode(r->ctx.a, uri + 1, len - 1, false);
	if (!path || !*path)
		return GIT_URI_NONE;
	*full = path;
	*push = op == 2;
	(void)method;
	if (op == 0 && !info_refs_service(r, q ? q + 1 : NULL, push))
		return GIT_URI_BAD_SERVICE;
	return GIT_URI_OK;
}

static int git_auth(request *r)
{
	/* only through nginx's internal location: no client can set this parameter */
	const char *method = request_header(r, "COLLABD_GIT_METHOD");
	const char *uri = request_header(r, "COLLABD_GIT_URI");
	if (!request_header(r, "COLLABD_GIT_AUTH") || !method || !uri)
		return ERR_NO_ROUTE;
	const char *full;
	bool push;
	int parsed = parse_git_uri(r, method, uri, &full, &push);
	if (parsed == GIT_URI_NONE)
		return not_found(r);
	if (parsed == GIT_URI_BAD_SERVICE) /* before anyone is asked about: nothing to find */
		return fail(r, ERR_FORBIDDEN, "Unsupported service");
	caller *c;
	const char *job_project;
	bool stale;
	int rc = basic_caller(r, request_header(r, "HTTP_AUTHORIZATION"), &c, &job_project, &stale);
	if (rc == ERR_UNAUTHORIZED)
		return unauthorized(r);
	if (rc < 0)
		return rc;
	r->ctx.user = c;
	project_scope p;
	bool wiki;
	rc = scope_project_repository(&r->ctx, full, &p, &wiki);
	if (rc == ERR_NOT_FOUND)
		return c ? not_found(r) : unauthorized(r);
	if (rc < 0)
		return rc;
	bool allowed = can_git(&p.pa, p.visibility, p.wiki_enabled, c, wiki, push);
	if (job_project) {
		/* a job's token reads its own project's code, and what its user may read;
		 * it never pushes (GitLab 10's build abilities) */
		if (push)
			return fail(r, ERR_FORBIDDEN, "You are not allowed to upload code.");
		allowed = allowed || (!wiki && strcmp(p.id, job_project) == 0);
	}
	if (!allowed && !c)
		return unauthorized(r);
	if (!allowed) /* GitLab's words */
		return fail(r, ERR_FORBIDDEN,
			    !push  ? "You are not allowed to download code from this project."
			    : wiki ? "You are not allowed to write to this project's wiki."
				   : "You are not allowed to push code to this project.");
	/* a user's pull is their activity of the day (GitLab 10.8's git_http_controller);
	 * not recording it is no reason to refuse the pull */
	if (c && stale && !push && !job_project && db_activity_record(&r->ctx, c->id) < 0)
		log_warn("git: the activity of user %lld not recorded", c->id);
	/* a wiki is made by its first use, as GitLab makes it when it is first asked for */
	if (wiki && repo_wiki_create(&r->ctx, p.id) < 0)
		return ERR_INTERNAL;
	const char *storage = repo_storage_dir(&r->ctx, p.id);
	if (!storage)
		return ERR_INTERNAL;
	respond_header(r, "X-Collabd-Root", arena_printf(r->ctx.a, "%s/repositories", storage));
	respond_header(r, "X-Collabd-Repo",
		       arena_printf(r->ctx.a, "%s%s",
				    repo_relative(&r->ctx, p.id) + strlen("repositories"),
				    wiki ? ".wiki.git" : ".git"));
	respond_header(r, "X-Collabd-User", c ? arena_printf(r->ctx.a, "user-%lld", c->id) : "");
	respond_header(r, "X-Collabd-Project", p.id);
	respond_empty(r, 200);
	return 0;
}

const route git_http_routes[] = {
	/* on the primary: a project or key made a moment ago is there, and a pull records
	 * the user's activity */
	{"GET", "/_internal/git-auth", git_auth, ROUTE_NO_AUTH | ROUTE_PRIMARY, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
