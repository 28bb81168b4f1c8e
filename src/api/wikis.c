/* Wikis (4.12; GitLab 10's lib/api/wikis.rb): a project's wiki is a second bare
 * repository (git/repo.h, <h>.wiki.git), made by its first write, whose branch master
 * holds the pages as files <slug>.<ext>, ext md (markdown), rdoc or asciidoc. Slugs are
 * made as Gollum made them for GitLab: the title's whitespace and <, >, + turn into '-',
 * and its '/' name directories ("Dir/My page" is Dir/My-page.md); a page's title is its
 * file name without extension, hyphens shown as spaces. A slug finds its page in that
 * directory without regard to case. Every change is a commit of the caller to master,
 * the ref moved compare-and-swap (git/commits.h); what git pushes is read at once, since
 * nothing here is cached. Access (auth/access.h): reading for whoever sees the project
 * while wiki_enabled, writing for developers and up, deleting for masters and up. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "entity/wiki_page.h"
#include "git/commits.h"
#include "git/repo.h"

const db_stmt wikis_stmts[] = {
	{"wikis_touch", "UPDATE projects SET last_activity_at = now() WHERE id = $1", 1, 0},
	{NULL, NULL, 0, 0},
};

#define WIKI_BRANCH "master"
/* A writer that lost the compare-and-swap to a push tries again from the new master. */
#define WIKI_ATTEMPTS 3

static const char *const formats[] = {"markdown", "rdoc", "asciidoc", NULL};

/* The file extensions of pages and their formats: the first of each format is the one
 * the API writes. */
static const struct {
	const char *ext, *format;
} page_exts[] = {
	{"md", "markdown"},       {"markdown", "markdown"}, {"mkd", "markdown"},
	{"mkdn", "markdown"},     {"mdown", "markdown"},    {"rdoc", "rdoc"},
	{"asciidoc", "asciidoc"}, {"adoc", "asciidoc"},
};
#define NEXTS (sizeof(page_exts) / sizeof(page_exts[0]))

static const char *format_of_ext(const char *ext)
{
	for (size_t i = 0; i < NEXTS; i++)
		if (strcasecmp(ext, page_exts[i].ext) == 0)
			return page_exts[i].format;
	return NULL;
}

static const char *ext_of_format(const char *format)
{
	for (size_t i = 0; i < NEXTS; i++)
		if (strcmp(format, page_exts[i].format) == 0)
			return page_exts[i].ext;
	return "md";
}

/* A page: the file at path (dir/name.ext) of master's tree. */
typedef struct page {
	const char *path;
	const char *dir;  /* "" at the top */
	const char *name; /* the file name without its extension */
	const char *format;
	git_oid blob;
	struct page *next;
} page;

/* Gollum's cname: whitespace, '<', '>' and '+' as '-'. */
static char *cname(request *r, const char *s, size_t n)
{
	char *out = arena_strndup(r->ctx.a, s, n);
	for (char *p = out; *p; p++)
		if (isspace((unsigned char)*p) || *p == '<' || *p == '>' || *p == '+')
			*p = '-';
	return out;
}

static const char *slug_of(request *r, const page *p)
{
	const char *name = cname(r, p->name, strlen(p->name));
	return *p->dir ? arena_printf(r->ctx.a, "%s/%s", p->dir, name) : name;
}

/* GitLab's WikiPage#title: the name with each run of hyphens as one space. */
static const char *title_of(request *r, const page *p)
{
	char *t = arena_strdup(r->ctx.a, p->name), *o = t;
	for (const char *s = p->name; *s; s++) {
		if (*s == '-') {
			while (s[1] == '-')
				s++;
			*o++ = ' ';
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return t;
}

/* ---- reading master ---- */

struct walk {
	request *r;
	page *head, **tail;
	long long n;
};

static int walk_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct walk *w = payload;
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	const char *file = git_tree_entry_name(e), *dot = strrchr(file, '.');
	const char *format = dot && dot != file ? format_of_ext(dot + 1) : NULL;
	if (!format)
		return 0;
	page *p = arena_alloc(w->r->ctx.a, sizeof(*p));
	size_t rootlen = strlen(root);
	*p = (page){
		.path = arena_printf(w->r->ctx.a, "%s%s", root, file),
		.dir = arena_strndup(w->r->ctx.a, root, rootlen ? rootlen - 1 : 0),
		.name = arena_strndup(w->r->ctx.a, file, (size_t)(dot - file)),
		.format = format,
	};
	git_oid_cpy(&p->blob, git_tree_entry_id(e));
	*w->tail = p;
	w->tail = &p->next;
	w->n++;
	return 0;
}

/* The pages of the wiki's master in git's order (none when there is no wiki or no
 * master): 0, or ERR_INTERNAL. The list is in r's arena. */
static int wiki_pages(request *r, git_repository *repo, page **head, long long *n)
{
	*head = NULL;
	*n = 0;
	git_oid id;
	if (!repo || !gitc_branch_exists(repo, WIKI_BRANCH, &id))
		return 0;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	struct walk w = {r, NULL, &w.head, 0};
	int rc = ERR_INTERNAL;
	if (git_commit_lookup(&commit, repo, &id) == 0 && git_commit_tree(&tree, commit) == 0 &&
	    git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &w) == 0)
		rc = 0;
	git_tree_free(tree);
	git_commit_free(commit);
	*head = w.head;
	*n = w.n;
	return rc;
}

/* The page of slug in pages (its directory exactly, its name without regard to case and
 * to whitespace or hyphens), NULL when none; except, unless NULL. */
static page *find_in(request *r, page *pages, const char *slug, const page *except)
{
	const char *slash = strrchr(slug, '/');
	size_t dirlen = slash ? (size_t)(slash - slug) : 0;
	const char *want = cname(r, slash ? slash + 1 : slug, strlen(slash ? slash + 1 : slug));
	for (page *p = pages; p; p = p->next)
		if (p != except && strlen(p->dir) == dirlen && strncmp(p->dir, slug, dirlen) == 0 &&
		    strcasecmp(cname(r, p->name, strlen(p->name)), want) == 0)
			return p;
	return NULL;
}

/* The wiki repository (NULL when there is none yet): 0 or ERR_INTERNAL. */
static int wiki_repo(request *r, git_repository **out)
{
	int rc = repo_wiki_open(&r->ctx, r->project->id, out);
	if (rc == ERR_NOT_FOUND) {
		*out = NULL;
		return 0;
	}
	return rc < 0 ? ERR_INTERNAL : 0;
}

static json_object *present(request *r, git_repository *repo, const page *p, bool content)
{
	git_blob *blob = NULL;
	if (content && git_blob_lookup(&blob, repo, &p->blob) < 0)
		return NULL;
	json_object *o = entity_wiki_page(p->format, slug_of(r, p), title_of(r, p),
					  blob ? (const char *)git_blob_rawcontent(blob) : NULL,
					  blob ? (size_t)git_blob_rawsize(blob) : 0);
	git_blob_free(blob);
	return o;
}

static int wiki_read(request *r)
{
	return can_read_wiki(&r->project->pa, r->project->wiki_enabled) ? 0 : ERR_FORBIDDEN;
}

/* ---- GET ---- */

static int wikis_check_list(request *r)
{
	page_req pg;
	bool b;
	int rc = pagination_parse(r, &pg);
	return rc < 0 ? rc : (rc = param_bool(r, "with_content", &b)) < 0 ? rc : 0;
}

static int wikis_list(request *r)
{
	page_req pg;
	bool with_content = false;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = param_bool(r, "with_content", &with_content)) < 0 ||
	    (rc = wiki_read(r)) < 0)
		return rc;
	git_repository *repo;
	page *pages;
	long long total;
	if ((rc = wiki_repo(r, &repo)) < 0 || (rc = wiki_pages(r, repo, &pages, &total)) < 0)
		return rc;
	json_object *list = request_own(r, json_object_new_array());
	long long i = 0;
	for (page *p = pages; p && i < pg.offset + pg.per_page; p = p->next, i++) {
		if (i < pg.offset)
			continue;
		json_object *o = present(r, repo, p, with_content);
		if (!o)
			return ERR_INTERNAL;
		json_object_array_add(list, o);
	}
	pagination_headers(r, &pg, total);
	respond_json(r, 200, json_object_get(list));
	return 0;
}

/* The page of :slug (404 Wiki Page Not Found). */
static int find_page(request *r, git_repository *repo, page **pages, page **out)
{
	long long n;
	int rc = wiki_pages(r, repo, pages, &n);
	if (rc < 0)
		return rc;
	if (!(*out = find_in(r, *pages, param_str(r, "slug"), NULL)))
		return fail_not_found(r, "Wiki Page");
	return 0;
}

static int wikis_show(request *r)
{
	git_repository *repo;
	page *pages, *p;
	int rc = wiki_read(r);
	if (rc < 0 || (rc = wiki_repo(r, &repo)) < 0 || (rc = find_page(r, repo, &pages, &p)) < 0)
		return rc;
	json_object *o = present(r, repo, p, true);
	if (!o)
		return ERR_INTERNAL;
	respond_json(r, 200, o);
	return 0;
}

/* ---- writes ---- */

/* The title, content and format of a write (create: title and content required). */
static int check_write(request *r, bool create)
{
	const char *title = param_str(r, "title"), *content = param_str(r, "content"), *s;
	int rc;
	if (create && !title)
		return fail_missing(r, "title");
	if (create && !content)
		return fail_missing(r, "content");
	if (!create && !title && !content)
		return fail(r, ERR_INVALID,
			    "content, title are missing, at least one parameter must be provided");
	if ((rc = param_oneof(r, "format", formats, &s)) < 0)
		return rc;
	if (title && !*title)
		fail_validation(r, "title", "can't be blank");
	else if (title && (rc = param_text(r, "title", 255, &s)) < 0 && rc != ERR_VALIDATION)
		return rc;
	if (content && !*content)
		fail_validation(r, "content", "can't be blank");
	return r->validation ? ERR_VALIDATION : 0;
}

static int wikis_check_create(request *r)
{
	return check_write(r, true);
}

static int wikis_check_update(request *r)
{
	return check_write(r, false);
}

/* The file path (without extension) of title: its directories as given (a leading '/'
 * is the top), its last part as Gollum's cname; dir (NULL: none) when title names no
 * directory. NULL when that is no valid path in a repository. */
static const char *path_of_title(request *r, const char *title, const char *dir)
{
	if (*title == '/' && title[1] != '/') {
		title++;
		dir = NULL;
	}
	const char *slash = strrchr(title, '/');
	const char *name = cname(r, slash ? slash + 1 : title, strlen(slash ? slash + 1 : title));
	const char *d = slash ? arena_strndup(r->ctx.a, title, (size_t)(slash - title)) : dir;
	const char *path = d && *d ? arena_printf(r->ctx.a, "%s/%s", d, name) : name;
	return gitc_valid_path(path) ? path : NULL;
}

/* Makes the commit of actions on master as the caller with message, and touches the
 * project's activity: 0 when master moved to it, 1 when it answered (GitLab's 400),
 * ERR_MOVED when master moved meanwhile (nothing written), or an ERR_ code. */
static int wiki_commit(request *r, git_repository *repo, const gitc_action *actions, size_t n,
		       const char *message)
{
	gitc_commit_req req = {
		.branch = WIKI_BRANCH,
		.message = message,
		.actions = actions,
		.nactions = n,
	};
	int rc = content_committer(r, &req.committer_name, &req.committer_email);
	if (rc < 0)
		return rc;
	git_commit *made;
	const char *msg = NULL;
	rc = gitc_commit_create(&r->ctx, repo, &req, &made, &msg);
	if (rc == ERR_REFUSED) {
		content_error(r, 400, msg);
		return 1;
	}
	if (rc == ERR_MOVED)
		return ERR_MOVED;
	if (rc < 0)
		return ERR_INTERNAL;
	const char *v[1] = {r->project->id};
	int err;
	return db_query(&r->ctx, "wikis_touch", 1, v, &err) ? 0 : err;
}

static int duplicate(request *r)
{
	return fail_validation(r, "base", "Duplicate page: A page with that title already exists");
}

/* The answer to a write that keeps losing to pushes. */
static int busy(request *r)
{
	return fail(r, ERR_CONFLICT, "The wiki changed while the page was saved; try again");
}

/* Answers the page written (status 201: created, 200: updated), after queuing its
 * webhooks' event. */
static int respond_page(request *r, int status, const char *path, const char *format,
			const char *content, size_t len, const char *message)
{
	const char *slash = strrchr(path, '/');
	page p = {
		.path = path,
		.dir = slash ? arena_strndup(r->ctx.a, path, (size_t)(slash - path)) : "",
		.name = slash ? slash + 1 : path,
		.format = format,
	};
	const char *slug = slug_of(r, &p), *title = title_of(r, &p);
	int rc = hooks_wiki_page(r, status == 201 ? "create" : "update", title, slug, format,
				 content, len, message);
	if (rc < 0)
		return rc;
	respond_json(r, status, entity_wiki_page(format, slug, title, content, len));
	return 0;
}

/* The attributes of a create (update) checked again in the handler (check_write), and
 * the caller's right to write: 0 with the title, format and content given (NULL when
 * not), or an ERR_ code. */
static int write_input(request *r, bool create, const char **title, const char **format,
		       param **content)
{
	int rc = check_write(r, create);
	if (rc < 0)
		return rc;
	if (!can_create_wiki(&r->project->pa, r->project->wiki_enabled, r->ctx.user))
		return ERR_FORBIDDEN;
	*title = param_str(r, "title");
	*format = param_str(r, "format");
	*content = param_find(r, "content");
	return 0;
}

static int wikis_create(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	const char *title, *format;
	param *content;
	int rc = write_input(r, true, &title, &format, &content);
	if (rc < 0)
		return rc;
	if (!format)
		format = "markdown";
	const char *base = path_of_title(r, title, NULL);
	if (!base)
		return fail_validation(r, "title", "is invalid");
	git_repository *repo;
	if (repo_wiki_create(&r->ctx, r->project->id) < 0 ||
	    repo_wiki_open(&r->ctx, r->project->id, &repo) != 0)
		return ERR_INTERNAL;
	const char *path = arena_printf(r->ctx.a, "%s.%s", base, ext_of_format(format));
	gitc_action a = {.kind = GITC_CREATE,
			 .file_path = path,
			 .content = content->value,
			 .content_len = content->len};
	const char *message =
		arena_printf(r->ctx.a, "%s created page: %s", r->ctx.user->username, title);
	for (int attempt = 0; attempt < WIKI_ATTEMPTS; attempt++) {
		page *pages;
		long long n;
		if ((rc = wiki_pages(r, repo, &pages, &n)) < 0)
			return rc;
		if (find_in(r, pages, base, NULL))
			return duplicate(r);
		rc = wiki_commit(r, repo, &a, 1, message);
		if (rc == 0)
			return respond_page(r, 201, base, format, content->value, content->len,
					    message);
		if (rc != ERR_MOVED)
			return rc < 0 ? rc : 0;
	}
	return busy(r);
}

static int wikis_update(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	const char *title, *format;
	param *content;
	int rc = write_input(r, false, &title, &format, &content);
	if (rc < 0)
		return rc;
	git_repository *repo;
	if ((rc = wiki_repo(r, &repo)) < 0)
		return rc;
	for (int attempt = 0; attempt < WIKI_ATTEMPTS; attempt++) {
		page *pages, *p;
		if ((rc = find_page(r, repo, &pages, &p)) < 0)
			return rc;
		const char *old_base = *p->dir ? arena_printf(r->ctx.a, "%s/%s", p->dir, p->name)
					       : p->name;
		const char *base = title ? path_of_title(r, title, p->dir) : old_base;
		if (!base)
			return fail_validation(r, "title", "is invalid");
		const char *fmt = format ? format : p->format;
		const char *path = p->path;
		if (strcmp(fmt, p->format) != 0 || strcmp(base, old_base) != 0)
			path = arena_printf(r->ctx.a, "%s.%s", base, ext_of_format(fmt));
		if (strcmp(path, p->path) != 0 && find_in(r, pages, base, p))
			return duplicate(r);
		const char *bytes;
		size_t len;
		if (content) {
			bytes = content->value;
			len = content->len;
		} else {
			git_blob *blob;
			if (git_blob_lookup(&blob, repo, &p->blob) < 0)
				return ERR_INTERNAL;
			len = (size_t)git_blob_rawsize(blob);
			char *copy = arena_alloc(r->ctx.a, len + 1);
			memcpy(copy, git_blob_rawcontent(blob), len);
			git_blob_free(blob);
			bytes = copy;
		}
		/* a rename (or a new format) moves the file */
		bool moved = strcmp(path, p->path) != 0;
		gitc_action acts[2] = {
			{.kind = GITC_DELETE, .file_path = p->path},
			{.kind = moved ? GITC_CREATE : GITC_UPDATE,
			 .file_path = path,
			 .content = bytes,
			 .content_len = len},
		};
		const char *message = arena_printf(r->ctx.a, "%s updated page: %s",
						   r->ctx.user->username, title ? title : p->name);
		rc = wiki_commit(r, repo, moved ? acts : acts + 1, moved ? 2 : 1, message);
		if (rc == 0)
			return respond_page(r, 200, base, fmt, bytes, len, message);
		if (rc != ERR_MOVED)
			return rc < 0 ? rc : 0;
	}
	return busy(r);
}

static int wikis_delete(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	if (!can_admin_wiki(&r->project->pa, r->project->wiki_enabled, r->ctx.user))
		return ERR_FORBIDDEN;
	git_repository *repo;
	int rc = wiki_repo(r, &repo);
	for (int attempt = 0; rc == 0 && attempt < WIKI_ATTEMPTS; attempt++) {
		page *pages, *p;
		if ((rc = find_page(r, repo, &pages, &p)) < 0)
			return rc;
		gitc_action a = {.kind = GITC_DELETE, .file_path = p->path};
		const char *message = arena_printf(r->ctx.a, "%s deleted page: %s",
						   r->ctx.user->username, title_of(r, p));
		rc = wiki_commit(r, repo, &a, 1, message);
		if (rc == 0 && (rc = hooks_wiki_page(r, "delete", title_of(r, p), slug_of(r, p),
						     p->format, NULL, 0, message)) == 0) {
			respond_empty(r, 204);
			return 0;
		}
		if (rc != ERR_MOVED)
			return rc < 0 ? rc : 0;
		rc = 0;
	}
	return rc < 0 ? rc : busy(r);
}

const route wikis_routes[] = {
	{"GET", V4 "/projects/:id/wikis", wikis_list, PR, wikis_check_list},
	{"GET", V4 "/projects/:id/wikis/:slug", wikis_show, PR, NULL},
	{"POST", V4 "/projects/:id/wikis", wikis_create, AUTH | PW, wikis_check_create},
	{"PUT", V4 "/projects/:id/wikis/:slug", wikis_update, AUTH | PW, wikis_check_update},
	{"DELETE", V4 "/projects/:id/wikis/:slug", wikis_delete, AUTH | PW, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
