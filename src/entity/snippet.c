#include "entity/snippet.h"

#include "db/db.h"
#include "entity/entity.h"
#include "entity/project.h"
#include "core/deps.h"

/* The members that a project's and a personal snippet share, id to created_at; its
 * author's columns from author_col. */
static void put_snippet_fields(json_object *o, ctx *c, const PGresult *res, int row, int col,
			       int author_col)
{
#define V(c) db_val(res, row, col + (c))
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "title", V(1));
	json_put_str(o, "file_name", V(2));
	json_put_str(o, "description", V(3));
	json_object_object_add(o, "author", entity_user(c, res, row, author_col, USER_VIEW_BASIC));
	json_put_str(o, "updated_at", V(4));
	json_put_str(o, "created_at", V(5));
#undef V
}

json_object *entity_snippet(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* snippets have no key in the response cache */
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
	put_snippet_fields(o, c, res, row, col, col + 9);
	json_put_int(o, "project_id", db_int(res, row, col + 6));
	const char *project_url = project_web_url(c, V(7), V(8));
	json_put_str(o, "web_url", arena_printf(c->a, "%s/snippets/%s", project_url, V(0)));
#undef V
	return o;
}

json_object *entity_personal_snippet(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c);
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
	put_snippet_fields(o, c, res, row, col, col + 6);
	json_object_object_add(o, "project_id", NULL);
	const char *url = arena_printf(c->a, "%s/snippets/%s", c->cfg->external_url, V(0));
	json_put_str(o, "web_url", url);
	json_put_str(o, "raw_url", arena_printf(c->a, "%s/raw", url));
#undef V
	return o;
}
