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
#include "db/db.h"
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
	if (strcmp(cmd, "version") == 0) {
		printf("collabd %s (%s)\n", API_VERSION, GIT_REVISION);
		return 0;
	}
	*known = false;
	return 2;
}
