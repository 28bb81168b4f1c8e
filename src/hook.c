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
#include "db/replica.h"
#include "entry.h"
#include "git/hooks.h"
#include "git/repo.h"

/* the columns of hook_user, and of hook_deploy_key (the key's id, then its creator's) */
enum { HU_ID, HU_ADMIN, HU_EXTERNAL, HU_NCOLS };
enum { HD_KEY, HD_USER, HD_NCOLS = HD_USER + HU_NCOLS };

const db_stmt hook_stmts[] = {
	/* $1 user id: the caller of a push */
	{"hook_user",
	 "SELECT id, is_admin, external FROM users WHERE id = $1 AND state = 'active'"
	 " AND NOT ghost",
	 1, HU_NCOLS},
	/* $1 key id: a deploy key (GL_ID key-<id>), and who added it when they are active */
	{"hook_deploy_key",
	 "SELECT k.id, u.id, u.is_admin, u.external FROM keys k LEFT JOIN users u"
	 " ON u.id = k.creator_id AND u.state = 'active' AND NOT u.ghost"
	 " WHERE k.id = $1 AND k.deploy",
	 1, HD_NCOLS},
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

/* Who pushes, as GL_ID names them: a user ("user-<id>"), or a deploy key ("key-<id>"),
 * which only collabd's own answers set (the SSH shell's environment, nginx's from the
 * git-auth answer): never what a client sent. */
typedef struct {
	caller *user;           /* the user; for a deploy key, who added it (NULL: gone) */
	const char *deploy_key; /* the deploy key's id, NULL for a user */
} pusher;

static caller *caller_row(ctx *c, const PGresult *res, int col)
{
	caller *u = arena_alloc(c->a, sizeof(*u));
	memset(u, 0, sizeof(*u));
	u->id = db_int(res, 0, col + HU_ID);
	u->admin = db_bool(res, 0, col + HU_ADMIN);
	u->external = db_bool(res, 0, col + HU_EXTERNAL);
	return u;
}

/* 0 with *out, or -1 when GL_ID names nobody who may push. */
static int load_pusher(ctx *c, const char *gl_id, pusher *out)
{
	*out = (pusher){0};
	bool key = gl_id && strncmp(gl_id, "key-", 4) == 0;
	if (!gl_id || (!key && strncmp(gl_id, "user-", 5) != 0))
		return -1;
	const char *v[1] = {gl_id + (key ? 4 : 5)};
	if (!scope_ref_is_id(v[0]))
		return -1;
	int err;
	PGresult *res = db_query(c, key ? "hook_deploy_key" : "hook_user", 1, v, &err);
	if (!res || PQntuples(res) != 1)
		return -1;
	if (!key) {
		out->user = caller_row(c, res, 0);
		return 0;
	}
	out->deploy_key = arena_strdup(c->a, PQgetvalue(res, 0, HD_KEY));
	if (!PQgetisnull(res, 0, HD_USER))
		out->user = caller_row(c, res, HD_USER);
	return 0;
}

/* The project of the push as its pusher reaches it (lock: FOR UPDATE), and for a deploy
 * key whether its link lets it push, with c->user the caller whose abilities count (a
 * user; none for a deploy key): 0, or ERR_NOT_FOUND, or an ERR_ code. */
static int pusher_project(ctx *c, const pusher *who, const char *project_id, bool lock,
			  project_scope *p, bool *can_push)
{
	*can_push = false;
	/* a deploy key's abilities are its own, not its creator's */
	c->user = who->deploy_key ? NULL : who->user;
	if (who->deploy_key)
		return scope_project_deploy_key(c, who->deploy_key, project_id, lock, p, can_push);
	return scope_project(c, project_id, lock ? SCOPE_UPDATE : SCOPE_READ, p);
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
	const char *dir = repo_wiki_path(c, project_id);
	return dir && realpath(".", here) && realpath(dir, wiki) &&
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
	pusher who;
	project_scope p;
	bool can_push;
	if (load_pusher(c, gl_id, &who) < 0 ||
	    pusher_project(c, &who, project_id, false, &p, &can_push) < 0) {
		fprintf(err, "GitLab: The project you were looking for could not be found.\n");
		return 1;
	}
	/* the move of the repository to another storage (collabd move-storage) waits for
	 * the pushes past this point; later ones are refused */
	if (p.repository_read_only) {
		fprintf(err, "GitLab: %s\n", REPO_READ_ONLY_MESSAGE);
		return 1;
	}
	bool wiki = in_wiki(c, p.id);
	if (who.deploy_key && !can_git_deploy_key(true, can_push, p.pa.archived, wiki, true)) {
		fprintf(err, "GitLab: %s\n",
			wiki	    ? "You are not allowed to write to this project's wiki."
			: can_push ? "You are not allowed to push code to this project."
				   : "This deploy key does not have write access to this project.");
		return 1;
	}
	if (wiki) {
		/* no protected branches in a wiki: writers of the wiki push anything */
		if (can_create_wiki(&p.pa, p.wiki_enabled, c->user))
			return 0;
		fprintf(err, "GitLab: You are not allowed to write to this project's wiki.\n");
		return 1;
	}
	int level = who.deploy_key ? DEPLOY_KEY_PUSH_LEVEL : code_push_level(&p.pa);
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
	pusher who;
	git_repository *repo = open_here();
	if (load_pusher(c, gl_id, &who) < 0 || !repo) {
		git_repository_free(repo);
		return -1;
	}
	int rc = db_begin(c);
	project_scope p;
	bool can_push;
	if (rc == 0)
		rc = pusher_project(c, &who, project_id, true, &p, &can_push);
	/* a deploy key's push is recorded as its creator's (10.8 identifies the key's
	 * user); with them gone, as nobody's: the refs changed, no event, no job */
	c->user = who.user;
	/* a wiki's push is no code push: no event, no default branch, no `push` job (GitLab
	 * 10 records only the project's activity) */
	if (rc == 0 && in_wiki(c, p.id))
		rc = hooks_touch(c, p.id);
	else if (rc == 0 && !c->user && (rc = hooks_refs_changed(c, p.id)) == 0)
		rc = hooks_touch(c, p.id);
	else if (rc == 0)
		rc = hooks_record(c, repo, &p, updates);
	if (rc == 0)
		rc = db_commit(c);
	else
		db_rollback(c);
	/* the pusher's next reads (the API's branches, commits) see the push */
	if (rc == 0 && c->user)
		db_replica_wrote(c, c->user->id, NULL);
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
