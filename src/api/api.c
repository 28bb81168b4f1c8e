/* Helpers shared by the handlers of every module. */
#include "api/api.h"

#include "git/repo.h"

#include <string.h>
#include "entity/entity.h"

int api_id(request *r, const char *name, const char **out)
{
	long long id;
	*out = NULL;
	int rc = param_int(r, name, &id);
	if (rc == 1)
		return fail_missing(r, name);
	if (rc < 0)
		return rc;
	*out = param_str(r, name); /* 0 and negative ids are integers too: not found */
	return 0;
}

void api_respond_page(request *r, const page_req *pg, const PGresult *res, presenter_fn present)
{
	json_object *list = json_object_new_array();
	for (int i = 0; i < PQntuples(res); i++)
		if (!PQgetisnull(res, i, 1))
			json_object_array_add(list, present(&r->ctx, res, i, 1));
	pagination_headers(r, pg, PQntuples(res) ? db_int(res, 0, 0) : 0);
	respond_json(r, 200, list);
}

void api_respond_page_jw(request *r, const page_req *pg, const PGresult *res, writer_fn write,
			 size_t bytes_per_row)
{
	jw w;
	jw_init(&w, r->ctx.a, (size_t)PQntuples(res) * bytes_per_row + 16);
	jw_begin_array(&w);
	for (int i = 0; i < PQntuples(res); i++)
		if (!PQgetisnull(res, i, 1))
			write(&w, &r->ctx, res, i, 1);
	jw_end_array(&w);
	pagination_headers(r, pg, PQntuples(res) ? db_int(res, 0, 0) : 0);
	respond_jw(r, 200, &w);
}

void api_respond_record(request *r, int status, writer_fn write, const PGresult *res, int row,
			int col)
{
	jw w;
	jw_init(&w, r->ctx.a, 1024);
	write(&w, &r->ctx, res, row, col);
	respond_jw(r, status, &w);
}

int api_error(request *r, int status, const char *message)
{
	json_object *o = json_object_new_object();
	json_put_str(o, "message", message);
	respond_json(r, status, o);
	return 0;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

PGresult *api_query(request *r, const char *stmt, int n, const char *const *values, int *err)
{
	PGresult *res = r->prefetched;
	const db_call *p = &r->prefetch;
	bool same = res && p->stmt && strcmp(p->stmt, stmt) == 0 && p->n == n;
	for (int i = 0; same && i < n; i++)
		same = same_text(p->values[i], values[i]);
	r->prefetched = NULL;
	return same ? res : db_query(&r->ctx, stmt, n, values, err);
}

void api_set_project(request *r, struct project_scope *p)
{
	r->project = p;
	r->ctx.project_ns = p ? p->ns_full_path : NULL;
	r->ctx.project_path = p ? p->path : NULL;
}

const char *api_caller_id(request *r)
{
	return arena_printf(r->ctx.a, "%lld", r->ctx.user->id);
}

int api_find(request *r, const char *stmt, int n, const char *const *values, const char *what,
	     PGresult **out)
{
	int err;
	PGresult *res = db_query(&r->ctx, stmt, n, values, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return what ? fail_not_found(r, what) : api_error(r, 404, "404 Not found") + 1;
	*out = res;
	return 0;
}

int api_page(request *r, const page_req *pg, const char *stmt, int n, const char *const *values,
	     presenter_fn present)
{
	int err;
	PGresult *res = db_query(&r->ctx, stmt, n, values, &err);
	if (!res)
		return err;
	api_respond_page(r, pg, res, present);
	return 0;
}

int api_repo_writable(request *r)
{
	int rc = repo_writable(&r->ctx, r->project->id);
	return rc == ERR_FORBIDDEN ? fail(r, rc, r->ctx.err_detail) : rc;
}
