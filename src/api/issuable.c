/* What issues and merge requests share (issuable.h): GitLab's Issuable concern and the
 * services around it (IssuableBaseService, SystemNoteService, the subscription
 * endpoints), written once with the kind (issuable_kind) as parameter. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "api/issuable.h"
#include "core/buf.h"
#include "entity/user.h"

enum { ISN_PROJECT, ISN_ID, ISN_AUTHOR, ISN_BODY, ISN_TYPE, ISN_NPARAMS };
enum { ISU_ID, ISU_USER, ISU_SUBSCRIBED, ISU_TYPE, ISU_NPARAMS };
enum { ISL_ADDED, ISL_REMOVED, ISL_NCOLS };
enum { IPA_ID, IPA_TYPE, IPA_LIMIT, IPA_OFFSET, IPA_NPARAMS };

const db_stmt issuable_stmts[] = {
	/* A system note by $3 on record $2 (of type $5) of project $1. */
	{"issuable_system_note",
	 "INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, note, system)"
	 " VALUES ($1, $5, $2, $3, $4, true)",
	 ISN_NPARAMS, 0},
	/* $1 record (of type $4), $2 user, $3 subscribed */
	{"issuable_subscribe",
	 "INSERT INTO subscriptions (user_id, subscribable_type, subscribable_id, subscribed)"
	 " VALUES ($2, $4, $1, $3) ON CONFLICT (subscribable_type, subscribable_id, user_id,"
	 " (coalesce(project_id, 0))) DO UPDATE SET subscribed = EXCLUDED.subscribed,"
	 " updated_at = now()",
	 ISU_NPARAMS, 0},
	/* The labels of record $1 (of type $3) become those of ids $2: the ids added and
	 * removed. */
	{"issuable_set_labels",
	 "WITH go AS (DELETE FROM label_links ll WHERE ll.target_type = $3"
	 "  AND ll.target_id = $1 AND ll.label_id <> ALL ($2::bigint[]) RETURNING ll.label_id),"
	 " ins AS (INSERT INTO label_links (label_id, target_type, target_id)"
	 "  SELECT DISTINCT x, $3, $1 FROM unnest($2::bigint[]) x"
	 "  ON CONFLICT DO NOTHING RETURNING label_id)"
	 " SELECT (SELECT array_agg(label_id ORDER BY label_id) FROM ins)::text,"
	 " (SELECT array_agg(label_id ORDER BY label_id) FROM go)::text",
	 3, ISL_NCOLS},
	/* Who takes part in record $1 (of type $2), by id: its author, its assignees and
	 * those who commented; the count of them, then a page ($3 limit, $4 offset). The
	 * branches of the other kind are cut at once by their constant condition. */
	{"issuable_participants",
	 "WITH ids AS (SELECT author_id AS id FROM issues WHERE $2 = 'Issue' AND id = $1"
	 " UNION SELECT user_id FROM issue_assignees WHERE $2 = 'Issue' AND issue_id = $1"
	 " UNION SELECT author_id FROM merge_requests WHERE $2 = 'MergeRequest' AND id = $1"
	 " UNION SELECT assignee_id FROM merge_requests WHERE $2 = 'MergeRequest' AND id = $1"
	 " UNION SELECT author_id FROM notes WHERE noteable_type = $2 AND noteable_id = $1"
	 "  AND NOT system),"
	 " f AS (SELECT u.id FROM ids JOIN users u ON u.id = ids.id)"
	 " SELECT (SELECT count(*) FROM f), pg.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " USER_BASIC_COLS " FROM f JOIN users u ON u.id = f.id ORDER BY u.id"
	 "  LIMIT $3 OFFSET $4) pg ON true",
	 IPA_NPARAMS, 1 + USER_BASIC_NCOLS},
	{NULL, NULL, 0, 0},
};

/* ---- reading the input ---- */

int issuable_read_bool(request *r, const char *name, int *out)
{
	bool b;
	int rc = param_bool(r, name, &b);
	*out = rc == 0 ? b : -1;
	return rc < 0 ? rc : 0;
}

int issuable_int_list(request *r, const char *name, const char ***out)
{
	int n = param_array(r, name, out);
	if (n < 0)
		return n;
	if (n == 0) {
		const char *one = param_str(r, name);
		if (!one || !param_find(r, name) || param_find(r, name)->array)
			return 0;
		const char **v = arena_alloc(r->ctx.a, 2 * sizeof(*v));
		v[0] = one;
		v[1] = NULL;
		*out = v;
		n = 1;
	}
	for (int i = 0; i < n; i++) {
		char *end;
		const char *s = (*out)[i];
		if (!s || !*s || isspace((unsigned char)*s) || (strtoll(s, &end, 10), *end))
			return fail_invalid(r, name);
	}
	return n;
}

const char *issuable_id_or_none(request *r, const char *id)
{
	long long n = id ? strtoll(id, NULL, 10) : 0;
	return n ? arena_printf(r->ctx.a, "%lld", n) : NULL;
}

void issuable_check_title(request *r, const char **title)
{
	if (!*title)
		return;
	if (!**title)
		fail_validation(r, "title", "can't be blank");
	else
		param_text(r, "title", 255, title);
}

/* A PostgreSQL array literal of the integers v[0, n), or NULL when n is 0. */
static const char *int_array_literal(request *r, const char **v, int n)
{
	if (n == 0)
		return NULL;
	buf b;
	buf_init(&b, r->ctx.a, 64);
	buf_puts(&b, "{");
	for (int i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, ",");
		buf_printf(&b, "%lld", strtoll(v[i], NULL, 10));
	}
	buf_puts(&b, "}");
	return buf_cstr(&b);
}

const char *issuable_label_titles(request *r, const char *list, int *count)
{
	buf b;
	buf_init(&b, r->ctx.a, 64);
	buf_puts(&b, "{");
	const char **seen = arena_alloc(r->ctx.a, sizeof(*seen) * (strlen(list) / 2 + 2));
	int n = 0;
	const char *s = list;
	while (*s) {
		const char *e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		const char *a = s, *z = e;
		while (a < z && isspace((unsigned char)*a))
			a++;
		while (z > a && isspace((unsigned char)z[-1]))
			z--;
		if (z > a) {
			char *t = arena_strndup(r->ctx.a, a, (size_t)(z - a));
			bool dup = false;
			for (int i = 0; i < n && !dup; i++)
				dup = strcmp(seen[i], t) == 0;
			if (!dup) {
				seen[n] = t;
				buf_puts(&b, n++ ? ",\"" : "\"");
				for (const char *c = t; *c; c++) {
					if (*c == '"' || *c == '\\')
						buf_puts(&b, "\\");
					buf_printf(&b, "%c", *c);
				}
				buf_puts(&b, "\"");
			}
		}
		s = *e ? e + 1 : e;
	}
	buf_puts(&b, "}");
	*count = n;
	return buf_cstr(&b);
}

const char *issuable_labels_param(request *r)
{
	const char **v;
	int n = param_array(r, "labels", &v);
	if (n <= 0)
		return param_str(r, "labels");
	buf b;
	buf_init(&b, r->ctx.a, 64);
	for (int i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, ",");
		buf_puts(&b, v[i] ? v[i] : "");
	}
	return buf_cstr(&b);
}

/* ---- the lists ---- */

int tracker_read_filters(request *r, const char *const *states, const char *const *scopes,
			 const char *default_scope, tracker_filters *f)
{
	static const char *const orders[] = {"created_at", "updated_at", NULL};
	static const char *const sorts[] = {"asc", "desc", NULL};
	*f = (tracker_filters){.scope = default_scope, .order_by = "created_at", .sort = "desc"};
	long long n;
	const char **iids;
	int rc;
	if ((rc = pagination_parse(r, &f->pg)) < 0 ||
	    (rc = param_oneof(r, "state", states, &f->state)) < 0 ||
	    (rc = param_oneof(r, "scope", scopes, &f->scope)) < 0 ||
	    (rc = param_oneof(r, "order_by", orders, &f->order_by)) < 0 ||
	    (rc = param_oneof(r, "sort", sorts, &f->sort)) < 0 ||
	    (rc = param_int(r, "author_id", &n)) < 0 ||
	    (rc = param_int(r, "assignee_id", &n)) < 0 ||
	    (rc = param_datetime(r, "created_after", &f->created_after)) < 0 ||
	    (rc = param_datetime(r, "created_before", &f->created_before)) < 0 ||
	    (rc = param_datetime(r, "updated_after", &f->updated_after)) < 0 ||
	    (rc = param_datetime(r, "updated_before", &f->updated_before)) < 0)
		return rc;
	if ((rc = issuable_int_list(r, "iids", &iids)) < 0)
		return rc;
	f->iids = int_array_literal(r, iids, rc);
	if (f->state && strcmp(f->state, "all") == 0)
		f->state = NULL;
	f->author = param_str(r, "author_id");
	f->assignee = param_str(r, "assignee_id");
	if (f->assignee && strtoll(f->assignee, NULL, 10) == 0) { /* 0: no assignee */
		f->assignee = NULL;
		f->no_assignee = true;
	}
	const char *labels = issuable_labels_param(r);
	if (labels && *labels) {
		if (strcmp(labels, "No Label") == 0 || strcmp(labels, "No+Label") == 0) {
			f->no_label = true;
		} else {
			int count;
			f->labels = issuable_label_titles(r, labels, &count);
			if (count == 0)
				f->labels = NULL;
		}
	}
	const char *m = param_str(r, "milestone");
	if (m && *m) {
		if (strcmp(m, "No Milestone") == 0 || strcmp(m, "No+Milestone") == 0)
			f->milestone_mode = "none";
		else if (strcmp(m, "Any Milestone") == 0 || strcmp(m, "Any+Milestone") == 0 ||
			 strcmp(m, "Any") == 0)
			f->milestone_mode = "any";
		else {
			f->milestone_mode = "title";
			f->milestone = m;
		}
	}
	const char *emoji = param_str(r, "my_reaction_emoji");
	if (emoji && *emoji) {
		if (strcasecmp(emoji, "None") == 0)
			f->no_emoji = true;
		else
			f->emoji = emoji;
	}
	const char *search = param_str(r, "search");
	f->search = search && *search ? search : NULL;
	return 0;
}

void tracker_filter_params(request *r, tracker_filters *f, const char *project_id,
			   const char *group_id, const char **v)
{
	access_me_params(&r->ctx, v);
	v[TF_PROJECT] = project_id;
	v[TF_GROUP] = group_id;
	v[TF_STATE] = f->state;
	v[TF_LABELS] = f->labels;
	v[TF_NO_LABEL] = f->no_label ? "true" : "false";
	v[TF_MILESTONE] = f->milestone;
	v[TF_MILESTONE_MODE] = f->milestone_mode;
	v[TF_SCOPE] = f->scope;
	v[TF_AUTHOR] = f->author;
	v[TF_ASSIGNEE] = f->assignee;
	v[TF_NO_ASSIGNEE] = f->no_assignee ? "true" : "false";
	v[TF_EMOJI] = f->emoji;
	v[TF_NO_EMOJI] = f->no_emoji ? "true" : "false";
	v[TF_IIDS] = f->iids;
	v[TF_SEARCH] = f->search;
	v[TF_CREATED_AFTER] = f->created_after;
	v[TF_CREATED_BEFORE] = f->created_before;
	v[TF_UPDATED_AFTER] = f->updated_after;
	v[TF_UPDATED_BEFORE] = f->updated_before;
	v[TF_BY_UPDATED] = strcmp(f->order_by, "updated_at") == 0 ? "true" : "false";
	v[TF_ASC] = strcmp(f->sort, "asc") == 0 ? "true" : "false";
	v[TF_LIMIT] = pagination_limit(r, &f->pg);
	v[TF_OFFSET] = pagination_offset(r, &f->pg);
}

/* ---- one record ---- */

int issuable_get(request *r, const char *stmt, const char *id_stmt, const char *iid, const char *id,
		 PGresult **out)
{
	const char *v[] = {[IGP_PROJECT] = id ? id : r->project->id, [IGP_IID] = iid};
	_Static_assert(sizeof(v) / sizeof(*v) == IGP_NPARAMS, "issuable_get");
	access_me_params(&r->ctx, v);
	int err;
	PGresult *res =
		db_query(&r->ctx, id ? id_stmt : stmt, id ? IGP_NPARAMS - 1 : IGP_NPARAMS, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return 1;
	*out = res;
	return 0;
}

/* ---- writing: the locked record, notes and events ---- */

int issuable_lock(request *r, const issuable_kind *k, const char *iid, PGresult **res,
		  issuable_row *out)
{
	const char *v[2] = {r->project->id, iid};
	int err;
	PGresult *l = db_query(&r->ctx, k->lock_stmt, 2, v, &err);
	if (!l)
		return err;
	if (PQntuples(l) == 0)
		return 1;
	*out = (issuable_row){
		.id = db_val(l, 0, ILK_ID),
		.author = db_val(l, 0, ILK_AUTHOR),
		.assignee = db_val(l, 0, ILK_ASSIGNEE),
		.state = db_val(l, 0, ILK_STATE),
		.milestone = db_val(l, 0, ILK_MILESTONE),
		.title = db_val(l, 0, ILK_TITLE),
	};
	*res = l;
	return 0;
}

bool issuable_can_update(request *r, bool admin, const issuable_row *row)
{
	if (r->project->pa.archived)
		return false;
	const char *me = api_caller_id(r);
	return admin || (row->author && strcmp(row->author, me) == 0) ||
	       (row->assignee && strcmp(row->assignee, me) == 0);
}

int issuable_system_note(request *r, const issuable_kind *k, const char *project_id, const char *id,
			 const char *body)
{
	const char *v[] = {[ISN_PROJECT] = project_id,
			   [ISN_ID] = id,
			   [ISN_AUTHOR] = api_caller_id(r),
			   [ISN_BODY] = body,
			   [ISN_TYPE] = k->type};
	_Static_assert(sizeof(v) / sizeof(*v) == ISN_NPARAMS, "issuable_system_note");
	int err;
	return db_query(&r->ctx, "issuable_system_note", ISN_NPARAMS, v, &err) ? 0 : err;
}

int issuable_state_event(request *r, const issuable_kind *k, const char *project_id, const char *id,
			 const char *iid, const char *title, const char *what)
{
	const char *action = strcmp(what, "opened") == 0 ? "created" : what;
	const char *name = strcmp(what, "merged") == 0 ? "accepted" : what;
	return events_record(r, project_id, api_caller_id(r), action, name, k->type, id, iid,
			     title);
}

int issuable_state_changed(request *r, const issuable_kind *k, const issuable_row *was,
			   const char *iid, const char *new_state, const char *title)
{
	if (strcmp(new_state, was->state) == 0)
		return 0;
	const char *what = strcmp(new_state, "closed") == 0 ? "closed" : "reopened";
	int rc = issuable_system_note(r, k, r->project->id, was->id, what);
	return rc < 0 ? rc : issuable_state_event(r, k, r->project->id, was->id, iid, title, what);
}

/* GitLab's SystemNoteService.change_title, which both kinds' update services call. */
int issuable_title_changed(request *r, const issuable_kind *k, const issuable_row *was,
			   const char *new_title)
{
	if (!new_title || strcmp(new_title, was->title) == 0)
		return 0;
	return issuable_system_note(r, k, r->project->id, was->id,
				    arena_printf(r->ctx.a, "changed title from **%s** to **%s**",
						 was->title, new_title));
}

int issuable_milestone_changed(request *r, const issuable_kind *k, const issuable_row *was,
			       const char *new_milestone, const char *ref)
{
	if ((new_milestone == NULL) == (was->milestone == NULL) &&
	    (!new_milestone || strcmp(new_milestone, was->milestone) == 0))
		return 0;
	const char *body = new_milestone ? arena_printf(r->ctx.a, "changed milestone to %s", ref)
					 : "removed milestone";
	return issuable_system_note(r, k, r->project->id, was->id, body);
}

/* "~1 ~2" of the ids of a PostgreSQL array literal; *n their number. */
static const char *label_refs(request *r, const char *literal, int *n)
{
	long long *ids;
	*n = literal ? db_int_array(r->ctx.a, literal, &ids) : 0;
	if (*n <= 0) {
		*n = 0;
		return NULL;
	}
	buf b;
	buf_init(&b, r->ctx.a, 64);
	for (int i = 0; i < *n; i++)
		buf_printf(&b, "%s~%lld", i ? " " : "", ids[i]);
	return buf_cstr(&b);
}

const char *tracker_labels_note(request *r, const char *added_ids, const char *removed_ids)
{
	int added, removed;
	const char *a = label_refs(r, added_ids, &added);
	const char *d = label_refs(r, removed_ids, &removed);
	if (added + removed == 0)
		return NULL;
	return arena_printf(r->ctx.a, "%s%s%s%s%s %s", a ? "added " : "", a ? a : "",
			    a && d ? " and " : "", d ? "removed " : "", d ? d : "",
			    added + removed == 1 ? "label" : "labels");
}

int issuable_set_labels(request *r, const issuable_kind *k, const char *id, const char *list,
			bool note)
{
	int count;
	const char *titles = issuable_label_titles(r, list, &count), *ids = "{}";
	int rc = count > 0 ? labels_ensure(r, r->project->id, titles, &ids) : 0;
	if (rc < 0)
		return rc;
	const char *v[3] = {id, ids, k->type};
	int err;
	PGresult *res = db_query(&r->ctx, "issuable_set_labels", 3, v, &err);
	if (!res)
		return err;
	if (!note)
		return 0;
	const char *body =
		tracker_labels_note(r, db_val(res, 0, ISL_ADDED), db_val(res, 0, ISL_REMOVED));
	return body ? issuable_system_note(r, k, r->project->id, id, body) : 0;
}

int issuable_assign(request *r, const issuable_kind *k, const char *id, const char *user, bool note)
{
	const char *v[3] = {id, user, r->project->id};
	int err;
	PGresult *res = db_query(&r->ctx, k->assign_stmt, 3, v, &err);
	if (!res)
		return err;
	if (!note || !db_bool(res, 0, IAS_CHANGED))
		return 0;
	const char *was = db_val(res, 0, IAS_WAS), *now = db_val(res, 0, IAS_NOW);
	const char *body;
	if (was && now)
		body = arena_printf(r->ctx.a, "assigned to @%s and unassigned @%s", now, was);
	else if (was)
		body = "removed assignee";
	else
		body = arena_printf(r->ctx.a, "assigned to @%s", now);
	return issuable_system_note(r, k, r->project->id, id, body);
}

int issuable_created(request *r, const issuable_kind *k, const char *id, const char *iid,
		     const char *title, bool admin, const char *assignee, const char *labels)
{
	int rc = 0;
	if ((admin && assignee && (rc = issuable_assign(r, k, id, assignee, false)) < 0) ||
	    (admin && labels && (rc = issuable_set_labels(r, k, id, labels, false)) < 0))
		return rc;
	return issuable_state_event(r, k, r->project->id, id, iid, title, "opened");
}

int issuable_edited(request *r, const issuable_kind *k, const issuable_row *was,
		    const char *milestone, const char *milestone_ref, bool admin,
		    const char *labels, bool assignee_given, const char *assignee)
{
	int rc = issuable_milestone_changed(r, k, was, milestone, milestone_ref);
	if (rc < 0 ||
	    (admin && labels && (rc = issuable_set_labels(r, k, was->id, labels, true)) < 0) ||
	    (admin && assignee_given && (rc = issuable_assign(r, k, was->id, assignee, true)) < 0))
		return rc;
	return 0;
}

int issuable_delete(request *r, const issuable_kind *k, const char *id)
{
	int err;
	if (!db_query(&r->ctx, k->delete_stmt, 1, &id, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

int issuable_respond(request *r, const issuable_kind *k, int status, const char *id)
{
	PGresult *res;
	int rc = k->find(r, NULL, id, &res);
	if (rc != 0)
		return rc < 0 ? rc : ERR_INTERNAL; /* it was there a moment ago */
	api_respond_record(r, status, k->write, res, 0, 0);
	return 0;
}

/* ---- subscriptions ---- */

int issuable_check_subscribable(request *r)
{
	const char *iid;
	return api_id(r, "subscribable_id", &iid);
}

int issuable_subscription(request *r, const issuable_kind *k, bool subscribe)
{
	const char *iid;
	int rc = api_id(r, "subscribable_id", &iid);
	if (rc < 0)
		return rc;
	PGresult *res;
	if ((rc = k->find(r, iid, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	if (db_bool(res, 0, k->col_subscribed) == subscribe)
		return ERR_NOT_MODIFIED;
	const char *id = db_val(res, 0, k->col_id);
	const char *v[] = {[ISU_ID] = id,
			   [ISU_USER] = api_caller_id(r),
			   [ISU_SUBSCRIBED] = subscribe ? "true" : "false",
			   [ISU_TYPE] = k->type};
	_Static_assert(sizeof(v) / sizeof(*v) == ISU_NPARAMS, "issuable_subscribe");
	int err;
	if (!db_query(&r->ctx, "issuable_subscribe", ISU_NPARAMS, v, &err))
		return err;
	return issuable_respond(r, k, 201, id);
}

/* ---- participants ---- */

static json_object *present_participant(ctx *c, const PGresult *res, int row, int col)
{
	return entity_user(c, res, row, col, USER_VIEW_BASIC);
}

int issuable_participants(request *r, const issuable_kind *k)
{
	const char *iid;
	page_req pg;
	int rc = api_id(r, k->param, &iid);
	if (rc < 0 || (rc = pagination_parse(r, &pg)) < 0)
		return rc;
	PGresult *res;
	if ((rc = k->find(r, iid, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	const char *v[] = {[IPA_ID] = db_val(res, 0, k->col_id),
			   [IPA_TYPE] = k->type,
			   [IPA_LIMIT] = pagination_limit(r, &pg),
			   [IPA_OFFSET] = pagination_offset(r, &pg)};
	_Static_assert(sizeof(v) / sizeof(*v) == IPA_NPARAMS, "issuable_participants");
	return api_page(r, &pg, "issuable_participants", IPA_NPARAMS, v, present_participant);
}

/* No routes of its own: issues.c and merge_requests.c route to it. */
const route issuable_routes[] = {
	{NULL, NULL, NULL, 0, NULL},
};
