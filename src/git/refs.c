#include "git/refs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/errors.h"
#include "core/log.h"
#include "db/repos.h"
#include "git/graph.h"
#include "git/hooks.h"
#include "git/repo.h"

static void log_git(const char *what, const char *name)
{
	const git_error *e = git_error_last();
	log_error("%s %s: %s", what, name, e ? e->message : "unknown error");
}

int refs_open(ctx *c, const char *project_id, git_repository **out)
{
	int rc = repo_open(c, project_id, out);
	if (rc == ERR_NOT_FOUND) {
		*out = NULL;
		return 0; /* never created: no refs */
	}
	return rc < 0 ? ERR_INTERNAL : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the refs under prefix ("refs/heads/", "refs/tags/"), sorted. */
static int ref_names(ctx *c, git_repository *repo, const char *prefix, const char ***out)
{
	*out = NULL;
	if (!repo)
		return 0;
	git_reference_iterator *it = NULL;
	const char *glob = arena_printf(c->a, "%s*", prefix);
	if (git_reference_iterator_glob_new(&it, repo, glob) < 0) {
		log_git("list", glob);
		return ERR_INTERNAL;
	}
	size_t n = 0, cap = 16, plen = strlen(prefix);
	const char **names = arena_alloc(c->a, cap * sizeof(*names));
	const char *name;
	int e;
	while ((e = git_reference_next_name(&name, it)) == 0) {
		if (n == cap) {
			const char **bigger = arena_alloc(c->a, 2 * cap * sizeof(*names));
			memcpy(bigger, names, n * sizeof(*names));
			names = bigger;
			cap *= 2;
		}
		names[n++] = arena_strdup(c->a, name + plen);
	}
	git_reference_iterator_free(it);
	if (e != GIT_ITEROVER) {
		log_git("list", glob);
		return ERR_INTERNAL;
	}
	qsort(names, n, sizeof(*names), by_name);
	*out = names;
	return (int)n;
}

int refs_branch_names(ctx *c, git_repository *repo, const char ***out)
{
	return ref_names(c, repo, "refs/heads/", out);
}

int refs_tag_names(ctx *c, git_repository *repo, const char ***out)
{
	return ref_names(c, repo, "refs/tags/", out);
}

int refs_page(ctx *c, git_repository *repo, bool tags, const char *search, long long offset,
	      long long limit, const char ***out, int *total)
{
	const char **names;
	int n = ref_names(c, repo, tags ? "refs/tags/" : "refs/heads/", &names);
	if (n < 0)
		return ERR_INTERNAL;
	if (search) {
		int kept = 0;
		for (int i = 0; i < n; i++)
			if (strcasestr(names[i], search))
				names[kept++] = names[i];
		n = kept;
	}
	long long from = offset < n ? offset : n;
	int count = (int)(n - from < limit ? n - from : limit);
	const char **page = arena_alloc(c->a, (size_t)(count + 1) * sizeof(*page));
	for (int i = 0; i < count; i++)
		page[i] = tags ? names[n - 1 - from - i] : names[from + i];
	*out = page;
	*total = n;
	return count;
}

/* Ref full of repo (NULL: none) into *out, the caller's to free: 0, ERR_NOT_FOUND (none,
 * or not a ref name), or ERR_INTERNAL (logged). */
static int lookup_ref(git_repository *repo, const char *full, git_reference **out)
{
	*out = NULL;
	if (!repo)
		return ERR_NOT_FOUND;
	int e = git_reference_lookup(out, repo, full);
	if (e == GIT_ENOTFOUND || e == GIT_EINVALIDSPEC)
		return ERR_NOT_FOUND;
	if (e < 0) {
		log_git("lookup", full);
		return ERR_INTERNAL;
	}
	return 0;
}

/* The commit a ref names (peeled): 0, ERR_NOT_FOUND, or ERR_INTERNAL. */
static int lookup_commit(git_repository *repo, const char *full, git_commit **out)
{
	*out = NULL;
	git_reference *ref;
	int e = lookup_ref(repo, full, &ref);
	if (e < 0)
		return e;
	git_object *obj = NULL;
	e = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT);
	git_reference_free(ref);
	if (e < 0)
		return ERR_NOT_FOUND; /* a ref to something that is no commit */
	*out = (git_commit *)obj;
	return 0;
}

int refs_branch_commit(git_repository *repo, const char *name, git_commit **out)
{
	char full[1024];
	if (snprintf(full, sizeof(full), "refs/heads/%s", name) >= (int)sizeof(full))
		return ERR_NOT_FOUND;
	return lookup_commit(repo, full, out);
}

int refs_tag_lookup(ctx *c, git_repository *repo, const char *name, git_commit **commit,
		    const char **message)
{
	*commit = NULL;
	*message = NULL;
	git_reference *ref;
	int e = lookup_ref(repo, arena_printf(c->a, "refs/tags/%s", name), &ref);
	if (e < 0)
		return e;
	git_tag *tag = NULL;
	const git_oid *target = git_reference_target(ref);
	if (target && git_tag_lookup(&tag, repo, target) == 0) {
		const char *m = git_tag_message(tag);
		size_t n = m ? strlen(m) : 0;
		if (n && m[n - 1] == '\n') /* chomp, as GitLab */
			n--;
		if (n && m[n - 1] == '\r')
			n--;
		*message = arena_strndup(c->a, m ? m : "", n);
		git_tag_free(tag);
	}
	git_object *obj = NULL;
	if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) == 0)
		*commit = (git_commit *)obj;
	git_reference_free(ref);
	return 0;
}

int refs_resolve_commit(git_repository *repo, const char *ref, git_commit **out)
{
	*out = NULL;
	if (!repo || !ref || !*ref)
		return ERR_NOT_FOUND;
	git_object *obj = NULL, *peeled = NULL;
	if (git_revparse_single(&obj, repo, ref) < 0)
		return ERR_NOT_FOUND; /* unknown, ambiguous or malformed: the caller's input */
	int e = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (e < 0)
		return ERR_NOT_FOUND;
	*out = (git_commit *)peeled;
	return 0;
}

int refs_head(ctx *c, git_repository *repo, const char **name, git_oid *oid)
{
	*name = NULL;
	if (!repo)
		return ERR_NOT_FOUND;
	git_reference *head = NULL;
	if (git_reference_lookup(&head, repo, "HEAD") < 0)
		return ERR_NOT_FOUND;
	int rc = ERR_NOT_FOUND;
	if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		const char *t = git_reference_symbolic_target(head);
		if (strncmp(t, "refs/heads/", 11) == 0) {
			*name = arena_strdup(c->a, t + 11);
			git_commit *commit = NULL;
			if (lookup_commit(repo, t, &commit) == 0) {
				git_oid_cpy(oid, git_commit_id(commit));
				git_commit_free(commit);
				rc = 0;
			}
		}
	}
	git_reference_free(head);
	return rc;
}

bool refs_merged(git_repository *repo, const git_oid *branch, const git_oid *head)
{
	if (git_oid_equal(branch, head))
		return false;
	/* the answer follows from the two ids alone: no repository in the key */
	char key[2 * GIT_OID_HEXSZ + 16], b[GIT_OID_HEXSZ + 1], h[GIT_OID_HEXSZ + 1];
	repo_memo known;
	git_oid_tostr(b, sizeof(b), branch);
	git_oid_tostr(h, sizeof(h), head);
	snprintf(key, sizeof(key), "merged %s %s", b, h);
	if (repo_memo_get(key, &known))
		return known.n == 1;
	int e = graph_descendant_of(repo, head, branch);
	if (e >= 0)
		repo_memo_put(key, e == 1, NULL);
	return e == 1;
}

int refs_containing(ctx *c, git_repository *repo, bool tags, const git_oid *oid, const char ***out)
{
	const char **names;
	const char *prefix = tags ? "refs/tags/" : "refs/heads/";
	int n = ref_names(c, repo, prefix, &names), kept = 0;
	for (int i = 0; i < n; i++) {
		git_object *target = NULL;
		const char *full = arena_printf(c->a, "%s%s", prefix, names[i]);
		if (git_revparse_single(&target, repo, arena_printf(c->a, "%s^{commit}", full)) < 0)
			continue; /* a tag of a tree or a blob contains no commit */
		const git_oid *at = git_object_id(target);
		int e = git_oid_equal(at, oid) ? 1 : graph_descendant_of(repo, at, oid);
		git_object_free(target);
		if (e < 0) {
			log_git("contains", full);
			return ERR_INTERNAL;
		}
		if (e == 1)
			names[kept++] = names[i];
	}
	*out = names;
	return n < 0 ? n : kept;
}

/* ---- writes, and their undo ---- */

/* What a rollback undoes: ref set to oid (created: remove it while it names oid) or
 * removed (deleted: create it again at oid when absent). */
struct ref_undo {
	const char *repo_dir;
	const char *ref;
	git_oid oid;
	bool created;
	bool moved; /* moved from oid to to: move it back while it names to */
	git_oid to;
};

static void ref_undo(void *arg)
{
	struct ref_undo *u = arg;
	git_repository *repo = NULL;
	git_reference *ref = NULL;
	if (git_repository_open_bare(&repo, u->repo_dir) < 0) {
		log_git("undo: open", u->repo_dir);
		return;
	}
	if (u->moved) {
		int e = git_reference_create_matching(&ref, repo, u->ref, &u->oid, 1, &u->to,
						      "collabd: rollback");
		if (e < 0 && e != GIT_EMODIFIED && e != GIT_ENOTFOUND) /* moved since: theirs */
			log_git("undo: move", u->ref);
	} else if (u->created) {
		if (git_reference_lookup(&ref, repo, u->ref) == 0 && git_reference_target(ref) &&
		    git_oid_equal(git_reference_target(ref), &u->oid) &&
		    git_reference_delete(ref) < 0)
			log_git("undo: delete", u->ref);
	} else {
		int e = git_reference_create(&ref, repo, u->ref, &u->oid, 0, "collabd: rollback");
		if (e < 0 && e != GIT_EEXISTS) /* another writer took the name since: theirs */
			log_git("undo: create", u->ref);
	}
	git_reference_free(ref);
	git_repository_free(repo);
}

static void on_rollback(ctx *c, git_repository *repo, const char *ref, const git_oid *oid,
			bool created)
{
	if (!db_in_transaction(c))
		return;
	struct ref_undo *u = arena_alloc(c->a, sizeof(*u));
	*u = (struct ref_undo){arena_strdup(c->a, git_repository_path(repo)),
			       arena_strdup(c->a, ref),
			       *oid,
			       created,
			       false,
			       {{0}}};
	db_on_rollback(c, ref_undo, u);
}

/* The result of libgit2's failure e to create ref: ERR_EXISTS when the ref is there or
 * another writer holds its lock, ERR_BAD_NAME when it collides with a ref path (a/b
 * beside a), ERR_INTERNAL for anything else (logged). */
static int create_failed(int e, const char *ref)
{
	if (e == GIT_EEXISTS || e == GIT_ELOCKED)
		return ERR_EXISTS;
	if (e == GIT_EDIRECTORY || e == GIT_EINVALIDSPEC ||
	    (git_error_last() && git_error_last()->klass == GIT_ERROR_REFERENCE))
		return ERR_BAD_NAME;
	log_git("create", ref);
	return ERR_INTERNAL;
}

/* Whether full would collide with an existing ref on disk: one named by a leading part of
 * its path (refs/heads/a for refs/heads/a/b) or one below it (refs/heads/a/b for
 * refs/heads/a). */
static bool path_taken(ctx *c, git_repository *repo, const char *full)
{
	char *p = arena_strdup(c->a, full);
	for (char *slash = strchr(p + 5, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		git_reference *ref = NULL;
		int e = git_reference_lookup(&ref, repo, p);
		git_reference_free(ref);
		*slash = '/';
		if (e == 0)
			return true;
	}
	git_reference_iterator *it = NULL;
	const char *name;
	bool below = false;
	if (git_reference_iterator_glob_new(&it, repo, arena_printf(c->a, "%s/*", full)) == 0) {
		below = git_reference_next_name(&name, it) == 0;
		git_reference_iterator_free(it);
	}
	return below;
}

int refs_branch_create(ctx *c, git_repository *repo, const char *name, const git_oid *target)
{
	const char *full = arena_printf(c->a, "refs/heads/%s", name);
	git_reference *ref = NULL;
	if (path_taken(c, repo, full))
		return ERR_BAD_NAME;
	int e = git_reference_create(&ref, repo, full, target, 0, "collabd: branch created");
	if (e < 0)
		return create_failed(e, full);
	git_reference_free(ref);
	on_rollback(c, repo, full, target, true);
	return 0;
}

int refs_branch_update(ctx *c, git_repository *repo, const char *name, const git_oid *target,
		       const git_oid *expected)
{
	const char *full = arena_printf(c->a, "refs/heads/%s", name);
	git_reference *ref = NULL;
	int e = git_reference_create_matching(&ref, repo, full, target, 1, expected,
					      "collabd: branch updated");
	git_reference_free(ref);
	if (e == GIT_EMODIFIED || e == GIT_ELOCKED || e == GIT_ENOTFOUND || e == GIT_EEXISTS)
		return ERR_MOVED;
	if (e < 0) {
		log_git("update", full);
		return ERR_INTERNAL;
	}
	if (db_in_transaction(c)) {
		struct ref_undo *u = arena_alloc(c->a, sizeof(*u));
		*u = (struct ref_undo){arena_strdup(c->a, git_repository_path(repo)),
				       full,
				       *expected,
				       false,
				       true,
				       *target};
		db_on_rollback(c, ref_undo, u);
	}
	return 0;
}

/* Deletes full while it names expected (any target when expected is NULL), remembering
 * what it named for a rollback. */
static int delete_ref(ctx *c, git_repository *repo, const char *full, const git_oid *expected)
{
	git_reference *ref;
	int e = lookup_ref(repo, full, &ref);
	if (e < 0)
		return e;
	int rc = ERR_INTERNAL;
	const git_oid *now = git_reference_target(ref);
	if (!now || (expected && !git_oid_equal(now, expected))) {
		rc = ERR_MOVED;
		goto cleanup;
	}
	git_oid old;
	git_oid_cpy(&old, now);
	/* libgit2 deletes only while the ref still names what was read (its lock and the
	 * old value): a concurrent change makes this fail */
	e = git_reference_delete(ref);
	if (e == GIT_EMODIFIED || e == GIT_ELOCKED || e == GIT_ENOTFOUND) {
		rc = e == GIT_ENOTFOUND ? ERR_NOT_FOUND : ERR_MOVED;
		goto cleanup;
	}
	if (e < 0) {
		log_git("delete", full);
		goto cleanup;
	}
	on_rollback(c, repo, full, &old, false);
	rc = 0;
cleanup:
	git_reference_free(ref);
	return rc;
}

int refs_branch_delete(ctx *c, git_repository *repo, const char *name, const git_oid *expected)
{
	return delete_ref(c, repo, arena_printf(c->a, "refs/heads/%s", name), expected);
}

int refs_tag_create(ctx *c, git_repository *repo, const char *name, const git_commit *target,
		    const char *message, const char *tagger_name, const char *tagger_email)
{
	const char *full = arena_printf(c->a, "refs/tags/%s", name);
	git_oid oid;
	int e;
	if (path_taken(c, repo, full))
		return ERR_BAD_NAME;
	if (message) {
		git_signature *sig = NULL;
		if (git_signature_now(&sig, tagger_name, tagger_email) < 0 &&
		    git_signature_now(&sig, "collabd", "collabd@localhost") < 0) {
			log_git("signature of", tagger_email);
			return ERR_INTERNAL;
		}
		e = git_tag_create(&oid, repo, name, (const git_object *)target, sig, message, 0);
		git_signature_free(sig);
	} else {
		e = git_tag_create_lightweight(&oid, repo, name, (const git_object *)target, 0);
	}
	if (e < 0)
		return create_failed(e, full);
	on_rollback(c, repo, full, &oid, true);
	return 0;
}

int refs_tag_delete(ctx *c, git_repository *repo, const char *name)
{
	return delete_ref(c, repo, arena_printf(c->a, "refs/tags/%s", name), NULL);
}

const char *refs_text_array(ctx *c, const char *const *names, int n)
{
	size_t len = 3;
	for (int i = 0; i < n; i++)
		len += 2 * strlen(names[i]) + 3;
	char *s = arena_alloc(c->a, len), *p = s;
	*p++ = '{';
	for (int i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		*p++ = '"';
		for (const char *q = names[i]; *q; q++) {
			if (*q == '"' || *q == '\\')
				*p++ = '\\';
			*p++ = *q;
		}
		*p++ = '"';
	}
	*p++ = '}';
	*p = '\0';
	return s;
}

int refs_delete_merged(ctx *c, const char *project_id, const char **why)
{
	git_repository *repo = NULL;
	/* not on a copy being moved to another storage: tried again later */
	if (repo_writable(c, project_id) == ERR_FORBIDDEN) {
		*why = REPO_READ_ONLY_MESSAGE;
		return ERR_FORBIDDEN;
	}
	if (refs_open(c, project_id, &repo) < 0) {
		*why = "cannot open the repository";
		return ERR_INTERNAL;
	}
	int rc = ERR_INTERNAL;
	const char **names, *head_name;
	git_oid head;
	int n = refs_branch_names(c, repo, &names);
	if (n < 0) {
		*why = "cannot list the branches";
		goto cleanup;
	}
	if (n == 0 || refs_head(c, repo, &head_name, &head) != 0) {
		rc = 0; /* no default branch: nothing is merged into it */
		goto cleanup;
	}
	/* the merged branches, the commit each was found at */
	const char **merged = arena_alloc(c->a, (size_t)n * sizeof(*merged));
	git_oid *at = arena_alloc(c->a, (size_t)n * sizeof(*at));
	int m = 0;
	for (int i = 0; i < n; i++) {
		git_commit *commit = NULL;
		if (strcmp(names[i], head_name) == 0 ||
		    refs_branch_commit(repo, names[i], &commit) != 0)
			continue;
		if (refs_merged(repo, git_commit_id(commit), &head)) {
			merged[m] = names[i];
			git_oid_cpy(&at[m++], git_commit_id(commit));
		}
		git_commit_free(commit);
	}
	if (m == 0) {
		rc = 0;
		goto cleanup;
	}
	int err;
	PGresult *res = db_repos_branch_flags(c, project_id, refs_text_array(c, merged, m), &err);
	if (!res || PQntuples(res) != m) {
		*why = "cannot read the protected branches";
		goto cleanup;
	}
	int deleted = 0;
	for (int i = 0; i < m; i++) {
		if (db_bool(res, i, BF_PROTECTED))
			continue; /* protected */
		int e = refs_branch_delete(c, repo, merged[i], &at[i]);
		if (e < 0 && e != ERR_NOT_FOUND && e != ERR_MOVED) {
			*why = arena_printf(c->a, "cannot delete branch %s", merged[i]);
			goto cleanup;
		}
		deleted += e == 0;
	}
	if (deleted && hooks_refs_changed(c, project_id) < 0) {
		*why = "cannot record the change of the refs";
		goto cleanup;
	}
	rc = 0;
cleanup:
	return rc;
}
