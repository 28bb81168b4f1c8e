/* What the entry points share (entry.h). */
#include "entry.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "core/crypto.h"
#include "core/log.h"
#include "db/db.h"

int entry_usage(void)
{
	fprintf(stderr,
		"usage: collabd [-c CONFIG] COMMAND\n"
		"  serve                         run the master and its workers\n"
		"  migrate                       apply pending migrations from sql/\n"
		"  keygen                        create the instance key file if missing\n"
		"  user-create USERNAME EMAIL NAME [--password P] [--admin]\n"
		"                                create a user; prints its private token\n"
		"  token-create USERNAME [--name N] [--scopes api,read_user] [--expires YYYY-MM-DD]\n"
		"                                create a personal access token; prints it\n"
		"  private-token USERNAME        print the user's private token\n"
		"  runners-token                 print the shared runners' registration token\n"
		"                                (made when there is none)\n"
		"  hook pre-receive|post-receive  the git hooks (run by git, see hook.h)\n"
		"  authorized-keys TYPE KEY      sshd's AuthorizedKeysCommand (%%t %%k): the\n"
		"                                authorized_keys line of a user's key, if any\n"
		"  shell key-ID                  the forced command of that line: git over SSH\n"
		"                                (SSH_ORIGINAL_COMMAND, see shell.h)\n"
		"  statements [--all]            print the statements whose shape (parameters,\n"
		"                                columns) differs from their table's; 1 if any\n"
		"  move-storage PROJECT STORAGE  move a project's repository and wiki (PROJECT an\n"
		"                                id or full path) to another repository storage\n"
		"  routes                        print the endpoints the route tables serve\n"
		"                                (Markdown: doc/endpoints.md is its output)\n"
		"CONFIG is a key = value file (or $COLLABD_CONFIG); COLLABD_<KEY> overrides.\n");
	return 2;
}

int entry_load_key(const config *cfg, unsigned char key[32])
{
	if (crypto_key_load(cfg->key_file, key) < 0) {
		log_error(
			"cannot read the instance key %s (32 bytes, mode 0600); run `collabd keygen`",
			cfg->key_file);
		return -1;
	}
	return 0;
}

int entry_check_schema(const config *cfg)
{
	PGconn *c = PQconnectdb(cfg->database_url);
	if (PQstatus(c) != CONNECTION_OK) {
		log_error("database: %s", PQerrorMessage(c));
		PQfinish(c);
		return -1;
	}
	int rc = db_schema_check(c);
	PQfinish(c);
	if (rc != 0)
		log_error("the database schema is behind this collabd; run `collabd migrate`");
	return rc == 0 ? 0 : -1;
}

int entry_self_paths(const char *cfg_path, char exe[PATH_MAX], char conf[PATH_MAX])
{
	ssize_t n = readlink("/proc/self/exe", exe, PATH_MAX - 1);
	if (n < 0) {
		log_error("readlink /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	conf[0] = '\0';
	if (cfg_path && !realpath(cfg_path, conf)) {
		log_error("%s: %s", cfg_path, strerror(errno));
		return -1;
	}
	return 0;
}

int entry_with_db(const config *cfg, const db_stmt *const *statements, int (*fn)(ctx *c, void *arg),
		  void *arg)
{
	db d;
	int rc = -1;
	if (db_open(&d, cfg->database_url, statements) == 0) {
		arena *a = arena_new();
		ctx c;
		ctx_init(&c, a, cfg, &d, NULL);
		rc = fn(&c, arg);
		arena_destroy(a);
	}
	db_close(&d);
	return rc;
}

int entry_stop_signals(void)
{
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	return signalfd(-1, &stop, SFD_CLOEXEC);
}
