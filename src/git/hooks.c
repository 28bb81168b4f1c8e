#include "git/hooks.h"

#include <errno.h>
#include <limits.h>
#include <git2.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "auth/scope.h"
#include "background.h"
#include "core/buf.h"
#include "core/errors.h"
#include "core/log.h"
#include "git/repo.h"

const db_stmt hooks_stmts[] = {
	/* $1 user id: the caller of a push */
	{"hooks_user",
	 "SELECT id, is_admin, external FROM users WHERE id = $1 AND state = 'active'"
	 " AND NOT ghost", 1, 3},
	/* $1 project, $2 branch */
	{"hooks_push_level", "SELECT branch_push_level($1, $2)", 2, 1},
	/* $1 project, $2 the default branch to set when it has none */
	{"hooks_default_branch",
	 "UPDATE projects SET default_branch = $2, updated_at = now() WHERE id = $1", 2, 0},
	{"hooks_touch", "UPDATE projects SET last_activity_at = now() WHERE id = $1", 1, 0},
	/* $1 project: one more change of its refs (its repository's key in the response
	 * cache, bumped at the commit: sql/0023); nothing for a project removed meanwhile */
	{"hooks_refs_changed",
	 "INSERT INTO repository_refs AS x (project_id) SELECT id FROM projects WHERE id = $1"
	 " ON CONFLICT (project_id) DO UPDATE SET changes = x.changes + 1", 1, 0},
	/* $1 project, $2 author, $3 action_name, $4 data */
	{"hooks_event",
	 "INSERT INTO events (project_id, author_id, action, action_name, data)"
	 " VALUES ($1, $2, 'pushed', $3, $4::jsonb)", 4, 0},
	{NULL, NULL, 0, 0},
};

#define ZERO "0000000000000000000000000000000000000000"

struct update {
	char old[GIT_OID_HEXSZ + 1], new[GIT_OID_HEXSZ + 1];
	const char *ref;
	struct update *next;
};

/* The "old new ref" lines of standard input, in order; NULL when none or malformed. */
static struct update *read_updates(ctx *c, FILE *in)
{
	struct update *head = NULL, **tail = &head;
	char line[4096];
	while (fgets(line, sizeof(line), in)) {
		char old[64], new[64], ref[4096];
		if (sscanf(line, "%63s %63s %4095s", old, new, ref) != 3 ||
		    strlen(old) != GIT_OID_HEXSZ || strlen(new) != GIT_OID_HEXSZ)
			return NULL;
		struct update *u = arena_alloc(c->a, sizeof(*u));
		memcpy(u->old, old, sizeof(u->old));
		memcpy(u->new, new, sizeof(u->new));
		u->ref = arena_strdup(c->a, ref);
		u->next = NULL;
		*tail = u;
		tail = &u->next;
	}
	return head;
}

/* The caller of GL_ID ("user-<id>"), NULL when there is none. */
static caller *load_caller(ctx *c, const char *gl_id)
{
	if (!gl_id || strncmp(gl_id, "user-", 5) != 0)
		return NULL;
	const char *v[1] = {gl_id + 5};
	int err;
	PGresult *res = db_query(c, "hooks_user", 1, v, &err);
	if (!res || PQntuples(res) != 1)
		return NULL;
	caller *u = arena_alloc(c->a, sizeof(*u));
	memset(u, 0, sizeof(*u));
	u->id = db_int(res, 0, 0);
	u->admin = db_bool(res, 0, 1);
	u->external = db_bool(res, 0, 2);
	return u;
}

/* The repository the hook runs in (git sets GIT_DIR, and during pre-receive the
 * quarantine's object directories, which libgit2 reads from the environment). */
static git_repository *open_here(void)
{
	git_libgit2_init();
	git_repository *repo = NULL;
	if (git_repository_open_ext(&repo, NULL, GIT_REPOSITORY_OPEN_FROM_ENV, NULL) < 0) {
		const git_error *e = git_error_last();
		log_error("hook: open the repository: %s", e ? e->message : "unknown error");
		return NULL;
	}
	return repo;
}

/* Whether the hook runs in project_id's wiki (git runs the hooks of a bare repository in
 * its directory): a wiki's pushes follow the wiki's rules, and record no code push. */
static bool in_wiki(ctx *c, const char *project_id)
{
	char here[PATH_MAX], wiki[PATH_MAX];
	return realpath(".", here) && realpath(repo_wiki_path(c, project_id), wiki) &&
	       strcmp(here, wiki) == 0;
}

static bool fast_forward(git_repository *repo, const char *old, const char *new)
{
	git_oid o, n;
	if (git_oid_fromstr(&o, old) < 0 || git_oid_fromstr(&n, new) < 0)
		return false;
	return git_oid_equal(&o, &n) || git_graph_descendant_of(repo, &n, &o) == 1;
}

int hook_pre_receive(ctx *c, const char *gl_id, const char *project_id, FILE *in, FILE *err)
{
	struct update *updates = read_updates(c, in);
	c->user = load_caller(c, gl_id);
	project_scope p;
	if (!c->user || scope_project(c, project_id, false, &p) < 0) {
		fprintf(err, "GitLab: The project you were looking for could not be found.\n");
		return 1;
	}
	if (in_wiki(c, p.id)) {
		/* no protected branches in a wiki: writers of the wiki push anything */
		if (can_create_wiki(&p.pa, p.wiki_enabled, c->user))
			return 0;
		fprintf(err, "GitLab: You are not allowed to write to this project's wiki.\n");
		return 1;
	}
	int level = code_push_level(&p.pa);
	git_repository *repo = NULL;
	int rc = 0;
	for (struct update *u = updates; u && rc == 0; u = u->next) {
		if (strncmp(u->ref, "refs/heads/", 11) != 0)
			continue;
		const char *v[2] = {p.id, u->ref + 11};
		int e;
		PGresult *res = db_query(c, "hooks_push_level", 2, v, &e);
		if (!res) {
			rc = -1;
			break;
		}
		if (PQgetisnull(res, 0, 0))
			continue; /* not protected: developers and up push (the access question) */
		if (strcmp(u->new, ZERO) == 0) {
			fprintf(err, "GitLab: You are not allowed to delete protected branches from "
				     "this project. Only a project master or owner can delete a "
				     "protected branch.\n");
			rc = 1;
		} else if (level < db_int(res, 0, 0)) {
			fprintf(err, "GitLab: You are not allowed to push code to protected branches "
				     "on this project.\n");
			rc = 1;
		} else if (strcmp(u->old, ZERO) != 0) {
			if (!repo && !(repo = open_here())) {
				rc = -1;
				break;
			}
			if (!fast_forward(repo, u->old, u->new)) {
				fprintf(err, "GitLab: You are not allowed to force push code to a "
					     "protected branch on this project.\n");
				rc = 1;
			}
		}
	}
	git_repository_free(repo);
	return rc;
}

/* push_data of GitLab 10's push events for update u of repo. */
static json_object *push_data(git_repository *repo, const struct update *u)
{
	bool created = strcmp(u->old, ZERO) == 0, removed = strcmp(u->new, ZERO) == 0;
	bool branch = strncmp(u->ref, "refs/heads/", 11) == 0;
	long long count = 0;
	const char *title = NULL;
	git_commit *commit = NULL;
	git_oid n;
	if (!removed && git_oid_fromstr(&n, u->new) == 0) {
		git_revwalk *walk = NULL;
		if (git_revwalk_new(&walk, repo) == 0 && git_revwalk_push(walk, &n) == 0) {
			git_oid o;
			if (!created && git_oid_fromstr(&o, u->old) == 0) {
				git_revwalk_hide(walk, &o);
			} else if (branch) {
				/* a new branch: its commits that no other branch has */
				git_reference_iterator *it = NULL;
				git_reference *ref;
				if (git_reference_iterator_glob_new(&it, repo, "refs/heads/*") == 0)
					while (git_reference_next(&ref, it) == 0) {
						if (strcmp(git_reference_name(ref), u->ref) != 0 &&
						    git_reference_target(ref))
							git_revwalk_hide(walk, git_reference_target(ref));
						git_reference_free(ref);
					}
				git_reference_iterator_free(it);
			}
			git_oid id;
			while (git_revwalk_next(&id, walk) == 0)
				count++;
		}
		git_revwalk_free(walk);
		if (git_commit_lookup(&commit, repo, &n) == 0)
			title = git_commit_summary(commit);
	}
	const char *name = u->ref + (branch ? 11 : strncmp(u->ref, "refs/tags/", 10) == 0 ? 10 : 0);
	json_object *d = json_object_new_object();
	json_object_object_add(d, "commit_count", json_object_new_int64(count));
	json_object_object_add(d, "action", json_object_new_string(created   ? "created"
								    : removed ? "removed"
									      : "pushed"));
	json_object_object_add(d, "ref_type", json_object_new_string(branch ? "branch" : "tag"));
	json_object_object_add(d, "commit_from", created ? NULL : json_object_new_string(u->old));
	json_object_object_add(d, "commit_to", removed ? NULL : json_object_new_string(u->new));
	json_object_object_add(d, "ref", json_object_new_string(name));
	json_object_object_add(d, "commit_title", title ? json_object_new_string(title) : NULL);
	git_commit_free(commit);
	return d;
}

/* The branch the first push makes the default: the one HEAD names if it was pushed,
 * else master, else the first branch pushed. NULL when the push created no branch. */
static const char *first_default(ctx *c, git_repository *repo, const struct update *updates)
{
	const char *head = NULL, *master = NULL, *first = NULL;
	git_reference *h = NULL;
	if (git_reference_lookup(&h, repo, "HEAD") == 0 &&
	    git_reference_type(h) == GIT_REFERENCE_SYMBOLIC)
		head = arena_strdup(c->a, git_reference_symbolic_target(h));
	git_reference_free(h);
	for (const struct update *u = updates; u; u = u->next) {
		if (strncmp(u->ref, "refs/heads/", 11) != 0 || strcmp(u->new, ZERO) == 0)
			continue;
		if (head && strcmp(u->ref, head) == 0)
			return u->ref + 11;
		if (strcmp(u->ref, "refs/heads/master") == 0)
			master = u->ref + 11;
		if (!first)
			first = u->ref + 11;
	}
	return master ? master : first;
}

/* What follows ref updates of project p by c->user, in the caller's transaction: the
 * default branch of a repository that had none, a push event and a `push` job per
 * branch or tag, last_activity_at. 0 or an error code. */
static int record(ctx *c, git_repository *repo, const project_scope *p, const struct update *updates)
{
	const char *uid = arena_printf(c->a, "%lld", c->user->id);
	int rc = 0, e;
	/* the first push of a repository without a default branch names it */
	if (!p->default_branch) {
		const char *branch = first_default(c, repo, updates);
		const char *v[2] = {p->id, branch};
		if (branch && repo_set_head(c, p->id, branch, false) < 0)
			return ERR_INTERNAL;
		if (branch && !db_query(c, "hooks_default_branch", 2, v, &e))
			return e;
	}
	for (const struct update *u = updates; u && rc == 0; u = u->next) {
		bool branch = strncmp(u->ref, "refs/heads/", 11) == 0;
		if (!branch && strncmp(u->ref, "refs/tags/", 10) != 0)
			continue;
		json_object *data = json_object_new_object();
		json_object_object_add(data, "push_data", push_data(repo, u));
		const char *action = strcmp(u->old, ZERO) == 0   ? "pushed new"
				     : strcmp(u->new, ZERO) == 0 ? "deleted"
								 : "pushed to";
		const char *v[4] = {p->id, uid, action,
				    arena_strdup(c->a, json_object_to_json_string_ext(
							       data, JSON_C_TO_STRING_PLAIN))};
		json_object_put(data);
		if (!db_query(c, "hooks_event", 4, v, &e))
			return e;
		json_object *job = json_object_new_object();
		json_object_object_add(job, "project_id", json_object_new_int64(atoll(p->id)));
		json_object_object_add(job, "ref", json_object_new_string(u->ref));
		json_object_object_add(job, "before", json_object_new_string(u->old));
		json_object_object_add(job, "after", json_object_new_string(u->new));
		json_object_object_add(job, "user_id", json_object_new_int64(c->user->id));
		rc = background_enqueue(c, "push",
					arena_strdup(c->a, json_object_to_json_string_ext(
								   job, JSON_C_TO_STRING_PLAIN)));
		json_object_put(job);
	}
	const char *tv[1] = {p->id};
	if (rc == 0 && !db_query(c, "hooks_touch", 1, tv, &e))
		rc = e;
	/* after the project's row (hooks_touch): every writer locks the two in this order */
	if (rc == 0)
		rc = hooks_refs_changed(c, p->id);
	return rc;
}

int hook_post_receive(ctx *c, const char *gl_id, const char *project_id, FILE *in)
{
	struct update *updates = read_updates(c, in);
	caller *user = load_caller(c, gl_id);
	git_repository *repo = open_here();
	if (!user || !repo) {
		git_repository_free(repo);
		return -1;
	}
	int rc = db_begin(c);
	project_scope p;
	c->user = user;
	if (rc == 0)
		rc = scope_project(c, project_id, true, &p);
	/* a wiki's push is no code push: no event, no default branch, no `push` job (GitLab
	 * 10 records only the project's activity) */
	if (rc == 0 && in_wiki(c, p.id)) {
		const char *v[1] = {p.id};
		int e;
		if (!db_query(c, "hooks_touch", 1, v, &e))
			rc = e;
	} else if (rc == 0) {
		rc = record(c, repo, &p, updates);
	}
	if (rc == 0)
		rc = db_commit(c);
	else
		db_rollback(c);
	git_repository_free(repo);
	return rc < 0 ? -1 : 0;
}

int hooks_refs_changed(ctx *c, const char *project_id)
{
	const char *v[1] = {project_id};
	int err;
	return db_query(c, "hooks_refs_changed", 1, v, &err) ? 0 : err;
}

int hooks_pushed(ctx *c, git_repository *repo, const project_scope *p, const char *ref,
		 const git_oid *old, const git_oid *new)
{
	struct update u = {.ref = ref, .next = NULL};
	if (old)
		git_oid_tostr(u.old, sizeof(u.old), old);
	else
		memcpy(u.old, ZERO, sizeof(u.old));
	if (new)
		git_oid_tostr(u.new, sizeof(u.new), new);
	else
		memcpy(u.new, ZERO, sizeof(u.new));
	return record(c, repo, p, &u);
}

/* s as a single-quoted shell word. */
static void shell_quote(buf *b, const char *s)
{
	buf_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(b, "'\\''");
		else
			buf_putc(b, *s);
	}
	buf_putc(b, '\'');
}

int hooks_install(const config *cfg, const char *exe, const char *cfg_path)
{
	arena *a = arena_new();
	const char *dir = arena_printf(a, "%s/hooks", cfg->storage_path);
	int rc = 0;
	if (mkdir(cfg->storage_path, 0755) < 0 && errno != EEXIST)
		rc = -1;
	if (rc == 0 && mkdir(dir, 0755) < 0 && errno != EEXIST)
		rc = -1;
	static const char *const names[] = {"pre-receive", "post-receive"};
	for (int i = 0; i < 2 && rc == 0; i++) {
		buf b;
		buf_init(&b, a, 512);
		buf_puts(&b, "#!/bin/sh\n# Written by `collabd serve`: every repository's ");
		buf_puts(&b, names[i]);
		buf_puts(&b, " hook (core.hooksPath).\nexec ");
		shell_quote(&b, exe);
		if (cfg_path) {
			buf_puts(&b, " -c ");
			shell_quote(&b, cfg_path);
		}
		buf_printf(&b, " hook %s\n", names[i]);
		const char *path = arena_printf(a, "%s/%s", dir, names[i]);
		const char *tmp = arena_printf(a, "%s.tmp", path);
		FILE *f = fopen(tmp, "w");
		if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0 ||
		    chmod(tmp, 0755) < 0 || rename(tmp, path) < 0)
			rc = -1;
	}
	if (rc < 0)
		log_error("cannot write the git hooks under %s: %s", dir, strerror(errno));
	arena_destroy(a);
	return rc;
}
