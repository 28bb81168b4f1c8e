#include "git/gpg.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gpgme.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/errors.h"
#include "core/log.h"
#include "core/validate.h"
#include "git/repo.h"

/* What the child may answer: more is no answer of ours. */
#define GPG_ANSWER_MAX (1 << 20)

/* ---- the child's side: GPGME on the home directory, the answer as JSON text ---- */

typedef struct {
	const char *home;
	const char *key; /* armored; NULL: none to import */
	size_t key_len;
	const char *sig, *data;
	size_t sig_len, data_len;
} job;

static char *upper(char *s)
{
	for (char *p = s; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return s;
}

static json_object *str(const char *s)
{
	char *copy = strdup(s ? s : "");
	if (!copy)
		return NULL;
	json_object *o = json_object_new_string(upper(copy));
	free(copy);
	return o;
}

/* GPGME's operations that feed gpg (an import, a verification) run on this loop, not
 * on GPGME's own: that one waits for a pipe to be writable and spins when gpg closed its
 * end early (its poll says POLLERR, never POLLOUT), as gpg does on text that holds no
 * key or signature. Here the writer is called then, its write fails with SIGPIPE, and
 * the child ends with EXIT_INPUT_REFUSED. */
#define EXIT_INPUT_REFUSED 5
#define LOOP_FDS 16

typedef struct {
	int fd, dir; /* dir 1: GPGME reads fd */
	gpgme_io_cb_t fnc;
	void *fnc_data;
	bool used;
} io_reg;

typedef struct {
	io_reg r[LOOP_FDS];
	bool done;
	gpgme_error_t err;
} io_loop;

static gpgme_error_t loop_add(void *data, int fd, int dir, gpgme_io_cb_t fnc, void *fnc_data,
			      void **tag)
{
	io_loop *l = data;
	for (int i = 0; i < LOOP_FDS; i++)
		if (!l->r[i].used) {
			l->r[i] = (io_reg){fd, dir, fnc, fnc_data, true};
			*tag = &l->r[i];
			return 0;
		}
	return gpg_error(GPG_ERR_GENERAL);
}

static void loop_remove(void *tag)
{
	((io_reg *)tag)->used = false;
}

static void loop_event(void *data, gpgme_event_io_t type, void *type_data)
{
	io_loop *l = data;
	if (type == GPGME_EVENT_DONE) {
		l->done = true;
		l->err = ((gpgme_io_event_done_data_t)type_data)->err;
	}
}

static void loop_use(gpgme_ctx_t g, io_loop *l)
{
	*l = (io_loop){0};
	struct gpgme_io_cbs cbs = {loop_add, l, loop_remove, loop_event, l};
	gpgme_set_io_cbs(g, &cbs);
}

/* Runs the started operation to its end: its error. */
static gpgme_error_t loop_run(io_loop *l, gpgme_error_t started)
{
	if (started)
		return started;
	while (!l->done) {
		struct pollfd p[LOOP_FDS];
		io_reg *of[LOOP_FDS];
		nfds_t n = 0;
		for (int i = 0; i < LOOP_FDS; i++)
			if (l->r[i].used) {
				p[n] = (struct pollfd){.fd = l->r[i].fd,
						       .events = l->r[i].dir ? POLLIN : POLLOUT};
				of[n++] = &l->r[i];
			}
		if (n == 0)
			return gpg_error(GPG_ERR_GENERAL);
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return gpg_error(GPG_ERR_GENERAL);
		}
		for (nfds_t i = 0; i < n && !l->done; i++)
			if (p[i].revents && of[i]->used && of[i]->fd == p[i].fd)
				of[i]->fnc(of[i]->fnc_data, of[i]->fd);
	}
	return l->err;
}

static gpgme_error_t import(gpgme_ctx_t g, const char *key, size_t len, const char **fpr)
{
	gpgme_data_t d;
	gpgme_error_t e = gpgme_data_new_from_mem(&d, key, len, 0);
	if (e)
		return e;
	io_loop l;
	loop_use(g, &l);
	e = loop_run(&l, gpgme_op_import_start(g, d));
	gpgme_set_io_cbs(g, &(struct gpgme_io_cbs){0});
	gpgme_data_release(d);
	if (e)
		return e;
	gpgme_import_result_t res = gpgme_op_import_result(g);
	*fpr = NULL;
	for (gpgme_import_status_t s = res ? res->imports : NULL; s; s = s->next)
		if (!s->result && s->fpr) {
			*fpr = s->fpr;
			break;
		}
	return 0;
}

/* {"fingerprint", "keyid", "subkeys": [{"keyid", "fingerprint"}], "uids": [{"name",
 * "email"}]}, or {} when the text held no key. */
static json_object *read_key(gpgme_ctx_t g, const job *j)
{
	const char *fpr;
	json_object *out = json_object_new_object();
	gpgme_key_t key = NULL;
	if (import(g, j->key, j->key_len, &fpr) || !fpr || gpgme_get_key(g, fpr, &key, 0) ||
	    !key->subkeys)
		goto done;
	json_object_object_add(out, "fingerprint", str(key->subkeys->fpr));
	json_object_object_add(out, "keyid", str(key->subkeys->keyid));
	json_object *subs = json_object_new_array();
	for (gpgme_subkey_t s = key->subkeys->next; s; s = s->next) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "keyid", str(s->keyid));
		json_object_object_add(o, "fingerprint", str(s->fpr));
		json_object_array_add(subs, o);
	}
	json_object_object_add(out, "subkeys", subs);
	json_object *uids = json_object_new_array();
	for (gpgme_user_id_t u = key->uids; u; u = u->next) {
		json_object *o = json_object_new_object();
		char *email = strdup(u->email ? u->email : "");
		if (!email)
			break;
		for (char *p = email; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		json_object_object_add(o, "name", json_object_new_string(u->name ? u->name : ""));
		json_object_object_add(o, "email", json_object_new_string(email));
		free(email);
		json_object_array_add(uids, o);
	}
	json_object_object_add(out, "uids", uids);
done:
	gpgme_key_unref(key);
	return out;
}

/* {"issuer": key id or null, "valid": bool} */
static json_object *verify(gpgme_ctx_t g, const job *j)
{
	json_object *out = json_object_new_object();
	const char *fpr;
	if (j->key && import(g, j->key, j->key_len, &fpr))
		return NULL;
	gpgme_data_t sig = NULL, data = NULL;
	const char *issuer = NULL;
	bool valid = false;
	if (gpgme_data_new_from_mem(&sig, j->sig, j->sig_len, 0) ||
	    gpgme_data_new_from_mem(&data, j->data, j->data_len, 0))
		goto done;
	io_loop l;
	loop_use(g, &l);
	gpgme_error_t e = loop_run(&l, gpgme_op_verify_start(g, sig, data, NULL));
	gpgme_set_io_cbs(g, &(struct gpgme_io_cbs){0});
	if (e == 0) {
		gpgme_verify_result_t res = gpgme_op_verify_result(g);
		gpgme_signature_t s = res ? res->signatures : NULL;
		/* The issuer's fingerprint or, from an older signature, its key id: the
		 * key id is the last 16 digits of either. */
		if (s && s->fpr && strlen(s->fpr) >= 16) {
			issuer = s->fpr + strlen(s->fpr) - 16;
			valid = gpg_err_code(s->status) == GPG_ERR_NO_ERROR;
		}
	}
	json_object_object_add(out, "issuer", issuer ? str(issuer) : NULL);
	json_object_object_add(out, "valid", json_object_new_boolean(valid));
done:
	gpgme_data_release(sig);
	gpgme_data_release(data);
	return out;
}

static void on_sigpipe(int sig)
{
	(void)sig;
	_exit(EXIT_INPUT_REFUSED);
}

static void child(int fd, const job *j)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	setpgid(0, 0);
	/* gpg closed its input early (no key or signature there): the loop's write to it
	 * stops the child with a status of its own (GPGME would have SIGPIPE ignored) */
	signal(SIGPIPE, on_sigpipe);
	signal(SIGCHLD, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	gpgme_check_version(NULL);
	gpgme_ctx_t g;
	if (gpgme_new(&g) || gpgme_set_protocol(g, GPGME_PROTOCOL_OpenPGP) ||
	    gpgme_ctx_set_engine_info(g, GPGME_PROTOCOL_OpenPGP, NULL, j->home))
		_exit(2);
	gpgme_set_offline(g, 1);
	json_object *out = j->sig ? verify(g, j) : read_key(g, j);
	if (!out)
		_exit(3);
	const char *text = json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN);
	size_t len = strlen(text), off = 0;
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(4);
		off += (size_t)w;
	}
	_exit(0);
}

/* ---- the parent's side ---- */

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A gpg started despite no-autostart (a daemon outlives the child): stop it before its
 * home directory goes. */
static void stop_daemons(const char *home)
{
	DIR *d = opendir(home);
	if (!d)
		return;
	bool sockets = false;
	for (struct dirent *e; (e = readdir(d));)
		if (strncmp(e->d_name, "S.", 2) == 0)
			sockets = true;
	closedir(d);
	if (sockets) {
		char *argv[] = {"gpgconf", "--homedir", (char *)home, "--kill", "all", NULL};
		repo_run(argv, -1);
	}
}

static int make_home(char *home, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > 64) /* gpg's socket paths must stay short */
		tmp = "/tmp";
	snprintf(home, size, "%s/collabd-gpg.XXXXXX", tmp);
	if (!mkdtemp(home)) {
		log_error("gpg: cannot make a home directory in %s: %s", tmp, strerror(errno));
		return ERR_INTERNAL;
	}
	char conf[160];
	snprintf(conf, sizeof(conf), "%s/gpg.conf", home);
	FILE *f = fopen(conf, "w");
	/* no gpg-agent (public keys need none) and nothing fetched from the network */
	if (!f || fputs("no-autostart\nno-auto-key-retrieve\n", f) < 0 || fclose(f) != 0) {
		log_error("gpg: cannot write %s", conf);
		repo_remove_dir(home);
		return ERR_INTERNAL;
	}
	return 0;
}

static void release_json(void *o)
{
	json_object_put(o);
}

/* Runs j in a child on a new home directory: 0 with its answer in *out (c's arena
 * owns it), ERR_INVALID when gpg refused the input, or ERR_INTERNAL. */
static int run(ctx *c, job *j, json_object **out)
{
	char home[128];
	int rc = make_home(home, sizeof(home));
	if (rc < 0)
		return rc;
	j->home = home;
	rc = ERR_INTERNAL;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		log_error("gpg: pipe: %s", strerror(errno));
		goto cleanup;
	}
	pid_t pid = fork();
	if (pid < 0) {
		log_error("gpg: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		goto cleanup;
	}
	if (pid == 0) {
		close(p[0]);
		child(p[1], j);
	}
	close(p[1]);
	setpgid(pid, pid); /* both sides: whichever runs first, the kill finds the group */
	char *buf = arena_alloc_uninit(c->a, GPG_ANSWER_MAX + 1);
	size_t len = 0;
	long long deadline = now_ms() + GPG_TIMEOUT_MS;
	bool timed_out = false, too_long = false;
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		int n = poll(&pf, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			timed_out = n == 0;
			break;
		}
		ssize_t r = read(p[0], buf + len, GPG_ANSWER_MAX - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == GPG_ANSWER_MAX) {
			too_long = true;
			break;
		}
	}
	close(p[0]);
	if (timed_out || too_long) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		log_error("gpg: no answer within %d ms, stopped", GPG_TIMEOUT_MS);
	else if (!too_long && WIFEXITED(status) && WEXITSTATUS(status) == EXIT_INPUT_REFUSED)
		rc = ERR_INVALID;
	else if (too_long || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		log_error("gpg: the verification failed (status %d)", status);
	else {
		buf[len] = '\0';
		json_object *o = json_tokener_parse(buf);
		if (o && json_object_is_type(o, json_type_object)) {
			arena_defer(c->a, release_json, o);
			*out = o;
			rc = 0;
		} else {
			json_object_put(o);
			log_error("gpg: an answer that is not JSON");
		}
	}
	kill(-pid, SIGKILL); /* anything of the group still there (a gpg of a dead child) */
cleanup:
	stop_daemons(home);
	if (repo_remove_dir(home) < 0)
		log_error("gpg: cannot remove %s", home);
	return rc;
}

static const char *member(ctx *c, json_object *o, const char *name)
{
	json_object *v;
	if (!json_object_object_get_ex(o, name, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return arena_strdup(c->a, json_object_get_string(v));
}

static int array(json_object *o, const char *name, json_object **out)
{
	if (!json_object_object_get_ex(o, name, out) || !json_object_is_type(*out, json_type_array))
		return 0;
	return (int)json_object_array_length(*out);
}

int gpg_key_read(ctx *c, const char *armored, gpg_key_info *out)
{
	job j = {.key = armored, .key_len = strlen(armored)};
	json_object *o;
	int rc = run(c, &j, &o);
	if (rc < 0)
		return rc;
	*out = (gpg_key_info){.fingerprint = member(c, o, "fingerprint"),
			      .keyid = member(c, o, "keyid")};
	if (!out->fingerprint || !out->keyid || !*out->fingerprint || !*out->keyid)
		return ERR_INVALID;
	json_object *a;
	out->nsubkeys = array(o, "subkeys", &a);
	out->subkeys = arena_alloc(c->a, sizeof(*out->subkeys) * (size_t)(out->nsubkeys + 1));
	for (int i = 0; i < out->nsubkeys; i++) {
		json_object *e = json_object_array_get_idx(a, (size_t)i);
		out->subkeys[i] = (gpg_subkey){member(c, e, "keyid"), member(c, e, "fingerprint")};
		if (!out->subkeys[i].keyid || !out->subkeys[i].fingerprint)
			return ERR_INTERNAL;
	}
	out->nuids = array(o, "uids", &a);
	out->uids = arena_alloc(c->a, sizeof(*out->uids) * (size_t)(out->nuids + 1));
	for (int i = 0; i < out->nuids; i++) {
		json_object *e = json_object_array_get_idx(a, (size_t)i);
		out->uids[i] = (gpg_uid){member(c, e, "name"), member(c, e, "email")};
		if (!out->uids[i].name || !out->uids[i].email)
			return ERR_INTERNAL;
		/* what PostgreSQL cannot store is no name or email of ours */
		if (!valid_utf8(out->uids[i].name, strlen(out->uids[i].name)))
			out->uids[i].name = "";
		if (!valid_utf8(out->uids[i].email, strlen(out->uids[i].email)))
			out->uids[i].email = "";
	}
	return 0;
}

int gpg_verify(ctx *c, const char *sig, size_t sig_len, const char *data, size_t data_len,
	       const char *key, const char **issuer, bool *valid)
{
	job j = {.key = key,
		 .key_len = key ? strlen(key) : 0,
		 .sig = sig,
		 .sig_len = sig_len,
		 .data = data,
		 .data_len = data_len};
	json_object *o, *v;
	int rc = run(c, &j, &o);
	if (rc == ERR_INVALID) { /* gpg read no signature there */
		*issuer = NULL;
		*valid = false;
		return 0;
	}
	if (rc < 0)
		return rc;
	*issuer = member(c, o, "issuer");
	*valid = json_object_object_get_ex(o, "valid", &v) && json_object_get_boolean(v);
	return 0;
}

int gpg_commit_signature(ctx *c, git_repository *repo, const git_oid *commit, const char **sig,
			 size_t *sig_len, const char **data, size_t *data_len)
{
	git_buf s = GIT_BUF_INIT, d = GIT_BUF_INIT;
	int e = git_commit_extract_signature(&s, &d, repo, (git_oid *)commit, NULL);
	if (e == GIT_ENOTFOUND)
		return ERR_NOT_FOUND;
	if (e < 0) {
		const git_error *err = git_error_last();
		log_error("gpg: the signature of a commit: %s", err ? err->message : "?");
		return ERR_INTERNAL;
	}
	*sig = arena_strndup(c->a, s.ptr, s.size);
	*sig_len = strlen(*sig);
	char *copy = arena_alloc_uninit(c->a, d.size + 1);
	memcpy(copy, d.ptr, d.size);
	copy[d.size] = '\0';
	*data = copy;
	*data_len = d.size;
	git_buf_dispose(&s);
	git_buf_dispose(&d);
	return 0;
}
