#include "git/merge.h"

#include <string.h>

#include "core/log.h"
#include "git/commits.h"
#include "git/refs.h"
#include "git/repo.h"

static void log_git(const char *what)
{
	const git_error *e = git_error_last();
	log_error("git merge: %s: %s", what, e && e->message ? e->message : "unknown error");
}

static void free_commit(void *p)
{
	git_commit_free(p);
}

static void free_index(void *p)
{
	git_index_free(p);
}

static void free_tree(void *p)
{
	git_tree_free(p);
}

static git_commit *lookup(ctx *c, git_repository *repo, const git_oid *id)
{
	git_commit *commit = NULL;
	if (git_commit_lookup(&commit, repo, id) < 0)
		return NULL;
	arena_defer(c->a, free_commit, commit);
	return commit;
}

/* Fetches branch of the source repository at path into ref of repo: 0, ERR_NOT_FOUND
 * when the source has no such branch, ERR_INTERNAL. */
static int fetch_source(ctx *c, git_repository *repo, const char *path, const char *branch,
			const char *ref)
{
	git_repository *source = NULL;
	git_remote *remote = NULL;
	int rc = ERR_NOT_FOUND;
	if (!path)
		return ERR_INTERNAL;
	if (git_repository_open_bare(&source, path) < 0 ||
	    !gitc_branch_exists(source, branch, NULL))
		goto cleanup;
	char *spec = arena_printf(c->a, "+refs/heads/%s:%s", branch, ref);
	git_strarray specs = {&spec, 1};
	git_fetch_options opts;
	git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	opts.update_fetchhead = 0;
	if (git_remote_create_anonymous(&remote, repo, path) < 0 ||
	    git_remote_fetch(remote, &specs, &opts, NULL) < 0) {
		log_git("fetch the source of a fork");
		rc = ERR_INTERNAL;
		goto cleanup;
	}
	rc = 0;
cleanup:
	git_remote_free(remote);
	git_repository_free(source);
	return rc;
}

int merge_sides_find(ctx *c, const char *target_project_id, const char *source_project_id,
		     const char *source_branch, const char *target_branch, const char *iid,
		     merge_sides *out)
{
	memset(out, 0, sizeof(*out));
	int rc = gitc_open(c, target_project_id, &out->repo);
	if (rc == ERR_NOT_FOUND)
		return ERR_NOT_FOUND;
	if (rc < 0)
		return ERR_INTERNAL;
	out->have_target = gitc_branch_exists(out->repo, target_branch, &out->target);
	if (!source_project_id)
		return ERR_NOT_FOUND; /* the fork is gone */
	if (strcmp(source_project_id, target_project_id) == 0)
		return gitc_branch_exists(out->repo, source_branch, &out->source) ? 0
										  : ERR_NOT_FOUND;
	const char *ref = arena_printf(c->a, "refs/merge-requests/%s/head", iid);
	rc = fetch_source(c, out->repo, repo_path(c, source_project_id), source_branch, ref);
	if (rc != 0)
		return rc;
	return git_reference_name_to_id(&out->source, out->repo, ref) == 0 ? 0 : ERR_NOT_FOUND;
}

/* The in-memory merge of s's sides into *out (the arena's). 0, ERR_NOT_FOUND when there is
 * no target branch, or ERR_INTERNAL. */
static int merge_index(ctx *c, const merge_sides *s, git_commit **ours, git_commit **theirs,
		       git_index **out)
{
	if (!s->have_target)
		return ERR_NOT_FOUND;
	*ours = lookup(c, s->repo, &s->target);
	*theirs = lookup(c, s->repo, &s->source);
	if (!*ours || !*theirs)
		return ERR_INTERNAL;
	git_merge_options opts;
	git_merge_options_init(&opts, GIT_MERGE_OPTIONS_VERSION);
	if (git_merge_commits(out, s->repo, *ours, *theirs, &opts) < 0) {
		log_git("merge");
		return ERR_INTERNAL;
	}
	arena_defer(c->a, free_index, *out);
	return 0;
}

int merge_check(ctx *c, const merge_sides *s, bool *out)
{
	git_commit *ours, *theirs;
	git_index *index;
	int rc = merge_index(c, s, &ours, &theirs, &index);
	if (rc == 0)
		*out = !git_index_has_conflicts(index);
	return rc;
}

/* The merge base of the sides (the source head itself when there is no target): 0,
 * ERR_NOT_FOUND when their histories are unrelated (everything is the source's: *out is
 * its head), or ERR_INTERNAL. */
static int merge_base(const merge_sides *s, git_oid *out)
{
	if (!s->have_target) {
		git_oid_cpy(out, &s->source);
		return 0;
	}
	int rc = git_merge_base(out, s->repo, &s->source, &s->target);
	if (rc == GIT_ENOTFOUND) {
		git_oid_cpy(out, &s->source);
		return ERR_NOT_FOUND;
	}
	return rc < 0 ? ERR_INTERNAL : 0;
}

int merge_commits_json(ctx *c, const merge_sides *s, long long offset, long long limit,
		       json_object **out, long long *total)
{
	git_revwalk *walk = NULL;
	int rc = ERR_INTERNAL;
	*out = json_object_new_array();
	*total = 0;
	if (git_revwalk_new(&walk, s->repo) < 0)
		goto cleanup;
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
	if (git_revwalk_push(walk, &s->source) < 0 ||
	    (s->have_target && git_revwalk_hide(walk, &s->target) < 0))
		goto cleanup;
	git_oid id;
	int e;
	/* the whole walk counts them; only the page's are read and presented */
	while ((e = git_revwalk_next(&id, walk)) == 0) {
		long long i = (*total)++;
		if (i < offset || i - offset >= limit)
			continue;
		git_commit *commit = lookup(c, s->repo, &id);
		if (!commit)
			goto cleanup;
		json_object_array_add(*out, gitc_commit_json(c, s->repo, commit, false));
	}
	rc = e == GIT_ITEROVER ? 0 : ERR_INTERNAL;
cleanup:
	if (rc < 0)
		log_git("commits of a merge request");
	git_revwalk_free(walk);
	return rc;
}

int merge_changes_json(ctx *c, const merge_sides *s, json_object **out)
{
	git_oid base;
	int rc = merge_base(s, &base);
	if (rc < 0 && rc != ERR_NOT_FOUND)
		return ERR_INTERNAL;
	git_commit *head = lookup(c, s->repo, &s->source);
	git_commit *from = rc == 0 && s->have_target ? lookup(c, s->repo, &base) : NULL;
	git_tree *new_tree = NULL, *old_tree = NULL;
	if (!head || git_commit_tree(&new_tree, head) < 0)
		return ERR_INTERNAL;
	arena_defer(c->a, free_tree, new_tree);
	if (from) {
		if (git_commit_tree(&old_tree, from) < 0)
			return ERR_INTERNAL;
		arena_defer(c->a, free_tree, old_tree);
	}
	return gitc_diff_json(c, s->repo, old_tree, new_tree, out);
}

int merge_commit(ctx *c, const merge_sides *s, const char *target_branch, const char *message,
		 const char *name, const char *email, git_oid *out)
{
	git_commit *ours, *theirs;
	git_index *index;
	int rc = merge_index(c, s, &ours, &theirs, &index);
	if (rc < 0)
		return rc;
	if (git_index_has_conflicts(index))
		return ERR_CONFLICT;
	git_oid tree_id;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	rc = ERR_INTERNAL;
	if (git_index_write_tree_to(&tree_id, index, s->repo) < 0 ||
	    git_tree_lookup(&tree, s->repo, &tree_id) < 0) {
		log_git("write the merged tree");
		goto cleanup;
	}
	if (git_signature_now(&sig, name && *name ? name : "unknown",
			      email && *email ? email : "unknown") < 0)
		goto cleanup;
	const git_commit *parents[2] = {ours, theirs};
	if (git_commit_create(out, s->repo, NULL, sig, sig, NULL, message, tree, 2, parents) < 0) {
		log_git("create the merge commit");
		goto cleanup;
	}
	rc = refs_branch_update(c, s->repo, target_branch, out, &s->target);
cleanup:
	git_signature_free(sig);
	git_tree_free(tree);
	return rc;
}

int merge_ff_possible(const merge_sides *s, bool *out)
{
	if (!s->have_target)
		return ERR_NOT_FOUND;
	if (git_oid_equal(&s->source, &s->target)) {
		*out = true;
		return 0;
	}
	int rc = git_graph_descendant_of(s->repo, &s->source, &s->target);
	if (rc < 0) {
		log_git("fast-forward check");
		return ERR_INTERNAL;
	}
	*out = rc == 1;
	return 0;
}

int merge_ff(ctx *c, const merge_sides *s, const char *target_branch, git_oid *out)
{
	bool ff;
	int rc = merge_ff_possible(s, &ff);
	if (rc != 0)
		return rc;
	if (!ff)
		return ERR_CONFLICT;
	git_oid_cpy(out, &s->source);
	return refs_branch_update(c, s->repo, target_branch, out, &s->target);
}
