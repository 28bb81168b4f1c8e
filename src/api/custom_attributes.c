/* Custom attributes of users, groups and projects (GitLab 10.8's
 * CustomAttributesEndpoints, admins only): list, show, set (made or replaced) and delete
 * under /users/:id, /groups/:id and /projects/:id; and what the lists and records of
 * those three share: the custom_attributes[KEY]=VALUE filter and with_custom_attributes,
 * both for admins only (10.8's CustomAttributesFilter and with_custom_attributes helper
 * ignore them for anyone else). The list is not paginated, as in 10.8. */
#include <string.h>

#include "api/api.h"
#include "core/validate.h"
#include "entity/custom_attribute.h"

/* ---- what the lists and records share ---- */

int custom_attributes_filter(request *r, const char **out)
{
	const char **keys, **values;
	int n = param_map(r, "custom_attributes", &keys, &values);
	*out = NULL;
	if (n == 0 || !API_CALLER_ADMIN(r))
		return 0;
	/* a jsonb object: its last value of a key sent twice wins, as in Rack's hash */
	jw w;
	jw_init(&w, r->ctx.a, 64);
	jw_begin_object(&w);
	for (int i = 0; i < n; i++)
		jw_put_str(&w, keys[i], values[i]);
	jw_end_object(&w);
	*out = buf_cstr(&w.b);
	return 0;
}

int custom_attributes_wanted(request *r, bool *out)
{
	bool want = false;
	int rc = param_bool(r, "with_custom_attributes", &want);
	*out = rc == 0 && want && API_CALLER_ADMIN(r);
	return rc < 0 ? rc : 0;
}

int custom_attributes_for(request *r, ca_owner kind, const char *const *ids, int n,
			  const char ***out)
{
	const char **attrs = arena_alloc(r->ctx.a, sizeof(*attrs) * (size_t)(n > 0 ? n : 1));
	*out = attrs;
	if (n == 0)
		return 0;
	buf b;
	buf_init(&b, r->ctx.a, (size_t)n * 12 + 2);
	buf_putc(&b, '{');
	for (int i = 0, first = 1; i < n; i++)
		if (ids[i]) {
			buf_printf(&b, "%s%s", first ? "" : ",", ids[i]);
			first = 0;
		}
	buf_putc(&b, '}');
	PGresult *res;
	int rc = db_custom_attributes_of(&r->ctx, kind, buf_cstr(&b), &res);
	if (rc < 0)
		return rc;
	/* rows by owner: each owner's run of rows, found by a walk for each id (a page holds
	 * at most 100 records) */
	int rows = PQntuples(res);
	for (int i = 0; i < n; i++) {
		int from = 0;
		while (ids[i] && from < rows && strcmp(db_val(res, from, CAO_OWNER), ids[i]) != 0)
			from++;
		int to = from;
		while (ids[i] && to < rows && strcmp(db_val(res, to, CAO_OWNER), ids[i]) == 0)
			to++;
		attrs[i] = entity_custom_attributes_text(&r->ctx, res, from, to, CAO_KEY);
	}
	return 0;
}

int custom_attributes_add(request *r, ca_owner kind, const char *id, json_object *o)
{
	const char **attrs;
	int rc = custom_attributes_for(r, kind, &id, 1, &attrs);
	if (rc < 0)
		return rc;
	entity_add_custom_attributes(o, attrs[0]);
	return 0;
}

int custom_attributes_respond_page(request *r, const page_req *pg, const PGresult *res,
				   presenter_fn present, ca_owner kind, int id_col)
{
	int n = PQntuples(res);
	const char **ids = arena_alloc(r->ctx.a, sizeof(*ids) * (size_t)(n > 0 ? n : 1));
	for (int i = 0; i < n; i++)
		ids[i] = PQgetisnull(res, i, 1) ? NULL : db_val(res, i, 1 + id_col);
	const char **attrs;
	int rc = custom_attributes_for(r, kind, ids, n, &attrs);
	if (rc < 0)
		return rc;
	json_object *list = json_object_new_array();
	for (int i = 0; i < n; i++) {
		if (!ids[i])
			continue;
		json_object *o = present(&r->ctx, res, i, 1);
		entity_add_custom_attributes(o, attrs[i]);
		json_object_array_add(list, o);
	}
	pagination_headers(r, pg, n ? db_int(res, 0, 0) : 0);
	respond_json(r, 200, list);
	return 0;
}

/* ---- the endpoints ---- */

static const char *const owner_names[CA_NKINDS] = {
	[CA_USER] = "User",
	[CA_GROUP] = "Group",
	[CA_PROJECT] = "Project",
};

/* The owner of the route: the user of :id, or the route's group or project. */
static int owner(request *r, ca_owner kind, const char **id)
{
	switch (kind) {
	case CA_USER:
		return api_id(r, "id", id);
	case CA_GROUP:
		*id = r->group->id;
		return 0;
	default:
		*id = r->project->id;
		return 0;
	}
}

/* An ERR_ code of db/custom_attributes.h's functions: ERR_NOT_FOUND is the owner's
 * 404. */
static int owner_error(request *r, ca_owner kind, int rc)
{
	return rc == ERR_NOT_FOUND ? fail_not_found(r, owner_names[kind]) : rc;
}

static int list(request *r, ca_owner kind)
{
	const char *id;
	int rc = owner(r, kind, &id);
	if (rc < 0)
		return rc;
	PGresult *res;
	if ((rc = db_custom_attributes_list(&r->ctx, kind, id, &res)) < 0)
		return owner_error(r, kind, rc);
	json_object *a = json_object_new_array();
	for (int i = 0; i < PQntuples(res); i++)
		if (!PQgetisnull(res, i, CA_KEY))
			json_object_array_add(a, entity_custom_attribute(&r->ctx, res, i, CA_KEY));
	respond_json(r, 200, a);
	return 0;
}

static int show(request *r, ca_owner kind)
{
	const char *id;
	int rc = owner(r, kind, &id);
	if (rc < 0)
		return rc;
	PGresult *res;
	if ((rc = db_custom_attributes_get(&r->ctx, kind, id, param_str(r, "key"), &res)) < 0)
		return owner_error(r, kind, rc);
	if (rc == 1)
		return api_error(r, 404, "404 Not found"); /* 10.8: find_by!, RecordNotFound */
	respond_json(r, 200, entity_custom_attribute(&r->ctx, res, 0, CA_KEY));
	return 0;
}

/* The rules of 10.8's models (key and value present) and of their string columns (at
 * most 255 characters), in GitLab's words. */
static int check_set(request *r)
{
	const char *key = param_str(r, "key"), *value = param_str(r, "value");
	if (!value)
		return fail_missing(r, "value");
	const char *too_long =
		arena_printf(r->ctx.a, "is too long (maximum is %d characters)", CA_MAX);
	if (!key || !*key)
		fail_validation(r, "key", "can't be blank");
	else if (utf8_chars(key) > CA_MAX)
		fail_validation(r, "key", too_long);
	if (!*value)
		fail_validation(r, "value", "can't be blank");
	else if (utf8_chars(value) > CA_MAX)
		fail_validation(r, "value", too_long);
	return r->validation ? ERR_VALIDATION : 0;
}

static int set(request *r, ca_owner kind)
{
	const char *id;
	int rc = owner(r, kind, &id);
	if (rc < 0)
		return rc;
	PGresult *res;
	if ((rc = db_custom_attributes_set(&r->ctx, kind, id, param_str(r, "key"),
					   param_str(r, "value"), &res)) < 0)
		return owner_error(r, kind, rc);
	respond_json(r, 200, entity_custom_attribute(&r->ctx, res, 0, CA_KEY));
	return 0;
}

static int delete_attribute(request *r, ca_owner kind)
{
	const char *id;
	int rc = owner(r, kind, &id);
	if (rc < 0)
		return rc;
	if ((rc = db_custom_attributes_delete(&r->ctx, kind, id, param_str(r, "key"))) < 0)
		return owner_error(r, kind, rc);
	if (rc == 1)
		return api_error(r, 404, "404 Not found"); /* 10.8: find_by!, RecordNotFound */
	respond_empty(r, 204);
	return 0;
}

#define HANDLERS(kind, K)                                                                          \
	static int custom_attributes_list_##kind(request *r)                                       \
	{                                                                                          \
		return list(r, K);                                                                 \
	}                                                                                          \
	static int custom_attributes_show_##kind(request *r)                                       \
	{                                                                                          \
		return show(r, K);                                                                 \
	}                                                                                          \
	static int custom_attributes_set_##kind(request *r)                                        \
	{                                                                                          \
		return set(r, K);                                                                  \
	}                                                                                          \
	static int custom_attributes_delete_##kind(request *r)                                     \
	{                                                                                          \
		return delete_attribute(r, K);                                                     \
	}
HANDLERS(user, CA_USER)
HANDLERS(group, CA_GROUP)
HANDLERS(project, CA_PROJECT)

const db_stmt custom_attributes_stmts[] = {
	{NULL, NULL, 0, 0}, /* db/custom_attributes.c holds them */
};

/* The module's routes (http/router.h), in the order they are matched. The owner is
 * found after the admin check: anyone else gets 403 whatever the owner, as 10.8. */
const route custom_attributes_routes[] = {
	{"GET", V4 "/users/:id/custom_attributes", custom_attributes_list_user, ADMIN | RU, NULL},
	{"GET", V4 "/users/:id/custom_attributes/:key", custom_attributes_show_user, ADMIN | RU,
	 NULL},
	{"PUT", V4 "/users/:id/custom_attributes/:key", custom_attributes_set_user, ADMIN,
	 check_set},
	{"DELETE", V4 "/users/:id/custom_attributes/:key", custom_attributes_delete_user, ADMIN,
	 NULL},
	{"GET", V4 "/groups/:id/custom_attributes", custom_attributes_list_group, ADMIN | GR, NULL},
	{"GET", V4 "/groups/:id/custom_attributes/:key", custom_attributes_show_group, ADMIN | GR,
	 NULL},
	{"PUT", V4 "/groups/:id/custom_attributes/:key", custom_attributes_set_group, ADMIN | GR,
	 check_set},
	{"DELETE", V4 "/groups/:id/custom_attributes/:key", custom_attributes_delete_group,
	 ADMIN | GR, NULL},
	{"GET", V4 "/projects/:id/custom_attributes", custom_attributes_list_project, ADMIN | PR,
	 NULL},
	{"GET", V4 "/projects/:id/custom_attributes/:key", custom_attributes_show_project,
	 ADMIN | PR, NULL},
	{"PUT", V4 "/projects/:id/custom_attributes/:key", custom_attributes_set_project,
	 ADMIN | PR, check_set},
	{"DELETE", V4 "/projects/:id/custom_attributes/:key", custom_attributes_delete_project,
	 ADMIN | PR, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
