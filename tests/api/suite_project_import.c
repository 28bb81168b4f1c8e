/* API suite: project import and export in GitLab 10's format (issue 33; GitLab 10.8's
 * POST /projects/import, GET /projects/:id/import, POST/GET /projects/:id/export and
 * /export/download). The archives are built here: project.json written by the test,
 * a git bundle made with git, tarred by a small python tarfile script (which can also
 * write what no honest tar does: "../" and absolute names, links, FIFOs, streamed
 * gigabytes). Each hostile archive must end in a failed import with a clear reason,
 * nothing written outside its directory, and nothing of the project but its status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"

static const char boundary[] = "collabd-import-boundary-5e1";

/* The archive writer: python3 TARBUILDER OUT SPEC...; SPEC is KIND:NAME[:ARG]:
 * file:NAME:PATH (a file of the disk), dir:NAME, symlink:NAME:TARGET,
 * hardlink:NAME:TARGET, fifo:NAME, fill:NAME:SIZE (a JSON object whose description is
 * SIZE bytes of 'a', streamed), zeros:NAME:SIZE, deep:NAME:N (project_members holding an
 * array nested N deep). */
static const char tar_builder[] =
	"import sys, tarfile, os\n"
	"class Gen:\n"
	"    def __init__(self, head, n, fill, tail):\n"
	"        self.parts = [head, None, tail]; self.n = n; self.fill = fill; self.i = 0\n"
	"        self.size = len(head) + n + len(tail)\n"
	"    def read(self, k=-1):\n"
	"        out = b''\n"
	"        if k < 0: k = self.size\n"
	"        while k > 0 and self.i < 3:\n"
	"            if self.i == 1:\n"
	"                m = min(k, self.n, 1 << 20)\n"
	"                if m == 0: self.i += 1; continue\n"
	"                out += self.fill * m; self.n -= m; k -= m\n"
	"            else:\n"
	"                p = self.parts[self.i]\n"
	"                if not p: self.i += 1; continue\n"
	"                out += p[:k]; self.parts[self.i] = p[k:]; k -= len(p[:k])\n"
	"        return out\n"
	"with tarfile.open(sys.argv[1], 'w:gz', compresslevel=6) as t:\n"
	"    for spec in sys.argv[2:]:\n"
	"        kind, name, *rest = spec.split(':', 2)\n"
	"        ti = tarfile.TarInfo(name); ti.mtime = 0; ti.mode = 0o644\n"
	"        if kind == 'file':\n"
	"            ti.size = os.path.getsize(rest[0])\n"
	"            with open(rest[0], 'rb') as f: t.addfile(ti, f)\n"
	"        elif kind == 'dir': ti.type = tarfile.DIRTYPE; ti.mode = 0o755; t.addfile(ti)\n"
	"        elif kind == 'symlink': ti.type = tarfile.SYMTYPE; ti.linkname = rest[0]; t.addfile(ti)\n"
	"        elif kind == 'hardlink': ti.type = tarfile.LNKTYPE; ti.linkname = rest[0]; t.addfile(ti)\n"
	"        elif kind == 'fifo': ti.type = tarfile.FIFOTYPE; t.addfile(ti)\n"
	"        else:\n"
	"            n = int(rest[0])\n"
	"            if kind == 'fill': g = Gen(b'{\"description\":\"', n, b'a', b'\"}')\n"
	"            elif kind == 'zeros': g = Gen(b'', n, b'\\0', b'')\n"
	"            else: g = Gen(b'{\"project_members\":[', n, b'[', b']' * n + b']}')\n"
	"            ti.size = g.size; t.addfile(ti, g)\n";

static char *builder_path;

static void suite_setup(void)
{
	char tmpl[] = "/tmp/collabd-tarbuilder.XXXXXX";
	int fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, tar_builder, strlen(tar_builder)), (ssize_t)strlen(tar_builder));
	close(fd);
	builder_path = strdup(tmpl);
}

static void suite_teardown(void)
{
	unlink(builder_path);
	free(builder_path);
}

/* A fresh scratch directory (released with the test). */
static char *scratch(void)
{
	char tmpl[] = "/tmp/collabd-import.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	return S(strdup(tmpl));
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* dir/project.bundle: a repository with one commit on master adding README.md ("hello
 * import") and a branch "feature". */
static void make_bundle(const char *dir)
{
	char *work = git_work_new();
	char *out = NULL;
	int rc = git_sh(work, &out,
			"init -q r && cd r && echo 'hello import' > README.md && git add README.md"
			" && git commit -q -m first && git branch feature"
			" && git bundle create -q '%s/project.bundle' --all",
			dir);
	ck_assert_msg(rc == 0, "bundle: %s", out);
	free(out);
	git_work_remove(work);
}

/* Runs the archive writer: OUT then the specs (NULL-terminated). */
static void tar_build(const char *out, const char *const *specs)
{
	char *cmd = S(fmt("python3 '%s' '%s'", builder_path, out));
	for (int i = 0; specs[i]; i++)
		cmd = S(fmt("%s '%s'", cmd, specs[i]));
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* The archive of dir's VERSION, project.json, project.bundle (those that exist) and
 * the extra specs. */
static char *archive_of(const char *dir, const char *const *extra)
{
	const char *specs[32];
	int n = 0;
	static const char *const names[] = {"VERSION", "project.json", "project.bundle"};
	for (size_t i = 0; i < 3; i++) {
		const char *p = S(fmt("%s/%s", dir, names[i]));
		if (access(p, F_OK) == 0)
			specs[n++] = S(fmt("file:%s:%s", names[i], p));
	}
	for (int i = 0; extra && extra[i]; i++)
		specs[n++] = extra[i];
	specs[n] = NULL;
	char *out = S(fmt("%s.tar.gz", dir));
	tar_build(out, specs);
	return out;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *data = S(malloc((size_t)n + 1));
	ck_assert_int_eq(fread(data, 1, (size_t)n, f), (size_t)n);
	data[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return data;
}

/* POST /projects/import as token: the multipart form of the fields (name=value pairs,
 * NULL-terminated) and, when archive is not NULL, the file part. */
static resp *post_import(const char *token, const char *const *fields, const char *archive)
{
	size_t alen = 0;
	const char *data = archive ? slurp(archive, &alen) : NULL;
	size_t cap = alen + 4096, len = 0;
	char *body = S(malloc(cap));
	for (int i = 0; fields && fields[i]; i += 2)
		len += (size_t)snprintf(
			body + len, cap - len,
			"--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n",
			boundary, fields[i], fields[i + 1]);
	if (data) {
		len += (size_t)snprintf(
			body + len, cap - len,
			"--%s\r\nContent-Disposition: form-data; name=\"file\";"
			" filename=\"export.tar.gz\"\r\nContent-Type: application/gzip\r\n\r\n",
			boundary);
		memcpy(body + len, data, alen);
		len += alen;
		len += (size_t)snprintf(body + len, cap - len, "\r\n");
	}
	len += (size_t)snprintf(body + len, cap - len, "--%s--\r\n", boundary);
	ck_assert(len < cap);
	const char *headers[] = {token ? S(fmt("PRIVATE-TOKEN: %s", token)) : NULL, NULL};
	return R(http_request("POST", S(fmt("%s/api/v4/projects/import", api_url())), headers, body,
			      len, S(fmt("multipart/form-data; boundary=%s", boundary))));
}

/* GET /projects/:id/import until the import is over (at most 90 s): its last answer. */
static resp *wait_import(const char *token, long long id)
{
	for (int i = 0; i < 900; i++) {
		resp *r = R(api("GET", S(fmt("/projects/%lld/import", id)), token, NULL));
		ck_status(r, 200);
		const char *s = jstr(r->json, "import_status");
		if (strcmp(s, "finished") == 0 || strcmp(s, "failed") == 0)
			return r;
		ck_assert_msg(strcmp(s, "scheduled") == 0 || strcmp(s, "started") == 0, "%s", s);
		usleep(100000);
	}
	ck_abort_msg("import of %lld not over", id);
	return NULL;
}

/* project_members' element of a user by email (user_id the exported id). */
static char *member_json(long long exported_id, int level, const char *email)
{
	return S(fmt("{\"id\":%lld,\"access_level\":%d,\"source_id\":5,\"source_type\":\"Project\","
		     "\"user_id\":%lld,\"notification_level\":3,"
		     "\"created_at\":\"2016-06-14T15:02:03.834Z\","
		     "\"updated_at\":\"2016-06-14T15:02:03.834Z\",\"created_by_id\":null,"
		     "\"invite_email\":null,\"invite_token\":null,\"invite_accepted_at\":null,"
		     "\"requested_at\":null,\"user\":{\"id\":%lld,\"email\":\"%s\","
		     "\"username\":\"exported%lld\"}}",
		     exported_id + 1000, level, exported_id, exported_id, email, exported_id));
}

/* A whole export tree in a new directory: VERSION, project.json (members: the given
 * JSON elements), project.bundle. */
static char *export_tree(const char *members)
{
	char *dir = scratch();
	put_file(S(fmt("%s/VERSION", dir)), "0.2.3");
	put_file(S(fmt("%s/project.json", dir)),
		 S(fmt("{\"description\":\"Imported from GitLab 10\",\"visibility_level\":10,"
		       "\"archived\":false,\"request_access_enabled\":true,"
		       "\"labels\":[],\"issues\":[],\"milestones\":[],\"snippets\":[],"
		       "\"releases\":[],\"project_members\":[%s],\"merge_requests\":[],"
		       "\"triggers\":[],\"hooks\":[],\"protected_branches\":[],"
		       "\"project_feature\":{\"builds_access_level\":20,\"id\":2,"
		       "\"issues_access_level\":0,\"merge_requests_access_level\":20,"
		       "\"project_id\":4,\"snippets_access_level\":20,"
		       "\"wiki_access_level\":20,\"created_at\":\"2014-12-26T09:26:45.000Z\","
		       "\"updated_at\":\"2016-09-23T11:58:28.000Z\"}}",
		       members)));
	make_bundle(dir);
	return dir;
}

static char *email_of(long long user)
{
	return S(sql_value("SELECT email FROM users WHERE id = %lld", user));
}

/* ---- import ---- */

START_TEST(test_import_minimal)
{
	long long me, other, stranger;
	char *name;
	char *token = S(make_user("imp", &me, &name));
	S(name);
	char *other_token = S(make_user("impm", &other, NULL));
	S(make_user("imps", &stranger, NULL));
	/* the other user matched by email (case aside), one email nobody has */
	char *upper = S(strdup(email_of(other)));
	for (char *p = upper; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	char *members = S(fmt("%s,%s", member_json(16, 30, upper),
			      member_json(17, 20, S(fmt("%s@nowhere.example", S(unique("n")))))));
	char *dir = export_tree(members);
	/* an upload the text links to */
	const char *secret = "0123456789abcdef0123456789abcdef";
	put_file(S(fmt("%s/notes.txt", dir)), "uploaded bytes\n");
	const char *extra[] = {"dir:uploads", S(fmt("dir:uploads/%s", secret)),
			       S(fmt("file:uploads/%s/notes.txt:%s/notes.txt", secret, dir)), NULL};
	char *archive = archive_of(dir, extra);
	char *path = S(unique("imported"));
	const char *fields[] = {"path", path, NULL};
	/* what a killed try would have left for the next project ids: the job removes its
	 * project's (nothing else can be there while it holds the project) */
	resp *r = R(api("POST", "/projects", token, S(fmt("path=%s", S(unique("before"))))));
	ck_status(r, 201);
	long long last = jint(r->json, "id");
	const char *imports = S(fmt("%s/storage/tmp/imports", getenv("COLLABD_DIR")));
	for (long long k = last + 1; k <= last + 4; k++)
		ck_assert_int_eq(system(S(fmt("mkdir -p '%s/%lld-ABCDEF' && touch '%s/%lld-ABCDEF/x'",
					      imports, k, imports, k))),
				 0);
	r = post_import(token, fields, archive);
	ck_status(r, 201);
	static const char *const shape[] = {"id",         "description",
					    "name",       "name_with_namespace",
					    "path",       "path_with_namespace",
					    "created_at", "import_status",
					    NULL};
	ck_fields(r->json, shape);
	ck_assert_str_eq(jstr(r->json, "import_status"), "scheduled");
	ck_assert_str_eq(jstr(r->json, "path"), path);
	ck_assert_str_eq(jstr(r->json, "name"), path);
	ck_assert_str_eq(jstr(r->json, "path_with_namespace"), S(fmt("%s/%s", name, path)));
	long long id = jint(r->json, "id");
	r = wait_import(token, id);
	ck_assert_msg(strcmp(jstr(r->json, "import_status"), "finished") == 0, "%s", r->body);
	ck_assert(!jhas(r->json, "import_error"));
	ck_assert(id > last && id <= last + 4);
	ck_assert_int_eq(system(S(fmt("test -z \"$(ls -d '%s/%lld-'* 2>/dev/null)\"", imports, id))),
			 0);
	ck_assert_int_eq(system(S(fmt("rm -rf '%s/'*-ABCDEF", imports))), 0);
	/* the attributes and project_feature */
	r = R(api("GET", S(fmt("/projects/%lld", id)), token, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(jstr(r->json, "description"), "Imported from GitLab 10");
	ck_assert_str_eq(jstr(r->json, "visibility"), "internal");
	ck_assert(!jbool(r->json, "issues_enabled"));
	ck_assert(jbool(r->json, "merge_requests_enabled"));
	ck_assert(jbool(r->json, "request_access_enabled"));
	ck_assert_str_eq(jstr(r->json, "default_branch"), "master");
	/* members: the matched user at the exported level, the importer a master (and the
	 * namespace owner), nobody for the unknown email */
	ck_assert_int_eq(sql_int("SELECT access_level FROM members WHERE source_type = 'Project'"
				 " AND source_id = %lld AND user_id = %lld",
				 id, other),
			 30);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM members WHERE source_type = 'Project'"
				 " AND source_id = %lld",
				 id),
			 2);
	ck_assert_int_eq(sql_int("SELECT access_level FROM members WHERE source_type = 'Project'"
				 " AND source_id = %lld AND user_id = %lld",
				 id, me),
			 40);
	r = R(api("GET", S(fmt("/projects/%lld", id)), other_token, NULL));
	ck_status(r, 200);
	/* the repository, cloned over HTTP */
	char *work = git_work_new();
	char *out = NULL;
	const char *host = api_url() + strlen("http://");
	int rc = git_sh(work, &out,
			"clone -q 'http://u:%s@%s/%s/%s.git' c && cat c/README.md"
			" && git -C c branch -r",
			token, host, name, path);
	ck_assert_msg(rc == 0, "clone: %s", out);
	ck_assert_msg(strstr(out, "hello import") && strstr(out, "origin/feature"), "%s", out);
	free(out);
	git_work_remove(work);
	r = R(api("GET", S(fmt("/projects/%lld/repository/branches", id)), token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	/* the upload at the path its markdown link names */
	const char *headers[] = {S(fmt("PRIVATE-TOKEN: %s", token)), NULL};
	r = R(http_request("GET",
			   S(fmt("%s/%s/%s/uploads/%s/notes.txt", api_url(), name, path, secret)),
			   headers, NULL, 0, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "uploaded bytes\n");
}
END_TEST

START_TEST(test_import_errors)
{
	long long me, other;
	char *name;
	char *token = S(make_user("impe", &me, &name));
	S(name);
	char *other_token = S(make_user("impf", &other, NULL));
	char *public_path;
	long long public_group = api_group(other_token, "public", &public_path);
	S(public_path);
	char *dir = export_tree("");
	char *archive = archive_of(dir, NULL);
	long long before = sql_int("SELECT count(*) FROM projects");
	char *path = S(unique("err"));
	/* 401, and no file, no path */
	const char *f1[] = {"path", path, NULL};
	ck_status(post_import(NULL, f1, archive), 401);
	ck_body(post_import(token, f1, NULL), 400,
		"{\"message\":\"400 (Bad request) \\\"file\\\" not given\"}");
	ck_body(post_import(token, NULL, archive), 400,
		"{\"message\":\"400 (Bad request) \\\"path\\\" not given\"}");
	/* a namespace that is not there, one the caller may not create in (10.8: the
	 * project's validation), a bad path */
	const char *f2[] = {"path", path, "namespace", S(unique("nons")), NULL};
	ck_body(post_import(token, f2, archive), 404, "{\"message\":\"404 Namespace Not Found\"}");
	const char *f3[] = {"path", path, "namespace", S(fmt("%lld", public_group)), NULL};
	ck_body(post_import(token, f3, archive), 400, "{\"message\":\"Namespace is not valid\"}");
	const char *f4[] = {"path", "bad path", NULL};
	resp *r = post_import(token, f4, archive);
	ck_status(r, 400);
	ck_assert_msg(strncmp(jstr(r->json, "message"), "Path can contain only", 21) == 0, "%s",
		      r->body);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects"), before);
	/* a path taken, without overwrite */
	char *taken;
	api_project(token, "private", &taken);
	S(taken);
	const char *slash = strchr(taken, '/');
	const char *f5[] = {"path", slash + 1, NULL};
	ck_body(post_import(token, f5, archive), 400,
		"{\"message\":\"Name has already been taken\"}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects"), before + 1);
	/* too large for max_import_size (MB): 413 as GitLab's file_too_large! */
	r = R(api("PUT", "/application/settings", admin_token(), "max_import_size=1"));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "max_import_size"), 1);
	char *big = S(fmt("%s-big", dir));
	/* random bytes do not compress: a 1.5 MB archive */
	ck_assert_int_eq(
		system(S(fmt("head -c 1500000 /dev/urandom > '%s/noise' && python3 '%s' '%s'"
			     " 'file:noise:%s/noise'",
			     dir, builder_path, big, dir))),
		0);
	const char *f6[] = {"path", path, NULL};
	ck_body(post_import(token, f6, big), 413, "{\"message\":\"413 Request Entity Too Large\"}");
	ck_status(R(api("PUT", "/application/settings", admin_token(), "max_import_size=50")), 200);
	ck_body(R(api("PUT", "/application/settings", admin_token(), "max_import_size=-1")), 400,
		"{\"message\":{\"max_import_size\":[\"must be greater than or equal to 0\"]}}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects"), before + 1);
	/* the status: none for a project made otherwise; 404 to whom cannot see it */
	long long plain = api_project(token, "private", NULL);
	r = R(api("GET", S(fmt("/projects/%lld/import", plain)), token, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(jstr(r->json, "import_status"), "none");
	ck_body(R(api("GET", S(fmt("/projects/%lld/import", plain)), other_token, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_status(R(api("GET", S(fmt("/projects/%lld/import", plain)), NULL, NULL)), 404);
}
END_TEST

START_TEST(test_import_into_group_and_overwrite)
{
	long long me;
	char *token = S(make_user("impg", &me, NULL));
	char *group_path;
	api_group(token, "private", &group_path);
	S(group_path);
	char *dir = export_tree("");
	char *archive = archive_of(dir, NULL);
	char *path = S(unique("grp"));
	/* by the group's path; the exported internal visibility lowered to the group's */
	const char *f1[] = {"path", path, "namespace", group_path, "name", "Imported Name", NULL};
	resp *r = post_import(token, f1, archive);
	ck_status(r, 201);
	ck_assert_str_eq(jstr(r->json, "name"), "Imported Name");
	long long first = jint(r->json, "id");
	r = wait_import(token, first);
	ck_assert_str_eq(jstr(r->json, "import_status"), "finished");
	r = R(api("GET", S(fmt("/projects/%lld", first)), token, NULL));
	ck_assert_str_eq(jstr(r->json, "visibility"), "private");
	/* overwrite: a new project takes the path once imported, the old one goes */
	const char *f2[] = {"path", path, "namespace", group_path, "overwrite", "true", NULL};
	r = post_import(token, f2, archive);
	ck_status(r, 201);
	long long second = jint(r->json, "id");
	ck_assert_int_ne(second, first);
	r = wait_import(token, second);
	ck_assert_msg(strcmp(jstr(r->json, "import_status"), "finished") == 0, "%s", r->body);
	ck_assert_str_eq(jstr(r->json, "path"), path);
	r = R(api("GET", S(fmt("/projects/%s", S(enc(S(fmt("%s/%s", group_path, path)))))), token,
		  NULL));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), second);
	ck_status(R(api("GET", S(fmt("/projects/%lld", first)), token, NULL)), 404);
}
END_TEST

/* While the import runs it holds its advisory lock on the project: the status shows
 * started. Here a session holds that lock first (the next project id), so the job waits
 * for it and the status is seen started, then finished. */
START_TEST(test_import_started)
{
	long long me;
	char *token = S(make_user("impt", &me, NULL));
	char *archive = archive_of(export_tree(""), NULL);
	long long next = sql_int("SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END"
				 " FROM projects_id_seq");
	char *done = S(fmt("%s.locked", archive));
	ck_assert_int_eq(
		system(S(fmt("(psql -q '%s' -c 'SELECT pg_advisory_lock(1768779888, %lld)'"
			     " -c '\\! touch %s' -c 'SELECT pg_sleep(3)' >/dev/null 2>&1 &)",
			     getenv("COLLABD_DATABASE_URL"), next, done))),
		0);
	for (int i = 0; i < 100 && access(done, F_OK) != 0; i++)
		usleep(50000);
	ck_assert_int_eq(access(done, F_OK), 0);
	const char *fields[] = {"path", S(unique("started")), NULL};
	resp *r = post_import(token, fields, archive);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), next);
	r = R(api("GET", S(fmt("/projects/%lld/import", next)), token, NULL));
	ck_assert_str_eq(jstr(r->json, "import_status"), "started");
	r = wait_import(token, next);
	ck_assert_str_eq(jstr(r->json, "import_status"), "finished");
	unlink(done);
}
END_TEST

/* ---- hostile archives ---- */

/* Imports archive as a new user whose email one member of project.json has (so that a
 * rollback of pass 1's rows shows): asserts a failed import whose import_error holds
 * reason, no repository, no member but the owner, no uploads. */
static void ck_hostile(const char *archive, const char *reason)
{
	long long me;
	char *name;
	char *token = S(make_user("imph", &me, &name));
	S(name);
	const char *path = S(unique("hostile"));
	const char *fields[] = {"path", path, NULL};
	resp *r = post_import(token, fields, archive);
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	r = wait_import(token, id);
	ck_assert_msg(strcmp(jstr(r->json, "import_status"), "failed") == 0, "%s", r->body);
	ck_assert_msg(jhas(r->json, "import_error") &&
			      strstr(jstr(r->json, "import_error"), reason),
		      "expected \"%s\" in %s", reason, r->body);
	char *repo = S(repo_dir_of(id));
	struct stat st;
	ck_assert_msg(stat(repo, &st) != 0, "%s is there", repo);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM members WHERE source_type = 'Project'"
				 " AND source_id = %lld",
				 id),
			 1);
	ck_assert_str_eq(S(sql_value("SELECT description IS NULL AND visibility = 0 FROM projects"
				     " WHERE id = %lld",
				     id)),
			 "t");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM background_jobs WHERE kind ="
				 " 'project_import' AND payload::jsonb->>'project_id' = '%lld'",
				 id),
			 0);
	/* and the project answers like any other */
	ck_status(R(api("GET", S(fmt("/projects/%lld", id)), token, NULL)), 200);
}

/* An export tree whose member is a user of this stack (rolled back when it fails). */
static char *hostile_tree(void)
{
	long long someone;
	S(make_user("impx", &someone, NULL));
	return export_tree(member_json(5, 30, email_of(someone)));
}

START_TEST(test_hostile_escaping_names)
{
	char *dir = hostile_tree();
	char *mark = S(unique("escaped"));
	put_file(S(fmt("%s/evil", dir)), "evil");
	/* "../": it would land beside the import's directory or above it */
	const char *e1[] = {S(fmt("file:../../%s:%s/evil", mark, dir)), NULL};
	ck_hostile(archive_of(dir, e1), "is outside its directory");
	const char *base = getenv("COLLABD_DIR");
	char *found = S(fmt("find '%s' /tmp -name '%s*' 2>/dev/null | wc -l", base, mark));
	FILE *p = popen(found, "r");
	int n = -1;
	ck_assert(fscanf(p, "%d", &n) == 1);
	pclose(p);
	ck_assert_int_eq(n, 0);
	/* an absolute name */
	char *abs = S(fmt("/tmp/%s-abs", mark));
	const char *e2[] = {S(fmt("file:%s:%s/evil", abs, dir)), NULL};
	ck_hostile(archive_of(dir, e2), "is outside its directory");
	ck_assert_int_ne(access(abs, F_OK), 0);
}
END_TEST

START_TEST(test_hostile_links_and_devices)
{
	char *dir = hostile_tree();
	/* project.json a symbolic link to a file of the server */
	const char *only_version[] = {S(fmt("file:VERSION:%s/VERSION", dir)),
				      "symlink:project.json:/etc/passwd", NULL};
	char *a1 = S(fmt("%s-link.tar.gz", dir));
	tar_build(a1, only_version);
	ck_hostile(a1, "project.json is a symbolic link");
	/* a symbolic link to a directory, then a file through it */
	const char *e2[] = {"symlink:uploads:/tmp", NULL};
	ck_hostile(archive_of(dir, e2), "uploads is a symbolic link");
	const char *e3[] = {"hardlink:uploads/x:/etc/passwd", NULL};
	ck_hostile(archive_of(dir, e3), "uploads/x is a hard link");
	const char *e4[] = {"fifo:pipe", NULL};
	ck_hostile(archive_of(dir, e4), "pipe is a FIFO");
}
END_TEST

START_TEST(test_hostile_contents)
{
	char *dir = hostile_tree();
	/* a bundle that is not one (the members of pass 1 go with the rest) */
	put_file(S(fmt("%s/project.bundle", dir)), "# v2 git bundle\nnot really\n");
	ck_hostile(archive_of(dir, NULL), "project.bundle is not a valid git bundle");
	make_bundle(dir);
	/* a version GitLab 10 never wrote */
	put_file(S(fmt("%s/VERSION", dir)), "9.9.9\n");
	ck_hostile(archive_of(dir, NULL), "Import version mismatch: Required 0.2.3 but was 9.9.9");
	put_file(S(fmt("%s/VERSION", dir)), "0.2.3\n");
	/* not a tar.gz at all */
	char *junk = S(fmt("%s-junk.tar.gz", dir));
	put_file(junk, "this is no archive");
	ck_hostile(junk, "is not a tar.gz archive");
	/* a member without its user, one at a level no project member has */
	char *d2 = export_tree("{\"id\":1,\"access_level\":30,\"user_id\":3}");
	ck_hostile(archive_of(d2, NULL), "project_members: an element has no user_id");
	char *d3 = export_tree(member_json(3, 50, "x@example.com"));
	ck_hostile(archive_of(d3, NULL), "project_members: access level 50 is invalid");
	/* project.json that is not JSON, or cut short */
	put_file(S(fmt("%s/project.json", d3)), "{\"description\": \"cut");
	ck_hostile(archive_of(d3, NULL), "project.json: the document ends before its object does");
	/* no project.json */
	unlink(S(fmt("%s/project.json", d3)));
	ck_hostile(archive_of(d3, NULL), "the archive has no project.json");
}
END_TEST

START_TEST(test_hostile_deep_and_large)
{
	char *dir = hostile_tree();
	/* project.json nested 100,000 deep */
	const char *s1[] = {S(fmt("file:VERSION:%s/VERSION", dir)), "deep:project.json:100000",
			    NULL};
	char *a1 = S(fmt("%s-deep.tar.gz", dir));
	tar_build(a1, s1);
	ck_hostile(a1, "project.json: element 0 of \"project_members\" is nested too deeply");
	/* one value of 70 MB: past the largest element the reader takes */
	const char *s2[] = {S(fmt("file:VERSION:%s/VERSION", dir)), "fill:project.json:73400320",
			    NULL};
	char *a2 = S(fmt("%s-large.tar.gz", dir));
	tar_build(a2, s2);
	ck_hostile(a2, "project.json: \"description\" is larger than 67108864 bytes");
}
END_TEST

START_TEST(test_hostile_bombs)
{
	char *dir = hostile_tree();
	/* with max_import_size 5 (MB) the files may expand to 50 MB: a project.json of
	 * 1 GB and a tar bomb of zeros both stop there, the archives being a few MB */
	ck_status(R(api("PUT", "/application/settings", admin_token(), "max_import_size=5")), 200);
	const char *s1[] = {S(fmt("file:VERSION:%s/VERSION", dir)), "fill:project.json:1073741824",
			    NULL};
	char *a1 = S(fmt("%s-gb.tar.gz", dir));
	tar_build(a1, s1);
	ck_hostile(a1, "the archive's files expand past 52428800 bytes");
	const char *s2[] = {S(fmt("file:VERSION:%s/VERSION", dir)),
			    S(fmt("file:project.json:%s/project.json", dir)),
			    "zeros:uploads/0123456789abcdef0123456789abcdef/a:30000000",
			    "zeros:uploads/0123456789abcdef0123456789abcdef/b:30000000", NULL};
	char *a2 = S(fmt("%s-bomb.tar.gz", dir));
	tar_build(a2, s2);
	ck_hostile(a2, "the archive's files expand past 52428800 bytes");
	ck_status(R(api("PUT", "/application/settings", admin_token(), "max_import_size=50")), 200);
}
END_TEST

/* ---- export ---- */

/* POST /projects/:id/export, then GET until finished (at most 60 s): the last answer. */
static resp *export_done(const char *token, long long id)
{
	ck_body(R(api("POST", S(fmt("/projects/%lld/export", id)), token, NULL)), 202,
		"{\"message\":\"202 Accepted\"}");
	for (int i = 0; i < 600; i++) {
		resp *r = R(api("GET", S(fmt("/projects/%lld/export", id)), token, NULL));
		ck_status(r, 200);
		const char *s = jstr(r->json, "export_status");
		if (strcmp(s, "finished") == 0)
			return r;
		ck_assert_msg(strcmp(s, "started") == 0, "%s", r->body);
		usleep(100000);
	}
	ck_abort_msg("export of %lld not over", id);
	return NULL;
}

START_TEST(test_export)
{
	long long me, dev, stranger;
	char *name;
	char *token = S(make_user("expo", &me, &name));
	S(name);
	char *dev_token = S(make_user("expd", &dev, NULL));
	char *stranger_token = S(make_user("exps", &stranger, NULL));
	/* an imported project: a repository, a member */
	char *dir = export_tree(member_json(7, 30, email_of(dev)));
	char *archive = archive_of(dir, NULL);
	char *path = S(unique("exp"));
	const char *fields[] = {"path", path, NULL};
	resp *r = post_import(token, fields, archive);
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	ck_assert_str_eq(jstr(wait_import(token, id)->json, "import_status"), "finished");
	/* none yet; 404 for the download; 403 to a developer, 404 to a stranger */
	r = R(api("GET", S(fmt("/projects/%lld/export", id)), token, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(jstr(r->json, "export_status"), "none");
	ck_assert(!jhas(r->json, "_links"));
	ck_body(R(api("GET", S(fmt("/projects/%lld/export/download", id)), token, NULL)), 404,
		"{\"message\":\"404 Not found or has expired\"}");
	ck_status(R(api("POST", S(fmt("/projects/%lld/export", id)), dev_token, NULL)), 403);
	ck_status(R(api("GET", S(fmt("/projects/%lld/export", id)), dev_token, NULL)), 403);
	/* the project is internal: a stranger sees it, may not export it */
	ck_status(R(api("POST", S(fmt("/projects/%lld/export", id)), stranger_token, NULL)), 403);
	long long hidden = api_project(token, "private", NULL);
	ck_body(R(api("POST", S(fmt("/projects/%lld/export", hidden)), stranger_token, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_status(R(api("GET", S(fmt("/projects/%lld/export/download", hidden)), stranger_token,
			NULL)),
		  404);
	ck_status(R(api("POST", S(fmt("/projects/%lld/export", id)), NULL, NULL)), 401);
	/* the export */
	r = export_done(token, id);
	static const char *const shape[] = {"id",         "description",
					    "name",       "name_with_namespace",
					    "path",       "path_with_namespace",
					    "created_at", "export_status",
					    "_links",     NULL};
	ck_fields(r->json, shape);
	const char *api_link = jstr(jget(r->json, "_links"), "api_url");
	ck_assert_str_eq(api_link,
			 S(fmt("%s/api/v4/projects/%lld/export/download", api_url(), id)));
	/* the download through nginx */
	const char *headers[] = {S(fmt("PRIVATE-TOKEN: %s", token)), NULL};
	r = R(http_request("GET", api_link, headers, NULL, 0, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(resp_header(r, "Content-Type"), "application/gzip");
	ck_assert_msg(strstr(resp_header(r, "Content-Disposition"), "_export.tar.gz\""), "%s",
		      resp_header(r, "Content-Disposition"));
	ck_assert(!resp_header(r, "X-Accel-Redirect"));
	char *got = S(fmt("%s/download.tar.gz", scratch()));
	FILE *f = fopen(got, "wb");
	ck_assert_int_eq(fwrite(r->body, 1, r->body_len, f), r->body_len);
	fclose(f);
	char *out = scratch();
	ck_assert_int_eq(system(S(fmt("tar -xzf '%s' -C '%s'", got, out))), 0);
	size_t n;
	ck_assert_str_eq(slurp(S(fmt("%s/VERSION", out)), &n), "0.2.3");
	json_object *tree = json_tokener_parse(slurp(S(fmt("%s/project.json", out)), &n));
	ck_assert_ptr_nonnull(tree);
	ck_assert_str_eq(jstr(tree, "description"), "Imported from GitLab 10");
	ck_assert_int_eq(jint(tree, "visibility_level"), 10);
	json_object *members = jget(tree, "project_members");
	ck_assert_int_eq(json_object_array_length(members), 2);
	bool seen = false;
	for (size_t i = 0; i < json_object_array_length(members); i++) {
		json_object *m = json_object_array_get_idx(members, i);
		json_object *u = jget(m, "user");
		if (jint(u, "id") == dev) {
			seen = true;
			ck_assert_int_eq(jint(m, "access_level"), 30);
			ck_assert_str_eq(jstr(u, "email"), email_of(dev));
		}
	}
	ck_assert(seen);
	ck_assert_int_eq(jint(jget(tree, "project_feature"), "issues_access_level"), 0);
	json_object_put(tree);
	char *vout = NULL;
	char *work = git_work_new();
	int rc = git_sh(work, &vout, "bundle list-heads '%s/project.bundle'", out);
	ck_assert_msg(rc == 0 && strstr(vout, "refs/heads/feature"), "%s", vout);
	free(vout);
	git_work_remove(work);
	ck_assert_int_ne(access(S(fmt("%s/project.wiki.bundle", out)), F_OK), 0);
	/* a wiki page and an upload, exported again: the wiki's bundle and uploads/ */
	ck_status(R(api("POST", S(fmt("/projects/%lld/wikis", id)), token,
			"title=Home&content=welcome+home")),
		  201);
	const char *up_body = S(fmt("--%s\r\nContent-Disposition: form-data; name=\"file\";"
				    " filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\n"
				    "attached\r\n--%s--\r\n",
				    boundary, boundary));
	r = R(http_request("POST", S(fmt("%s/api/v4/projects/%lld/uploads", api_url(), id)),
			   headers, up_body, strlen(up_body),
			   S(fmt("multipart/form-data; boundary=%s", boundary))));
	ck_status(r, 201);
	const char *url = S(strdup(jstr(r->json, "url"))); /* /uploads/<secret>/a.txt */
	r = export_done(token, id);
	r = R(http_request("GET", jstr(jget(r->json, "_links"), "api_url"), headers, NULL, 0,
			   NULL));
	ck_status(r, 200);
	f = fopen(got, "wb");
	ck_assert_int_eq(fwrite(r->body, 1, r->body_len, f), r->body_len);
	fclose(f);
	out = scratch();
	ck_assert_int_eq(system(S(fmt("tar -xzf '%s' -C '%s'", got, out))), 0);
	ck_assert_int_eq(access(S(fmt("%s/project.wiki.bundle", out)), F_OK), 0);
	ck_assert_str_eq(slurp(S(fmt("%s%s", out, url)), &n), "attached");
	/* one archive is kept: the new one */
	ck_assert_int_eq(system(S(fmt("test $(ls '%s/storage/ci/exports/%lld' | wc -l) = 1",
				      getenv("COLLABD_DIR"), id))),
			 0);
	/* the round trip: the export imports */
	char *path2 = S(unique("again"));
	const char *f2[] = {"path", path2, NULL};
	r = post_import(token, f2, got);
	ck_status(r, 201);
	long long id2 = jint(r->json, "id");
	r = wait_import(token, id2);
	ck_assert_msg(strcmp(jstr(r->json, "import_status"), "finished") == 0, "%s", r->body);
	ck_assert_int_eq(sql_int("SELECT access_level FROM members WHERE source_type = 'Project'"
				 " AND source_id = %lld AND user_id = %lld",
				 id2, dev),
			 30);
	r = R(api("GET", S(fmt("/projects/%lld/repository/branches", id2)), token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	r = R(api("GET", S(fmt("/projects/%lld/wikis/home", id2)), token, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(jstr(r->json, "content"), "welcome home");
	r = R(http_request("GET", S(fmt("%s/%s/%s%s", api_url(), name, path2, url)), headers, NULL,
			   0, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "attached");
}
END_TEST

Suite *suite_project_import(void)
{
	Suite *s = suite_create("project_import");
	TCase *tc = tcase_create("import");
	tcase_set_timeout(tc, 240);
	tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_import_minimal);
	tcase_add_test(tc, test_import_errors);
	tcase_add_test(tc, test_import_into_group_and_overwrite);
	tcase_add_test(tc, test_import_started);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_hostile_escaping_names);
	tcase_add_test(tc, test_hostile_links_and_devices);
	tcase_add_test(tc, test_hostile_contents);
	tcase_add_test(tc, test_hostile_deep_and_large);
	tcase_add_test(tc, test_hostile_bombs);
	suite_add_tcase(s, tc);
	tc = tcase_create("export");
	tcase_set_timeout(tc, 240);
	tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_export);
	suite_add_tcase(s, tc);
	return s;
}
