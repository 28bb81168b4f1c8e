/* API suite: the relations of a GitLab 10.8 project export (issue 33): an archive that
 * tests/impexp/gen_export.py writes is imported through POST /projects/import and each
 * relation is read back over the API (iids, authors matched by email and the importer
 * with "*By NAME on DATE*" for the others, dates, labels, milestones, notes, merge
 * requests, snippets, protected branches, triggers, schedules, pipelines, badges); a
 * record with a bad reference fails the whole import and leaves nothing; an export
 * imported again gives every record back. The generator's records are functions of its
 * options (see its head): the expectations below follow from them. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"

static const char boundary[] = "collabd-import-relations-7d1e";

/* The generator, next to this file's directory. */
static const char *generator(void)
{
	char *dir = S(strdup(__FILE__));
	return S(fmt("%s/../impexp/gen_export.py", dirname(dir)));
}

/* The bytes of file path (caller frees through S), their number in *n. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "open %s", path);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *data = S(malloc((size_t)size + 1));
	ck_assert(fread(data, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	*n = (size_t)size;
	return data;
}

/* An archive of the generator with args (its options after --out): its bytes. */
static char *gen_archive(const char *args, size_t *n)
{
	char *out = S(fmt("/tmp/import-relations-%d-%s.tar.gz", (int)getpid(), S(unique("a"))));
	char *cmd = S(fmt("/usr/bin/python3 '%s' --out '%s' %s", generator(), out, args));
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	char *data = slurp(out, n);
	unlink(out);
	return data;
}

/* POST /projects/import of archive data as token, at path in the caller's namespace. */
static resp *post_import(const char *token, const char *path, const char *data, size_t n)
{
	size_t cap = n + 1024, len = 0;
	char *body = S(malloc(cap));
	len += (size_t)snprintf(
		body, cap,
		"--%s\r\nContent-Disposition: form-data; name=\"path\"\r\n\r\n%s\r\n"
		"--%s\r\nContent-Disposition: form-data; name=\"file\"; "
		"filename=\"export.tar.gz\"\r\nContent-Type: application/gzip\r\n\r\n",
		boundary, path, boundary);
	memcpy(body + len, data, n);
	len += n;
	len += (size_t)snprintf(body + len, cap - len, "\r\n--%s--\r\n", boundary);
	ck_assert(len < cap);
	const char *headers[] = {S(fmt("PRIVATE-TOKEN: %s", token)), NULL};
	return R(http_request("POST", S(fmt("%s/api/v4/projects/import", api_url())), headers, body,
			      len, S(fmt("multipart/form-data; boundary=%s", boundary))));
}

/* GET /projects/:id/import until its status is finished or failed (at most 180 s). */
static json_object *wait_import(const char *token, long long pid)
{
	for (int i = 0; i < 720; i++) {
		resp *r = R(api("GET", S(fmt("/projects/%lld/import", pid)), token, NULL));
		ck_status(r, 200);
		const char *st = jstr(r->json, "import_status");
		ck_assert(st != NULL);
		if (strcmp(st, "finished") == 0 || strcmp(st, "failed") == 0)
			return r->json;
		usleep(250000);
	}
	ck_abort_msg("the import of project %lld did not end", pid);
	return NULL;
}

/* Imports data as token; the project's id, after its import finished. */
static long long import_ok(const char *token, const char *data, size_t n)
{
	resp *r = post_import(token, S(unique("imported")), data, n);
	ck_status(r, 201);
	long long pid = jint(r->json, "id");
	json_object *st = wait_import(token, pid);
	ck_assert_msg(strcmp(jstr(st, "import_status"), "finished") == 0, "import: %s",
		      json_object_to_json_string(st));
	return pid;
}

/* Waits (at most 30 s) for the imported repository's master branch: the import's status
 * may say finished an instant before the repository is in place. */
static void wait_repository(const char *token, long long pid)
{
	for (int i = 0; i < 300; i++) {
		resp *r = R(api("GET", S(fmt("/projects/%lld/repository/branches/master", pid)),
				token, NULL));
		if (r->status == 200)
			return;
		usleep(100000);
	}
	ck_abort_msg("project %lld: no repository", pid);
}

/* Every element of the list at path (all its pages) as one array (freed by release
 * through the last response: copied into a new array kept with S). */
static json_object *list_all(const char *path, const char *token)
{
	json_object *all = json_object_new_array();
	for (int page = 1;; page++) {
		resp *r = R(api("GET",
				S(fmt("%s%cper_page=100&page=%d", path,
				      strchr(path, '?') ? '&' : '?', page)),
				token, NULL));
		ck_assert_msg(r->status == 200, "%s: %ld %s", path, r->status, r->body);
		ck_assert(json_object_is_type(r->json, json_type_array));
		for (size_t i = 0; i < json_object_array_length(r->json); i++)
			json_object_array_add(
				all, json_object_get(json_object_array_get_idx(r->json, i)));
		const char *next = resp_header(r, "X-Next-Page");
		if (!next || !*next)
			break;
	}
	/* kept until release() through a response that owns it */
	resp *keep = R(calloc(1, sizeof(resp)));
	keep->body = strdup("");
	keep->json = all;
	return all;
}

/* The element of array a whose key k is the string v (NULL when none). */
static json_object *find_str(json_object *a, const char *k, const char *v)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		if (jstr(o, k) && strcmp(jstr(o, k), v) == 0)
			return o;
	}
	return NULL;
}

static json_object *find_int(json_object *a, const char *k, long long v)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		if (jhas(o, k) && jint(o, k) == v)
			return o;
	}
	return NULL;
}

/* The generator's timestamps: BASE (2017-03-01T12:00:00Z) + minutes and seconds. */
static char *gen_ts(int minutes, int seconds)
{
	time_t t = 1488369600 + minutes * 60 + seconds;
	struct tm tm;
	gmtime_r(&t, &tm);
	char buf[40];
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
	return S(strdup(buf));
}

typedef struct {
	char *importer, *a, *b; /* tokens */
	long long importer_id, a_id, b_id;
	char *importer_name, *a_name, *b_name; /* usernames */
} people;

/* The importer and two users whose emails (username@example.com) the export's members
 * 101 and 102 have; the export's user 999 matches nobody. */
static void make_people(people *p)
{
	p->importer = S(make_user("imp", &p->importer_id, &p->importer_name));
	p->a = S(make_user("impa", &p->a_id, &p->a_name));
	p->b = S(make_user("impb", &p->b_id, &p->b_name));
	S(p->importer_name);
	S(p->a_name);
	S(p->b_name);
}

static char *emails(const people *p)
{
	return S(fmt("--emails %s@example.com,%s@example.com", p->a_name, p->b_name));
}

/* The collabd user the generator's author index i (i % 3 of members 101, 102, 999)
 * comes in as. */
static long long author_of(const people *p, int i)
{
	return i % 3 == 0 ? p->a_id : i % 3 == 1 ? p->b_id : p->importer_id;
}

static long long user_id_at(json_object *o, const char *k)
{
	json_object *u = jget(o, k);
	ck_assert_msg(u && json_object_is_type(u, json_type_object), "%s: %s", k,
		      json_object_to_json_string(o));
	return jint(u, "id");
}

static bool has_label(json_object *issue, const char *title)
{
	json_object *labels = jget(issue, "labels");
	for (size_t i = 0; labels && i < json_object_array_length(labels); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(labels, i)), title) ==
		    0)
			return true;
	return false;
}

START_TEST(test_import_tracker_relations)
{
	people p;
	make_people(&p);
	size_t n;
	char *data = gen_archive(S(fmt("%s --issues 12 --notes-per-issue 3", emails(&p))), &n);
	long long pid = import_ok(p.importer, data, n);
	char *base = S(fmt("/projects/%lld", pid));

	/* labels: the project's three and the group label an issue named, as project labels */
	json_object *labels = list_all(S(fmt("%s/labels", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(labels), 4);
	json_object *l0 = find_str(labels, "name", "label-0");
	ck_assert(l0 != NULL);
	ck_assert_str_eq(jstr(l0, "color"), "#428bca");
	ck_assert_str_eq(jstr(l0, "description"), "Label 0");
	ck_assert_int_eq(jint(l0, "priority"), 0);
	ck_assert(jnull(find_str(labels, "name", "label-1"), "priority"));
	ck_assert_str_eq(jstr(find_str(labels, "name", "label-2"), "color"), "#ffcc00");
	ck_assert(find_str(labels, "name", "group-label") != NULL);

	/* milestones: iids, states, dates kept */
	json_object *ms = list_all(S(fmt("%s/milestones", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(ms), 2);
	json_object *m1 = find_int(ms, "iid", 1), *m2 = find_int(ms, "iid", 2);
	ck_assert(m1 && m2);
	ck_assert_str_eq(jstr(m1, "title"), "Milestone 1");
	ck_assert_str_eq(jstr(m1, "due_date"), "2017-02-15");
	ck_assert_str_eq(jstr(m1, "created_at"), gen_ts(-49, 0));
	ck_assert_str_eq(jstr(m1, "state"), "active");

	/* their events: created by member 101, matched (the members come first) */
	json_object *mev = list_all(S(fmt("%s/events?target_type=milestone", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(mev), 2);
	for (size_t i = 0; i < 2; i++) {
		json_object *ev = json_object_array_get_idx(mev, i);
		ck_assert_int_eq(jint(ev, "author_id"), p.a_id);
		ck_assert_str_eq(jstr(ev, "action_name"), "opened");
	}

	/* issues: each as the generator wrote it */
	json_object *issues = list_all(S(fmt("%s/issues", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(issues), 12);
	for (int k = 1; k <= 12; k++) {
		json_object *is = find_int(issues, "iid", k);
		ck_assert_msg(is != NULL, "issue %d", k);
		ck_assert_str_eq(jstr(is, "title"), S(fmt("Issue %d", k)));
		ck_assert_str_eq(jstr(is, "description"), S(fmt("Description of issue %d", k)));
		ck_assert_int_eq(user_id_at(is, "author"), author_of(&p, k));
		ck_assert_str_eq(jstr(is, "created_at"), gen_ts(k, 0));
		ck_assert_str_eq(jstr(is, "updated_at"), gen_ts(k, 50));
		ck_assert_str_eq(jstr(is, "state"), k % 3 == 0 ? "closed" : "opened");
		if (k % 3 == 0)
			ck_assert_str_eq(jstr(is, "closed_at"), gen_ts(k, 40));
		ck_assert(jbool(is, "confidential") == (k % 5 == 0));
		if (k % 4 == 0)
			ck_assert_str_eq(jstr(is, "due_date"), S(fmt("2017-06-%02d", k % 28 + 1)));
		else
			ck_assert(jnull(is, "due_date"));
		ck_assert_msg(has_label(is, S(fmt("label-%d", k % 3))), "issue %d labels", k);
		ck_assert(has_label(is, "group-label") == (k % 7 == 0));
		if (k % 2 == 1)
			ck_assert_str_eq(jstr(jget(is, "milestone"), "title"),
					 S(fmt("Milestone %d", k % 2 + 1)));
		else
			ck_assert(jnull(is, "milestone"));
		ck_assert_int_eq(user_id_at(is, "assignee"), author_of(&p, k + 1));
		ck_assert_int_eq(jint(is, "user_notes_count"), 3);
		ck_assert_int_eq(jint(is, "upvotes"), k % 2 == 0 ? 1 : 0);
	}

	/* the project's open issue count, set once at the import's end (the trigger idle
	 * meanwhile, sql/0057): opened and not confidential, 6 of 12 */
	resp *pr = R(api("GET", base, p.importer, NULL));
	ck_status(pr, 200);
	ck_assert_int_eq(jint(pr->json, "open_issues_count"), 6);

	/* notes: authors matched, the others the importer's with GitLab's line */
	json_object *notes = list_all(
		S(fmt("%s/issues/4/notes?sort=asc&order_by=created_at", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(notes), 3);
	for (int j = 0; j < 3; j++) {
		json_object *note = json_object_array_get_idx(notes, j);
		ck_assert_int_eq(user_id_at(note, "author"), author_of(&p, 4 + j));
		ck_assert_str_eq(jstr(note, "created_at"), gen_ts(4, j + 1));
		ck_assert(!jbool(note, "system"));
		if ((4 + j) % 3 == 2)
			ck_assert_str_eq(
				jstr(note, "body"),
				S(fmt("Note %d of Issue 4\n\n *By Ghost Writer on "
				      "2017-03-01T12:04:%02d (imported from GitLab project)*",
				      j, j + 2)));
		else
			ck_assert_str_eq(jstr(note, "body"), S(fmt("Note %d of Issue 4", j)));
	}

	/* a note's award emoji (issue 2's first note) */
	notes = list_all(S(fmt("%s/issues/2/notes?sort=asc&order_by=created_at", base)),
			 p.importer);
	ck_assert_int_eq(json_object_array_length(notes), 3);
	json_object *awards = list_all(S(fmt("%s/issues/2/notes/%lld/award_emoji", base,
					     jint(json_object_array_get_idx(notes, 0), "id"))),
				       p.importer);
	ck_assert_int_eq(json_object_array_length(awards), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(awards, 0), "name"), "smile");
	ck_assert_int_eq(user_id_at(json_object_array_get_idx(awards, 0), "user"), p.a_id);
	ck_assert_str_eq(jstr(json_object_array_get_idx(notes, 1), "body"), "Note 1 of Issue 2");

	/* events: each issue opened by its author, the closed ones closed by the next */
	json_object *events = list_all(S(fmt("%s/events?target_type=issue", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(events), 12 + 4);
	for (int k = 1; k <= 12; k++) {
		int opened = 0, closed = 0;
		for (size_t i = 0; i < json_object_array_length(events); i++) {
			json_object *ev = json_object_array_get_idx(events, i);
			if (jint(ev, "target_iid") != k)
				continue;
			ck_assert_str_eq(jstr(ev, "target_title"), S(fmt("Issue %d", k)));
			if (strcmp(jstr(ev, "action_name"), "opened") == 0) {
				opened++;
				ck_assert_int_eq(jint(ev, "author_id"), author_of(&p, k));
				ck_assert_str_eq(jstr(ev, "created_at"), gen_ts(k, 0));
			} else if (strcmp(jstr(ev, "action_name"), "closed") == 0) {
				closed++;
				ck_assert_int_eq(jint(ev, "author_id"), author_of(&p, k + 1));
			}
		}
		ck_assert_int_eq(opened, 1);
		ck_assert_int_eq(closed, k % 3 == 0 ? 1 : 0);
	}

	/* the iid counters are past the imported iids */
	resp *r = R(api("POST", S(fmt("%s/issues", base)), p.importer, "title=after"));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "iid"), 13);
	pr = R(api("GET", base, p.importer, NULL)); /* the trigger counts again */
	ck_assert_int_eq(jint(pr->json, "open_issues_count"), 7);
	r = R(api("POST", S(fmt("%s/milestones", base)), p.importer, "title=after"));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "iid"), 3);
}
END_TEST

START_TEST(test_import_merge_requests_and_snippets)
{
	people p;
	make_people(&p);
	size_t n;
	char *data = gen_archive(S(fmt("%s --issues 2 --merge-requests 3 --notes-per-mr 2 "
				       "--snippets 2 --commits 4",
				       emails(&p))),
				 &n);
	long long pid = import_ok(p.importer, data, n);
	char *base = S(fmt("/projects/%lld", pid));

	json_object *mrs = list_all(S(fmt("%s/merge_requests", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(mrs), 3);
	for (int k = 1; k <= 3; k++) {
		json_object *mr = find_int(mrs, "iid", k);
		ck_assert_msg(mr != NULL, "merge request %d", k);
		ck_assert_str_eq(jstr(mr, "title"), S(fmt("Merge request %d", k)));
		ck_assert_str_eq(jstr(mr, "source_branch"), S(fmt("feature-%d", k)));
		ck_assert_str_eq(jstr(mr, "target_branch"), "master");
		ck_assert_str_eq(jstr(mr, "state"), k % 3 == 0   ? "opened"
						    : k % 3 == 1 ? "merged"
								 : "closed");
		ck_assert_int_eq(user_id_at(mr, "author"), author_of(&p, k + 2));
		ck_assert_int_eq(user_id_at(mr, "assignee"), author_of(&p, k));
		ck_assert_str_eq(jstr(mr, "created_at"), gen_ts(5000 + k, 0));
		ck_assert_str_eq(jstr(mr, "updated_at"), gen_ts(5000 + k, 30));
		ck_assert_str_eq(jstr(jget(mr, "milestone"), "title"), "Milestone 1");
		ck_assert(has_label(mr, "label-0"));
		const char *sha = jstr(mr, "sha");
		ck_assert_msg(sha && strlen(sha) == 40, "merge request %d sha", k);
		ck_assert_int_eq(jint(mr, "user_notes_count"), 2);
		json_object *notes = list_all(
			S(fmt("%s/merge_requests/%d/notes?sort=asc&order_by=created_at", base, k)),
			p.importer);
		ck_assert_int_eq(json_object_array_length(notes), 2);
		json_object *n0 = json_object_array_get_idx(notes, 0);
		ck_assert_int_eq(user_id_at(n0, "author"), author_of(&p, k));
		ck_assert_str_eq(jstr(n0, "created_at"), gen_ts(5000 + k, 1));
	}
	wait_repository(p.importer, pid);
	resp *r = R(api("POST", S(fmt("%s/merge_requests", base)), p.importer,
			"source_branch=feature-3&target_branch=feature-1&title=after"));
	ck_status(r, 201); /* the bundle's branches, and the counter past the iids */
	ck_assert_int_eq(jint(r->json, "iid"), 4);

	json_object *snippets = list_all(S(fmt("%s/snippets", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(snippets), 2);
	for (int k = 1; k <= 2; k++) {
		json_object *sn = find_str(snippets, "title", S(fmt("Snippet %d", k)));
		ck_assert_msg(sn != NULL, "snippet %d", k);
		ck_assert_str_eq(jstr(sn, "file_name"), S(fmt("snippet%d.py", k)));
		ck_assert_str_eq(jstr(sn, "description"), S(fmt("Snippet %d's description", k)));
		ck_assert_int_eq(user_id_at(sn, "author"), author_of(&p, k));
		ck_assert_str_eq(jstr(sn, "created_at"), gen_ts(6000 + k, 0));
		r = R(api("GET", S(fmt("%s/snippets/%lld/raw", base, jint(sn, "id"))), p.importer,
			  NULL));
		ck_status(r, 200);
		ck_assert_str_eq(r->body, S(fmt("print(%d)\n", k)));
		json_object *notes = list_all(
			S(fmt("%s/snippets/%lld/notes", base, jint(sn, "id"))), p.importer);
		ck_assert_int_eq(json_object_array_length(notes), 1);
		ck_assert_int_eq(user_id_at(json_object_array_get_idx(notes, 0), "author"),
				 author_of(&p, k));
	}
}
END_TEST

START_TEST(test_import_ci_and_settings)
{
	people p;
	make_people(&p);
	size_t n;
	char *data = gen_archive(S(fmt("%s --issues 1 --pipelines 3 --commits 3", emails(&p))), &n);
	long long pid = import_ok(p.importer, data, n);
	char *base = S(fmt("/projects/%lld", pid));

	json_object *pbs = list_all(S(fmt("%s/protected_branches", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(pbs), 2);
	json_object *master = find_str(pbs, "name", "master");
	json_object *release = find_str(pbs, "name", "release-*");
	ck_assert(master && release);
	ck_assert_int_eq(jint(json_object_array_get_idx(jget(master, "push_access_levels"), 0),
			      "access_level"),
			 40);
	ck_assert_int_eq(jint(json_object_array_get_idx(jget(master, "merge_access_levels"), 0),
			      "access_level"),
			 30);
	ck_assert_int_eq(jint(json_object_array_get_idx(jget(release, "push_access_levels"), 0),
			      "access_level"),
			 0);

	/* CI variables: their values, sealed as the variables API keeps them */
	json_object *civars = list_all(S(fmt("%s/variables", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(civars), 2);
	json_object *dt = find_str(civars, "key", "DEPLOY_TOKEN");
	ck_assert(dt);
	ck_assert_str_eq(jstr(dt, "value"), "s3cr3t-0");
	ck_assert(json_object_get_boolean(jget(dt, "protected")));
	/* triggers: made again with new tokens (the exported ones stay the old instance's) */
	json_object *triggers = list_all(S(fmt("%s/triggers", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(triggers), 2);
	json_object *t1 = find_str(triggers, "description", "Trigger 1");
	ck_assert(t1 && find_str(triggers, "description", "Trigger 2"));
	ck_assert_str_eq(jstr(t1, "created_at"), gen_ts(-20, 0));
	ck_assert_int_eq(user_id_at(t1, "owner"), p.a_id);
	const char *token = jstr(t1, "token");
	ck_assert(token && strcmp(token, "000000000000000000000000000abc") != 0);

	/* schedules: inactive, with their variables */
	json_object *scheds = list_all(S(fmt("%s/pipeline_schedules", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(scheds), 1);
	json_object *s0 = json_object_array_get_idx(scheds, 0);
	ck_assert_str_eq(jstr(s0, "description"), "Nightly");
	ck_assert_str_eq(jstr(s0, "cron"), "0 4 * * *");
	ck_assert_str_eq(jstr(s0, "ref"), "master");
	ck_assert(!jbool(s0, "active"));
	resp *r = R(api("GET", S(fmt("%s/pipeline_schedules/%lld", base, jint(s0, "id"))),
			p.importer, NULL));
	ck_status(r, 200);
	json_object *vars = jget(r->json, "variables");
	ck_assert_int_eq(json_object_array_length(vars), 2);
	ck_assert_str_eq(jstr(find_str(vars, "key", "DEPLOY"), "value"), "yes");
	ck_assert_str_eq(jstr(find_str(vars, "key", "REGION"), "value"), "eu-1");

	/* pipelines and their jobs, as history: what was running is canceled */
	json_object *pipes = list_all(S(fmt("%s/pipelines", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(pipes), 3);
	int statuses[3] = {0};
	for (size_t i = 0; i < 3; i++) {
		json_object *pl = json_object_array_get_idx(pipes, i);
		const char *st = jstr(pl, "status");
		statuses[strcmp(st, "success") == 0 ? 0 : strcmp(st, "failed") == 0 ? 1 : 2]++;
		ck_assert(strcmp(st, "success") == 0 || strcmp(st, "failed") == 0 ||
			  strcmp(st, "canceled") == 0);
		ck_assert_str_eq(jstr(pl, "ref"), "master");
		json_object *jobs = list_all(S(fmt("%s/pipelines/%lld/jobs", base, jint(pl, "id"))),
					     p.importer);
		ck_assert_int_eq(json_object_array_length(jobs), 2);
		ck_assert(find_str(jobs, "name", "build") && find_str(jobs, "name", "test"));
		ck_assert_str_eq(jstr(find_str(jobs, "name", "build"), "status"), "success");
	}
	ck_assert(statuses[0] == 1 && statuses[1] == 1 && statuses[2] == 1);

	json_object *badges = list_all(S(fmt("%s/badges", base)), p.importer);
	ck_assert_int_eq(json_object_array_length(badges), 2);
	ck_assert(find_str(badges, "image_url", "https://ci.example.com/badge-0.svg"));
	ck_assert(find_str(badges, "link_url", "https://ci.example.com/%{project_path}/1"));
}
END_TEST

/* A label link to a label the export does not hold: the import fails, with the reason,
 * and none of the records before it stays. */
START_TEST(test_import_bad_reference_fails_whole)
{
	people p;
	make_people(&p);
	size_t n;
	char *data = gen_archive(S(fmt("%s --issues 3 --bad-reference", emails(&p))), &n);
	resp *r = post_import(p.importer, S(unique("badref")), data, n);
	ck_status(r, 201);
	long long pid = jint(r->json, "id");
	json_object *st = wait_import(p.importer, pid);
	ck_assert_str_eq(jstr(st, "import_status"), "failed");
	const char *why = jstr(st, "import_error");
	ck_assert_msg(why && strstr(why, "label link") && strstr(why, "no label"),
		      "import_error %s", why ? why : "(none)");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM labels WHERE project_id = %lld", pid), 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM milestones WHERE project_id = %lld", pid),
			 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM issues WHERE project_id = %lld", pid), 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE project_id = %lld", pid), 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM iid_counters WHERE scope_type = 'Project'"
				 " AND scope_id = %lld",
				 pid),
			 0);
}
END_TEST

/* A value out of its range (an issue's state): the import fails, naming the record. */
START_TEST(test_import_bad_value_fails_whole)
{
	people p;
	make_people(&p);
	size_t n;
	char *data = gen_archive(S(fmt("%s --issues 3 --bad-value", emails(&p))), &n);
	resp *r = post_import(p.importer, S(unique("badvalue")), data, n);
	ck_status(r, 201);
	long long pid = jint(r->json, "id");
	json_object *st = wait_import(p.importer, pid);
	ck_assert_str_eq(jstr(st, "import_status"), "failed");
	const char *why = jstr(st, "import_error");
	ck_assert_msg(why && strstr(why, "issue 2: a value is invalid"), "import_error %s",
		      why ? why : "(none)");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM issues WHERE project_id = %lld", pid), 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM labels WHERE project_id = %lld", pid), 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipelines WHERE project_id = %lld", pid),
			 0);
}
END_TEST

/* A record as the API shows it, without what names its project or its place there
 * (ids, URLs, the project's id and path), which an import gives anew. */
static void strip(json_object *o)
{
	static const char *const drop[] = {"id",
					   "project_id",
					   "web_url",
					   "_links",
					   "noteable_id",
					   "source_project_id",
					   "target_project_id",
					   "token",
					   "raw_url",
					   "rendered_link_url",
					   "rendered_image_url",
					   "avatar_url",
					   NULL};
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			strip(json_object_array_get_idx(o, i));
	} else if (json_object_is_type(o, json_type_object)) {
		for (int i = 0; drop[i]; i++)
			json_object_object_del(o, drop[i]);
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			strip(v);
		}
	}
}

static int cmp_text(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The records of list l (stripped) as text, sorted: the records whatever the order of
 * their new ids (an import makes them in the order of project.json's arrays). */
static const char *records_text(json_object *l)
{
	json_object *k = json_tokener_parse(json_object_to_json_string(l));
	strip(k);
	size_t n = json_object_array_length(k);
	const char **parts = calloc(n + 1, sizeof(*parts));
	size_t len = 3;
	for (size_t i = 0; i < n; i++) {
		parts[i] = S(strdup(json_object_to_json_string(json_object_array_get_idx(k, i))));
		len += strlen(parts[i]) + 2;
	}
	qsort(parts, n, sizeof(*parts), cmp_text);
	char *out = S(calloc(1, len));
	strcat(out, "[");
	for (size_t i = 0; i < n; i++) {
		strcat(out, parts[i]);
		strcat(out, i + 1 < n ? ",\n" : "");
	}
	strcat(out, "]");
	free(parts);
	json_object_put(k);
	return out;
}

/* The list at suffix of both projects, the same records. */
static json_object *ck_same_records(long long a, long long b, const char *suffix, const char *token)
{
	json_object *la = list_all(S(fmt("/projects/%lld%s", a, suffix)), token);
	json_object *lb = list_all(S(fmt("/projects/%lld%s", b, suffix)), token);
	const char *sa = records_text(la), *sb = records_text(lb);
	ck_assert_msg(strcmp(sa, sb) == 0, "%s differs:\n%s\n%s", suffix, sa, sb);
	return la;
}

START_TEST(test_export_import_round_trip)
{
	people p;
	make_people(&p);
	size_t n;
	char *data = gen_archive(S(fmt("%s --issues 8 --notes-per-issue 2 --merge-requests 2 "
				       "--snippets 2 --pipelines 2 --commits 3",
				       emails(&p))),
				 &n);
	long long a = import_ok(p.importer, data, n);

	resp *r = R(api("POST", S(fmt("/projects/%lld/export", a)), p.importer, NULL));
	ck_status(r, 202);
	for (int i = 0;; i++) {
		ck_assert_msg(i < 1800, "the export did not finish");
		r = R(api("GET", S(fmt("/projects/%lld/export", a)), p.importer, NULL));
		ck_status(r, 200);
		if (strcmp(jstr(r->json, "export_status"), "finished") == 0)
			break;
		usleep(100000);
	}
	const char *headers[] = {S(fmt("PRIVATE-TOKEN: %s", p.importer)), NULL};
	r = R(http_request("GET", S(fmt("%s/api/v4/projects/%lld/export/download", api_url(), a)),
			   headers, NULL, 0, NULL));
	ck_status(r, 200);
	ck_assert(r->body_len > 0);
	long long b = import_ok(p.importer, r->body, r->body_len);
	wait_repository(p.importer, a);
	wait_repository(p.importer, b);

	ck_same_records(a, b, "/labels", p.importer);
	ck_same_records(a, b, "/milestones", p.importer);
	json_object *issues = ck_same_records(a, b, "/issues?sort=asc", p.importer);
	ck_assert_int_eq(json_object_array_length(issues), 8);
	for (size_t i = 0; i < json_object_array_length(issues); i++)
		ck_same_records(a, b,
				S(fmt("/issues/%lld/notes?sort=asc",
				      jint(json_object_array_get_idx(issues, i), "iid"))),
				p.importer);
	json_object *mrs = ck_same_records(a, b, "/merge_requests?sort=asc", p.importer);
	ck_assert_int_eq(json_object_array_length(mrs), 2);
	for (size_t i = 0; i < json_object_array_length(mrs); i++)
		ck_same_records(a, b,
				S(fmt("/merge_requests/%lld/notes?sort=asc",
				      jint(json_object_array_get_idx(mrs, i), "iid"))),
				p.importer);
	ck_same_records(a, b, "/protected_branches", p.importer);
	ck_same_records(a, b, "/triggers", p.importer);
	ck_same_records(a, b, "/variables", p.importer);
	ck_same_records(a, b, "/pipeline_schedules", p.importer);
	ck_same_records(a, b, "/badges", p.importer);
	ck_same_records(a, b, "/snippets", p.importer);
	json_object *attrs = ck_same_records(a, b, "/custom_attributes", admin_token());
	ck_assert_int_eq(json_object_array_length(attrs), 2);
	ck_assert_str_eq(jstr(json_object_array_get_idx(attrs, 0), "key"), "department");

	/* records found by position: their ids differ, their order does not */
	json_object *sa = list_all(S(fmt("/projects/%lld/snippets", a)), p.importer);
	json_object *sb = list_all(S(fmt("/projects/%lld/snippets", b)), p.importer);
	for (size_t i = 0; i < json_object_array_length(sa); i++) {
		long long ia = jint(json_object_array_get_idx(sa, i), "id");
		long long ib = jint(json_object_array_get_idx(sb, i), "id");
		json_object *na =
			list_all(S(fmt("/projects/%lld/snippets/%lld/notes", a, ia)), p.importer);
		json_object *nb =
			list_all(S(fmt("/projects/%lld/snippets/%lld/notes", b, ib)), p.importer);
		strip(na);
		strip(nb);
		ck_assert_str_eq(json_object_to_json_string(na), json_object_to_json_string(nb));
	}
	json_object *pa = list_all(S(fmt("/projects/%lld/pipelines?sort=asc", a)), p.importer);
	json_object *pb = list_all(S(fmt("/projects/%lld/pipelines?sort=asc", b)), p.importer);
	ck_assert_int_eq(json_object_array_length(pa), json_object_array_length(pb));
	for (size_t i = 0; i < json_object_array_length(pa); i++) {
		long long ia = jint(json_object_array_get_idx(pa, i), "id");
		long long ib = jint(json_object_array_get_idx(pb, i), "id");
		r = R(api("GET", S(fmt("/projects/%lld/pipelines/%lld", a, ia)), p.importer, NULL));
		resp *rb = R(api("GET", S(fmt("/projects/%lld/pipelines/%lld", b, ib)), p.importer,
				 NULL));
		strip(r->json);
		strip(rb->json);
		ck_assert_str_eq(json_object_to_json_string(r->json),
				 json_object_to_json_string(rb->json));
		json_object *ja =
			list_all(S(fmt("/projects/%lld/pipelines/%lld/jobs", a, ia)), p.importer);
		json_object *jb =
			list_all(S(fmt("/projects/%lld/pipelines/%lld/jobs", b, ib)), p.importer);
		strip(ja);
		strip(jb);
		ck_assert_str_eq(json_object_to_json_string(ja), json_object_to_json_string(jb));
	}
}
END_TEST

Suite *suite_project_import_relations(void)
{
	Suite *s = suite_create("project_import_relations");
	TCase *tc = tcase_create("project_import_relations");
	tcase_set_timeout(tc, 240);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_import_tracker_relations);
	tcase_add_test(tc, test_import_merge_requests_and_snippets);
	tcase_add_test(tc, test_import_ci_and_settings);
	tcase_add_test(tc, test_import_bad_reference_fails_whole);
	tcase_add_test(tc, test_import_bad_value_fails_whole);
	tcase_add_test(tc, test_export_import_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
