/* The templates of GET /templates/...: .gitignore files, .gitlab-ci.yml files and
 * licenses, read once from the data sets under the configuration's templates_path (laid
 * out by contrib/templates: gitignore/, whose subdirectories are categories as GitLab's
 * Global/, gitlab_ci_ymls/ (NAME.yml) and licenses.json, choosealicense.com's list) when the
 * master starts or reloads, and shared by its workers. A data set that is missing is
 * an empty list (with a warning in the log), never a failure to start. */
#ifndef COLLABD_TEMPLATES_H
#define COLLABD_TEMPLATES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

enum template_kind { TEMPLATE_GITIGNORE, TEMPLATE_GITLAB_CI_YML, TEMPLATE_NKINDS };

typedef struct {
	char *name; /* also its key: the file's name without its extension */
	char *content;
} template;

typedef struct {
	char *key; /* lower case, as GitLab's (Licensee's) keys */
	bool featured, hidden;
	json_object *shown; /* GitLab 10's RepoLicense without content */
	char *content;      /* with choosealicense's [year], [fullname], [project] */
} license;

/* (Re)reads every data set under dir, replacing what was read before. */
void templates_load(const char *dir);

/* The templates of kind k in GitLab's order (the top directory's by name, then each
 * category's), their count in *n. */
const template *templates_list(enum template_kind k, size_t *n);
/* The template of kind k named name (exactly), or NULL. */
const template *templates_find(enum template_kind k, const char *name);

/* The licenses by key, hidden ones included, their count in *n. */
const license *templates_licenses(size_t *n);
/* The license of key, in any case, or NULL. */
const license *templates_license(const char *key);

#endif
