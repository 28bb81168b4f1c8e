/* Tags and releases (spec 4.9: GitLab 10's lib/api/tags.rb). The tags live in the
 * repository (git/refs.h); their release notes in releases (sql/0011), as GitLab 10. */
#include <string.h>

#include "api/api.h"
#include "core/validate.h"
#include "entity/commit.h"
#include "entity/entity.h"
#include "git/hooks.h"
#include "git/refs.h"

enum { TT_NAME, TT_EMAIL, TT_NCOLS };
enum { TR_TAG, TR_DESCRIPTION, TR_NCOLS };

const db_stmt tags_stmts[] = {
	/* $1 project, $2 tag names (text[]): the release notes of each, in order (NULL: none) */
	{"tags_releases",
	 "SELECT r.description FROM unnest($2::text[]) WITH ORDINALITY t(name, i)"
	 " LEFT JOIN releases r ON r.project_id = $1 AND r.tag = t.name ORDER BY t.i",
	 2, 1},
	/* the tagger of an annotated tag: the caller */
	{"tags_tagger", "SELECT name, email FROM users WHERE id = $1", 1, TT_NCOLS},
	/* $1 project, $2 tag, $3 description; no row when the tag has a release already */
	{"tags_release_insert",
	 "INSERT INTO releases (project_id, tag, description) VALUES ($1, $2, $3)"
	 " ON CONFLICT (project_id, tag) DO NOTHING RETURNING tag, description",
	 3, TR_NCOLS},
	{"tags_release_update",
	 "UPDATE releases SET description = $3, updated_at = now()"
	 " WHERE project_id = $1 AND tag = $2 RETURNING tag, description",
	 3, TR_NCOLS},
	{"tags_release_delete", "DELETE FROM releases WHERE project_id = $1 AND tag = $2", 2, 0},
	{NULL, NULL, 0, 0},
};

/* Entities::Release: tag_name, description. */
static json_object *present_release(const char *tag, const char *description)
{
	json_object *o = json_object_new_object();
	json_put_str(o, "tag_name", tag);
	json_put_str(o, "description", description);
	return o;
}

/* The records of tags names[0..n) as Entities::RepoTag (name, message, commit, release),
 * added to out. */
static int present_tags(request *r, git_repository *repo, const char *const *names, int n,
			json_object *out)
{
	if (n == 0)
		return 0;
	const char *v[2] = {r->project->id, refs_text_array(&r->ctx, names, n)};
	int err;
	PGresult *res = db_query(&r->ctx, "tags_releases", 2, v, &err);
	if (!res)
		return err;
	for (int i = 0; i < n; i++) {
		git_commit *commit = NULL;
		const char *message;
		int e = refs_tag_lookup(&r->ctx, repo, names[i], &commit, &message);
		if (e < 0 && e != ERR_NOT_FOUND)
			return ERR_INTERNAL;
		json_object *o = json_object_new_object();
		json_put_str(o, "name", names[i]);
		json_put_str(o, "message", message);
		json_object_object_add(o, "commit", commit ? entity_commit(&r->ctx, commit) : NULL);
		const char *notes = db_val(res, i, 0);
		json_object_object_add(o, "release",
				       notes ? present_release(names[i], notes) : NULL);
		git_commit_free(commit);
		json_object_array_add(out, o);
	}
	return 0;
}

static int open_repo(request *r, git_repository **repo)
{
	return refs_open(&r->ctx, r->project->id, repo) < 0 ? ERR_INTERNAL : 0;
}

static int tags_list(request *r)
{
	return branches_list_refs(r, true, NULL, present_tags);
}

/* Whether tag :tag_name exists: 0, or ERR_NOT_FOUND (404 Tag Not Found). */
static int find_tag(request *r, git_repository *repo)
{
	git_commit *commit = NULL;
	const char *message;
	int e = refs_tag_lookup(&r->ctx, repo, param_str(r, "tag_name"), &commit, &message);
	git_commit_free(commit);
	if (e == ERR_NOT_FOUND)
		return fail_not_found(r, "Tag");
	return e < 0 ? ERR_INTERNAL : 0;
}

static int respond_tag(request *r, git_repository *repo, const char *name, int status)
{
	json_object *list = request_own(r, json_object_new_array());
	int rc = present_tags(r, repo, &name, 1, list);
	if (rc < 0)
		return rc;
	respond_json(r, status, json_object_get(json_object_array_get_idx(list, 0)));
	return 0;
}

static int tags_show(request *r)
{
	if (!can_read_code(&r->project->pa, r->project->visibility, r->ctx.user))
		return ERR_FORBIDDEN;
	git_repository *repo = NULL;
	int rc = open_repo(r, &repo);
	if (rc == 0 && (rc = find_tag(r, repo)) == 0)
		rc = respond_tag(r, repo, param_str(r, "tag_name"), 200);
	return rc;
}

static int create_check(request *r)
{
	if (!param_str(r, "tag_name"))
		return fail_missing(r, "tag_name");
	if (!param_str(r, "ref"))
		return fail_missing(r, "ref");
	return 0;
}

/* The caller's name and email, the tagger of an annotated tag. */
static int tagger(request *r, const char **name, const char **email)
{
	const char *v[1] = {api_caller_id(r)};
	int err;
	PGresult *res = db_query(&r->ctx, "tags_tagger", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_INTERNAL;
	*name = db_val(res, 0, TT_NAME);
	*email = db_val(res, 0, TT_EMAIL);
	return 0;
}

/* GitLab strips the message of an annotated tag. */
static const char *strip(request *r, const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v')
		s++;
	size_t n = strlen(s);
	while (n && strchr(" \t\n\r\f\v", s[n - 1]))
		n--;
	return arena_strndup(r->ctx.a, s, n);
}

static int tags_create(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	int rc = create_check(r);
	if (rc < 0)
		return rc;
	if (!can_push_code(&r->project->pa, r->ctx.user))
		return ERR_FORBIDDEN;
	const char *name = param_str(r, "tag_name"), *ref = param_str(r, "ref");
	const char *message = param_str(r, "message");
	const char *notes = param_str(r, "release_description");
	if (!valid_ref_name(name))
		return api_error(r, 400, "Tag name invalid");
	const char *who = NULL, *email = NULL;
	if (message && (rc = tagger(r, &who, &email)) < 0)
		return rc;
	git_repository *repo = NULL;
	git_commit *target = NULL;
	if ((rc = open_repo(r, &repo)) < 0)
		return rc;
	int e;
	if (!valid_ref_name(ref) || refs_resolve_commit(repo, ref, &target) != 0) {
		rc = api_error(r, 400, arena_printf(r->ctx.a, "Target %s is invalid", ref));
	} else if ((e = refs_tag_create(&r->ctx, repo, name, target,
					message ? strip(r, message) : NULL, who, email)) ==
		   ERR_EXISTS) {
		rc = api_error(r, 400, arena_printf(r->ctx.a, "Tag %s already exists", name));
	} else if (e == ERR_BAD_NAME) {
		rc = api_error(r, 400, "Tag name invalid");
	} else if (e < 0) {
		rc = ERR_INTERNAL;
	} else {
		const char *v[3] = {r->project->id, name, notes};
		const char *tag_ref = arena_printf(r->ctx.a, "refs/tags/%s", name);
		git_oid made;
		int err;
		/* a release that outlived an earlier tag of that name stays, as GitLab's */
		if (git_reference_name_to_id(&made, repo, tag_ref) < 0)
			rc = ERR_INTERNAL;
		else if ((rc = hooks_pushed(&r->ctx, repo, r->project, tag_ref, NULL, &made)) < 0)
			;
		else if (notes && !db_query(&r->ctx, "tags_release_insert", 3, v, &err))
			rc = err;
		else
			rc = respond_tag(r, repo, name, 201);
	}
	git_commit_free(target);
	return rc;
}

static int tags_delete(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	if (!can_push_code(&r->project->pa, r->ctx.user))
		return ERR_FORBIDDEN;
	git_repository *repo = NULL;
	int rc = open_repo(r, &repo);
	if (rc < 0 || (rc = find_tag(r, repo)) < 0)
		goto cleanup;
	const char *name = param_str(r, "tag_name");
	const char *ref = arena_printf(r->ctx.a, "refs/tags/%s", name);
	git_oid was;
	bool had = git_reference_name_to_id(&was, repo, ref) == 0;
	int e = refs_tag_delete(&r->ctx, repo, name);
	if (e == ERR_NOT_FOUND || e == ERR_MOVED || !had) {
		rc = api_error(r, 400, "Failed to remove tag");
	} else if (e < 0) {
		rc = ERR_INTERNAL;
	} else if ((rc = hooks_pushed(&r->ctx, repo, r->project, ref, &was, NULL)) < 0) {
		;
	} else {
		const char *v[2] = {r->project->id, name};
		int err;
		if (!db_query(&r->ctx, "tags_release_delete", 2, v, &err))
			rc = err;
		else
			respond_empty(r, 204);
	}
cleanup:
	return rc;
}

static int release_check(request *r)
{
	return param_str(r, "description") ? 0 : fail_missing(r, "description");
}

/* POST (create) and PUT (update) .../tags/:tag_name/release. */
static int release_write(request *r, bool create)
{
	int rc = release_check(r);
	if (rc < 0)
		return rc;
	if (!can_push_code(&r->project->pa, r->ctx.user))
		return ERR_FORBIDDEN;
	git_repository *repo = NULL;
	if ((rc = open_repo(r, &repo)) < 0)
		return rc;
	rc = find_tag(r, repo);
	if (rc == ERR_NOT_FOUND)
		return api_error(r, 404, "Tag does not exist");
	if (rc < 0)
		return rc;
	const char *name = param_str(r, "tag_name");
	const char *v[3] = {r->project->id, name, param_str(r, "description")};
	int err;
	PGresult *res = db_query(&r->ctx, create ? "tags_release_insert" : "tags_release_update", 3,
				 v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return create ? fail(r, ERR_CONFLICT, "Release already exists")
			      : api_error(r, 404, "Release does not exist");
	respond_json(r, create ? 201 : 200,
		     present_release(db_val(res, 0, TR_TAG), db_val(res, 0, TR_DESCRIPTION)));
	return 0;
}

static int tags_release_create(request *r)
{
	return release_write(r, true);
}

static int tags_release_update(request *r)
{
	return release_write(r, false);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route tags_routes[] = {
	{"GET", V4 "/projects/:id/repository/tags", tags_list, PRN, NULL},
	{"GET", V4 "/projects/:id/repository/tags/:tag_name", tags_show, PRN, NULL},
	{"POST", V4 "/projects/:id/repository/tags", tags_create, AUTH | PW, create_check},
	{"DELETE", V4 "/projects/:id/repository/tags/:tag_name", tags_delete, AUTH | PW, NULL},
	{"POST", V4 "/projects/:id/repository/tags/:tag_name/release", tags_release_create,
	 AUTH | PW, release_check},
	{"PUT", V4 "/projects/:id/repository/tags/:tag_name/release", tags_release_update,
	 AUTH | PW, release_check},
	{NULL, NULL, NULL, 0, NULL},
};
