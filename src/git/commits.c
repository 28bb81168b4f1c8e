#include "git/commits.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/validate.h"
#include "entity/commit.h"
#include "git/graph.h"
#include "git/repo.h"

/* ---- objects owned by the arena ---- */

#define OWNER(type)                                                                                \
	static void free_##type(void *p)                                                           \
	{                                                                                          \
		git_##type##_free(p);                                                              \
	}                                                                                          \
	static git_##type *own_##type(ctx *c, git_##type *o)                                       \
	{                                                                                          \
		if (o)                                                                             \
			arena_defer(c->a, free_##type, o);                                         \
		return o;                                                                          \
	}
OWNER(commit)
OWNER(tree)
OWNER(blob)
OWNER(diff)
OWNER(index)
OWNER(revwalk)
OWNER(reference)
OWNER(object)
OWNER(signature)
OWNER(tree_entry)

static void log_git(const char *what)
{
	const git_error *e = git_error_last();
	log_error("%s: %s", what, e ? e->message : "unknown error");
}

int gitc_open(ctx *c, const char *project_id, git_repository **out)
{
	return repo_open(c, project_id, out);
}

static bool all_hex(const char *s)
{
	size_t n = strlen(s);
	if (n < 4 || n > GIT_OID_HEXSZ)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

/* The object of type (GIT_OBJECT_ANY: any) that sha (4 to 40 hex digits) names in repo,
 * c's: 0 or ERR_NOT_FOUND. */
static int object_by_sha(ctx *c, git_repository *repo, const char *sha, git_object_t type,
			 git_object **out)
{
	if (!all_hex(sha))
		return ERR_NOT_FOUND;
	git_oid oid;
	if (git_oid_fromstrn(&oid, sha, strlen(sha)) < 0 ||
	    git_object_lookup_prefix(out, repo, &oid, strlen(sha), type) < 0)
		return ERR_NOT_FOUND;
	own_object(c, *out);
	return 0;
}

static int peel_commit(ctx *c, git_object *obj, git_commit **out)
{
	git_object *peeled = NULL;
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0)
		return ERR_NOT_FOUND;
	*out = own_commit(c, (git_commit *)peeled);
	return 0;
}

int gitc_commit_of(ctx *c, git_repository *repo, const char *ref, git_commit **out)
{
	git_reference *r = NULL;
	if (!ref || !*ref) {
		if (git_repository_head(&r, repo) < 0)
			return ERR_NOT_FOUND;
	} else {
		const char *names[2] = {arena_printf(c->a, "refs/heads/%s", ref),
					arena_printf(c->a, "refs/tags/%s", ref)};
		for (int i = 0; i < 2 && !r; i++)
			if (git_reference_is_valid_name(names[i]) &&
			    git_reference_lookup(&r, repo, names[i]) < 0)
				r = NULL;
	}
	if (r) {
		own_reference(c, r);
		git_object *obj = NULL;
		if (git_reference_peel(&obj, r, GIT_OBJECT_COMMIT) < 0)
			return ERR_NOT_FOUND;
		*out = own_commit(c, (git_commit *)obj);
		return 0;
	}
	git_object *obj;
	int rc = object_by_sha(c, repo, ref, GIT_OBJECT_ANY, &obj);
	return rc < 0 ? rc : peel_commit(c, obj, out);
}

int gitc_commit_by_id(ctx *c, git_repository *repo, const char *sha, git_commit **out)
{
	git_oid oid;
	git_object *obj = NULL;
	if (!sha || strlen(sha) != GIT_OID_HEXSZ || !all_hex(sha) ||
	    git_oid_fromstr(&oid, sha) < 0 ||
	    git_object_lookup(&obj, repo, &oid, GIT_OBJECT_ANY) < 0)
		return ERR_NOT_FOUND;
	own_object(c, obj);
	return peel_commit(c, obj, out);
}

bool gitc_branch_exists(git_repository *repo, const char *branch, git_oid *out)
{
	char name[1024];
	if (snprintf(name, sizeof(name), "refs/heads/%s", branch) >= (int)sizeof(name) ||
	    !git_reference_is_valid_name(name))
		return false;
	git_oid oid;
	if (git_reference_name_to_id(&oid, repo, name) < 0)
		return false;
	if (out)
		*out = oid;
	return true;
}

bool gitc_is_empty(git_repository *repo)
{
	git_branch_iterator *it = NULL;
	if (git_branch_iterator_new(&it, repo, GIT_BRANCH_LOCAL) < 0)
		return true;
	git_reference *ref = NULL;
	git_branch_t type;
	bool empty = git_branch_next(&ref, &type, it) != 0;
	git_reference_free(ref);
	git_branch_iterator_free(it);
	return empty;
}

/* ---- the commit record ---- */

static const char *oid_hex(ctx *c, const git_oid *oid)
{
	char *s = arena_alloc(c->a, GIT_OID_HEXSZ + 1);
	git_oid_tostr(s, GIT_OID_HEXSZ + 1, oid);
	return s;
}

static void put_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static void put_int(json_object *o, const char *k, long long v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void put_bool(json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static int commit_diff(ctx *c, git_repository *repo, git_commit *commit, git_diff **out);

json_object *gitc_commit_json(ctx *c, git_repository *repo, git_commit *commit, bool detail)
{
	json_object *o = entity_commit(c, commit);
	if (detail) {
		git_diff *diff = NULL;
		git_diff_stats *st = NULL;
		json_object *stats = json_object_new_object();
		size_t add = 0, del = 0;
		if (commit_diff(c, repo, commit, &diff) == 0 &&
		    git_diff_get_stats(&st, diff) == 0) {
			add = git_diff_stats_insertions(st);
			del = git_diff_stats_deletions(st);
		}
		git_diff_stats_free(st);
		put_int(stats, "additions", (long long)add);
		put_int(stats, "deletions", (long long)del);
		put_int(stats, "total", (long long)(add + del));
		json_object_object_add(o, "stats", stats);
	}
	return o;
}

/* ---- history ---- */

/* The history runs over the commit graph of this process (git/graph.h): a page costs
 * the commits up to it, read once per process, not the whole history at every request
 * (libgit2's sorted revwalks read all of it first), and a path's changes are found once
 * per commit. */
int gitc_log(ctx *c, git_repository *repo, const char *ref, long long since, long long until,
	     const char *path, long long offset, long long limit, json_object **out,
	     long long *total)
{
	*out = json_object_new_array();
	*total = 0;
	git_commit *tip;
	int rc = gitc_commit_of(c, repo, ref, &tip);
	if (rc != 0)
		return rc;
	/* the count of the commits kept, once known, ends the walk at the page (what a
	 * history holds follows from its newest commit's id: no repository in the key) */
	const char *key = arena_printf(c->a, "log %s %lld %lld %s", oid_hex(c, git_commit_id(tip)),
				       since, until, path ? path : "");
	repo_memo known;
	long long count = repo_memo_get(key, &known) ? known.n : -1;
	graph_walk *w = graph_walk_new(repo, git_commit_id(tip));
	if (!w || (path && !graph_walk_path(w, path))) {
		graph_walk_free(w);
		return ERR_INTERNAL;
	}
	long long want = limit > 0 ? limit : 0, got = 0;
	git_oid *page = arena_alloc(c->a, (size_t)(want + 1) * sizeof(*page));
	git_oid id;
	long long t;
	while ((count < 0 || *total < offset + limit) && (rc = graph_walk_next(w, &id, &t)) == 1) {
		if (t < since || t > until)
			continue;
		if (*total >= offset && got < want)
			page[got++] = id;
		(*total)++;
	}
	graph_walk_free(w);
	if (rc < 0)
		return ERR_INTERNAL;
	for (long long i = 0; i < got; i++) {
		git_commit *commit = NULL;
		if (git_commit_lookup(&commit, repo, &page[i]) < 0) {
			log_git("commit lookup");
			return ERR_INTERNAL;
		}
		json_object_array_add(*out, entity_commit_kept(c, own_commit(c, commit)));
	}
	if (count >= 0)
		*total = count;
	else
		repo_memo_put(key, *total, NULL);
	return 0;
}

/* ---- diffs ---- */

/* The diff of old_tree (NULL: none) to new_tree, renames found, into *out (c's). 0 or
 * ERR_INTERNAL. */
static int tree_diff(ctx *c, git_repository *repo, git_tree *old_tree, git_tree *new_tree,
		     git_diff **out)
{
	if (git_diff_tree_to_tree(out, repo, old_tree, new_tree, NULL) < 0)
		return ERR_INTERNAL;
	own_diff(c, *out);
	return git_diff_find_similar(*out, NULL) < 0 ? ERR_INTERNAL : 0;
}

static int commit_diff(ctx *c, git_repository *repo, git_commit *commit, git_diff **out)
{
	git_tree *tree = NULL, *ptree = NULL;
	git_commit *parent = NULL;
	if (git_commit_tree(&tree, commit) < 0)
		return ERR_INTERNAL;
	own_tree(c, tree);
	if (git_commit_parentcount(commit) > 0) {
		if (git_commit_parent(&parent, commit, 0) < 0)
			return ERR_INTERNAL;
		own_commit(c, parent);
		if (git_commit_tree(&ptree, parent) < 0)
			return ERR_INTERNAL;
		own_tree(c, ptree);
	}
	return tree_diff(c, repo, ptree, tree, out);
}

static const char *mode_text(ctx *c, unsigned mode)
{
	return arena_printf(c->a, "%o", mode);
}

/* The patch text as GitLab 10 shows it: from the "---" (or "Binary") line on. */
static const char *patch_text(ctx *c, git_patch *patch)
{
	git_buf b = {0};
	const char *out = "";
	if (git_patch_to_buf(&b, patch) == 0 && b.ptr) {
		const char *s = b.ptr;
		while (*s) {
			if (strncmp(s, "---", 3) == 0 || strncmp(s, "Binary", 6) == 0) {
				out = arena_strdup(c->a, s);
				break;
			}
			const char *nl = strchr(s, '\n');
			if (!nl)
				break;
			s = nl + 1;
		}
	}
	git_buf_dispose(&b);
	return out;
}

static json_object *diff_entries(ctx *c, git_diff *diff)
{
	json_object *list = json_object_new_array();
	size_t n = git_diff_num_deltas(diff);
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_patch *patch = NULL;
		const char *text = "";
		if (git_patch_from_diff(&patch, diff, i) == 0 && patch)
			text = patch_text(c, patch);
		git_patch_free(patch);
		json_object *o = json_object_new_object();
		put_str(o, "old_path", d->old_file.path);
		put_str(o, "new_path", d->new_file.path);
		put_str(o, "a_mode", mode_text(c, d->old_file.mode));
		put_str(o, "b_mode", mode_text(c, d->new_file.mode));
		put_str(o, "diff", text);
		put_bool(o, "new_file", d->status == GIT_DELTA_ADDED);
		put_bool(o, "renamed_file", d->status == GIT_DELTA_RENAMED);
		put_bool(o, "deleted_file", d->status == GIT_DELTA_DELETED);
		json_object_array_add(list, o);
	}
	return list;
}

int gitc_diff_json(ctx *c, git_repository *repo, git_tree *old_tree, git_tree *new_tree,
		   json_object **out)
{
	git_diff *diff;
	int rc = tree_diff(c, repo, old_tree, new_tree, &diff);
	if (rc == 0)
		*out = diff_entries(c, diff);
	return rc;
}

int gitc_commit_diff_json(ctx *c, git_repository *repo, git_commit *commit, json_object **out)
{
	git_diff *diff;
	if (commit_diff(c, repo, commit, &diff) < 0) {
		log_git("commit diff");
		return ERR_INTERNAL;
	}
	*out = diff_entries(c, diff);
	return 0;
}

struct line_find {
	const char *path;
	long long line;
	bool new_side;
	bool found;
};

static int line_cb(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l,
		   void *payload)
{
	(void)h;
	struct line_find *f = payload;
	if (!d->new_file.path || strcmp(d->new_file.path, f->path) != 0)
		return 0;
	if (f->new_side && l->origin == GIT_DIFF_LINE_ADDITION && l->new_lineno == f->line)
		f->found = true;
	if (!f->new_side && l->origin == GIT_DIFF_LINE_DELETION && l->old_lineno == f->line)
		f->found = true;
	return 0;
}

bool gitc_diff_has_line(ctx *c, git_repository *repo, git_commit *commit, const char *path,
			long long line, bool new_side)
{
	git_diff *diff;
	if (commit_diff(c, repo, commit, &diff) < 0)
		return false;
	struct line_find f = {path, line, new_side, false};
	git_diff_foreach(diff, NULL, NULL, NULL, line_cb, &f);
	return f.found;
}

/* ---- trees and blobs ---- */

static const char *type_name(git_object_t t)
{
	return t == GIT_OBJECT_TREE ? "tree" : t == GIT_OBJECT_COMMIT ? "commit" : "blob";
}

static json_object *tree_entry_json(ctx *c, const git_tree_entry *e, const char *path)
{
	json_object *o = json_object_new_object();
	put_str(o, "id", oid_hex(c, git_tree_entry_id(e)));
	put_str(o, "name", git_tree_entry_name(e));
	put_str(o, "type", type_name(git_tree_entry_type(e)));
	put_str(o, "path", path);
	put_str(o, "mode", arena_printf(c->a, "%06o", (unsigned)git_tree_entry_filemode(e)));
	return o;
}

struct tree_walk {
	ctx *c;
	const char *base; /* "" or "dir/" */
	json_object *kinds[3];
};

static int kind_of(git_object_t t)
{
	return t == GIT_OBJECT_TREE ? 0 : t == GIT_OBJECT_BLOB ? 1 : 2;
}

static int walk_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct tree_walk *w = payload;
	const char *path = arena_printf(w->c->a, "%s%s%s", w->base, root, git_tree_entry_name(e));
	json_object_array_add(w->kinds[kind_of(git_tree_entry_type(e))],
			      tree_entry_json(w->c, e, path));
	return 0;
}

int gitc_tree_json(ctx *c, git_repository *repo, git_commit *commit, const char *path,
		   bool recursive, json_object **out)
{
	git_tree *root = NULL, *tree = NULL;
	if (git_commit_tree(&root, commit) < 0)
		return ERR_INTERNAL;
	own_tree(c, root);
	tree = root;
	const char *base = "";
	if (path && *path) {
		size_t n = strlen(path);
		while (n && path[n - 1] == '/')
			n--;
		const char *p = arena_strndup(c->a, path, n);
		git_tree_entry *e = NULL;
		if (!*p || git_tree_entry_bypath(&e, root, p) < 0)
			return ERR_NOT_FOUND;
		own_tree_entry(c, e);
		if (git_tree_entry_type(e) != GIT_OBJECT_TREE)
			return ERR_NOT_FOUND;
		git_object *obj = NULL;
		if (git_tree_entry_to_object(&obj, repo, e) < 0)
			return ERR_INTERNAL;
		own_object(c, obj);
		tree = (git_tree *)obj;
		base = arena_printf(c->a, "%s/", p);
	}
	struct tree_walk w = {c,
			      base,
			      {json_object_new_array(), json_object_new_array(),
			       json_object_new_array()}};
	if (recursive) {
		git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &w);
	} else {
		for (size_t i = 0; i < git_tree_entrycount(tree); i++)
			walk_cb("", git_tree_entry_byindex(tree, i), &w);
	}
	*out = w.kinds[0];
	for (int k = 1; k < 3; k++) {
		for (size_t i = 0; i < json_object_array_length(w.kinds[k]); i++)
			json_object_array_add(
				*out, json_object_get(json_object_array_get_idx(w.kinds[k], i)));
		json_object_put(w.kinds[k]);
	}
	return 0;
}

/* The blob at path in commit's tree: found once per process (repo_memo: a commit's
 * tree never changes), not by reading the trees down the path at every request. */
int gitc_blob_id_at(ctx *c, git_commit *commit, const char *path, git_oid *out)
{
	const char *key = arena_printf(c->a, "blob %s %s", oid_hex(c, git_commit_id(commit)), path);
	repo_memo known;
	if (repo_memo_get(key, &known)) {
		git_oid_cpy(out, &known.oid);
		return known.n ? 0 : ERR_NOT_FOUND;
	}
	git_tree *root = NULL;
	git_tree_entry *e = NULL;
	if (git_commit_tree(&root, commit) < 0)
		return ERR_INTERNAL;
	own_tree(c, root);
	int rc = git_tree_entry_bypath(&e, root, path);
	if (rc < 0 && rc != GIT_ENOTFOUND)
		return ERR_NOT_FOUND; /* not a path (an empty segment): nothing to keep */
	if (e)
		own_tree_entry(c, e);
	bool blob = e && git_tree_entry_type(e) == GIT_OBJECT_BLOB;
	repo_memo_put(key, blob, blob ? git_tree_entry_id(e) : NULL);
	if (!blob)
		return ERR_NOT_FOUND;
	git_oid_cpy(out, git_tree_entry_id(e));
	return 0;
}

int gitc_blob_at(ctx *c, git_repository *repo, git_commit *commit, const char *path, git_blob **out)
{
	git_oid id;
	int rc = gitc_blob_id_at(c, commit, path, &id);
	if (rc != 0)
		return rc;
	git_blob *b = NULL;
	if (git_blob_lookup(&b, repo, &id) < 0)
		return ERR_NOT_FOUND;
	*out = own_blob(c, b);
	return 0;
}

int gitc_blob_by_id(ctx *c, git_repository *repo, const char *sha, git_blob **out)
{
	git_object *obj;
	int rc = object_by_sha(c, repo, sha, GIT_OBJECT_BLOB, &obj);
	if (rc == 0)
		*out = (git_blob *)obj;
	return rc;
}

int gitc_blob_id(git_repository *repo, const char *sha, git_oid *out)
{
	if (!all_hex(sha))
		return ERR_NOT_FOUND;
	git_odb *odb = NULL;
	git_oid prefix;
	size_t size;
	git_object_t type;
	int rc = ERR_NOT_FOUND;
	if (git_repository_odb(&odb, repo) < 0)
		return ERR_INTERNAL;
	if (git_oid_fromstrn(&prefix, sha, strlen(sha)) == 0 &&
	    git_odb_exists_prefix(out, odb, &prefix, strlen(sha)) == 0 &&
	    git_odb_read_header(&size, &type, odb, out) == 0 && type == GIT_OBJECT_BLOB)
		rc = 0;
	git_odb_free(odb);
	return rc;
}

int gitc_blob_size(git_repository *repo, const git_oid *id, size_t *out)
{
	git_odb *odb = NULL;
	git_object_t type;
	if (git_repository_odb(&odb, repo) < 0)
		return ERR_INTERNAL;
	int rc = git_odb_read_header(out, &type, odb, id) == 0 && type == GIT_OBJECT_BLOB
			 ? 0
			 : ERR_NOT_FOUND;
	git_odb_free(odb);
	return rc;
}

int gitc_last_commit_for_path(ctx *c, git_repository *repo, git_commit *commit, const char *path,
			      git_oid *out)
{
	/* what a history holds follows from its newest commit: kept once found */
	const char *key = arena_printf(c->a, "last %s %s", oid_hex(c, git_commit_id(commit)), path);
	repo_memo known;
	if (repo_memo_get(key, &known)) {
		git_oid_cpy(out, &known.oid);
		return known.n ? 0 : ERR_NOT_FOUND;
	}
	int rc = graph_last_commit(repo, git_commit_id(commit), path, out);
	if (rc == 0 || rc == ERR_NOT_FOUND)
		repo_memo_put(key, rc == 0, rc == 0 ? out : NULL);
	return rc;
}

/* ---- compare and contributors ---- */

int gitc_compare_json(ctx *c, git_repository *repo, const char *from, const char *to, bool straight,
		      json_object **out)
{
	json_object *o = json_object_new_object();
	*out = o;
	git_commit *base = NULL, *head = NULL;
	bool have = gitc_commit_of(c, repo, from, &base) == 0 &&
		    gitc_commit_of(c, repo, to, &head) == 0;
	bool same = have && git_oid_equal(git_commit_id(base), git_commit_id(head));
	json_object *commits = json_object_new_array(), *diffs = NULL, *last = NULL;
	if (have && !same) {
		git_revwalk *walk = NULL;
		if (git_revwalk_new(&walk, repo) < 0)
			return ERR_INTERNAL;
		own_revwalk(c, walk);
		git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
		if (git_revwalk_push(walk, git_commit_id(head)) < 0 ||
		    git_revwalk_hide(walk, git_commit_id(base)) < 0)
			return ERR_INTERNAL;
		git_oid oid;
		while (git_revwalk_next(&oid, walk) == 0) {
			git_commit *cm = NULL;
			if (git_commit_lookup(&cm, repo, &oid) < 0)
				continue;
			json_object_array_add(commits, gitc_commit_json(c, repo, cm, false));
			git_commit_free(cm);
		}
		size_t n = json_object_array_length(commits);
		if (n)
			last = json_object_get(json_object_array_get_idx(commits, n - 1));
	}
	if (have) {
		git_commit *from_commit = base;
		if (!straight) {
			git_oid mb;
			git_commit *mbc = NULL;
			if (git_merge_base(&mb, repo, git_commit_id(base), git_commit_id(head)) ==
				    0 &&
			    git_commit_lookup(&mbc, repo, &mb) == 0)
				from_commit = own_commit(c, mbc);
		}
		git_tree *t1 = NULL, *t2 = NULL;
		if (git_commit_tree(&t1, from_commit) < 0 || git_commit_tree(&t2, head) < 0) {
			git_tree_free(t1);
			return ERR_INTERNAL;
		}
		own_tree(c, t1);
		own_tree(c, t2);
		if (gitc_diff_json(c, repo, t1, t2, &diffs) < 0)
			return ERR_INTERNAL;
	}
	json_object_object_add(o, "commit", last);
	json_object_object_add(o, "commits", commits);
	json_object_object_add(o, "diffs", diffs ? diffs : json_object_new_array());
	put_bool(o, "compare_timeout", false);
	json_object_object_add(o, "compare_same_ref", have ? json_object_new_boolean(same) : NULL);
	return 0;
}

int gitc_contributors_json(ctx *c, git_repository *repo, json_object **out)
{
	json_object *list = json_object_new_array();
	*out = list;
	git_commit *tip;
	if (gitc_commit_of(c, repo, NULL, &tip) != 0)
		return 0;
	git_revwalk *walk = NULL;
	if (git_revwalk_new(&walk, repo) < 0)
		return ERR_INTERNAL;
	own_revwalk(c, walk);
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
	if (git_revwalk_push(walk, git_commit_id(tip)) < 0)
		return ERR_INTERNAL;
	json_object *by_email = json_object_new_object();
	git_oid oid;
	int seen = 0;
	while (seen < 2000 && git_revwalk_next(&oid, walk) == 0) {
		git_commit *cm = NULL;
		if (git_commit_lookup(&cm, repo, &oid) < 0)
			continue;
		if (git_commit_parentcount(cm) > 1) {
			git_commit_free(cm);
			continue;
		}
		seen++;
		const git_signature *a = git_commit_author(cm);
		json_object *rec = NULL;
		if (!json_object_object_get_ex(by_email, a->email, &rec)) {
			rec = json_object_new_object();
			put_str(rec, "name", a->name);
			put_str(rec, "email", a->email);
			put_int(rec, "commits", 0);
			put_int(rec, "additions", 0);
			put_int(rec, "deletions", 0);
			json_object_object_add(by_email, a->email, json_object_get(rec));
			json_object_array_add(list, rec);
		}
		json_object *n = NULL;
		json_object_object_get_ex(rec, "commits", &n);
		json_object_set_int64(n, json_object_get_int64(n) + 1);
		git_commit_free(cm);
	}
	json_object_put(by_email);
	return 0;
}

/* ---- writing: commits with actions, cherry-pick ---- */

bool gitc_valid_path(const char *path)
{
	if (!path || !*path || strlen(path) > 4096)
		return false;
	const char *s = path;
	while (true) {
		size_t n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && strncmp(s, "..", 2) == 0) ||
		    (n == 4 && strncasecmp(s, ".git", 4) == 0))
			return false;
		if (!s[n])
			return true;
		s += n + 1;
	}
}

/* Whether some entry of the index lies below dir ("dir/..."). */
static bool index_has_dir(git_index *index, const char *dir)
{
	size_t n = strlen(dir);
	size_t count = git_index_entrycount(index);
	for (size_t i = 0; i < count; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		if (strncmp(e->path, dir, n) == 0 && e->path[n] == '/')
			return true;
	}
	return false;
}

/* Whether a leading part of path is a file of the index ("a" for "a/b"). */
static bool index_has_file_above(ctx *c, git_index *index, const char *path)
{
	for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/'))
		if (git_index_get_bypath(index, arena_strndup(c->a, path, (size_t)(s - path)), 0))
			return true;
	return false;
}

/* The index is in memory (no repository owns it): the blob is written first. */
static int add_blob(git_repository *repo, git_index *index, const char *path, const void *data,
		    size_t len, unsigned mode)
{
	git_index_entry e;
	memset(&e, 0, sizeof(e));
	if (git_blob_create_from_buffer(&e.id, repo, data, len) < 0)
		return ERR_INTERNAL;
	e.path = path;
	e.mode = mode;
	e.file_size = (uint32_t)len;
	return git_index_add(index, &e);
}

static int user_error(const char **msg, const char *text)
{
	*msg = text;
	return ERR_REFUSED;
}

static int apply_action(ctx *c, git_repository *repo, git_index *index, const gitc_action *a,
			const char **msg)
{
	if (!gitc_valid_path(a->file_path))
		return user_error(msg, strstr(a->file_path ? a->file_path : "", "..")
					       ? "Path cannot include directory traversal"
					       : "Invalid path");
	const git_index_entry *cur = git_index_get_bypath(index, a->file_path, 0);
	switch (a->kind) {
	case GITC_CREATE:
		if (cur)
			return user_error(msg, "A file with this name already exists");
		if (index_has_dir(index, a->file_path))
			return user_error(msg, "A directory with this name already exists");
		if (index_has_file_above(c, index, a->file_path))
			return user_error(msg, "A file with this name already exists");
		return add_blob(repo, index, a->file_path, a->content ? a->content : "",
				a->content_len, GIT_FILEMODE_BLOB) < 0
			       ? user_error(msg, "Invalid path")
			       : 0;
	case GITC_UPDATE:
		if (!cur)
			return user_error(msg, "A file with this name doesn't exist");
		return add_blob(repo, index, a->file_path, a->content ? a->content : "",
				a->content_len, cur->mode) < 0
			       ? ERR_INTERNAL
			       : 0;
	case GITC_DELETE:
		if (!cur)
			return user_error(msg, "A file with this name doesn't exist");
		return git_index_remove(index, a->file_path, 0) < 0 ? ERR_INTERNAL : 0;
	case GITC_MOVE: {
		const char *from = a->previous_path ? a->previous_path : a->file_path;
		if (!gitc_valid_path(from))
			return user_error(msg, "Invalid path");
		const git_index_entry *old = git_index_get_bypath(index, from, 0);
		if (!old)
			return user_error(msg, "A file with this name doesn't exist");
		if (strcmp(from, a->file_path) != 0 && (cur || index_has_dir(index, a->file_path)))
			return user_error(msg, "A file with this name already exists");
		git_index_entry e;
		memset(&e, 0, sizeof(e));
		e.path = a->file_path;
		e.file_size = old->file_size;
		git_oid id = old->id;
		unsigned mode = old->mode;
		if (git_index_remove(index, from, 0) < 0)
			return ERR_INTERNAL;
		if (index_has_file_above(c, index, a->file_path))
			return user_error(msg, "A file with this name already exists");
		if (a->content)
			return add_blob(repo, index, a->file_path, a->content, a->content_len,
					mode) < 0
				       ? user_error(msg, "Invalid path")
				       : 0;
		e.id = id;
		e.mode = mode;
		return git_index_add(index, &e) < 0 ? user_error(msg, "Invalid path") : 0;
	}
	}
	return ERR_INTERNAL;
}

/* Moves refs/heads/<branch> to new_id: from *expected when not NULL (compare-and-swap),
 * else only when it does not exist yet. 0, ERR_MOVED or ERR_INTERNAL. */
static int move_branch(ctx *c, git_repository *repo, const char *branch, const git_oid *new_id,
		       const git_oid *expected, const char *log_message)
{
	const char *name = arena_printf(c->a, "refs/heads/%s", branch);
	git_reference *ref = NULL;
	int rc = expected ? git_reference_create_matching(&ref, repo, name, new_id, 1, expected,
							  log_message)
			  : git_reference_create(&ref, repo, name, new_id, 0, log_message);
	git_reference_free(ref);
	if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS || rc == GIT_ELOCKED)
		return ERR_MOVED;
	if (rc < 0) {
		log_git("update branch");
		return ERR_INTERNAL;
	}
	/* a first branch of an empty repository becomes HEAD's when HEAD names none */
	if (git_repository_head_unborn(repo) == 1)
		(void)git_repository_set_head(repo, name);
	return 0;
}

static int signature(ctx *c, const char *name, const char *email, git_signature **out)
{
	if (git_signature_now(out, name && *name ? name : "unknown",
			      email && *email ? email : "unknown") < 0)
		return ERR_INTERNAL;
	own_signature(c, *out);
	return 0;
}

int gitc_commit_create(ctx *c, git_repository *repo, const gitc_commit_req *req, git_commit **out,
		       const char **msg)
{
	const char *start = req->start_branch ? req->start_branch : req->branch;
	bool same = strcmp(start, req->branch) == 0;
	/* GitLab 10's words: a start branch that cannot be one is a branch that is not there,
	 * and a branch the commit would create is checked as a new branch */
	if (!valid_ref_name(start) && (!same || !gitc_is_empty(repo)))
		return user_error(msg,
				  "You can only create or edit files when you are on a branch");
	if (!valid_ref_name(req->branch))
		return user_error(msg, arena_printf(c->a,
						    "Something went wrong when we tried to create "
						    "'%s' for you: Branch name is invalid",
						    req->branch));
	git_oid base_id;
	bool have_base = gitc_branch_exists(repo, start, &base_id);
	if (!gitc_is_empty(repo)) {
		if (!have_base)
			return user_error(
				msg, "You can only create or edit files when you are on a branch");
		if (!same && gitc_branch_exists(repo, req->branch, NULL))
			return user_error(msg,
					  arena_printf(c->a,
						       "A branch called '%s' already exists. "
						       "Switch to that branch in order to make "
						       "changes",
						       req->branch));
	} else if (!same && gitc_branch_exists(repo, req->branch, NULL)) {
		return ERR_MOVED;
	}
	git_commit *base = NULL;
	git_index *index = NULL;
	if (git_index_new(&index) < 0)
		return ERR_INTERNAL;
	own_index(c, index);
	if (have_base) {
		if (git_commit_lookup(&base, repo, &base_id) < 0)
			return ERR_INTERNAL;
		own_commit(c, base);
		git_tree *tree = NULL;
		if (git_commit_tree(&tree, base) < 0)
			return ERR_INTERNAL;
		own_tree(c, tree);
		if (git_index_read_tree(index, tree) < 0)
			return ERR_INTERNAL;
	}
	if (req->last_commit_id && base && req->nactions > 0) {
		git_oid last;
		int rc = gitc_last_commit_for_path(c, repo, base, req->actions[0].file_path, &last);
		if (rc == 0 && strcmp(oid_hex(c, &last), req->last_commit_id) != 0)
			return user_error(msg,
					  "You are attempting to update a file that has changed "
					  "since you started editing it.");
	}
	for (size_t i = 0; i < req->nactions; i++) {
		int rc = apply_action(c, repo, index, &req->actions[i], msg);
		if (rc != 0)
			return rc;
	}
	git_oid tree_id, commit_id;
	if (git_index_write_tree_to(&tree_id, index, repo) < 0) {
		log_git("write tree");
		return ERR_INTERNAL;
	}
	git_tree *tree = NULL;
	if (git_tree_lookup(&tree, repo, &tree_id) < 0)
		return ERR_INTERNAL;
	own_tree(c, tree);
	git_signature *author, *committer;
	if (signature(c, req->author_name ? req->author_name : req->committer_name,
		      req->author_email ? req->author_email : req->committer_email, &author) < 0 ||
	    signature(c, req->committer_name, req->committer_email, &committer) < 0)
		return user_error(msg, "Invalid author");
	const git_commit *parents[1] = {base};
	if (git_commit_create(&commit_id, repo, NULL, author, committer, NULL, req->message, tree,
			      base ? 1 : 0, parents) < 0) {
		log_git("create commit");
		return ERR_INTERNAL;
	}
	int rc = move_branch(c, repo, req->branch, &commit_id, same && base ? &base_id : NULL,
			     "commit (collabd API)");
	if (rc != 0)
		return rc;
	git_commit *made = NULL;
	if (git_commit_lookup(&made, repo, &commit_id) < 0)
		return ERR_INTERNAL;
	*out = own_commit(c, made);
	return 0;
}

int gitc_cherry_pick(ctx *c, git_repository *repo, git_commit *commit, const char *branch,
		     const char *committer_name, const char *committer_email, git_commit **out,
		     const char **msg)
{
	static const char sorry[] =
		"Sorry, we cannot cherry-pick this commit automatically. This commit may already "
		"have been cherry-picked, or a more recent commit may have updated some of its "
		"content.";
	git_oid base_id;
	if (!gitc_branch_exists(repo, branch, &base_id))
		return ERR_NOT_FOUND;
	git_commit *base = NULL;
	if (git_commit_lookup(&base, repo, &base_id) < 0)
		return ERR_INTERNAL;
	own_commit(c, base);
	git_index *index = NULL;
	unsigned mainline = git_commit_parentcount(commit) > 1 ? 1 : 0;
	if (git_cherrypick_commit(&index, repo, commit, base, mainline, NULL) < 0)
		return user_error(msg, sorry);
	own_index(c, index);
	if (git_index_has_conflicts(index))
		return user_error(msg, sorry);
	git_oid tree_id, commit_id;
	if (git_index_write_tree_to(&tree_id, index, repo) < 0)
		return ERR_INTERNAL;
	if (git_oid_equal(&tree_id, git_commit_tree_id(base)))
		return user_error(msg, sorry);
	git_tree *tree = NULL;
	if (git_tree_lookup(&tree, repo, &tree_id) < 0)
		return ERR_INTERNAL;
	own_tree(c, tree);
	git_signature *committer;
	if (signature(c, committer_name, committer_email, &committer) < 0)
		return ERR_INTERNAL;
	const char *message = git_commit_message(commit);
	size_t n = strlen(message);
	while (n && message[n - 1] == '\n')
		n--;
	const char *full = arena_printf(c->a, "%.*s\n\n(cherry picked from commit %s)", (int)n,
					message, oid_hex(c, git_commit_id(commit)));
	const git_commit *parents[1] = {base};
	if (git_commit_create(&commit_id, repo, NULL, git_commit_author(commit), committer, NULL,
			      full, tree, 1, parents) < 0)
		return ERR_INTERNAL;
	int rc = move_branch(c, repo, branch, &commit_id, &base_id, "cherry-pick (collabd API)");
	if (rc != 0)
		return rc;
	git_commit *made = NULL;
	if (git_commit_lookup(&made, repo, &commit_id) < 0)
		return ERR_INTERNAL;
	*out = own_commit(c, made);
	return 0;
}

/* ---- base64 ---- */

/* 1 + the value of each base64 character; B64_SKIP for the whitespace a client may wrap
 * its text with, B64_PAD for '=', 0 for anything else. */
enum { B64_BAD = 0, B64_SKIP = 65, B64_PAD };
static const unsigned char b64_value[256] = {
	['A'] = 1,
	2,
	3,
	4,
	5,
	6,
	7,
	8,
	9,
	10,
	11,
	12,
	13,
	14,
	15,
	16,
	17,
	18,
	19,
	20,
	21,
	22,
	23,
	24,
	25,
	26,
	['a'] = 27,
	28,
	29,
	30,
	31,
	32,
	33,
	34,
	35,
	36,
	37,
	38,
	39,
	40,
	41,
	42,
	43,
	44,
	45,
	46,
	47,
	48,
	49,
	50,
	51,
	52,
	['0'] = 53,
	54,
	55,
	56,
	57,
	58,
	59,
	60,
	61,
	62,
	['+'] = 63,
	['/'] = 64,
	['='] = B64_PAD,
	['\n'] = B64_SKIP,
	['\r'] = B64_SKIP,
	[' '] = B64_SKIP,
	['\t'] = B64_SKIP,
};

char *gitc_unbase64(ctx *c, const char *s, size_t *n)
{
	size_t len = strlen(s);
	/* one table look-up a character, into memory not zeroed first: a file's content is
	 * up to max_body */
	char *out = arena_alloc_uninit(c->a, len / 4 * 3 + 4), *o = out;
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	unsigned v = 0;
	int bits = 0, pad = 0;
	for (; p < end; p++) {
		unsigned char d = b64_value[*p];
		if (d > B64_BAD && d < B64_SKIP) {
			if (pad)
				return NULL;
			v = (v << 6) | (unsigned)(d - 1);
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				*o++ = (char)((v >> bits) & 0xFF);
			}
		} else if (d == B64_PAD) {
			pad++;
		} else if (d == B64_BAD) {
			return NULL;
		}
	}
	if (pad > 2)
		return NULL;
	*o = '\0';
	*n = (size_t)(o - out);
	return out;
}
