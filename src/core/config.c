#include "core/config.h"

#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cidr.h"

enum kind { STR, INT, BOOL, SECONDS };

struct key {
	const char *name;
	enum kind kind;
	size_t offset;
	const char *def;
};

#define S(f, d)                                                                                    \
	{                                                                                          \
#f, STR, offsetof(config, f), d                                                    \
	}
#define I(f, d)                                                                                    \
	{                                                                                          \
#f, INT, offsetof(config, f), d                                                    \
	}
#define D(f, d)                                                                                    \
	{                                                                                          \
#f, SECONDS, offsetof(config, f), d                                                \
	}
#define B(f, d)                                                                                    \
	{                                                                                          \
#f, BOOL, offsetof(config, f), d                                                   \
	}
static const struct key keys[] = {
	S(listen, "127.0.0.1:9000"),
	I(workers, "0"),
	I(write_transactions, "0"),
	S(database_url, "dbname=collabd"),
	S(external_url, "http://localhost:8080"),
	S(key_file, "/etc/collabd/instance.key"),
	S(storage_path, "/var/lib/collabd"),
	S(ssh_host, "localhost"),
	S(templates_path, "/usr/share/collabd/templates"),
	S(log_level, "info"),
	I(max_body, "10485760"),
	I(backlog, "1024"),
	S(socket_mode, "0660"),
	I(cache_size_mb, "64"),
	I(auth_cache_mb, "8"),
	B(cache_verify, "false"),
	I(raw_inline_max, "1048576"),
	I(max_artifacts_size, "104857600"),
	S(monitoring_whitelist, "127.0.0.0/8, ::1/128"),
	S(database_replicas, ""),
	D(replica_max_lag, "1"),
	S(repository_storages, ""),
};
#undef S
#undef I
#undef B
#undef D

static int set(config *cfg, const struct key *k, const char *value)
{
	void *field = (char *)cfg + k->offset;
	if (k->kind == STR) {
		char **p = field;
		free(*p);
		*p = strdup(value);
		return 0;
	}
	if (k->kind == BOOL) {
		bool *b = field;
		if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) {
			*b = true;
		} else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) {
			*b = false;
		} else {
			fprintf(stderr, "collabd: config %s: not true or false: %s\n", k->name,
				value);
			return -1;
		}
		return 0;
	}
	char *end;
	errno = 0;
	if (k->kind == SECONDS) {
		double d = strtod(value, &end);
		if (errno || *end || end == value || !(d >= 0 && d <= 86400)) {
			fprintf(stderr, "collabd: config %s: not a number of seconds: %s\n",
				k->name, value);
			return -1;
		}
		*(double *)field = d;
		return 0;
	}
	long v = strtol(value, &end, 10);
	if (errno || *end || end == value || v < 0 || v > 1000000000) {
		fprintf(stderr, "collabd: config %s: not a number: %s\n", k->name, value);
		return -1;
	}
	*(int *)field = (int)v;
	return 0;
}

static const struct key *find(const char *name)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int config_load(config *cfg, const char *path)
{
	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		set(cfg, &keys[i], keys[i].def);

	if (path) {
		FILE *f = fopen(path, "r");
		if (!f) {
			fprintf(stderr, "collabd: cannot open config %s: %s\n", path,
				strerror(errno));
			return -1;
		}
		char line[4096];
		int lineno = 0;
		while (fgets(line, sizeof(line), f)) {
			lineno++;
			char *s = trim(line);
			if (!*s || *s == '#')
				continue;
			char *eq = strchr(s, '=');
			if (!eq) {
				fprintf(stderr, "collabd: %s:%d: expected key = value\n", path,
					lineno);
				fclose(f);
				return -1;
			}
			*eq = '\0';
			char *name = trim(s), *value = trim(eq + 1);
			const struct key *k = find(name);
			if (!k) {
				fprintf(stderr, "collabd: %s:%d: unknown key %s\n", path, lineno,
					name);
				fclose(f);
				return -1;
			}
			if (set(cfg, k, value) < 0) {
				fclose(f);
				return -1;
			}
		}
		fclose(f);
	}

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char env[64] = "COLLABD_";
		size_t n = strlen(env);
		for (const char *p = keys[i].name; *p && n < sizeof(env) - 1; p++)
			env[n++] = (char)toupper((unsigned char)*p);
		env[n] = '\0';
		const char *v = getenv(env);
		if (v && set(cfg, &keys[i], v) < 0)
			return -1;
	}
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (cores < 1)
		cores = 1;
	if (cfg->workers == 0)
		cfg->workers = (int)cores * 2;
	if (cfg->write_transactions == 0)
		cfg->write_transactions = (int)cores * 4;
	const char *bad;
	if (cidr_list_check(cfg->monitoring_whitelist, &bad) < 0) {
		fprintf(stderr, "collabd: config monitoring_whitelist: not an address range: %s\n",
			bad);
		return -1;
	}
	/* Link headers and web_url are built by appending a path. */
	size_t n = strlen(cfg->external_url);
	while (n > 0 && cfg->external_url[n - 1] == '/')
		cfg->external_url[--n] = '\0';
	return storages_parse(&cfg->storages, cfg->repository_storages, cfg->storage_path);
}

void config_free(config *cfg)
{
	storages_free(&cfg->storages);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].kind == STR) {
			char **p = (char **)((char *)cfg + keys[i].offset);
			free(*p);
			*p = NULL;
		}
}
