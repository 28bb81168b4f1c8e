/* The command line's administration commands (cli.h). */
#include "config.h" /* GIT_REVISION */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "core/crypto.h"
#include "core/log.h"
#include "auth/scope.h"
#include "core/storages.h"
#include "db/db.h"
#include "db/repos.h"
#include "entry.h"
#include "git/repo.h"
#include "modules.h"

/* An open command: its configuration, connection, arena, key and context. */
struct cli {
	config cfg;
	db d;
	arena *a;
	unsigned char key[32];
	ctx c;
};

static int cli_open(struct cli *c, const char *cfg_path)
{
	memset(c, 0, sizeof(*c));
	if (config_load(&c->cfg, cfg_path) < 0)
		return -1;
	if (entry_load_key(&c->cfg, c->key) < 0 || entry_check_schema(&c->cfg) < 0 ||
	    db_open(&c->d, c->cfg.database_url, statements) < 0) {
		db_close(&c->d);
		config_free(&c->cfg);
		return -1;
	}
	c->a = arena_new();
	ctx_init(&c->c, c->a, &c->cfg, &c->d, c->key);
	return 0;
}

static void cli_close(struct cli *c)
{
	arena_destroy(c->a);
	db_close(&c->d);
	config_free(&c->cfg);
}

/* A field's problem, in the API's words: "collabd: email is invalid". */
static void cli_problem(void *arg, const char *field, const char *message)
{
	(void)arg;
	fprintf(stderr, "collabd: %s %s\n", field, message);
}

/* The failure rc of a command (its problems already told): what the API would say
 * of it. 1, the exit status. */
static int cli_fail(struct cli *c, int rc)
{
	const char *detail = c->c.err_detail;
	if (rc == ERR_VALIDATION)
		return 1;
	if (rc == ERR_MISSING && detail)
		fprintf(stderr, "collabd: \"%s\" not given\n", detail);
	else if (rc == ERR_NOT_FOUND && detail)
		fprintf(stderr, "collabd: %s Not Found\n", detail);
	else if (detail && (rc == ERR_INVALID || rc == ERR_CONFLICT))
		fprintf(stderr, "collabd: %s\n", detail);
	else
		fprintf(stderr, "collabd: failed (error %d); see the log\n", rc);
	return 1;
}

/* The id of the user username, or NULL. */
static const char *cli_user_id(struct cli *c, const char *username)
{
	const char *v[1] = {username};
	int err;
	PGresult *res = db_query(&c->c, "auth_sudo_user", 1, v, &err);
	if (!res || PQntuples(res) != 1)
		return NULL;
	return arena_strdup(c->a, PQgetvalue(res, 0, 0));
}

static int print_private_token(struct cli *c, const char *id)
{
	const char *v[1] = {id};
	int err;
	PGresult *res = db_query(&c->c, "users_private_token", 1, v, &err);
	const char *sealed = res && PQntuples(res) ? db_val(res, 0, 0) : NULL;
	const char *token = sealed ? crypto_open(c->a, c->key, sealed) : NULL;
	if (!token) {
		fprintf(stderr, "collabd: no private token for user %s\n", id);
		return 1;
	}
	printf("%s\n", token);
	return 0;
}

/* Ends c's transaction: committed when rc is 0, else rolled back. rc, or the commit's
 * error. */
static int cli_end(struct cli *c, int rc)
{
	if (rc < 0) {
		db_rollback(&c->c);
		return rc;
	}
	return db_commit(&c->c);
}

/* user-create USERNAME EMAIL NAME [--password P] [--admin]: as POST /users by an admin
 * with skip_confirmation (and reset_password without a password); prints the user's
 * private token. */
static int user_create(const char *cfg_path, int argc, char **argv)
{
	const char *password = NULL;
	bool admin = false;
	static const struct option opts[] = {
		{"password", required_argument, NULL, 'p'},
		{"admin", no_argument, NULL, 'a'},
		{NULL, 0, NULL, 0},
	};
	int o;
	optind = 1;
	while ((o = getopt_long(argc, argv, "p:a", opts, NULL)) != -1) {
		if (o == 'p')
			password = optarg;
		else if (o == 'a')
			admin = true;
		else
			return entry_usage();
	}
	if (argc - optind != 3)
		return entry_usage();
	struct cli c;
	if (cli_open(&c, cfg_path) < 0)
		return 1;
	user_input in = {
		.username = argv[optind],
		.email = argv[optind + 1],
		.name = argv[optind + 2],
		.password = password,
		.reset_password = !password,
		.admin = admin ? "true" : "false",
	};
	const char *id = NULL;
	int rc = db_begin(&c.c);
	if (rc == 0 && (rc = users_check(&c.c, &in, true, cli_problem, NULL)) == 0)
		rc = users_insert(&c.c, &in, true, cli_problem, NULL, &id);
	if (db_in_transaction(&c.c))
		rc = cli_end(&c, rc);
	int status = rc < 0 ? cli_fail(&c, rc) : print_private_token(&c, id);
	cli_close(&c);
	return status;
}

/* token-create USERNAME [--name N] [--scopes api,read_user] [--expires YYYY-MM-DD]: a
 * personal access token, as an impersonation token is made; prints it. */
static int token_create(const char *cfg_path, int argc, char **argv)
{
	const char *name = "cli", *scopes = "api", *expires = NULL;
	static const struct option opts[] = {
		{"name", required_argument, NULL, 'n'},
		{"scopes", required_argument, NULL, 's'},
		{"expires", required_argument, NULL, 'e'},
		{NULL, 0, NULL, 0},
	};
	int o;
	optind = 1;
	while ((o = getopt_long(argc, argv, "n:s:e:", opts, NULL)) != -1) {
		if (o == 'n')
			name = optarg;
		else if (o == 's')
			scopes = optarg;
		else if (o == 'e')
			expires = optarg;
		else
			return entry_usage();
	}
	if (argc - optind != 1)
		return entry_usage();
	struct cli c;
	if (cli_open(&c, cfg_path) < 0)
		return 1;
	const char *id = cli_user_id(&c, argv[optind]);
	int status = 1;
	if (!id) {
		fprintf(stderr, "collabd: no user %s\n", argv[optind]);
		goto out;
	}
	const char *list[64];
	int n = 0;
	char *copy = arena_strdup(c.a, scopes), *save = NULL;
	for (char *s = strtok_r(copy, ",", &save); s && n < 64; s = strtok_r(NULL, ",", &save))
		list[n++] = s;
	char token[TOKEN_LEN + 1];
	PGresult *res;
	int rc = tokens_insert(&c.c, id, name, list, n, expires, "personal", cli_problem, NULL,
			       &res, token);
	if (rc < 0) {
		status = cli_fail(&c, rc);
		goto out;
	}
	printf("%s\n", token);
	status = 0;
out:
	cli_close(&c);
	return status;
}

static int private_token(const char *cfg_path, int argc, char **argv)
{
	if (argc != 2)
		return entry_usage();
	struct cli c;
	if (cli_open(&c, cfg_path) < 0)
		return 1;
	const char *id = cli_user_id(&c, argv[1]);
	int status = id ? print_private_token(&c, id) : 1;
	if (!id)
		fprintf(stderr, "collabd: no user %s\n", argv[1]);
	cli_close(&c);
	return status;
}

/* The instance's shared runners registration token (api/runner.c), made on first use. */
static int runners_token(const char *cfg_path, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return entry_usage();
	struct cli c;
	if (cli_open(&c, cfg_path) < 0)
		return 1;
	const char *token;
	int rc = runner_registration_token(&c.c, &token);
	int status = 0;
	if (rc < 0)
		status = cli_fail(&c, rc);
	else
		printf("%s\n", token);
	cli_close(&c);
	return status;
}

/* After the schema: repositories of the layout before storage by project id move to
 * their place by id (repo_migrate_legacy). */
static int migrate_storage(ctx *c, void *arg)
{
	int moved = repo_migrate_legacy(c);
	if (moved > 0)
		log_info("moved %d repositories to storage by project id", moved);
	else if (moved < 0)
		log_error("moving repositories to storage by project id failed");
	return moved < 0 ? -1 : 0;
}

/* migrate: the schema, then the storage; keygen: the instance key file, if missing. */
static int migrate_or_keygen(const char *cfg_path, const char *cmd)
{
	config cfg;
	if (config_load(&cfg, cfg_path) < 0)
		return 1;
	int rc = 0;
	if (strcmp(cmd, "migrate") == 0) {
		rc = db_migrate(cfg.database_url) < 0 ||
		     entry_with_db(&cfg, statements, migrate_storage, NULL) < 0;
	} else if (access(cfg.key_file, F_OK) != 0) {
		if (crypto_key_create(cfg.key_file) < 0) {
			fprintf(stderr, "collabd: cannot create %s: %s\n", cfg.key_file,
				strerror(errno));
			rc = 1;
		} else {
			printf("created %s\n", cfg.key_file);
		}
	}
	config_free(&cfg);
	return rc;
}

/* The shapes of the statements as PostgreSQL finds them (db_describe). */
static int statements_command(const char *cfg_path, int argc, char **argv)
{
	bool all = argc == 2 && strcmp(argv[1], "--all") == 0;
	if (argc > 2 || (argc == 2 && !all))
		return entry_usage();
	config cfg;
	if (config_load(&cfg, cfg_path) < 0)
		return 1;
	db d;
	(void)db_connect(&d, cfg.database_url, statements); /* a mismatch is what we print */
	int differ = db_describe(&d, all, stdout);
	if (differ < 0)
		fprintf(stderr, "collabd: no database connection\n");
	db_close(&d);
	config_free(&cfg);
	return differ != 0;
}

/* The "who may" column of routes_command: what the dispatcher enforces before the
 * handler (the handler may ask for more, a level in the project for instance). */
static const char *route_access(unsigned flags)
{
	if (flags & ROUTE_ADMIN)
		return "admin";
	if (flags & ROUTE_NO_AUTH)
		return "anyone (credentials not read)";
	if (flags & ROUTE_AUTH)
		return flags & ROUTE_READ_USER ? "signed in (read_user scope too)" : "signed in";
	return "anyone";
}

/* Prints every route of every module as a Markdown document, so that the list of
 * endpoints the project serves is made from the tables the dispatcher uses. */
static int routes_command(int argc)
{
	if (argc != 1)
		return entry_usage();
	int total = 0;
	for (int t = 0; route_tables[t]; t++)
		for (const route *rt = route_tables[t]; rt->method; rt++)
			total++;
	printf("# Endpoints\n\n"
	       "Made by `collabd routes` from the route tables (`<module>_routes` in\n"
	       "`src/api/<module>.c`); `make check` fails when this file differs from them.\n"
	       "%d routes. Every `GET` is also answered to `HEAD`. \"Who may\" is what the\n"
	       "dispatcher asks before the handler runs; the handler applies the access model\n"
	       "(visibility, the caller's level) to the project or group of `:id` and the\n"
	       "records it reads.\n",
	       total);
	for (int t = 0; route_tables[t]; t++) {
		if (!route_tables[t]->method)
			continue; /* a module of shared code, with statements and no routes */
		printf("\n## %s\n\n| method | path | who may |\n|---|---|---|\n",
		       route_table_names[t]);
		for (const route *rt = route_tables[t]; rt->method; rt++)
			printf("| %s | `%s` | %s%s%s |\n", rt->method, rt->pattern,
			       route_access(rt->flags),
			       rt->flags & (ROUTE_PROJECT | ROUTE_GROUP)
				       ? (rt->flags & (ROUTE_AUTH | ROUTE_ADMIN) ? ", who sees the "
										 : " who sees the ")
				       : "",
			       rt->flags & ROUTE_PROJECT ? "project"
			       : rt->flags & ROUTE_GROUP ? "group"
							 : "");
	}
	return 0;
}

/* Ends the move of project_id's repository that failed at step what: the project stays
 * on its storage, writable again; 1, the exit status. */
static int move_failed(struct cli *c, const char *project_id, const char *what)
{
	fprintf(stderr, "collabd: move-storage: %s; the project stays where it was\n", what);
	int rc = db_begin(&c->c);
	if (rc == 0)
		rc = cli_end(c, db_repos_set_read_only(&c->c, project_id, false));
	if (rc < 0)
		fprintf(stderr, "collabd: move-storage: project %s could not be made writable "
				"again: run the command again\n",
			project_id);
	return 1;
}

/* Seconds the old copy stays after the switch. */
#define MOVE_GRACE_S 2

/* move-storage PROJECT STORAGE (GitLab 10.8's ProjectUpdateRepositoryStorageService):
 * 1. the project's row locked (waiting for the API's repository writes, which lock it
 *    too) and made repository_read_only: from then on pushes are refused by the
 *    pre-receive hook and collabd shell, the API's writes by api_repo_writable;
 * 2. the pushes that passed their pre-receive hook before are waited for: their
 *    quarantine and ref locks (repo_busy) gone;
 * 3. repository and wiki copied to the new storage as files, checked with git fsck;
 * 4. the row switched to the new storage and writable, in one statement;
 * 5. the old copies removed MOVE_GRACE_S later (a failure here leaves them behind,
 *    logged: harmless).
 * A failure before 4 removes the new copies and leaves the project writable on its old
 * storage. Reads go on throughout: the old copy serves them until 4, the new after. */
static int move_storage(const char *cfg_path, int argc, char **argv)
{
	if (argc != 3)
		return entry_usage();
	struct cli c;
	if (cli_open(&c, cfg_path) < 0)
		return 1;
	const char *ref = argv[1], *to = argv[2];
	int status = 1;
	const char *to_dir = storages_path(&c.cfg.storages, to);
	if (!to_dir) {
		fprintf(stderr, "collabd: move-storage: no storage \"%s\" (repository_storages)\n",
			to);
		goto out;
	}
	int rc = db_begin(&c.c), err;
	PGresult *res = NULL;
	if (rc == 0 && !(res = db_repos_move_find(&c.c, scope_ref_is_id(ref) ? ref : NULL, ref,
						   &err)))
		rc = err;
	if (rc == 0 && PQntuples(res) != 1) {
		db_rollback(&c.c);
		fprintf(stderr, "collabd: move-storage: no project %s\n", ref);
		goto out;
	}
	if (rc < 0) {
		db_rollback(&c.c);
		status = cli_fail(&c, rc);
		goto out;
	}
	const char *id = arena_strdup(c.a, db_val(res, 0, RM_ID));
	const char *from = arena_strdup(c.a, db_val(res, 0, RM_STORAGE));
	if (db_bool(res, 0, RM_READ_ONLY)) {
		db_rollback(&c.c);
		fprintf(stderr, "collabd: move-storage: project %s is read-only already (another "
				"move under way?)\n",
			id);
		goto out;
	}
	if (strcmp(from, to) == 0) {
		db_rollback(&c.c);
		printf("project %s is on storage %s already\n", id, to);
		status = 0;
		goto out;
	}
	if ((rc = cli_end(&c, db_repos_set_read_only(&c.c, id, true))) < 0) {
		status = cli_fail(&c, rc);
		goto out;
	}
	const char *old[2] = {repo_path(&c.c, id), repo_wiki_path(&c.c, id)};
	const char *rel = repo_relative(&c.c, id);
	const char *new[2] = {arena_printf(c.a, "%s/%s.git", to_dir, rel),
			      arena_printf(c.a, "%s/%s.wiki.git", to_dir, rel)};
	if (!old[0] || !old[1]) {
		status = move_failed(&c, id, "the old storage is not configured");
		goto out;
	}
	if (repo_wait_quiet(old, 2, 60) < 0) {
		status = move_failed(&c, id, "pushes still under way after 60 s");
		goto out;
	}
	/* leftovers of an earlier move that failed are no copy of today's */
	for (int i = 0; i < 2; i++)
		if (repo_remove_dir(new[i]) < 0 || repo_copy(&c.c, old[i], new[i]) < 0) {
			(void)repo_remove_dir(new[0]);
			(void)repo_remove_dir(new[1]);
			status = move_failed(&c, id, "the copy failed (see the log)");
			goto out;
		}
	rc = db_begin(&c.c);
	if ((rc = cli_end(&c, rc == 0 ? db_repos_set_storage(&c.c, id, to) : rc)) < 0) {
		(void)repo_remove_dir(new[0]);
		(void)repo_remove_dir(new[1]);
		status = move_failed(&c, id, "the project's storage could not be changed");
		goto out;
	}
	/* what started on the old copy before the switch (a clone's upload-pack, the
	 * post-receive hook of a push whose refs were copied) ends on it */
	sleep(MOVE_GRACE_S);
	for (int i = 0; i < 2; i++)
		if (repo_remove_dir(old[i]) < 0)
			log_error("move-storage: %s not removed: %s", old[i], strerror(errno));
	printf("project %s moved from storage %s to %s\n", id, from, to);
	status = 0;
out:
	cli_close(&c);
	return status;
}

int cli_main(const char *cfg_path, int argc, char **argv, bool *known)
{
	const char *cmd = argv[0];
	*known = true;
	if (strcmp(cmd, "migrate") == 0 || strcmp(cmd, "keygen") == 0)
		return migrate_or_keygen(cfg_path, cmd);
	if (strcmp(cmd, "user-create") == 0)
		return user_create(cfg_path, argc, argv);
	if (strcmp(cmd, "token-create") == 0)
		return token_create(cfg_path, argc, argv);
	if (strcmp(cmd, "private-token") == 0)
		return private_token(cfg_path, argc, argv);
	if (strcmp(cmd, "runners-token") == 0)
		return runners_token(cfg_path, argc, argv);
	if (strcmp(cmd, "statements") == 0)
		return statements_command(cfg_path, argc, argv);
	if (strcmp(cmd, "routes") == 0)
		return routes_command(argc);
	if (strcmp(cmd, "move-storage") == 0)
		return move_storage(cfg_path, argc, argv);
	if (strcmp(cmd, "version") == 0) {
		printf("collabd %s (%s)\n", API_VERSION, GIT_REVISION);
		return 0;
	}
	*known = false;
	return 2;
}
