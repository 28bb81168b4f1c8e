/* Git over SSH: `collabd authorized-keys` and `collabd shell` (shell.h). */
#include "shell.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth/scope.h"
#include "core/buf.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/sshkey.h"
#include "db/activity.h"
#include "entry.h"
#include "git/repo.h"

/* the columns of shell_key_by_fingerprint and of shell_key_user */
enum { SKF_ID, SKF_KEY, SKF_NCOLS };
enum {
	SKU_ID,
	SKU_ADMIN,
	SKU_EXTERNAL,
	SKU_USERNAME,
	SKU_ACTIVE,
	SKU_DEPLOY,
	SKU_ACTIVITY_STALE,
	SKU_NCOLS
};

const db_stmt shell_stmts[] = {
	/* $1 MD5 fingerprint (sshkey.h): the key (keys_fingerprint_key) of an active user,
	 * or a deploy key (sql/0044: no user) */
	{"shell_key_by_fingerprint",
	 "SELECT k.id, k.key FROM keys k LEFT JOIN users u ON u.id = k.user_id"
	 " WHERE k.fingerprint = $1 AND (k.deploy OR (u.state = 'active' AND NOT u.ghost))",
	 1, SKF_NCOLS},
	/* $1 key id: its user, whatever their state, and whether a pull is their first
	 * activity of the day (db/activity.h); a deploy key has none (NULLs) */
	{"shell_key_user",
	 "SELECT u.id, u.is_admin, u.external, u.username, u.state = 'active', k.deploy,"
	 " " SQL_ACTIVITY_STALE("u") " FROM keys k LEFT JOIN users u ON u.id = k.user_id"
				     " WHERE k.id = $1 AND (k.deploy OR NOT u.ghost)",
	 1, SKU_NCOLS},
	{NULL, NULL, 0, 0},
};

/* The blob of a key's base64 text; false when it is none. */
static bool key_blob(arena *a, const char *b64, unsigned char **blob, size_t *n)
{
	return b64 && *b64 && crypto_base64_decode(a, b64, blob, n) == 0 && *n > 0;
}

int shell_authorized_key(ctx *c, const char *command, const char *type, const char *b64, FILE *out)
{
	sshkey k;
	unsigned char *blob;
	size_t n;
	/* sshkey_parse checks that the blob is one of the type, and fingerprints it as
	 * the keys API stored it */
	if (!key_blob(c->a, b64, &blob, &n) ||
	    sshkey_parse(c->a, arena_printf(c->a, "%s %s", type, b64), &k) < 0)
		return 1;
	const char *v[1] = {k.fingerprint};
	int err;
	PGresult *res = db_query(c, "shell_key_by_fingerprint", 1, v, &err);
	if (!res)
		return -1;
	if (PQntuples(res) != 1)
		return 1;
	/* the same key, not only the same MD5 digest */
	sshkey stored;
	unsigned char *sblob;
	size_t sn;
	if (sshkey_parse(c->a, PQgetvalue(res, 0, SKF_KEY), &stored) < 0 ||
	    strcmp(stored.type, k.type) != 0)
		return 1;
	const char *sb64 = stored.normalized + strlen(stored.type) + 1;
	const char *end = strchr(sb64, ' ');
	sb64 = end ? arena_strndup(c->a, sb64, (size_t)(end - sb64)) : sb64;
	if (!key_blob(c->a, sb64, &sblob, &sn) || sn != n || memcmp(sblob, blob, n) != 0)
		return 1;
	fprintf(out,
		"command=\"%s shell key-%s\",no-port-forwarding,no-X11-forwarding,"
		"no-agent-forwarding,no-pty %s %s\n",
		command, PQgetvalue(res, 0, SKF_ID), stored.type, sb64);
	return 0;
}

/* Git's single-quoted argument (sq_quote: 'a'\''b'): its value, NULL when s is not
 * exactly such a quoted word. */
static const char *sq_dequote(arena *a, const char *s)
{
	buf b;
	buf_init(&b, a, strlen(s) + 1);
	if (*s != '\'')
		return NULL;
	for (;;) {
		s++; /* the opening quote */
		const char *close = strchr(s, '\'');
		if (!close)
			return NULL;
		buf_append(&b, s, (size_t)(close - s));
		s = close + 1;
		if (!*s)
			return buf_cstr(&b);
		/* between quoted parts only an escaped quote or '!' */
		if (s[0] != '\\' || (s[1] != '\'' && s[1] != '!') || s[2] != '\'')
			return NULL;
		buf_putc(&b, s[1]);
		s += 2;
	}
}

/* A word without quotes may only have characters no shell reads as anything else. */
static bool plain_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "._-/+@~",
			    *s))
			return false;
	return true;
}

int shell_parse_command(arena *a, const char *command, const char **program, const char **path,
			bool *push)
{
	static const char *const programs[] = {"git-upload-pack", "git-receive-pack"};
	int which = -1;
	const char *arg = NULL;
	for (int i = 0; i < 2 && which < 0; i++) {
		size_t n = strlen(programs[i]);
		if (strncmp(command, programs[i], n) == 0 && command[n] == ' ') {
			which = i;
			arg = command + n + 1;
		}
	}
	if (which < 0)
		return -1;
	const char *word = *arg == '\'' ? sq_dequote(a, arg) : plain_word(arg) ? arg : NULL;
	if (!word)
		return -1;
	char *p = arena_strdup(a, word);
	if (*p == '/')
		p++;
	size_t len = strlen(p);
	if (len > 4 && strcmp(p + len - 4, ".git") == 0)
		p[len -= 4] = '\0';
	if (len == 0 || len > 1024 || !strchr(p, '/'))
		return -1;
	/* segments: none empty, "." or ".."; no control characters */
	for (const char *s = p; *s;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return -1;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
				return -1;
		s += n + (e ? 1 : 0);
		if (e && !*s)
			return -1; /* a trailing slash */
	}
	*program = programs[which];
	*path = p;
	*push = which == 1;
	return 0;
}

/* The key's user as the caller, or for a deploy key its id in *deploy_key (and no
 * caller), *stale whether the user has no activity recorded today: 0, 1 when refused
 * (reason on err), -1. */
static int key_caller(ctx *c, const char *key_arg, FILE *err, const char **deploy_key, bool *stale)
{
	*deploy_key = NULL;
	*stale = false;
	const char *id = key_arg && strncmp(key_arg, "key-", 4) == 0 ? key_arg + 4 : NULL;
	if (!id || !scope_ref_is_id(id)) {
		fprintf(err, "GitLab: Invalid key argument.\n");
		return 1;
	}
	const char *v[1] = {id};
	int e;
	PGresult *res = db_query(c, "shell_key_user", 1, v, &e);
	if (!res)
		return -1;
	if (PQntuples(res) != 1) {
		fprintf(err, "GitLab: This SSH key is not known (it may have been removed).\n");
		return 1;
	}
	if (db_bool(res, 0, SKU_DEPLOY)) {
		*deploy_key = arena_strdup(c->a, id);
		return 0;
	}
	if (!db_bool(res, 0, SKU_ACTIVE)) {
		fprintf(err, "GitLab: Your account has been blocked.\n");
		return 1;
	}
	caller *u = arena_alloc(c->a, sizeof(*u));
	memset(u, 0, sizeof(*u));
	u->id = db_int(res, 0, SKU_ID);
	u->admin = db_bool(res, 0, SKU_ADMIN);
	u->external = db_bool(res, 0, SKU_EXTERNAL);
	u->username = arena_strdup(c->a, PQgetvalue(res, 0, SKU_USERNAME));
	c->user = u;
	*stale = db_bool(res, 0, SKU_ACTIVITY_STALE);
	return 0;
}

/* Whether the deploy key may run the request (auth/access.h), its reason on err when
 * not. */
static bool deploy_key_may(const project_scope *p, bool can_push, bool wiki, bool push, FILE *err)
{
	if (can_git_deploy_key(true, can_push, p->pa.archived, wiki, push))
		return true;
	const char *why = wiki ? push ? "You are not allowed to write to this project's wiki."
				      : "You are not allowed to download code from this "
					"project."
			  : can_push
				  ? "You are not allowed to push code to this project."
				  : "This deploy key does not have write access to this project.";
	fprintf(err, "GitLab: %s\n", why);
	return false;
}

int shell_decide(ctx *c, const char *key_arg, const char *command, FILE *err, shell_plan *out)
{
	const char *deploy_key;
	bool stale;
	int rc = key_caller(c, key_arg, err, &deploy_key, &stale);
	if (rc != 0)
		return rc;
	if (!command || !*command) {
		fprintf(err,
			"Welcome to GitLab, %s%s! collabd serves git over SSH; it provides no "
			"shell access.\n",
			deploy_key ? "" : "@", deploy_key ? "Anonymous" : c->user->username);
		return 1;
	}
	const char *program, *full;
	bool push;
	if (shell_parse_command(c->a, command, &program, &full, &push) < 0) {
		fprintf(err, "GitLab: Disallowed command. Only git-upload-pack and "
			     "git-receive-pack of a project's repository ('group/project.git') are "
			     "served.\n");
		return 1;
	}
	project_scope p;
	bool wiki, can_push = false;
	/* a deploy key finds only the projects it is enabled on: any other is not found,
	 * as a project is to a user who may not see it */
	rc = deploy_key ? scope_deploy_key_repository(c, deploy_key, full, &p, &wiki, &can_push)
			: scope_project_repository(c, full, &p, &wiki);
	if (rc == ERR_NOT_FOUND) {
		fprintf(err, "GitLab: The project you were looking for could not be found.\n");
		return 1;
	}
	if (rc < 0)
		return -1;
	if (deploy_key) {
		if (!deploy_key_may(&p, can_push, wiki, push, err))
			return 1;
	} else if (!can_git(&p.pa, p.visibility, p.wiki_enabled, c->user, wiki, push)) {
		const char *why = !push  ? "download code from this project"
				  : wiki ? "write to this project's wiki"
					 : "push code to this project";
		fprintf(err, "GitLab: You are not allowed to %s.\n", why);
		return 1;
	}
	/* a user's pull is their activity of the day (GitLab 10.8's /internal/allowed for
	 * git-upload-pack); not recording it is no reason to refuse the pull */
	if (!deploy_key && stale && !push && db_activity_record(c, c->user->id) < 0)
		log_warn("shell: the activity of user %lld not recorded", c->user->id);
	/* a repository being moved to another storage takes no push (its pre-receive hook
	 * says the same to a push that got this far before the move began) */
	if (push && p.repository_read_only) {
		fprintf(err, "GitLab: %s\n", REPO_READ_ONLY_MESSAGE);
		return 1;
	}
	/* a wiki is made by its first use (as over HTTP) */
	if (wiki && repo_wiki_create(c, p.id) < 0)
		return -1;
	const char *repo = wiki ? repo_wiki_path(c, p.id) : repo_path(c, p.id);
	if (!repo)
		return -1;
	if (access(repo, F_OK) != 0) {
		fprintf(err, "GitLab: A repository for this project does not exist yet.\n");
		return 1;
	}
	*out = (shell_plan){
		.program = program,
		.repo = repo,
		.gl_id = deploy_key ? arena_printf(c->a, "key-%s", deploy_key)
				    : arena_printf(c->a, "user-%lld", c->user->id),
		.project = p.id,
		.hooks_dir = arena_printf(c->a, "%s/hooks", c->cfg->storage_path),
	};
	return 0;
}

/* GIT_PROTOCOL as git sends it (sshd's AcceptEnv GIT_PROTOCOL): "version=<digit>". */
static bool valid_protocol(const char *s)
{
	return s && strncmp(s, "version=", 8) == 0 && s[8] >= '0' && s[8] <= '9' && !s[9];
}

int shell_exec(const shell_plan *plan)
{
	static char path_default[] = "PATH=/usr/local/bin:/usr/bin:/bin";
	char *env[16];
	int n = 0;
	const char *path = getenv("PATH"), *home = getenv("HOME");
	const char *protocol = getenv("GIT_PROTOCOL");
	char *owned[16];
	int nowned = 0;
#define PUT(...)                                                                                   \
	do {                                                                                       \
		char *s_;                                                                          \
		if (asprintf(&s_, __VA_ARGS__) < 0)                                                \
			goto fail;                                                                 \
		env[n++] = owned[nowned++] = s_;                                                   \
	} while (0)
	if (path)
		PUT("PATH=%s", path);
	else
		env[n++] = path_default;
	if (home)
		PUT("HOME=%s", home);
	if (valid_protocol(protocol))
		PUT("GIT_PROTOCOL=%s", protocol);
	PUT("GL_ID=%s", plan->gl_id);
	PUT("GL_PROJECT=%s", plan->project);
	PUT("GL_PROTOCOL=ssh");
	PUT("GIT_CONFIG_COUNT=1");
	PUT("GIT_CONFIG_KEY_0=core.hooksPath");
	PUT("GIT_CONFIG_VALUE_0=%s", plan->hooks_dir);
#undef PUT
	env[n] = NULL;
	char *argv[3] = {(char *)plan->program, (char *)plan->repo, NULL};
	execvpe(plan->program, argv, env);
	fprintf(stderr, "GitLab: cannot run %s: %s\n", plan->program, strerror(errno));
fail:
	while (nowned > 0)
		free(owned[--nowned]);
	return -1;
}

static bool plain_path(const char *s)
{
	return strspn(s,
		      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-@,:=") ==
	       strlen(s);
}

/* What authorized-keys prints the line of: the key of argv[1] (its type) and argv[2],
 * whose command runs the binary exe with the configuration conf (empty: none). */
struct key_lookup {
	const char *exe, *conf;
	char **argv;
};

static int print_key_line(ctx *c, void *arg)
{
	const struct key_lookup *k = arg;
	const char *command = *k->conf ? arena_printf(c->a, "%s -c %s", k->exe, k->conf) : k->exe;
	return shell_authorized_key(c, command, k->argv[1], k->argv[2], stdout);
}

int shell_authorized_keys_main(const db_stmt *const *statements, const char *cfg_path, int argc,
			       char **argv)
{
	if (argc != 3)
		return entry_usage();
	char exe[PATH_MAX], conf[PATH_MAX];
	if (entry_self_paths(cfg_path, exe, conf) < 0)
		return 1;
	/* the line's command="..." goes through sshd's option quoting and then the login
	 * shell: only paths that need neither */
	if (!plain_path(exe) || !plain_path(conf)) {
		fprintf(stderr,
			"collabd: for an authorized_keys line the paths %s and %s may only "
			"have letters, digits and / . _ + - @ , : =\n",
			exe, conf);
		return 1;
	}
	config cfg;
	if (config_load(&cfg, cfg_path) < 0)
		return 1;
	struct key_lookup k = {exe, conf, argv};
	int rc = entry_with_db(&cfg, statements, print_key_line, &k);
	config_free(&cfg);
	return rc < 0 ? 1 : 0;
}

int shell_main(const db_stmt *const *statements, const char *cfg_path, int argc, char **argv)
{
	if (argc != 2)
		return entry_usage();
	log_use_syslog("collabd-shell"); /* stderr is the git client's */
	config cfg;
	if (config_load(&cfg, cfg_path) < 0)
		return 1;
	db d;
	int rc = -1;
	arena *a = arena_new();
	ctx c;
	shell_plan plan;
	if (db_open(&d, cfg.database_url, statements) == 0) {
		ctx_init(&c, a, &cfg, &d, NULL);
		rc = shell_decide(&c, argv[1], getenv("SSH_ORIGINAL_COMMAND"), stderr, &plan);
	}
	db_close(&d); /* not inherited by git */
	if (rc == 0)
		(void)shell_exec(&plan); /* returns only when git cannot run */
	else if (rc < 0)
		fprintf(stderr, "GitLab: collabd could not serve this request; try again later.\n");
	arena_destroy(a);
	config_free(&cfg);
	return 1;
}
