/* Templates (core/templates.h). */
#include "core/templates.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/log.h"

/* No data set file is bigger than this; a larger one is not a template. */
#define TEMPLATE_MAX_BYTES (1024 * 1024)

static struct {
	template *list;
	size_t n;
} kinds[TEMPLATE_NKINDS];
static license *licenses;
static size_t nlicenses;

static const char *const dirs[TEMPLATE_NKINDS] = {"gitignore", "gitlab_ci_ymls"};
static const char *const extensions[TEMPLATE_NKINDS] = {".gitignore", ".yml"};

static void clear(void)
{
	for (int k = 0; k < TEMPLATE_NKINDS; k++) {
		for (size_t i = 0; i < kinds[k].n; i++) {
			free(kinds[k].list[i].name);
			free(kinds[k].list[i].content);
		}
		free(kinds[k].list);
		kinds[k].list = NULL;
		kinds[k].n = 0;
	}
	for (size_t i = 0; i < nlicenses; i++) {
		free(licenses[i].key);
		free(licenses[i].content);
		json_object_put(licenses[i].shown);
	}
	free(licenses);
	licenses = NULL;
	nlicenses = 0;
}

/* The file's bytes and a NUL, or NULL (unreadable, or too big for a template). */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *data = malloc(TEMPLATE_MAX_BYTES + 1);
	size_t n = data ? fread(data, 1, TEMPLATE_MAX_BYTES + 1, f) : 0;
	fclose(f);
	if (!data || n > TEMPLATE_MAX_BYTES || memchr(data, 0, n)) {
		free(data);
		return NULL;
	}
	data[n] = 0;
	*len = n;
	char *fit = realloc(data, n + 1);
	return fit ? fit : data;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const template *)a)->name, ((const template *)b)->name);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir (no dot files) in byte order; their count, or -1. */
static int names(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char **v = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char **w = realloc(v, sizeof(*v) * (size_t)(n + 1));
		if (!w)
			break;
		v = w;
		v[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), by_text);
	*out = v;
	return n;
}

/* The files of dir ending in ext, sorted by name, appended to kind k; with subdirs,
 * then each subdirectory's (GitLab's categories), in name order. */
static void load_dir(int k, const char *dir, const char *ext, bool subdirs)
{
	char **v;
	int n = names(dir, &v);
	if (n < 0) {
		log_warn("templates: cannot read %s", dir);
		return;
	}
	size_t first = kinds[k].n, el = strlen(ext);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(v[i]);
		if (l <= el || strcmp(v[i] + l - el, ext) != 0)
			continue;
		char *path;
		if (asprintf(&path, "%s/%s", dir, v[i]) < 0)
			continue;
		size_t len;
		char *content = read_file(path, &len);
		free(path);
		if (!content)
			continue;
		template *w = realloc(kinds[k].list, sizeof(template) * (kinds[k].n + 1));
		if (!w) {
			free(content);
			continue;
		}
		kinds[k].list = w;
		w[kinds[k].n++] = (template){strndup(v[i], l - el), content};
	}
	qsort(kinds[k].list + first, kinds[k].n - first, sizeof(template), by_name);
	for (int i = 0; i < n; i++) {
		if (subdirs && !strchr(v[i], '.')) {
			char *sub;
			if (asprintf(&sub, "%s/%s", dir, v[i]) >= 0) {
				DIR *d = opendir(sub);
				if (d) {
					closedir(d);
					load_dir(k, sub, ext, false);
				}
				free(sub);
			}
		}
		free(v[i]);
	}
	free(v);
}

static const char *str(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static json_object *copy(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) ? json_object_get(v) : NULL;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const license *)a)->key, ((const license *)b)->key);
}

/* choosealicense.com's list: {"MIT": {title, id, nickname, featured, hidden, description,
 * permissions, conditions, limitations, urls, body}, ...}, shown as GitLab 10's
 * RepoLicense (Licensee read the same list). */
static void load_licenses(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	json_object *root = text ? json_tokener_parse(text) : NULL;
	free(text);
	if (!root || !json_object_is_type(root, json_type_object)) {
		log_warn("templates: cannot read %s", path);
		json_object_put(root);
		return;
	}
	licenses = calloc((size_t)json_object_object_length(root), sizeof(license));
	json_object_object_foreach(root, id, l)
	{
		const char *body = str(l, "body");
		if (!licenses || !json_object_is_type(l, json_type_object) || !body)
			continue;
		license *x = &licenses[nlicenses++];
		x->key = strdup(id);
		for (char *p = x->key; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		json_object *v;
		x->featured = json_object_object_get_ex(l, "featured", &v) &&
			      json_object_get_boolean(v);
		x->hidden = json_object_object_get_ex(l, "hidden", &v) &&
			    json_object_get_boolean(v);
		x->content = strdup(body);
		json_object *urls = NULL;
		json_object_object_get_ex(l, "urls", &urls);
		const char *source = urls ? str(urls, "opensource") : NULL;
		json_object *o = json_object_new_object();
		json_object_object_add(o, "key", json_object_new_string(x->key));
		json_object_object_add(o, "name", copy(l, "title"));
		json_object_object_add(o, "nickname", copy(l, "nickname"));
		json_object_object_add(o, "featured", json_object_new_boolean(x->featured));
		char *html;
		json_object_object_add(o, "html_url",
				       asprintf(&html, "http://choosealicense.com/licenses/%s/",
						x->key) < 0
					       ? NULL
					       : json_object_new_string(html));
		if (html)
			free(html);
		json_object_object_add(o, "source_url",
				       source ? json_object_new_string(source) : NULL);
		json_object_object_add(o, "description", copy(l, "description"));
		json_object_object_add(o, "conditions", copy(l, "conditions"));
		json_object_object_add(o, "permissions", copy(l, "permissions"));
		json_object_object_add(o, "limitations", copy(l, "limitations"));
		x->shown = o;
	}
	json_object_put(root);
	if (nlicenses)
		qsort(licenses, nlicenses, sizeof(license), by_key);
}

void templates_load(const char *dir)
{
	clear();
	char *path;
	for (int k = 0; k < TEMPLATE_NKINDS; k++) {
		if (asprintf(&path, "%s/%s", dir, dirs[k]) < 0)
			continue;
		load_dir(k, path, extensions[k], k == TEMPLATE_GITIGNORE);
		free(path);
	}
	if (asprintf(&path, "%s/licenses.json", dir) >= 0) {
		load_licenses(path);
		free(path);
	}
}

const template *templates_list(enum template_kind k, size_t *n)
{
	*n = kinds[k].n;
	return kinds[k].list;
}

const template *templates_find(enum template_kind k, const char *name)
{
	for (size_t i = 0; i < kinds[k].n; i++)
		if (strcmp(kinds[k].list[i].name, name) == 0)
			return &kinds[k].list[i];
	return NULL;
}

const license *templates_licenses(size_t *n)
{
	*n = nlicenses;
	return licenses;
}

const license *templates_license(const char *key)
{
	for (size_t i = 0; i < nlicenses; i++)
		if (strcasecmp(licenses[i].key, key) == 0)
			return &licenses[i];
	return NULL;
}
