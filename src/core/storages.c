#include "core/storages.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool storages_valid_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 64)
		return false;
	for (const char *p = name; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_' ||
		      *p == '-'))
			return false;
	return true;
}

static int add(repository_storages *cfg, const char *name, size_t nlen, const char *path,
	       size_t plen)
{
	repository_storage *s = realloc(cfg->items, (size_t)(cfg->n + 1) * sizeof(*s));
	if (!s)
		return -1;
	cfg->items = s;
	s = &s[cfg->n];
	s->name = strndup(name, nlen);
	/* repositories are found by appending "/repositories/...": no trailing slash */
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	s->path = strndup(path, plen);
	if (!s->name || !s->path) {
		free(s->name);
		free(s->path);
		return -1;
	}
	cfg->n++;
	return 0;
}

static int bad(const char *what, const char *entry, size_t n)
{
	fprintf(stderr, "collabd: config repository_storages: %s: \"%.*s\"\n", what, (int)n, entry);
	return -1;
}

static int parse_list(repository_storages *cfg, const char *list, const char *storage_path)
{
	if (!list)
		list = "";
	for (const char *p = list; *p;) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		while (n > 0 && isspace((unsigned char)p[n - 1]))
			n--;
		const char *colon = memchr(p, ':', n);
		if (!colon)
			return bad("expected name:path", p, n);
		size_t nlen = (size_t)(colon - p);
		while (nlen > 0 && isspace((unsigned char)p[nlen - 1]))
			nlen--;
		const char *path = colon + 1;
		while (path < p + n && isspace((unsigned char)*path))
			path++;
		size_t plen = (size_t)(p + n - path);
		char name[65];
		if (nlen == 0 || nlen >= sizeof(name))
			return bad("not a storage name (a-z, 0-9, _ and -)", p, n);
		memcpy(name, p, nlen);
		name[nlen] = '\0';
		if (!storages_valid_name(name))
			return bad("not a storage name (a-z, 0-9, _ and -)", p, n);
		if (plen == 0 || path[0] != '/')
			return bad("the path is not absolute", p, n);
		if (storages_path(cfg, name))
			return bad("the name is given twice", p, n);
		if (add(cfg, name, nlen, path, plen) < 0)
			return bad("out of memory", p, n);
		p += n;
	}
	if (cfg->n == 0)
		return add(cfg, "default", 7, storage_path, strlen(storage_path)) < 0
			       ? bad("out of memory", "", 0)
			       : 0;
	if (!storages_path(cfg, "default")) {
		fprintf(stderr, "collabd: config repository_storages: no storage named "
				"\"default\" (new projects' and existing ones' storage)\n");
		return -1;
	}
	return 0;
}

int storages_parse(repository_storages *cfg, const char *list, const char *storage_path)
{
	storages_free(cfg);
	int rc = parse_list(cfg, list, storage_path);
	if (rc < 0)
		storages_free(cfg); /* nothing half made stays */
	return rc;
}

void storages_free(repository_storages *cfg)
{
	for (int i = 0; i < cfg->n; i++) {
		free(cfg->items[i].name);
		free(cfg->items[i].path);
	}
	free(cfg->items);
	cfg->items = NULL;
	cfg->n = 0;
}

const char *storages_path(const repository_storages *cfg, const char *name)
{
	for (int i = 0; i < cfg->n; i++)
		if (strcmp(cfg->items[i].name, name) == 0)
			return cfg->items[i].path;
	return NULL;
}
