/* The git hook program, `collabd hook pre-receive|post-receive` (hook.h). */
#include "hook.h"

#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "auth/scope.h"
#include "core/buf.h"
#include "core/log.h"
#include "entry.h"
#include "git/hooks.h"
#include "git/repo.h"

/* the columns of hook_user */
enum { HU_ID, HU_ADMIN, HU_EXTERNAL, HU_NCOLS };

const db_stmt hook_stmts[] = {
	/* $1 user id: the caller of a push */
	{"hook_user",
	 "SELECT id, is_admin, external FROM users WHERE id = $1 AND state = 'active'"
	 " AND NOT ghost",
	 1, HU_NCOLS},
	/* $1 project, $2 branch */
	{"hook_push_level", "SELECT branch_push_level($1, $2)", 2, 1},
	{NULL, NULL, 0, 0},
};

/* The "old new ref" lines of standard input, in order; NULL when none or malformed. */
static hooks_update *read_updates(ctx *c, FILE *in)
{
	hooks_update *head = NULL, **tail = &head;
	char line[4096];
	while (fgets(line, sizeof(line), in)) {
		char old[64], new[64], ref[4096];
		if (sscanf(line, "%63s %63s %4095s", old, new, ref) != 3 ||
		    strlen(old) != GIT_OID_HEXSZ || strlen(new) != GIT_OID_HEXSZ)
			return NULL;
		hooks_update *u = arena_alloc(c->a, sizeof(*u));
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
	PGresult *res = db_query(c, "hook_user", 1, v, &err);
	if (!res || PQntuples(res) != 1)
		return NULL;
	caller *u = arena_alloc(c->a, sizeof(*u));
	memset(u, 0, sizeof(*u));
	u->id = db_int(res, 0, HU_ID);
	u->admin = db_bool(res, 0, HU_ADMIN);
	u->external = db_bool(res, 0, HU_EXTERNAL);
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
	hooks_update *updates = read_updates(c, in);
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
	for (hooks_update *u = updates; u && rc == 0; u = u->next) {
		if (strncmp(u->ref, "refs/heads/", 11) != 0)
			continue;
		const char *v[2] = {p.id, u->ref + 11};
		int e;
		PGresult *res = db_query(c, "hook_push_level", 2, v, &e);
		if (!res) {
			rc = -1;
			break;
		}
		if (PQgetisnull(res, 0, 0))
			continue; /* not protected: developers and up push (the access question) */
		if (strcmp(u->new, HOOKS_ZERO) == 0) {
			fprintf(err,
				"GitLab: You are not allowed to delete protected branches from "
				"this project. Only a project master or owner can delete a "
				"protected branch.\n");
			rc = 1;
		} else if (level < db_int(res, 0, 0)) {
			fprintf(err,
				"GitLab: You are not allowed to push code to protected branches "
				"on this project.\n");
			rc = 1;
		} else if (strcmp(u->old, HOOKS_ZERO) != 0) {
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

int hook_post_receive(ctx *c, const char *gl_id, const char *project_id, FILE *in)
{
	hooks_update *updates = read_updates(c, in);
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
	if (rc == 0 && in_wiki(c, p.id))
		rc = hooks_touch(c, p.id);
	else if (rc == 0)
		rc = hooks_record(c, repo, &p, updates);
	if (rc == 0)
		rc = db_commit(c);
	else
		db_rollback(c);
	git_repository_free(repo);
	return rc < 0 ? -1 : 0;
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

int hook_install(const config *cfg, const char *exe, const char *cfg_path)
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
		/* a name of this process's own: instances started at once each write theirs
		 * and rename it over the hook (one would rename the other's away) */
		const char *tmp = arena_printf(a, "%s.tmp.%ld", path, (long)getpid());
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

static int run_hook(ctx *c, void *pre)
{
	const char *gl_id = getenv("GL_ID"), *project = getenv("GL_PROJECT");
	return *(bool *)pre ? hook_pre_receive(c, gl_id, project, stdin, stderr)
			    : hook_post_receive(c, gl_id, project, stdin);
}

int hook_main(const db_stmt *const *statements, const char *cfg_path, int argc, char **argv)
{
	bool pre = argc == 2 && strcmp(argv[1], "pre-receive") == 0;
	if (argc != 2 || (!pre && strcmp(argv[1], "post-receive") != 0))
		return entry_usage();
	log_use_syslog("collabd-hook"); /* stderr is the pushing git client's */
	config cfg;
	if (config_load(&cfg, cfg_path) < 0)
		return 1;
	int rc = entry_with_db(&cfg, statements, run_hook, &pre);
	if (rc < 0)
		fprintf(stderr, "GitLab: collabd could not %s this push; see its log.\n",
			pre ? "check" : "record");
	config_free(&cfg);
	return rc == 0 ? 0 : 1;
}
