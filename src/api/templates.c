/* Templates (GitLab 10's API::Templates): GET /templates/licenses[/:name],
 * /templates/gitignores[/:name] and /templates/gitlab_ci_ymls[/:name], open to anyone,
 * from the data sets the master read at start-up (core/templates.h). The lists are
 * paginated as GitLab's Kaminari.paginate_array. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/api.h"
#include "core/templates.h"
#include "db/columns.h"
#include "entity/entity.h"
#include "http/pagination.h"

const db_stmt templates_stmts[] = {
	{NULL, NULL, 0, 0},
};

/* The page of n items of a list: 0 with [*from, *to), or ERR_INVALID. */
static int page(request *r, size_t n, size_t *from, size_t *to)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	pagination_headers(r, &pg, (long long)n);
	*from = (size_t)pg.offset < n ? (size_t)pg.offset : n;
	*to = *from + (size_t)pg.per_page < n ? *from + (size_t)pg.per_page : n;
	return 0;
}

/* ---- licenses ---- */

static int licenses_list(request *r)
{
	bool popular = false;
	int rc = param_bool(r, "popular", &popular);
	if (rc < 0)
		return rc;
	size_t n, shown = 0;
	const license *all = templates_licenses(&n);
	const license **v = arena_alloc(r->ctx.a, sizeof(*v) * (n + 1));
	for (size_t i = 0; i < n; i++)
		if (!all[i].hidden && (!popular || all[i].featured))
			v[shown++] = &all[i];
	size_t from, to;
	if ((rc = page(r, shown, &from, &to)) < 0)
		return rc;
	json_object *a = json_object_new_array();
	for (size_t i = from; i < to; i++) {
		json_object *o = json_object_new_object();
		json_object_object_foreach(v[i]->shown, k, val)
			json_object_object_add(o, k, json_object_get(val));
		json_put_str(o, "content", v[i]->content);
		json_object_array_add(a, o);
	}
	respond_json(r, 200, a);
	return 0;
}

static bool closer(char c)
{
	return c == '>' || c == '}' || c == ']';
}

/* The length of the placeholder at p that words (NUL-separated alternatives, each word
 * separated by single spaces standing for any white space) name between one of <{[ and
 * one of >}], in any case; 0 when there is none. */
static size_t placeholder(const char *p, const char *const *words)
{
	if (*p != '<' && *p != '{' && *p != '[')
		return 0;
	for (; *words; words++) {
		const char *q = p + 1, *w = *words;
		while (*w && *q) {
			if (*w == ' ' ? (*q == ' ' || *q == '\t')
				      : (tolower((unsigned char)*q) == *w)) {
				q++;
				w++;
			} else {
				break;
			}
		}
		if (!*w && closer(*q))
			return (size_t)(q - p) + 1;
	}
	return 0;
}

/* GPL's "<one line to give the program's name and a brief idea of what it does.>": the
 * last "what it does." of the line, as Ruby's greedy /one\sline\s.+\swhat\sit\sdoes\./ */
static size_t one_line(const char *p)
{
	static const char *const start[] = {"one line ", NULL};
	if (*p != '<' && *p != '{' && *p != '[')
		return 0;
	const char *q = p + 1;
	for (const char *w = start[0]; *w; w++, q++)
		if (!*q ||
		    (*w == ' ' ? !isspace((unsigned char)*q) : tolower((unsigned char)*q) != *w))
			return 0;
	const char *eol = strchr(q, '\n');
	size_t len = eol ? (size_t)(eol - p) : strlen(p), best = 0;
	static const char tail[] = " what it does.";
	for (size_t i = (size_t)(q - p) + 1; i + sizeof(tail) - 1 < len; i++)
		if (strncasecmp(p + i, tail, sizeof(tail) - 1) == 0 &&
		    closer(p[i + sizeof(tail) - 1]))
			best = i + sizeof(tail);
	return best;
}

static const char *const year_words[] = {"year", "yyyy", NULL};
static const char *const project_words[] = {"project", "description", NULL};
static const char *const fullname_words[] = {"fullname", "name of author",
					     "name of copyright owner", NULL};

/* text with every placeholder of words (and, for the project's, GPL's one line) replaced
 * by with, in r's arena: one of GitLab's gsub! of a license's content. */
static const char *fill(request *r, const char *text, const char *const *words, bool line,
			const char *with)
{
	buf b;
	buf_init(&b, r->ctx.a, strlen(text) + 64);
	for (const char *p = text; *p;) {
		size_t n = placeholder(p, words);
		if (!n && line)
			n = one_line(p);
		if (n) {
			buf_puts(&b, with);
			p += n;
		} else {
			buf_putc(&b, *p++);
		}
	}
	return buf_cstr(&b);
}

static int licenses_show(request *r)
{
	const license *l = templates_license(param_str(r, "name"));
	if (!l)
		return fail_not_found(r, "License");
	const char *project = param_str(r, "project"), *fullname = param_str(r, "fullname");
	if ((!fullname || !*fullname) && r->ctx.user && r->ctx.user->res)
		fullname =
			PQgetvalue(r->ctx.user->res, r->ctx.user->row, r->ctx.user->col + UC_NAME);
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	const char *content = fill(r, l->content, year_words, false,
				   arena_printf(r->ctx.a, "%d", tm.tm_year + 1900));
	if (project && *project)
		content = fill(r, content, project_words, true, project);
	if (fullname && *fullname)
		content = fill(r, content, fullname_words, false, fullname);
	json_object *o = json_object_new_object();
	json_object_object_foreach(l->shown, k, val)
		json_object_object_add(o, k, json_object_get(val));
	json_put_str(o, "content", content);
	respond_json(r, 200, o);
	return 0;
}

/* ---- .gitignore and .gitlab-ci.yml ---- */

static int list(request *r, enum template_kind k)
{
	size_t n, from, to;
	const template *t = templates_list(k, &n);
	int rc = page(r, n, &from, &to);
	if (rc < 0)
		return rc;
	json_object *a = json_object_new_array();
	for (size_t i = from; i < to; i++) {
		json_object *o = json_object_new_object();
		json_put_str(o, "key", t[i].name);
		json_put_str(o, "name", t[i].name);
		json_object_array_add(a, o);
	}
	respond_json(r, 200, a);
	return 0;
}

/* what: GitLab's words for a template it does not have ("404 gitignore Not Found") */
static int show(request *r, enum template_kind k, const char *what)
{
	const template *t = templates_find(k, param_str(r, "name"));
	if (!t)
		return fail_not_found(r, what);
	json_object *o = json_object_new_object();
	json_put_str(o, "name", t->name);
	json_put_str(o, "content", t->content);
	respond_json(r, 200, o);
	return 0;
}

static int gitignores_list(request *r)
{
	return list(r, TEMPLATE_GITIGNORE);
}

static int gitignores_show(request *r)
{
	return show(r, TEMPLATE_GITIGNORE, "gitignore");
}

static int ci_ymls_list(request *r)
{
	return list(r, TEMPLATE_GITLAB_CI_YML);
}

static int ci_ymls_show(request *r)
{
	return show(r, TEMPLATE_GITLAB_CI_YML, "gitlab_ci_yml");
}

/* The module's routes (http/router.h), in the order they are matched. */
const route templates_routes[] = {
	{"GET", V4 "/templates/licenses", licenses_list, ROUTE_PUBLIC, NULL},
	{"GET", V4 "/templates/licenses/:name", licenses_show, ROUTE_PUBLIC | ROUTE_CALLER_RECORD,
	 NULL},
	{"GET", V4 "/templates/gitignores", gitignores_list, ROUTE_PUBLIC, NULL},
	{"GET", V4 "/templates/gitignores/:name", gitignores_show, ROUTE_PUBLIC, NULL},
	{"GET", V4 "/templates/gitlab_ci_ymls", ci_ymls_list, ROUTE_PUBLIC, NULL},
	{"GET", V4 "/templates/gitlab_ci_ymls/:name", ci_ymls_show, ROUTE_PUBLIC, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
