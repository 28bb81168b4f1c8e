/* collabd: the command line (serve, migrate, keygen, user-create, token-create,
 * private-token, runners-token, hook, authorized-keys, shell, statements) and the master
 * process that runs the workers. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <fcgiapp.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "background.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/turns.h"
#include "db/db.h"
#include "git/repo.h"
#include "git/hooks.h"
#include "git/shell.h"
#include "modules.h"
#include "worker.h"

#define MAX_WORKERS 256

static const char *config_path(const char *opt)
{
	return opt ? opt : getenv("COLLABD_CONFIG");
}

static int usage(void)
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
		"  hook pre-receive|post-receive  the git hooks (run by git, see git/hooks.h)\n"
		"  authorized-keys TYPE KEY      sshd's AuthorizedKeysCommand (%%t %%k): the\n"
		"                                authorized_keys line of a user's key, if any\n"
		"  shell key-ID                  the forced command of that line: git over SSH\n"
		"                                (SSH_ORIGINAL_COMMAND, see git/shell.h)\n"
		"  statements [--all]            print the statements whose shape (parameters,\n"
		"                                columns) differs from their table's; 1 if any\n"
		"  routes                        print the endpoints the route tables serve\n"
		"                                (Markdown: doc/endpoints.md is its output)\n"
		"CONFIG is a key = value file (or $COLLABD_CONFIG); COLLABD_<KEY> overrides.\n");
	return 2;
}

/* ---- the master ---- */

static volatile sig_atomic_t got_term, got_hup, got_chld;

static void on_signal(int sig)
{
	if (sig == SIGTERM || sig == SIGINT)
		got_term = 1;
	else if (sig == SIGHUP)
		got_hup = 1;
	else if (sig == SIGCHLD)
		got_chld = 1;
}

/* The children: the workers, and the background process that runs queued jobs
 * (background.c), one per generation, respawned and replaced like a worker. */
struct worker_slot {
	pid_t pid;
	int generation;
	time_t started;
	bool background;
};

static struct worker_slot slots[MAX_WORKERS];
static int nslots;
/* The response cache and the authentication cache the workers of the current
 * generation share (cache/store.h). */
static cache *response_cache, *auth_cache;
/* The turns of the current generation's write transactions (core/turns.h). */
static int write_turns = -1;

static void cache_renew(const config *cfg)
{
	/* the master's mappings; older workers keep theirs */
	cache_free(response_cache);
	cache_free(auth_cache);
	response_cache = cfg->cache_size_mb > 0 ? cache_new((size_t)cfg->cache_size_mb << 20) : NULL;
	auth_cache = cfg->auth_cache_mb > 0 ? cache_new((size_t)cfg->auth_cache_mb << 20) : NULL;
}

/* A new set of turns for a new generation: the old workers' waits end as the set they
 * wait on goes, and they finish without one. */
static void turns_renew(const config *cfg)
{
	turns_free(write_turns);
	write_turns = turns_new(cfg->write_transactions);
}

static pid_t spawn(const config *cfg, int fd, const unsigned char *key, int generation,
		   bool background)
{
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGCHLD, SIG_DFL);
		if (background) {
			close(fd);
			_exit(background_run(cfg, key));
		}
		_exit(worker_run(cfg, fd, key, response_cache, auth_cache, write_turns));
	}
	if (pid < 0) {
		log_error("fork: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < MAX_WORKERS; i++)
		if (slots[i].pid == 0) {
			slots[i] = (struct worker_slot){pid, generation, time(NULL), background};
			if (i >= nslots)
				nslots = i + 1;
			return pid;
		}
	return pid;
}

static int live_workers(void)
{
	int n = 0;
	for (int i = 0; i < nslots; i++)
		n += slots[i].pid != 0;
	return n;
}

static int open_listener(const config *cfg, char **unix_path)
{
	const char *lp = getenv("LISTEN_PID"), *lf = getenv("LISTEN_FDS");
	if (lp && lf && atoi(lp) == (int)getpid() && atoi(lf) >= 1)
		return 3; /* systemd socket activation */
	if (strcmp(cfg->listen, "stdin") == 0)
		return 0;
	bool is_unix = cfg->listen[0] == '/';
	if (is_unix)
		unlink(cfg->listen);
	int fd = FCGX_OpenSocket(cfg->listen, cfg->backlog);
	if (fd < 0) {
		log_error("cannot listen on %s: %s", cfg->listen, strerror(errno));
		return -1;
	}
	if (is_unix) {
		chmod(cfg->listen, (mode_t)strtol(cfg->socket_mode, NULL, 8));
		*unix_path = strdup(cfg->listen);
	}
	return fd;
}

static int load_key(const config *cfg, unsigned char key[32])
{
	if (crypto_key_load(cfg->key_file, key) < 0) {
		log_error("cannot read the instance key %s (32 bytes, mode 0600); run `collabd keygen`",
			  cfg->key_file);
		return -1;
	}
	return 0;
}

static int check_schema(const config *cfg)
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

/* Every statement prepares with the shape its table declares (db_connect checks it): a
 * mismatch stops the start, with the statements named in the log. */
static int check_statements(const config *cfg)
{
	db d;
	int rc = db_connect(&d, cfg->database_url, statements);
	db_close(&d);
	if (rc < 0)
		log_error("the statements do not prepare as declared: see above, or run "
			  "`collabd statements`");
	return rc;
}

/* The absolute paths of this binary and of the configuration cfg_path (empty when
 * NULL), for the commands that git and sshd run later elsewhere. 0 or -1 (logged). */
static int self_paths(const char *cfg_path, char exe[PATH_MAX], char conf[PATH_MAX])
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

/* The git hooks under <storage>/hooks, running this binary with this configuration
 * (absolute paths: git runs them inside the repository). */
static int install_hooks(const config *cfg, const char *cfg_path)
{
	char exe[PATH_MAX], conf[PATH_MAX];
	if (self_paths(cfg_path, exe, conf) < 0)
		return -1;
	return hooks_install(cfg, exe, cfg_path ? conf : NULL);
}

/* After the schema: repositories of the layout before storage by project id move to
 * their place by id (repo_migrate_legacy). */
static int migrate_storage(const config *cfg)
{
	db d;
	if (db_open(&d, cfg->database_url, statements) < 0)
		return -1;
	arena *a = arena_new();
	ctx c;
	ctx_init(&c, a, cfg, &d, NULL);
	int moved = repo_migrate_legacy(&c);
	if (moved > 0)
		log_info("moved %d repositories to storage by project id", moved);
	else if (moved < 0)
		log_error("moving repositories to storage by project id failed");
	arena_destroy(a);
	db_close(&d);
	return moved < 0 ? -1 : 0;
}

static int serve(const char *cfg_path)
{
	config cfg;
	if (config_load(&cfg, cfg_path) < 0)
		return 1;
	enum log_level lvl;
	if (log_level_parse(cfg.log_level, &lvl) == 0)
		log_set_level(lvl);
	unsigned char key[32];
	char *unix_path = NULL;
	int fd = -1;
	if (load_key(&cfg, key) < 0 || check_schema(&cfg) < 0 || check_statements(&cfg) < 0 ||
	    install_hooks(&cfg, cfg_path) < 0 || (fd = open_listener(&cfg, &unix_path)) < 0) {
		config_free(&cfg);
		return 1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);

	int generation = 1;
	cache_renew(&cfg);
	turns_renew(&cfg);
	int want = cfg.workers > MAX_WORKERS ? MAX_WORKERS : cfg.workers;
	for (int i = 0; i < want; i++)
		spawn(&cfg, fd, key, generation, false);
	spawn(&cfg, fd, key, generation, true);
	log_info("serving on %s with %d workers", cfg.listen, want);

	while (!got_term) {
		sigsuspend(&old);
		if (got_chld) {
			got_chld = 0;
			int status;
			pid_t pid;
			while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
				for (int i = 0; i < nslots; i++) {
					if (slots[i].pid != pid)
						continue;
					bool current = slots[i].generation == generation;
					bool early = time(NULL) - slots[i].started < 1;
					bool background = slots[i].background;
					slots[i].pid = 0;
					if (current && !got_term) {
						if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0)
							log_warn("%s %d died (status %d); respawning",
								 background ? "background process" : "worker",
								 (int)pid, status);
						if (early)
							sleep(1); /* do not spin on a worker that cannot start */
						spawn(&cfg, fd, key, generation, background);
					}
				}
			}
		}
		if (got_hup) {
			got_hup = 0;
			/* New workers with the new configuration start accepting before the old
			 * ones are told to finish: the socket never goes unserved. */
			config fresh;
			if (config_load(&fresh, cfg_path) == 0) {
				unsigned char fresh_key[32];
				if (crypto_key_load(fresh.key_file, fresh_key) == 0) {
					config_free(&cfg);
					cfg = fresh;
					memcpy(key, fresh_key, 32);
				} else {
					log_error("reload: cannot read the instance key; keeping the old one");
					config_free(&fresh);
				}
			} else {
				log_error("reload: configuration invalid; keeping the old one");
			}
			if (log_level_parse(cfg.log_level, &lvl) == 0)
				log_set_level(lvl);
			int old_gen = generation++;
			cache_renew(&cfg); /* what it holds was made with the old configuration */
			turns_renew(&cfg);
			want = cfg.workers > MAX_WORKERS ? MAX_WORKERS : cfg.workers;
			for (int i = 0; i < want; i++)
				spawn(&cfg, fd, key, generation, false);
			spawn(&cfg, fd, key, generation, true);
			for (int i = 0; i < nslots; i++)
				if (slots[i].pid && slots[i].generation == old_gen)
					kill(slots[i].pid, SIGTERM);
			log_info("reloaded: %d workers of generation %d", want, generation);
		}
	}

	log_info("stopping: draining %d workers", live_workers());
	for (int i = 0; i < nslots; i++)
		if (slots[i].pid)
			kill(slots[i].pid, SIGTERM);
	time_t deadline = time(NULL) + 30;
	while (live_workers() > 0) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		if (pid > 0) {
			for (int i = 0; i < nslots; i++)
				if (slots[i].pid == pid)
					slots[i].pid = 0;
			continue;
		}
		if (time(NULL) > deadline) {
			for (int i = 0; i < nslots; i++)
				if (slots[i].pid)
					kill(slots[i].pid, SIGKILL);
		}
		usleep(20000);
	}
	if (unix_path)
		unlink(unix_path);
	free(unix_path);
	turns_free(write_turns);
	config_free(&cfg);
	log_info("stopped");
	return 0;
}

/* ---- admin tasks: they run the API's own handlers on a request without HTTP ---- */

struct cli {
	config cfg;
	db d;
	arena *a;
	unsigned char key[32];
	request r;
};

static int cli_open(struct cli *c, const char *cfg_path)
{
	memset(c, 0, sizeof(*c));
	if (config_load(&c->cfg, cfg_path) < 0)
		return -1;
	if (load_key(&c->cfg, c->key) < 0 || check_schema(&c->cfg) < 0 ||
	    db_open(&c->d, c->cfg.database_url, statements) < 0) {
		db_close(&c->d);
		config_free(&c->cfg);
		return -1;
	}
	c->a = arena_new();
	request_init(&c->r, c->a, &c->cfg);
	ctx_init(&c->r.ctx, c->a, &c->cfg, &c->d, c->key);
	c->r.method = "POST";
	c->r.path = "";
	c->r.query = "";
	return 0;
}

static void cli_close(struct cli *c)
{
	arena_destroy(c->a);
	db_close(&c->d);
	config_free(&c->cfg);
}

static int cli_fail(struct cli *c, int rc)
{
	respond_error(&c->r, rc);
	fprintf(stderr, "collabd: %d %.*s\n", c->r.status, (int)c->r.body_len,
		c->r.body ? c->r.body : "");
	return 1;
}

static const char *cli_user_id(struct cli *c, const char *username)
{
	const char *v[1] = {username};
	int err;
	PGresult *res = db_query(&c->r.ctx, "auth_sudo_user", 1, v, &err);
	if (!res || PQntuples(res) != 1)
		return NULL;
	return arena_strdup(c->a, PQgetvalue(res, 0, 0));
}

static int print_private_token(struct cli *c, const char *id)
{
	const char *v[1] = {id};
	int err;
	PGresult *res = db_query(&c->r.ctx, "users_private_token", 1, v, &err);
	const char *sealed = res && PQntuples(res) ? db_val(res, 0, 0) : NULL;
	const char *token = sealed ? crypto_open(c->a, c->key, sealed) : NULL;
	if (!token) {
		fprintf(stderr, "collabd: no private token for user %s\n", id);
		return 1;
	}
	printf("%s\n", token);
	return 0;
}

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
			return usage();
	}
	if (argc - optind != 3)
		return usage();
	struct cli c;
	if (cli_open(&c, cfg_path) < 0)
		return 1;
	request *r = &c.r;
	param_add(r, "username", argv[optind], false, SRC_BODY, false);
	param_add(r, "email", argv[optind + 1], false, SRC_BODY, false);
	param_add(r, "name", argv[optind + 2], false, SRC_BODY, false);
	if (password)
		param_add(r, "password", password, false, SRC_BODY, false);
	else
		param_add(r, "reset_password", "true", false, SRC_BODY, false);
	param_add(r, "admin", admin ? "true" : "false", false, SRC_BODY, false);
	param_add(r, "skip_confirmation", "true", false, SRC_BODY, false);
	int rc = worker_transaction(r, users_create);
	int status = 0;
	if (rc < 0) {
		status = cli_fail(&c, rc);
	} else {
		const char *id = cli_user_id(&c, argv[optind]);
		status = id ? print_private_token(&c, id) : 1;
	}
	cli_close(&c);
	return status;
}

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
			return usage();
	}
	if (argc - optind != 1)
		return usage();
	struct cli c;
	if (cli_open(&c, cfg_path) < 0)
		return 1;
	request *r = &c.r;
	const char *id = cli_user_id(&c, argv[optind]);
	int status = 1;
	if (!id) {
		fprintf(stderr, "collabd: no user %s\n", argv[optind]);
		goto out;
	}
	param_add(r, "user_id", id, false, SRC_PATH, true);
	param_add(r, "name", name, false, SRC_BODY, false);
	if (expires)
		param_add(r, "expires_at", expires, false, SRC_BODY, false);
	char *list = arena_strdup(c.a, scopes), *save = NULL;
	for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save))
		param_add(r, "scopes", s, true, SRC_BODY, false);
	int rc = tokens_create(r, "personal");
	if (rc < 0) {
		status = cli_fail(&c, rc);
		goto out;
	}
	json_object *body = json_tokener_parse(r->body), *t = NULL;
	if (body && json_object_object_get_ex(body, "token", &t)) {
		printf("%s\n", json_object_get_string(t));
		status = 0;
	}
	json_object_put(body);
out:
	cli_close(&c);
	return status;
}

static int private_token(const char *cfg_path, int argc, char **argv)
{
	if (argc != 2)
		return usage();
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
		return usage();
	struct cli c;
	if (cli_open(&c, cfg_path) < 0)
		return 1;
	const char *token;
	int rc = runner_registration_token(&c.r.ctx, &token);
	int status = 0;
	if (rc < 0)
		status = cli_fail(&c, rc);
	else
		printf("%s\n", token);
	cli_close(&c);
	return status;
}

/* A git hook (git/hooks.h): the caller and the project from GL_ID and GL_PROJECT, the
 * ref updates from standard input. A refused push exits 1 with the reason on stderr. */
static int hook_command(const char *cfg_path, int argc, char **argv)
{
	bool pre = argc == 2 && strcmp(argv[1], "pre-receive") == 0;
	if (argc != 2 || (!pre && strcmp(argv[1], "post-receive") != 0))
		return usage();
	log_use_syslog("collabd-hook"); /* stderr is the pushing git client's */
	config cfg;
	if (config_load(&cfg, cfg_path) < 0)
		return 1;
	db d;
	int rc = -1;
	if (db_open(&d, cfg.database_url, statements) == 0) {
		arena *a = arena_new();
		ctx c;
		ctx_init(&c, a, &cfg, &d, NULL);
		const char *gl_id = getenv("GL_ID"), *project = getenv("GL_PROJECT");
		rc = pre ? hook_pre_receive(&c, gl_id, project, stdin, stderr)
			 : hook_post_receive(&c, gl_id, project, stdin);
		arena_destroy(a);
	}
	if (rc < 0)
		fprintf(stderr, "GitLab: collabd could not %s this push; see its log.\n",
			pre ? "check" : "record");
	db_close(&d);
	config_free(&cfg);
	return rc == 0 ? 0 : 1;
}

static bool plain_path(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-@,:=") ==
	       strlen(s);
}

/* sshd's AuthorizedKeysCommand, `authorized-keys %t %k` (git/shell.h): the line of a
 * known key, whose forced command runs this binary with this configuration; nothing
 * for any other key. 0, or 1 when it cannot tell (sshd then refuses the key). */
static int authorized_keys_command(const char *cfg_path, int argc, char **argv)
{
	if (argc != 3)
		return usage();
	char exe[PATH_MAX], conf[PATH_MAX];
	if (self_paths(cfg_path, exe, conf) < 0)
		return 1;
	/* the line's command="..." goes through sshd's option quoting and then the login
	 * shell: only paths that need neither */
	if (!plain_path(exe) || !plain_path(conf)) {
		fprintf(stderr, "collabd: for an authorized_keys line the paths %s and %s may only "
				"have letters, digits and / . _ + - @ , : =\n",
			exe, conf);
		return 1;
	}
	config cfg;
	if (config_load(&cfg, cfg_path) < 0)
		return 1;
	db d;
	int rc = -1;
	if (db_open(&d, cfg.database_url, statements) == 0) {
		arena *a = arena_new();
		ctx c;
		ctx_init(&c, a, &cfg, &d, NULL);
		const char *command = *conf ? arena_printf(a, "%s -c %s", exe, conf) : exe;
		rc = shell_authorized_key(&c, command, argv[1], argv[2], stdout);
		arena_destroy(a);
	}
	db_close(&d);
	config_free(&cfg);
	return rc < 0 ? 1 : 0;
}

/* The forced command of an authorized_keys line (git/shell.h): runs git for the key's
 * user when the client asked for a repository they may use, else says why not on
 * stderr and exits 1. */
static int shell_command(const char *cfg_path, int argc, char **argv)
{
	if (argc != 2)
		return usage();
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

/* The shapes of the statements as PostgreSQL finds them (db_describe). */
static int statements_command(const char *cfg_path, int argc, char **argv)
{
	bool all = argc == 2 && strcmp(argv[1], "--all") == 0;
	if (argc > 2 || (argc == 2 && !all))
		return usage();
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
		return usage();
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
			       : rt->flags & ROUTE_GROUP ? "group" : "");
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cfg_opt = NULL;
	int i = 1;
	if (i + 1 < argc && strcmp(argv[i], "-c") == 0) {
		cfg_opt = argv[i + 1];
		i += 2;
	}
	if (i >= argc)
		return usage();
	const char *cmd = argv[i];
	const char *cfg_path = config_path(cfg_opt);
	if (strcmp(cmd, "serve") == 0)
		return serve(cfg_path);
	if (strcmp(cmd, "statements") == 0)
		return statements_command(cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "hook") == 0)
		return hook_command(cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "authorized-keys") == 0)
		return authorized_keys_command(cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "shell") == 0)
		return shell_command(cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "migrate") == 0 || strcmp(cmd, "keygen") == 0) {
		config cfg;
		if (config_load(&cfg, cfg_path) < 0)
			return 1;
		int rc = 0;
		if (strcmp(cmd, "migrate") == 0) {
			rc = db_migrate(cfg.database_url) < 0 || migrate_storage(&cfg) < 0;
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
	if (strcmp(cmd, "user-create") == 0)
		return user_create(cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "token-create") == 0)
		return token_create(cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "private-token") == 0)
		return private_token(cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "runners-token") == 0)
		return runners_token(cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "routes") == 0)
		return routes_command(argc - i);
	if (strcmp(cmd, "version") == 0) {
		printf("collabd %s (%s)\n", API_VERSION, GIT_REVISION);
		return 0;
	}
	return usage();
}
