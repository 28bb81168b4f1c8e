/* collabd: the one binary's dispatcher (main) over its entry points, side by side: the
 * master that runs the workers (worker.c) and the background process (background.c),
 * here; the git hook (hook.c); authorized-keys and the SSH shell (shell.c); the
 * command line's administration commands (cli.c). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <fcgiapp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "background.h"
#include "cli.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/templates.h"
#include "core/metrics.h"
#include "core/turns.h"
#include "db/db.h"
#include "entry.h"
#include "hook.h"
#include "http/cache.h"
#include "http/router.h"
#include "modules.h"
#include "shell.h"
#include "worker.h"

#define MAX_WORKERS 256
_Static_assert(MAX_WORKERS <= METRICS_WORKERS_MAX, "a worker slot with no busy flag");

static const char *config_path(const char *opt)
{
	return opt ? opt : getenv("COLLABD_CONFIG");
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
	response_cache = cfg->cache_size_mb > 0 ? cache_new((size_t)cfg->cache_size_mb << 20)
						: NULL;
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
	int slot = 0;
	while (slot < MAX_WORKERS && slots[slot].pid != 0)
		slot++;
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGCHLD, SIG_DFL);
		metrics_set_worker(slot);
		if (background) {
			close(fd);
			_exit(background_run(cfg, key, statements));
		}
		_exit(worker_run(cfg, fd, key, response_cache, auth_cache, write_turns));
	}
	if (pid < 0) {
		log_error("fork: %s", strerror(errno));
		return -1;
	}
	if (slot < MAX_WORKERS) {
		slots[slot] = (struct worker_slot){pid, generation, time(NULL), background};
		if (slot >= nslots)
			nslots = slot + 1;
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

/* The git hooks under <storage>/hooks, running this binary with this configuration
 * (absolute paths: git runs them inside the repository). */
static int install_hooks(const config *cfg, const char *cfg_path)
{
	char exe[PATH_MAX], conf[PATH_MAX];
	if (entry_self_paths(cfg_path, exe, conf) < 0)
		return -1;
	return hook_install(cfg, exe, cfg_path ? conf : NULL);
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
	if (entry_load_key(&cfg, key) < 0 || entry_check_schema(&cfg) < 0 ||
	    check_statements(&cfg) < 0 || install_hooks(&cfg, cfg_path) < 0 ||
	    (fd = open_listener(&cfg, &unix_path)) < 0) {
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
	templates_load(cfg.templates_path);
	/* the counters of /-/metrics, one slot per route and one for no route */
	router_index(route_tables);
	metrics_init(router_count() + 1);
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
					metrics_worker_gone(i); /* busy or not, it is gone */
					if (current && !got_term) {
						if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0)
							log_warn(
								"%s %d died (status %d); respawning",
								background ? "background process"
									   : "worker",
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
					log_error(
						"reload: cannot read the instance key; keeping the old one");
					config_free(&fresh);
				}
			} else {
				log_error("reload: configuration invalid; keeping the old one");
			}
			if (log_level_parse(cfg.log_level, &lvl) == 0)
				log_set_level(lvl);
			int old_gen = generation++;
			templates_load(cfg.templates_path);
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

int main(int argc, char **argv)
{
	const char *cfg_opt = NULL;
	int i = 1;
	if (i + 1 < argc && strcmp(argv[i], "-c") == 0) {
		cfg_opt = argv[i + 1];
		i += 2;
	}
	if (i >= argc)
		return entry_usage();
	const char *cmd = argv[i];
	const char *cfg_path = config_path(cfg_opt);
	if (strcmp(cmd, "serve") == 0)
		return serve(cfg_path);
	if (strcmp(cmd, "hook") == 0)
		return hook_main(statements, cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "authorized-keys") == 0)
		return shell_authorized_keys_main(statements, cfg_path, argc - i, argv + i);
	if (strcmp(cmd, "shell") == 0)
		return shell_main(statements, cfg_path, argc - i, argv + i);
	bool known;
	int status = cli_main(cfg_path, argc - i, argv + i, &known);
	return known ? status : entry_usage();
}
