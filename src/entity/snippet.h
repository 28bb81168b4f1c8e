/* Presenters of snippets: GitLab 10's Entities::ProjectSnippet (id, title, file_name,
 * description, author, updated_at, created_at, project_id, web_url) and
 * Entities::PersonalSnippet (the same with project_id null, its own web_url, and
 * raw_url). */
#ifndef COLLABD_ENTITY_SNIPPET_H
#define COLLABD_ENTITY_SNIPPET_H

#include "entity/user.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The rows SNIPPET_COLS reads: snippets s with their author u, project p and its
 * namespace n. */
#define SNIPPET_FROM                                                                               \
	"snippets s JOIN users u ON u.id = s.author_id JOIN projects p ON p.id = s.project_id"     \
	" JOIN namespaces n ON n.id = p.namespace_id"
#define SNIPPET_COLS                                                                               \
	"s.id, s.title, s.file_name, s.description, iso8601(s.updated_at),"                        \
	" iso8601(s.created_at), s.project_id, n.full_path, p.path, " USER_BASIC_COLS
#define SNIPPET_NCOLS 14

json_object *entity_snippet(ctx *c, const PGresult *res, int row, int col);

/* The rows PERSONAL_SNIPPET_COLS reads: snippets s (without a project) with their
 * author u. */
#define PERSONAL_SNIPPET_FROM "snippets s JOIN users u ON u.id = s.author_id"
#define PERSONAL_SNIPPET_COLS                                                                      \
	"s.id, s.title, s.file_name, s.description, iso8601(s.updated_at),"                        \
	" iso8601(s.created_at), " USER_BASIC_COLS
#define PERSONAL_SNIPPET_NCOLS (6 + USER_BASIC_NCOLS)

json_object *entity_personal_snippet(ctx *c, const PGresult *res, int row, int col);

#endif
