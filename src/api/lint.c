/* POST /ci/lint: whether a .gitlab-ci.yml text is valid, by the parser that makes the
 * pipelines (ci/yaml.h), so that the answer and a pipeline's yaml_errors never differ.
 * As GitLab 10's API::Lint: anyone may ask (no authentication), the answer is 200 either
 * way and names the first problem found. */
#include <string.h>

#include "api/api.h"
#include "ci/yaml.h"
#include "entity/entity.h"

const db_stmt lint_stmts[] = {
	{NULL, NULL, 0, 0},
};

static int lint_check(request *r)
{
	const char *content = param_str(r, "content");
	if (!content)
		return fail_missing(r, "content");
	ci_config cf;
	const char *problem = ci_yaml_problem(r->ctx.a, content, strlen(content), &cf);
	json_object *o = json_object_new_object();
	json_object *errors = json_object_new_array();
	json_put_str(o, "status", problem ? "invalid" : "valid");
	if (problem)
		json_object_array_add(errors, json_object_new_string(problem));
	json_object_object_add(o, "errors", errors);
	respond_json(r, 200, o);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route lint_routes[] = {
	{"POST", V4 "/ci/lint", lint_check, ROUTE_PUBLIC, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
