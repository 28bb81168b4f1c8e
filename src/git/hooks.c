/* What a push records (git/hooks.h). */
#include "git/hooks.h"

#include <git2.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "auth/scope.h"
#include "core/crypto.h"
#include "core/errors.h"
#include "db/queue.h"
#include "db/repos.h"
#include "db/settings.h"
#include "db/webhooks.h"
#include "git/repo.h"

/* push_data of GitLab 10's push events for update u of repo. */
static json_object *push_data(git_repository *repo, const hooks_update *u)
{
	bool created = strcmp(u->old, HOOKS_ZERO) == 0, removed = strcmp(u->new, HOOKS_ZERO) == 0;
	bool branch = strncmp(u->ref, "refs/heads/", 11) == 0;
	long long count = 0;
	const char *title = NULL;
	git_commit *commit = NULL;
	git_oid n;
	if (!removed && git_oid_fromstr(&n, u->new) == 0) {
		git_revwalk *walk = NULL;
		if (git_revwalk_new(&walk, repo) == 0 && git_revwalk_push(walk, &n) == 0) {
			git_oid o;
			if (!created && git_oid_fromstr(&o, u->old) == 0) {
				git_revwalk_hide(walk, &o);
			} else if (branch) {
				/* a new branch: its commits that no other branch has */
				git_reference_iterator *it = NULL;
				git_reference *ref;
				if (git_reference_iterator_glob_new(&it, repo, "refs/heads/*") == 0)
					while (git_reference_next(&ref, it) == 0) {
						if (strcmp(git_reference_name(ref), u->ref) != 0 &&
						    git_reference_target(ref))
							git_revwalk_hide(walk,
									 git_reference_target(ref));
						git_reference_free(ref);
					}
				git_reference_iterator_free(it);
			}
			git_oid id;
			while (git_revwalk_next(&id, walk) == 0)
				count++;
		}
		git_revwalk_free(walk);
		if (git_commit_lookup(&commit, repo, &n) == 0)
			title = git_commit_summary(commit);
	}
	const char *name = u->ref + (branch ? 11 : strncmp(u->ref, "refs/tags/", 10) == 0 ? 10 : 0);
	json_object *d = json_object_new_object();
	json_object_object_add(d, "commit_count", json_object_new_int64(count));
	json_object_object_add(d, "action",
			       json_object_new_string(created   ? "created"
						      : removed ? "removed"
								: "pushed"));
	json_object_object_add(d, "ref_type", json_object_new_string(branch ? "branch" : "tag"));
	json_object_object_add(d, "commit_from", created ? NULL : json_object_new_string(u->old));
	json_object_object_add(d, "commit_to", removed ? NULL : json_object_new_string(u->new));
	json_object_object_add(d, "ref", json_object_new_string(name));
	json_object_object_add(d, "commit_title", title ? json_object_new_string(title) : NULL);
	git_commit_free(commit);
	return d;
}

/* The branch the first push makes the default: the one HEAD names if it was pushed,
 * else master, else the first branch pushed. NULL when the push created no branch. */
static const char *first_default(ctx *c, git_repository *repo, const hooks_update *updates)
{
	const char *head = NULL, *master = NULL, *first = NULL;
	git_reference *h = NULL;
	if (git_reference_lookup(&h, repo, "HEAD") == 0 &&
	    git_reference_type(h) == GIT_REFERENCE_SYMBOLIC)
		head = arena_strdup(c->a, git_reference_symbolic_target(h));
	git_reference_free(h);
	for (const hooks_update *u = updates; u; u = u->next) {
		if (strncmp(u->ref, "refs/heads/", 11) != 0 || strcmp(u->new, HOOKS_ZERO) == 0)
			continue;
		if (head && strcmp(u->ref, head) == 0)
			return u->ref + 11;
		if (strcmp(u->ref, "refs/heads/master") == 0)
			master = u->ref + 11;
		if (!first)
			first = u->ref + 11;
	}
	return master ? master : first;
}

/* Whether the push of updates made every branch the repository has now (it had none
 * before), and branch among them. */
static bool first_branches(git_repository *repo, const hooks_update *updates, const char *branch)
{
	bool found = false, all = true;
	for (const hooks_update *u = updates; u; u = u->next)
		if (!strncmp(u->ref, "refs/heads/", 11) && !strcmp(u->ref + 11, branch) &&
		    !strcmp(u->old, HOOKS_ZERO) && strcmp(u->new, HOOKS_ZERO))
			found = true;
	git_branch_iterator *it = NULL;
	if (!found || git_branch_iterator_new(&it, repo, GIT_BRANCH_LOCAL) < 0)
		return false;
	git_reference *ref;
	git_branch_t type;
	while (all && git_branch_next(&ref, &type, it) == 0) {
		bool made = false;
		for (const hooks_update *u = updates; u && !made; u = u->next)
			made = !strcmp(u->ref, git_reference_name(ref)) &&
			       !strcmp(u->old, HOOKS_ZERO);
		all = made;
		git_reference_free(ref);
	}
	git_branch_iterator_free(it);
	return all;
}

/* GitLab 10.8's ProtectDefaultBranch: the default branch that the first push into an
 * empty repository makes is protected as the application settings'
 * default_branch_protection says (0 not, 1 developers push, 2 masters push; masters
 * merge). */
static int protect_default_branch(ctx *c, git_repository *repo, const project_scope *p,
				  const hooks_update *updates, const char *branch)
{
	if (!branch || !first_branches(repo, updates, branch))
		return 0;
	int protection = settings_default_branch_protection(c);
	if (protection == 0)
		return 0;
	return db_repos_protect_branch(c, p->id, branch, protection == 1 ? 30 : 40, 40);
}

int hooks_record(ctx *c, git_repository *repo, const project_scope *p, const hooks_update *updates)
{
	const char *uid = arena_printf(c->a, "%lld", c->user->id);
	int rc = 0;
	const char *default_branch = p->default_branch;
	/* the first push of a repository without a default branch names it */
	if (!p->default_branch) {
		const char *branch = first_default(c, repo, updates);
		/* a name HEAD may not take (ERR_NOT_FOUND) is the default branch all the same */
		int e = branch ? repo_set_head(c, p->id, branch, false) : 0;
		if (e < 0 && e != ERR_NOT_FOUND)
			return ERR_INTERNAL;
		if (branch && (rc = db_repos_set_default_branch(c, p->id, branch)) < 0)
			return rc;
		default_branch = branch;
	}
	if ((rc = protect_default_branch(c, repo, p, updates, default_branch)) < 0)
		return rc;
	/* the push's repository_update system event (10.8's PostReceive: one for all its
	 * refs), built by its first job */
	json_object *update = NULL;
	char update_key[TOKEN_LEN + 1];
	bool any_ref = false;
	for (const hooks_update *u = updates; u; u = u->next) {
		if (strncmp(u->ref, "refs/heads/", 11) != 0 &&
		    strncmp(u->ref, "refs/tags/", 10) != 0)
			continue;
		if (!update) {
			if (crypto_token(update_key) < 0)
				return ERR_INTERNAL;
			update = json_object_new_object();
			json_object_object_add(update, "key", json_object_new_string(update_key));
			json_object_object_add(update, "changes", json_object_new_array());
			any_ref = true;
		}
		json_object *ch = json_object_new_object();
		json_object_object_add(ch, "before", json_object_new_string(u->old));
		json_object_object_add(ch, "after", json_object_new_string(u->new));
		json_object_object_add(ch, "ref", json_object_new_string(u->ref));
		json_object *changes;
		json_object_object_get_ex(update, "changes", &changes);
		json_object_array_add(changes, ch);
	}
	for (const hooks_update *u = updates; u && rc == 0; u = u->next) {
		bool branch = strncmp(u->ref, "refs/heads/", 11) == 0;
		if (!branch && strncmp(u->ref, "refs/tags/", 10) != 0)
			continue;
		json_object *data = json_object_new_object();
		json_object_object_add(data, "push_data", push_data(repo, u));
		const char *action = strcmp(u->old, HOOKS_ZERO) == 0   ? "pushed new"
				     : strcmp(u->new, HOOKS_ZERO) == 0 ? "deleted"
								       : "pushed to";
		rc = db_repos_push_event(c, p->id, uid, action,
					 arena_strdup(c->a, json_object_to_json_string_ext(
								    data, JSON_C_TO_STRING_PLAIN)));
		json_object_put(data);
		if (rc < 0)
			break;
		json_object *job = json_object_new_object();
		json_object_object_add(job, "project_id", json_object_new_int64(atoll(p->id)));
		json_object_object_add(job, "ref", json_object_new_string(u->ref));
		json_object_object_add(job, "before", json_object_new_string(u->old));
		json_object_object_add(job, "after", json_object_new_string(u->new));
		json_object_object_add(job, "user_id", json_object_new_int64(c->user->id));
		/* the webhooks' deliveries, queued here in push order; the job builds their
		 * payload (its git work stays off the push's path) */
		char key[TOKEN_LEN + 1];
		if (crypto_token(key) < 0 ||
		    (rc = webhooks_queue_push(c, p->id, branch ? WEBHOOK_PUSH : WEBHOOK_TAG_PUSH,
					      key)) < 0) {
			json_object_put(job);
			json_object_put(update);
			return rc < 0 ? rc : ERR_INTERNAL;
		}
		json_object_object_add(job, "hooks_key", json_object_new_string(key));
		if (update) {
			json_object_object_add(job, "repository_update", update);
			update = NULL;
		}
		rc = queue_enqueue(c, JOB_PUSH,
				   arena_strdup(c->a, json_object_to_json_string_ext(
							      job, JSON_C_TO_STRING_PLAIN)));
		json_object_put(job);
	}
	/* attached to the first job unless the loop stopped before (then freed here) */
	json_object_put(update);
	if (rc == 0 && any_ref)
		rc = webhooks_queue_repository_update(c, update_key);
	if (rc == 0)
		rc = db_repos_touch(c, p->id);
	/* after the project's row (hooks_touch): every writer locks the two in this order */
	if (rc == 0)
		rc = hooks_refs_changed(c, p->id);
	return rc;
}

int hooks_touch(ctx *c, const char *project_id)
{
	return db_repos_touch(c, project_id);
}

int hooks_refs_changed(ctx *c, const char *project_id)
{
	return db_repos_refs_changed(c, project_id);
}

int hooks_pushed(ctx *c, git_repository *repo, const project_scope *p, const char *ref,
		 const git_oid *old, const git_oid *new)
{
	hooks_update u = {.ref = ref, .next = NULL};
	if (old)
		git_oid_tostr(u.old, sizeof(u.old), old);
	else
		memcpy(u.old, HOOKS_ZERO, sizeof(u.old));
	if (new)
		git_oid_tostr(u.new, sizeof(u.new), new);
	else
		memcpy(u.new, HOOKS_ZERO, sizeof(u.new));
	return hooks_record(c, repo, p, &u);
}
