/* What a push records, whoever moved the refs: the git hook program after a push
 * (src/hook.c, post-receive) or the API for a ref it moved (branches, tags, commits,
 * merges). In the caller's transaction: the project's default branch set by its first
 * push (and HEAD), a push event per ref (pushed to, pushed new, deleted, with
 * push_data), a `push` job per ref (db/queue.h: merge requests and CI follow it),
 * last_activity_at, and the change of the repository's refs for the response cache. */
#ifndef COLLABD_HOOKS_H
#define COLLABD_HOOKS_H

#include <git2.h>

#include "core/ctx.h"

struct project_scope;

/* The object id of "no object": an update from it makes a ref, one to it deletes one. */
#define HOOKS_ZERO "0000000000000000000000000000000000000000"

/* One ref update of a push, as git gives them ("old new ref"), in a list. */
typedef struct hooks_update {
	char old[GIT_OID_HEXSZ + 1], new[GIT_OID_HEXSZ + 1];
	const char *ref;
	struct hooks_update *next;
} hooks_update;

/* What the updates of project p's repo by c->user record (above), in c's open
 * transaction (refs outside refs/heads/ and refs/tags/ make no event and no job).
 * 0 or an error code. */
int hooks_record(ctx *c, git_repository *repo, const struct project_scope *p,
		 const hooks_update *updates);
/* What a push of ref (refs/heads/..., refs/tags/...) from old to new (NULL: none)
 * records, for a ref the API moved as c->user in the caller's transaction: as
 * hooks_record. 0 or an error code. */
int hooks_pushed(ctx *c, git_repository *repo, const struct project_scope *p, const char *ref,
		 const git_oid *old, const git_oid *new);
/* Only the project's last_activity_at (a wiki's push). 0 or an error code. */
int hooks_touch(ctx *c, const char *project_id);
/* Records, in c's open transaction, that the refs of project_id's repository changed
 * (a push, a branch or tag made or removed): what the response cache's repository
 * reads depend on (sql/0023). hooks_record calls it. 0 or an error code. */
int hooks_refs_changed(ctx *c, const char *project_id);

#endif
