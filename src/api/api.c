/* Helpers shared by the handlers of every module. */
#include "api/api.h"
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
			json_object_array_add(list, present(r, res, i, 1));
	pagination_headers(r, pg, PQntuples(res) ? db_int(res, 0, 0) : 0);
	respond_json(r, 200, list);
}

int api_error(request *r, int status, const char *message)
{
	json_object *o = json_object_new_object();
	json_put_str(o, "message", message);
	respond_json(r, status, o);
	return 0;
}
