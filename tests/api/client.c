#include "client.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *api_url(void)
{
	const char *u = getenv("COLLABD_URL");
	return u ? u : "http://127.0.0.1:8080";
}

const char *admin_token(void)
{
	const char *t = getenv("COLLABD_ADMIN_TOKEN");
	return t ? t : "";
}

char *fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = NULL;
	if (vasprintf(&s, f, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

char *enc(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *out = strdup(e);
	curl_free(e);
	return out;
}

struct sink {
	char *data;
	size_t len;
	size_t cap; /* of data */
};

static size_t collect(char *p, size_t size, size_t n, void *ud)
{
	struct sink *s = ud;
	size_t add = size * n;
	/* doubling: a body of megabytes comes in pieces of 16 KiB, and a copy of all so far
	 * for each (as ASan's realloc does) would make reading it quadratic */
	if (s->len + add + 1 > s->cap) {
		size_t cap = s->cap < 64 ? 64 : s->cap;
		while (cap < s->len + add + 1)
			cap *= 2;
		s->data = realloc(s->data, cap);
		s->cap = cap;
	}
	memcpy(s->data + s->len, p, add);
	s->len += add;
	s->data[s->len] = '\0';
	return add;
}

resp *http_request(const char *method, const char *url, const char *const *headers,
		   const char *body, size_t body_len, const char *content_type)
{
	CURL *c = curl_easy_init();
	struct sink b = {calloc(1, 1), 0, 1}, h = {calloc(1, 1), 0, 1};
	struct curl_slist *list = NULL;
	for (int i = 0; headers && headers[i]; i++)
		list = curl_slist_append(list, headers[i]);
	char *ct = NULL;
	if (content_type) {
		ct = fmt("Content-Type: %s", content_type);
		list = curl_slist_append(list, ct);
	}
	list = curl_slist_append(list, "Expect:");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (strcmp(method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)body_len);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	CURLcode rc = curl_easy_perform(c);
	resp *r = calloc(1, sizeof(*r));
	if (rc != CURLE_OK) {
		r->status = -1;
		free(b.data);
		r->body = strdup(curl_easy_strerror(rc));
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
		r->body = b.data;
		r->body_len = b.len;
		r->json = b.len ? json_tokener_parse(b.data) : NULL;
	}
	r->headers = h.data;
	curl_slist_free_all(list);
	curl_easy_cleanup(c);
	free(ct);
	return r;
}

static resp *api_with(const char *method, const char *path, const char *token, const char *body,
		      const char *ctype)
{
	char *url = fmt("%s/api/v4%s", api_url(), path);
	char *auth = token ? fmt("PRIVATE-TOKEN: %s", token) : NULL;
	const char *headers[] = {auth, NULL};
	resp *r = http_request(method, url, headers, body, body ? strlen(body) : 0,
			       body ? ctype : NULL);
	free(url);
	free(auth);
	return r;
}

resp *api(const char *method, const char *path, const char *token, const char *form)
{
	return api_with(method, path, token, form, "application/x-www-form-urlencoded");
}

resp *api_json(const char *method, const char *path, const char *token, const char *json)
{
	return api_with(method, path, token, json, "application/json");
}

const char *resp_header(resp *r, const char *name)
{
	size_t n = strlen(name);
	for (char *line = r->headers; line && *line;) {
		char *end = strstr(line, "\r\n");
		if (!end)
			break;
		if (strncasecmp(line, name, n) == 0 && line[n] == ':') {
			char *v = line + n + 1;
			while (*v == ' ')
				v++;
			free(r->content_type);
			r->content_type = strndup(v, (size_t)(end - v));
			return r->content_type;
		}
		line = end + 2;
	}
	return NULL;
}

json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

const char *jstr(json_object *o, const char *key)
{
	json_object *v = jget(o, key);
	return v ? json_object_get_string(v) : NULL;
}

long long jint(json_object *o, const char *key)
{
	json_object *v = jget(o, key);
	return v ? json_object_get_int64(v) : -1;
}

bool jbool(json_object *o, const char *key)
{
	json_object *v = jget(o, key);
	return v && json_object_get_boolean(v);
}

bool jhas(json_object *o, const char *key)
{
	json_object *v;
	return o && json_object_object_get_ex(o, key, &v);
}

bool jnull(json_object *o, const char *key)
{
	return jhas(o, key) && jget(o, key) == NULL;
}

void resp_free(resp *r)
{
	if (!r)
		return;
	free(r->body);
	free(r->headers);
	free(r->content_type);
	json_object_put(r->json);
	free(r);
}

char *unique(const char *prefix)
{
	static int counter;
	static unsigned seed;
	if (!seed)
		seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	return fmt("%s%d_%d_%u", prefix, ++counter, (int)getpid(),
		   (unsigned)rand_r(&seed) % 100000);
}

static char *user_token(const char *prefix, long long *id, char **username, bool admin)
{
	char *name = unique(prefix);
	char *form = fmt("username=%s&email=%s%%40example.com&name=%s&password=secret1234&"
			 "skip_confirmation=true&admin=%s",
			 name, name, name, admin ? "true" : "false");
	resp *r = api("POST", "/users", admin_token(), form);
	ck_assert_msg(r->status == 201, "make_user: %ld %s", r->status, r->body);
	long long uid = jint(r->json, "id");
	resp_free(r);
	free(form);
	char *path = fmt("/users/%lld/impersonation_tokens", uid);
	r = api("POST", path, admin_token(), "name=test&scopes%5B%5D=api");
	ck_assert_msg(r->status == 201, "make_user token: %ld %s", r->status, r->body);
	char *token = strdup(jstr(r->json, "token"));
	resp_free(r);
	free(path);
	if (id)
		*id = uid;
	if (username)
		*username = name;
	else
		free(name);
	return token;
}

char *make_user(const char *prefix, long long *id, char **username)
{
	return user_token(prefix, id, username, false);
}

char *make_admin(const char *prefix, long long *id)
{
	return user_token(prefix, id, NULL, true);
}

/* ---- helpers of the auth, conventions and broadcast suites ---- */

resp *api_h(const char *method, const char *path, const char *const *headers, const char *body,
	    const char *content_type)
{
	char *url = fmt("%s/api/v4%s", api_url(), path);
	resp *r = http_request(method, url, headers, body, body ? strlen(body) : 0,
			       body ? content_type : NULL);
	free(url);
	return r;
}

/* Runs a collabd command line and returns its first output line (caller frees). */
static char *cli_line(const char *args)
{
	const char *bin = getenv("COLLABD_BIN");
	ck_assert_msg(bin && getenv("COLLABD_CONFIG"),
		      "COLLABD_BIN and COLLABD_CONFIG must be set");
	char *cmd = fmt("'%s' %s", bin, args);
	FILE *f = popen(cmd, "r");
	ck_assert_msg(f != NULL, "popen %s", cmd);
	char line[512] = "";
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	int rc = pclose(f);
	ck_assert_msg(rc == 0 && line[0], "%s: exit %d, output \"%s\"", cmd, rc, line);
	line[strcspn(line, "\r\n")] = '\0';
	free(cmd);
	return strdup(line);
}

char *cli_personal_token(const char *username, const char *scopes, const char *expires)
{
	char *args = expires ? fmt("token-create '%s' --scopes '%s' --expires '%s'", username,
				   scopes, expires)
			     : fmt("token-create '%s' --scopes '%s'", username, scopes);
	char *t = cli_line(args);
	free(args);
	return t;
}

char *cli_private_token(const char *username)
{
	char *args = fmt("private-token '%s'", username);
	char *t = cli_line(args);
	free(args);
	return t;
}

char *oauth_password_token(const char *login, const char *password)
{
	char *l = enc(login), *p = enc(password);
	char *body = fmt("grant_type=password&username=%s&password=%s", l, p);
	char *url = fmt("%s/oauth/token", api_url());
	resp *r = http_request("POST", url, NULL, body, strlen(body),
			       "application/x-www-form-urlencoded");
	const char *t = r->status == 200 ? jstr(r->json, "access_token") : NULL;
	char *token = t ? strdup(t) : NULL;
	resp_free(r);
	free(url);
	free(body);
	free(l);
	free(p);
	return token;
}

/* ---- helpers of the users and keys suites ---- */

void ck_code_at(const char *file, int line, resp *r, long status)
{
	ck_assert_msg(r->status == status, "%s:%d: expected %ld, got %ld: %s", file, line, status,
		      r->status, r->body);
}

void ck_body_at(const char *file, int line, resp *r, long status, const char *json)
{
	json_object *want = json_tokener_parse(json);
	ck_assert_msg(want != NULL, "%s:%d: bad expected JSON %s", file, line, json);
	ck_assert_msg(r->status == status && r->json && json_object_equal(r->json, want),
		      "%s:%d: expected %ld %s, got %ld %s", file, line, status, json, r->status,
		      r->body);
	json_object_put(want);
}

void ck_fields_at(const char *file, int line, json_object *o, const char *const *names)
{
	ck_assert_msg(o && json_object_is_type(o, json_type_object), "%s:%d: not an object: %s",
		      file, line, o ? json_object_to_json_string(o) : "(null)");
	size_t n = 0;
	for (; names[n]; n++)
		ck_assert_msg(jhas(o, names[n]), "%s:%d: member %s missing in %s", file, line,
			      names[n], json_object_to_json_string(o));
	json_object_object_foreach(o, key, val)
	{
		(void)val;
		bool listed = false;
		for (size_t i = 0; i < n && !listed; i++)
			listed = strcmp(names[i], key) == 0;
		ck_assert_msg(listed, "%s:%d: unexpected member %s in %s", file, line, key,
			      json_object_to_json_string(o));
	}
}

static char *page_link(const char *path, const char *query, long long page, long long per_page,
		       const char *rel)
{
	return fmt("<%s/api/v4%s?%s%spage=%lld&per_page=%lld>; rel=\"%s\"", api_url(), path, query,
		   *query ? "&" : "", page, per_page, rel);
}

static void ck_header_at(const char *file, int line, resp *r, const char *name, char *want)
{
	const char *h = resp_header(r, name);
	ck_assert_msg(h && strcmp(h, want) == 0, "%s:%d: header %s: expected \"%s\", got %s%s%s",
		      file, line, name, want, h ? "\"" : "", h ? h : "(absent)", h ? "\"" : "");
	free(want);
}

void ck_pages_at(const char *file, int line, resp *r, const char *path, const char *query,
		 long long total, long long per_page, long long page)
{
	long long pages = total ? (total + per_page - 1) / per_page : 1;
	bool prev = page > 1 && page <= pages;
	ck_header_at(file, line, r, "X-Total", fmt("%lld", total));
	ck_header_at(file, line, r, "X-Total-Pages", fmt("%lld", pages));
	ck_header_at(file, line, r, "X-Per-Page", fmt("%lld", per_page));
	ck_header_at(file, line, r, "X-Page", fmt("%lld", page));
	ck_header_at(file, line, r, "X-Next-Page",
		     page < pages ? fmt("%lld", page + 1) : strdup(""));
	ck_header_at(file, line, r, "X-Prev-Page", prev ? fmt("%lld", page - 1) : strdup(""));
	char *p = prev ? page_link(path, query, page - 1, per_page, "prev") : strdup("");
	char *n = page < pages ? page_link(path, query, page + 1, per_page, "next") : strdup("");
	char *f = page_link(path, query, 1, per_page, "first");
	char *l = page_link(path, query, pages, per_page, "last");
	ck_header_at(file, line, r, "Link",
		     fmt("%s%s%s%s%s, %s", p, *p ? ", " : "", n, *n ? ", " : "", f, l));
	free(p);
	free(n);
	free(f);
	free(l);
}

/* ---- helpers of the notifications and events suites ---- */

char *sql_value(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *sql = NULL;
	if (vasprintf(&sql, f, ap) < 0)
		abort();
	va_end(ap);
	const char *url = getenv("COLLABD_DATABASE_URL");
	ck_assert_msg(url != NULL, "COLLABD_DATABASE_URL must be set");
	char path[] = "/tmp/collabd-sql.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp");
	FILE *w = fdopen(fd, "w");
	fputs(sql, w);
	fclose(w);
	char *cmd = fmt("psql '%s' -XAtq -v ON_ERROR_STOP=1 -f '%s' 2>&1", url, path);
	FILE *p = popen(cmd, "r");
	ck_assert_msg(p != NULL, "popen %s", cmd);
	struct sink out = {calloc(1, 1), 0, 1};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		collect(chunk, 1, n, &out);
	int rc = pclose(p);
	unlink(path);
	ck_assert_msg(rc == 0, "psql failed on %s: %s", sql, out.data);
	out.data[strcspn(out.data, "\n")] = '\0';
	free(cmd);
	free(sql);
	return out.data;
}

long long sql_int(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *sql = NULL;
	if (vasprintf(&sql, f, ap) < 0)
		abort();
	va_end(ap);
	char *v = sql_value("%s", sql);
	char *end;
	long long n = strtoll(v, &end, 10);
	ck_assert_msg(*v && !*end, "not an integer: \"%s\" from %s", v, sql);
	free(v);
	free(sql);
	return n;
}

long long fixture_group(int visibility, char **full_path)
{
	char *path = unique("grp");
	long long id =
		sql_int("INSERT INTO namespaces (kind, name, path, full_path, full_name,"
			" visibility) VALUES ('group', '%s', '%s', '%s', '%s', %d) RETURNING id",
			path, path, path, path, visibility);
	free(sql_value("UPDATE namespaces SET traversal_ids = ARRAY[id] WHERE id = %lld", id));
	if (full_path)
		*full_path = path;
	else
		free(path);
	return id;
}

void fixture_member(const char *source_type, long long source_id, long long user_id, int level)
{
	free(sql_value("INSERT INTO members (source_type, source_id, user_id, access_level)"
		       " VALUES ('%s', %lld, %lld, %d)",
		       source_type, source_id, user_id, level));
}

void sql_member(const char *source_type, long long source_id, long long user_id, int level)
{
	fixture_member(source_type, source_id, user_id, level);
}

static const char *visibility_text(int visibility)
{
	return visibility >= 20 ? "public" : visibility >= 10 ? "internal" : "private";
}

/* POST form to path as the admin; the new record's id, and the string member key of it
 * in *out when out is not NULL (caller frees). */
static long long admin_create(const char *path, char *form, const char *key, char **out)
{
	resp *r = api("POST", path, admin_token(), form);
	ck_assert_msg(r->status == 201, "POST %s %s: %ld %s", path, form, r->status, r->body);
	long long id = jint(r->json, "id");
	if (out)
		*out = strdup(jstr(r->json, key));
	resp_free(r);
	free(form);
	return id;
}

long long fixture_group_project(long long group_id, int visibility, char **full_path)
{
	char *path = unique("gproj");
	long long id = admin_create("/projects",
				    fmt("name=%s&namespace_id=%lld&visibility=%s", path, group_id,
					visibility_text(visibility)),
				    "path_with_namespace", full_path);
	free(path);
	return id;
}

long long fixture_subgroup(long long parent_id, int visibility, char **full_path)
{
	char *path = unique("sub");
	long long id = admin_create("/groups",
				    fmt("name=%s&path=%s&parent_id=%lld&visibility=%s", path, path,
					parent_id, visibility_text(visibility)),
				    "full_path", full_path);
	free(path);
	return id;
}

void fixture_source(fx_source *out, int scope, int visibility)
{
	memset(out, 0, sizeof(*out));
	out->project = scope == 0;
	out->owner_token = make_user("mown", &out->owner, &out->owner_name);
	const char *v = visibility_text(visibility);
	out->id = out->project ? api_project(out->owner_token, v, &out->path)
			       : api_group(out->owner_token, v, &out->path);
}

void fixture_source_free(fx_source *s)
{
	free(s->path);
	free(s->owner_name);
	free(s->owner_token);
	memset(s, 0, sizeof(*s));
}

char *source_path(const fx_source *s, const char *suffix)
{
	return fmt("%s/%lld%s", s->project ? "/projects" : "/groups", s->id, suffix);
}

/* ---- fixtures through the API (notifications and events suites) ---- */

long long api_project(const char *token, const char *visibility, char **full_path)
{
	char *name = unique("proj");
	char *form = fmt("name=%s&visibility=%s", name, visibility);
	resp *r = api("POST", "/projects", token, form);
	ck_assert_msg(r->status == 201, "api_project: %ld %s", r->status, r->body);
	long long id = jint(r->json, "id");
	if (full_path)
		*full_path = strdup(jstr(r->json, "path_with_namespace"));
	resp_free(r);
	free(form);
	free(name);
	return id;
}

long long api_group(const char *token, const char *visibility, char **full_path)
{
	char *path = unique("grp");
	char *form = fmt("name=%s&path=%s&visibility=%s", path, path, visibility);
	resp *r = api("POST", "/groups", token, form);
	ck_assert_msg(r->status == 201, "api_group: %ld %s", r->status, r->body);
	long long id = jint(r->json, "id");
	if (full_path)
		*full_path = strdup(jstr(r->json, "full_path"));
	resp_free(r);
	free(form);
	free(path);
	return id;
}

long long fixture_project(const char *token, const char *visibility, char **full_path)
{
	return api_project(token, visibility, full_path);
}

char *repo_dir_of(long long project_id)
{
	const char *d = getenv("COLLABD_DIR");
	ck_assert_msg(d != NULL, "COLLABD_DIR must be set");
	char *h = sql_value("SELECT encode(sha256('%lld'::bytea), 'hex')", project_id);
	ck_assert_msg(strlen(h) == 64, "sha256: %s", h);
	/* the stack's storages (contrib/lib/stack.sh): "second" at storage2, else storage */
	long long second = sql_int("SELECT count(*) FROM projects WHERE id = %lld"
				   " AND repository_storage = 'second'",
				   project_id);
	char *dir = fmt("%s/%s/repositories/@hashed/%.2s/%.2s/%s.git", d,
			second ? "storage2" : "storage", h, h + 2, h);
	free(h);
	return dir;
}

char *repo_dir_at(const char *full_path)
{
	long long id = sql_int("SELECT coalesce((SELECT p.id FROM projects p JOIN namespaces n"
			       " ON n.id = p.namespace_id WHERE n.full_path || '/' || p.path = '%s'"
			       " AND NOT p.pending_delete), 0)",
			       full_path);
	ck_assert_msg(id > 0, "no project at %s", full_path);
	return repo_dir_of(id);
}

long long repo_count(void)
{
	const char *d = getenv("COLLABD_DIR");
	ck_assert_msg(d != NULL, "COLLABD_DIR must be set");
	char *cmd = fmt("find '%s/storage' -name '*.git' -prune -type d 2>/dev/null | wc -l", d);
	FILE *p = popen(cmd, "r");
	ck_assert_msg(p != NULL, "popen %s", cmd);
	long long n = -1;
	ck_assert(fscanf(p, "%lld", &n) == 1);
	pclose(p);
	free(cmd);
	return n;
}

bool wait_gone(const char *path)
{
	for (int i = 0; i < 300; i++) {
		if (access(path, F_OK) != 0)
			return true;
		usleep(100 * 1000);
	}
	return false;
}

/* ---- what a test allocates ---- */

static char *kept_strs[4096];
static resp *kept_resps[4096];
static size_t nstrs, nresps;

char *S(char *s)
{
	ck_assert(nstrs < sizeof(kept_strs) / sizeof(*kept_strs));
	return kept_strs[nstrs++] = s;
}

resp *R(resp *r)
{
	ck_assert(nresps < sizeof(kept_resps) / sizeof(*kept_resps));
	return kept_resps[nresps++] = r;
}

void release(void)
{
	while (nstrs)
		free(kept_strs[--nstrs]);
	while (nresps)
		resp_free(kept_resps[--nresps]);
}

/* ---- tracker fixtures ---- */

long long fixture_issue(long long project_id, long long author_id, const char *title,
			bool confidential, long long *iid)
{
	char *row = sql_value("INSERT INTO issues (project_id, iid, title, author_id, confidential)"
			      " VALUES (%lld, next_iid('issues', 'Project', %lld), '%s', %lld, %s)"
			      " RETURNING id || ' ' || iid",
			      project_id, project_id, title, author_id,
			      confidential ? "true" : "false");
	long long id = 0, n = 0;
	ck_assert_msg(sscanf(row, "%lld %lld", &id, &n) == 2, "issue fixture: %s", row);
	if (iid)
		*iid = n;
	free(row);
	return id;
}

void fixture_issue_assign(long long issue_id, long long user_id)
{
	free(sql_value("INSERT INTO issue_assignees (issue_id, user_id) VALUES (%lld, %lld)",
		       issue_id, user_id));
}

void fixture_issue_lock(long long issue_id, bool locked)
{
	free(sql_value("UPDATE issues SET discussion_locked = %s WHERE id = %lld",
		       locked ? "true" : "false", issue_id));
}

long long fixture_snippet(long long project_id, long long author_id, int visibility)
{
	return sql_int(
		"INSERT INTO snippets (project_id, author_id, title, file_name, content,"
		" visibility) VALUES (%lld, %lld, 'snip', 'a.txt', 'hello', %d) RETURNING id",
		project_id, author_id, visibility);
}

/* ---- helpers of the git suites (git over HTTP and over SSH) ---- */

char *git_work_new(void)
{
	char tmpl[] = "/tmp/collabd-git.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	char *path = fmt("%s/.gitconfig", tmpl);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[user]\n\tname = Tester\n\temail = tester@example.com\n"
	      "[init]\n\tdefaultBranch = master\n[advice]\n\tdetachedHead = false\n",
	      f);
	fclose(f);
	free(path);
	return strdup(tmpl);
}

void git_work_remove(char *work)
{
	char *cmd = fmt("rm -rf '%s'", work);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(work);
}

int git_sh(const char *work, char **out, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *cmd = NULL;
	if (vasprintf(&cmd, f, ap) < 0)
		abort();
	va_end(ap);
	char *full = fmt("cd '%s' && export HOME='%s' GIT_TERMINAL_PROMPT=0 GIT_ASKPASS=/bin/false "
			 "&& git %s 2>&1",
			 work, work, cmd);
	FILE *p = popen(full, "r");
	ck_assert_ptr_nonnull(p);
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 1024)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = '\0';
	int st = pclose(p);
	free(cmd);
	free(full);
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool push_job_seen(long long project_id, const char *ref, const char *after)
{
	const char *d = getenv("COLLABD_DIR");
	ck_assert_msg(d != NULL, "COLLABD_DIR must be set");
	char *line = after ? fmt("push job: project %lld %s %s:", project_id, ref, after)
			   : fmt("push job: project %lld %s ", project_id, ref);
	char *cmd = fmt("cat '%s'/collabd-*.log 2>/dev/null | grep -cF '%s'", d, line);
	bool seen = false;
	for (int i = 0; i < 300 && !seen; i++) {
		seen = sql_int("SELECT count(*) FROM background_jobs WHERE kind = 'push'"
			       " AND payload->>'project_id' = '%lld' AND payload->>'ref' = '%s'"
			       " AND (%s OR payload->>'after' = '%s')",
			       project_id, ref, after ? "false" : "true", after ? after : "") > 0;
		FILE *p = seen ? NULL : popen(cmd, "r");
		long long n = 0;
		if (p) {
			if (fscanf(p, "%lld", &n) != 1)
				n = 0;
			pclose(p);
		}
		seen = seen || n > 0;
		if (!seen)
			usleep(100000);
	}
	free(cmd);
	free(line);
	return seen;
}

void ck_same_answer_at(const char *file, int line, resp *a, resp *b, const char *what)
{
	static const char *const headers[] = {"X-Total", "X-Total-Pages", "X-Per-Page",
					      "X-Page",  "X-Next-Page",   "X-Prev-Page",
					      NULL};
	ck_assert_msg(a->status == b->status, "%s:%d: %s: status %ld, %ld", file, line, what,
		      a->status, b->status);
	/* where the bodies part, and what follows (Check's messages are short) */
	size_t at = 0;
	while (a->body[at] && a->body[at] == b->body[at])
		at++;
	ck_assert_msg(a->body[at] == b->body[at],
		      "%s:%d: %s: bodies differ at %zu: %.160s | %.160s", file, line, what, at,
		      a->body + (at > 40 ? at - 40 : 0), b->body + (at > 40 ? at - 40 : 0));
	bool success = a->status >= 200 && a->status < 300;
	for (int h = 0; headers[h]; h++) {
		const char *x = resp_header(a, headers[h]), *y = resp_header(b, headers[h]);
		ck_assert_msg(x ? y && strcmp(x, y) == 0 : !y && !success, "%s:%d: %s: %s %s, %s",
			      file, line, what, headers[h], x ? x : "(absent)", y ? y : "(absent)");
	}
}

void ck_same_list(const char *path_a, const char *path_b, const char *token, const char *pages)
{
	char *ua = S(fmt("%s%s%s", path_a, strchr(path_a, '?') ? "&" : "?", pages));
	char *ub = S(fmt("%s%s%s", path_b, strchr(path_b, '?') ? "&" : "?", pages));
	ck_same_answer(R(api("GET", ua, token, NULL)), R(api("GET", ub, token, NULL)),
		       S(fmt("%s and %s", ua, ub)));
}

const char *const bad_ref_names[] = {
	"--upload-pack=id",
	"-D",
	"--all",
	"-",
	"@",
	"HEAD",
	"del\x7fname",
	"a..b",
	"a b",
	"tab\tname",
	"a~1",
	"a^",
	"a:b",
	"a?b",
	"a[b",
	"a\\b",
	"a@{1}",
	"x.lock",
	"a/x.lock",
	".hidden",
	"a/.b",
	"a/",
	"/a",
	"a//b",
	"a.",
	"refs/heads/x",
	NULL,
};

void put_bad_branches(long long project_id)
{
	static const char *const names[] = {"-D", "--all", "--upload-pack=id", "-", "@"};
	char *dir = repo_dir_of(project_id);
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		char *cmd =
			fmt("git --git-dir='%s' update-ref 'refs/heads/%s' master", dir, names[i]);
		int rc = system(cmd);
		free(cmd);
		ck_assert_msg(rc == 0, "update-ref %s", names[i]);
	}
	free(dir);
}
