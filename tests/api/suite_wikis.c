/* API suite: wikis (GET/POST /projects/:id/wikis, GET/PUT/DELETE /wikis/:slug): the
 * page records, slugs, formats, renames, errors, access per role and visibility and
 * with wiki_enabled off, and the wiki as a git repository (<project>.wiki.git) over
 * HTTP and SSH, both ways: pages written through the API are cloned, pages pushed are
 * read through the API at once, and a wiki push records no code push. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "client.h"

static char *work; /* scratch directory for clones, also git's HOME */

static void setup(void)
{
	work = git_work_new();
}

static void teardown(void)
{
	release();
	git_work_remove(work);
}

#define sh(out, ...) git_sh(work, (out), __VA_ARGS__)

typedef struct {
	long long id;
	long long owner_id;
	char *owner; /* token */
	char *path;  /* full path */
} fx;

static void project(fx *f, const char *visibility)
{
	f->owner = S(make_user("wiki", &f->owner_id, NULL));
	f->id = api_project(f->owner, visibility, &f->path);
	S(f->path);
}

static const char *wikis(const fx *f, const char *suffix)
{
	return S(fmt("/projects/%lld/wikis%s", f->id, suffix));
}

static void add_member(long long project, long long user, int level)
{
	ck_code(R(api("POST", S(fmt("/projects/%lld/members", project)), admin_token(),
		      S(fmt("user_id=%lld&access_level=%d", user, level)))),
		201);
}

static resp *create(const fx *f, const char *token, const char *form)
{
	return R(api("POST", wikis(f, ""), token, form));
}

/* http://u:<token>@host/<path>.wiki.git (anonymous when token is NULL) */
static char *wiki_url(const char *token, const char *path)
{
	const char *base = api_url();
	if (!token)
		return S(fmt("%s/%s.wiki.git", base, path));
	return S(fmt("http://u:%s@%s/%s.wiki.git", token, base + strlen("http://"), path));
}

/* The status of GET <wiki>/info/refs?service=... as token. */
static long info_refs(const char *token, const char *path, const char *service)
{
	resp *r = R(http_request("GET",
				 S(fmt("%s/info/refs?service=%s", wiki_url(token, path), service)),
				 NULL, NULL, 0, NULL));
	return r->status;
}

static char *file_text(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *file_text(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *path = NULL;
	ck_assert_int_ge(vasprintf(&path, f, ap), 0);
	va_end(ap);
	FILE *fp = fopen(path, "r");
	free(path);
	if (!fp)
		return NULL;
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return S(strdup(buf));
}

START_TEST(test_wikis_shape)
{
	fx f;
	project(&f, "private");
	static const char *const full[] = {"format", "slug", "title", "content", NULL};
	static const char *const basic[] = {"format", "slug", "title", NULL};
	/* markdown by default; the title's spaces are hyphens in the slug */
	resp *r = create(&f, f.owner, "title=Home%20Page&content=Hello%20*wiki*");
	ck_status(r, 201);
	ck_body(r, 201,
		"{\"format\":\"markdown\",\"slug\":\"Home-Page\",\"title\":\"Home Page\","
		"\"content\":\"Hello *wiki*\"}");
	ck_fields(r->json, full);
	/* the other formats */
	ck_body(create(&f, f.owner, "title=Notes&content=%3D%20Notes&format=rdoc"), 201,
		"{\"format\":\"rdoc\",\"slug\":\"Notes\",\"title\":\"Notes\","
		"\"content\":\"= Notes\"}");
	ck_body(create(&f, f.owner, "title=Guide&content=%3D%3D%20Guide&format=asciidoc"), 201,
		"{\"format\":\"asciidoc\",\"slug\":\"Guide\",\"title\":\"Guide\","
		"\"content\":\"== Guide\"}");
	/* directories are kept; the title is the last part */
	ck_body(create(&f, f.owner, "title=docs%2Fhow%20to%20%2B%20why&content=x&format=markdown"),
		201,
		"{\"format\":\"markdown\",\"slug\":\"docs/how-to---why\",\"title\":\"how to why\","
		"\"content\":\"x\"}");
	/* one page: with content; found by its slug without regard to case */
	ck_body(R(api("GET", wikis(&f, "/Home-Page"), f.owner, NULL)), 200,
		"{\"format\":\"markdown\",\"slug\":\"Home-Page\",\"title\":\"Home Page\","
		"\"content\":\"Hello *wiki*\"}");
	ck_code(R(api("GET", wikis(&f, "/home-page"), f.owner, NULL)), 200);
	ck_body(R(api("GET", wikis(&f, "/docs%2Fhow-to---why"), f.owner, NULL)), 200,
		"{\"format\":\"markdown\",\"slug\":\"docs/how-to---why\",\"title\":\"how to why\","
		"\"content\":\"x\"}");
	/* the list, in the repository's order: no content unless asked for */
	r = R(api("GET", wikis(&f, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 4);
	static const char *const order[] = {"Guide", "Home-Page", "Notes", "docs/how-to---why"};
	for (int i = 0; i < 4; i++) {
		json_object *o = json_object_array_get_idx(r->json, (size_t)i);
		ck_fields(o, basic);
		ck_assert_str_eq(jstr(o, "slug"), order[i]);
	}
	ck_pages(r, wikis(&f, ""), "", 4, 20, 1);
	r = R(api("GET", wikis(&f, "?with_content=true"), f.owner, NULL));
	ck_status(r, 200);
	ck_fields(json_object_array_get_idx(r->json, 2), full);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 2), "content"), "= Notes");
	/* pagination */
	r = R(api("GET", wikis(&f, "?per_page=3&page=2"), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "slug"), "docs/how-to---why");
	ck_pages(r, wikis(&f, ""), "", 4, 3, 2);
	/* a project without a wiki yet: none, and no repository made by reading */
	fx g;
	project(&g, "public");
	r = R(api("GET", wikis(&g, ""), NULL, NULL));
	ck_body(r, 200, "[]");
	ck_pages(r, wikis(&g, ""), "", 0, 20, 1);
	char *dir = S(repo_dir_of(g.id));
	ck_assert_ptr_null(file_text("%.*s.wiki.git/HEAD", (int)strlen(dir) - 4, dir));
}
END_TEST

START_TEST(test_wikis_errors)
{
	fx f;
	project(&f, "private");
	ck_code(create(&f, f.owner, "title=Page&content=text"), 201);
	/* required and valid parameters: 400 before anything is written */
	ck_body(create(&f, f.owner, "content=text"), 400,
		"{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}");
	ck_body(create(&f, f.owner, "title=T"), 400,
		"{\"message\":\"400 (Bad request) \\\"content\\\" not given\"}");
	ck_body(create(&f, f.owner, "title=T&content=x&format=textile"), 400,
		"{\"error\":\"format does not have a valid value\"}");
	ck_body(create(&f, f.owner, "title=&content=x"), 400,
		"{\"message\":{\"title\":[\"can't be blank\"]}}");
	ck_body(create(&f, f.owner, "title=T&content="), 400,
		"{\"message\":{\"content\":[\"can't be blank\"]}}");
	ck_body(create(&f, f.owner, "title=..%2Fup&content=x"), 400,
		"{\"message\":{\"title\":[\"is invalid\"]}}");
	ck_body(create(&f, f.owner, "title=a%2F%2Fb&content=x"), 400,
		"{\"message\":{\"title\":[\"is invalid\"]}}");
	/* the same page again, in any format or case */
	static const char dup[] = "{\"message\":{\"base\":[\"Duplicate page: A page with that title"
				  " already exists\"]}}";
	ck_body(create(&f, f.owner, "title=Page&content=again"), 400, dup);
	ck_body(create(&f, f.owner, "title=page&content=again&format=rdoc"), 400, dup);
	ck_body(R(api("GET", wikis(&f, "/Page"), f.owner, NULL)), 200,
		"{\"format\":\"markdown\",\"slug\":\"Page\",\"title\":\"Page\","
		"\"content\":\"text\"}");
	/* updates */
	ck_body(R(api("PUT", wikis(&f, "/Page"), f.owner, "format=rdoc")), 400,
		"{\"error\":\"content, title are missing, at least one parameter must be "
		"provided\"}");
	ck_body(R(api("PUT", wikis(&f, "/Page"), f.owner, "content=x&format=org")), 400,
		"{\"error\":\"format does not have a valid value\"}");
	ck_body(R(api("PUT", wikis(&f, "/Page"), f.owner, "title=")), 400,
		"{\"message\":{\"title\":[\"can't be blank\"]}}");
	ck_body(R(api("PUT", wikis(&f, "/Nothing"), f.owner, "content=x")), 404,
		"{\"message\":\"404 Wiki Page Not Found\"}");
	/* not found */
	ck_body(R(api("GET", wikis(&f, "/Nothing"), f.owner, NULL)), 404,
		"{\"message\":\"404 Wiki Page Not Found\"}");
	ck_body(R(api("GET", wikis(&f, "/dir%2FPage"), f.owner, NULL)), 404,
		"{\"message\":\"404 Wiki Page Not Found\"}");
	ck_body(R(api("DELETE", wikis(&f, "/Nothing"), f.owner, NULL)), 404,
		"{\"message\":\"404 Wiki Page Not Found\"}");
	ck_body(R(api("GET", "/projects/999999999/wikis", f.owner, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_code(R(api("GET", wikis(&f, "?with_content=maybe"), f.owner, NULL)), 400);
	/* nothing of the above changed the wiki */
	resp *r = R(api("GET", wikis(&f, "?with_content=true"), f.owner, NULL));
	ck_body(r, 200,
		"[{\"format\":\"markdown\",\"slug\":\"Page\",\"title\":\"Page\","
		"\"content\":\"text\"}]");
	/* writes need credentials */
	ck_body(create(&f, NULL, "title=A&content=b"), 401, "{\"message\":\"401 Unauthorized\"}");
}
END_TEST

START_TEST(test_wikis_access)
{
	fx f;
	project(&f, "private");
	long long ids[5];
	char *tok[5];
	static const int levels[] = {10, 20, 30, 40};
	for (int i = 0; i < 5; i++)
		tok[i] = S(make_user("wiki", &ids[i], NULL));
	for (int i = 0; i < 4; i++)
		add_member(f.id, ids[i], levels[i]);
	char *guest = tok[0], *reporter = tok[1], *dev = tok[2], *master = tok[3],
	     *stranger = tok[4];
	ck_code(create(&f, f.owner, "title=Home&content=x"), 201);
	/* private: members read (guests too), strangers and anonymous see no project */
	ck_code(R(api("GET", wikis(&f, ""), guest, NULL)), 200);
	ck_code(R(api("GET", wikis(&f, "/Home"), guest, NULL)), 200);
	ck_body(R(api("GET", wikis(&f, ""), stranger, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_code(R(api("GET", wikis(&f, "/Home"), NULL, NULL)), 404);
	ck_code(create(&f, stranger, "title=S&content=x"), 404);
	/* writing: developers and up */
	ck_body(create(&f, guest, "title=G&content=x"), 403, "{\"message\":\"403 Forbidden\"}");
	ck_code(create(&f, reporter, "title=R&content=x"), 403);
	ck_code(R(api("PUT", wikis(&f, "/Home"), reporter, "content=y")), 403);
	ck_code(create(&f, dev, "title=D&content=x"), 201);
	ck_code(R(api("PUT", wikis(&f, "/Home"), dev, "content=by%20dev")), 200);
	/* deleting: masters and up */
	ck_code(R(api("DELETE", wikis(&f, "/D"), dev, NULL)), 403);
	ck_code(R(api("DELETE", wikis(&f, "/D"), master, NULL)), 204);
	ck_code(R(api("GET", wikis(&f, "/D"), master, NULL)), 404);
	ck_code(R(api("DELETE", wikis(&f, "/Home"), admin_token(), NULL)), 204);

	/* public: anyone reads, signed-in strangers do not write, anonymous are asked to sign in */
	fx p;
	project(&p, "public");
	ck_code(create(&p, p.owner, "title=Pub&content=x"), 201);
	ck_code(R(api("GET", wikis(&p, "/Pub"), NULL, NULL)), 200);
	ck_code(R(api("GET", wikis(&p, ""), stranger, NULL)), 200);
	ck_code(create(&p, stranger, "title=S&content=x"), 403);
	ck_code(R(api("PUT", wikis(&p, "/Pub"), NULL, "content=x")), 401);
	ck_code(R(api("DELETE", wikis(&p, "/Pub"), stranger, NULL)), 403);

	/* internal: signed-in users read; external users see no project */
	fx in;
	project(&in, "internal");
	ck_code(create(&in, in.owner, "title=In&content=x"), 201);
	ck_code(R(api("GET", wikis(&in, "/In"), stranger, NULL)), 200);
	ck_code(R(api("GET", wikis(&in, "/In"), NULL, NULL)), 404);
	long long ext_id;
	char *ext = S(make_user("wiki", &ext_id, NULL));
	ck_code(R(api("PUT", S(fmt("/users/%lld", ext_id)), admin_token(), "external=true")), 200);
	ck_code(R(api("GET", wikis(&in, "/In"), ext, NULL)), 404);

	/* wiki_enabled off: 403 to everyone who sees the project, and no git either */
	ck_code(R(api("PUT", S(fmt("/projects/%lld", p.id)), p.owner, "wiki_enabled=false")), 200);
	ck_body(R(api("GET", wikis(&p, ""), p.owner, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("GET", wikis(&p, "/Pub"), NULL, NULL)), 403);
	ck_code(create(&p, p.owner, "title=Off&content=x"), 403);
	ck_code(R(api("DELETE", wikis(&p, "/Pub"), admin_token(), NULL)), 403);
	ck_assert_int_eq(info_refs(p.owner, p.path, "git-upload-pack"), 403);
	ck_assert_int_eq(info_refs(p.owner, p.path, "git-receive-pack"), 403);
	ck_code(R(api("PUT", S(fmt("/projects/%lld", p.id)), p.owner, "wiki_enabled=true")), 200);
	ck_code(R(api("GET", wikis(&p, "/Pub"), NULL, NULL)), 200);
}
END_TEST

START_TEST(test_wikis_update_rename)
{
	fx f;
	project(&f, "private");
	ck_code(create(&f, f.owner, "title=Old%20Name&content=first"), 201);
	ck_code(create(&f, f.owner, "title=Other&content=other"), 201);
	/* content only: same page */
	ck_body(R(api("PUT", wikis(&f, "/Old-Name"), f.owner, "content=second")), 200,
		"{\"format\":\"markdown\",\"slug\":\"Old-Name\",\"title\":\"Old Name\","
		"\"content\":\"second\"}");
	/* a new title moves the file, the content comes along */
	ck_body(R(api("PUT", wikis(&f, "/old-name"), f.owner, "title=New%20Name")), 200,
		"{\"format\":\"markdown\",\"slug\":\"New-Name\",\"title\":\"New Name\","
		"\"content\":\"second\"}");
	ck_code(R(api("GET", wikis(&f, "/Old-Name"), f.owner, NULL)), 404);
	ck_code(R(api("GET", wikis(&f, "/New-Name"), f.owner, NULL)), 200);
	/* a new format: rdoc now */
	ck_body(R(api("PUT", wikis(&f, "/New-Name"), f.owner, "content=%3D%20t&format=rdoc")), 200,
		"{\"format\":\"rdoc\",\"slug\":\"New-Name\",\"title\":\"New Name\","
		"\"content\":\"= t\"}");
	/* into a directory */
	ck_body(R(api("PUT", wikis(&f, "/New-Name"), f.owner, "title=sub%2FMoved")), 200,
		"{\"format\":\"rdoc\",\"slug\":\"sub/Moved\",\"title\":\"Moved\","
		"\"content\":\"= t\"}");
	/* a page stays in its directory when the title names none */
	ck_body(R(api("PUT", wikis(&f, "/sub%2FMoved"), f.owner, "title=Again")), 200,
		"{\"format\":\"rdoc\",\"slug\":\"sub/Again\",\"title\":\"Again\","
		"\"content\":\"= t\"}");
	/* onto another page (a leading '/' names the top): refused, nothing moves */
	ck_body(R(api("PUT", wikis(&f, "/sub%2FAgain"), f.owner, "title=%2FOther")), 400,
		"{\"message\":{\"base\":[\"Duplicate page: A page with that title already "
		"exists\"]}}");
	ck_body(R(api("PUT", wikis(&f, "/Other"), f.owner, "title=sub%2Fagain")), 400,
		"{\"message\":{\"base\":[\"Duplicate page: A page with that title already "
		"exists\"]}}");
	resp *r = R(api("GET", wikis(&f, ""), f.owner, NULL));
	ck_body(r, 200,
		"[{\"format\":\"markdown\",\"slug\":\"Other\",\"title\":\"Other\"},"
		"{\"format\":\"rdoc\",\"slug\":\"sub/Again\",\"title\":\"Again\"}]");
	/* the files of master: one per page */
	char *out;
	ck_assert_int_eq(sh(&out, "clone -q '%s' w", wiki_url(f.owner, f.path)), 0);
	free(out);
	ck_assert_int_eq(sh(&out, "-C w ls-files"), 0);
	ck_assert_str_eq(S(out), "Other.md\nsub/Again.rdoc\n");
	/* delete: 204, no body, the file gone */
	r = R(api("DELETE", wikis(&f, "/sub%2FAgain"), f.owner, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_assert_int_eq(sh(&out, "-C w pull -q && git -C w ls-files"), 0);
	ck_assert_str_eq(S(out), "Other.md\n");
	/* a renamed project keeps its wiki; a removed one loses it */
	ck_code(R(api("PUT", S(fmt("/projects/%lld", f.id)), f.owner,
		      S(fmt("path=%s-moved", strrchr(f.path, '/') + 1)))),
		200);
	ck_code(R(api("GET", wikis(&f, "/Other"), f.owner, NULL)), 200);
	char *dir = S(repo_dir_of(f.id));
	char *wiki = S(fmt("%.*s.wiki.git", (int)strlen(dir) - 4, dir));
	ck_assert_ptr_nonnull(file_text("%s/HEAD", wiki));
	ck_code(R(api("DELETE", S(fmt("/projects/%lld", f.id)), f.owner, NULL)), 202);
	ck_assert_msg(wait_gone(wiki), "the wiki of a removed project stays");
}
END_TEST

START_TEST(test_wikis_git_http)
{
	fx f;
	project(&f, "private");
	long long dev_id, rep_id;
	char *dev = S(make_user("wiki", &dev_id, NULL));
	char *rep = S(make_user("wiki", &rep_id, NULL));
	add_member(f.id, dev_id, 30);
	add_member(f.id, rep_id, 20);
	char *out;
	S(sql_value("UPDATE projects SET last_activity_at = '2000-01-01' WHERE id = %lld"
		    " RETURNING id",
		    f.id));
	/* an empty wiki clones (made by its first use), and the first push makes master */
	ck_assert_int_eq(sh(&out, "clone -q '%s' a", wiki_url(dev, f.path)), 0);
	free(out);
	ck_assert_int_eq(sh(&out, "--version >/dev/null && printf 'Pushed *page*' > "
				  "a/Pushed-Page.md && mkdir a/d && printf x > a/d/Deep.rdoc && "
				  "printf 'not a page' > a/notes.txt && git -C a add -A && "
				  "git -C a commit -q -m 'from git' && "
				  "git -C a push -q origin master"),
			 0);
	free(out);
	/* post-receive ran in the wiki: the project's activity, and nothing else */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE id = %lld"
				 " AND last_activity_at > now() - interval '1 hour'",
				 f.id),
			 1);
	/* the API reads it at once */
	ck_body(R(api("GET", wikis(&f, "/Pushed-Page"), rep, NULL)), 200,
		"{\"format\":\"markdown\",\"slug\":\"Pushed-Page\",\"title\":\"Pushed Page\","
		"\"content\":\"Pushed *page*\"}");
	ck_body(R(api("GET", wikis(&f, ""), rep, NULL)), 200,
		"[{\"format\":\"markdown\",\"slug\":\"Pushed-Page\",\"title\":\"Pushed Page\"},"
		"{\"format\":\"rdoc\",\"slug\":\"d/Deep\",\"title\":\"Deep\"}]");
	/* the API writes on top, as the caller; git fetches it */
	ck_code(R(api("PUT", wikis(&f, "/Pushed-Page"), dev, "content=edited")), 200);
	ck_assert_int_eq(sh(&out, "-C a pull -q && cat a/Pushed-Page.md && "
				  "git -C a log -1 --format='%%an|%%s'"),
			 0);
	char *name = S(strdup(jstr(R(api("GET", "/user", dev, NULL))->json, "name")));
	char *username = S(strdup(jstr(R(api("GET", "/user", dev, NULL))->json, "username")));
	ck_assert_str_eq(S(out), S(fmt("edited%s|%s updated page: Pushed-Page\n", name, username)));
	/* a second push after the API's commit is read again at once */
	ck_assert_int_eq(sh(&out, "-C a rm -q d/Deep.rdoc && git -C a commit -q -m rm && "
				  "git -C a push -q"),
			 0);
	free(out);
	ck_code(R(api("GET", wikis(&f, "/d%2FDeep"), rep, NULL)), 404);
	/* reporters pull, do not push; strangers see nothing; anonymous are asked */
	ck_assert_int_eq(sh(&out, "clone -q '%s' b", wiki_url(rep, f.path)), 0);
	free(out);
	ck_assert_int_ne(sh(&out, "-C b commit -q --allow-empty -m no && git -C b push -q"), 0);
	free(out);
	ck_assert_int_eq(info_refs(rep, f.path, "git-receive-pack"), 403);
	ck_assert_int_eq(info_refs(dev, f.path, "git-receive-pack"), 200);
	ck_assert_int_eq(info_refs(NULL, f.path, "git-upload-pack"), 401);
	long long sid;
	char *stranger = S(make_user("wiki", &sid, NULL));
	ck_assert_int_eq(info_refs(stranger, f.path, "git-upload-pack"), 404);
	/* a wiki push is no code push: no push event, no push job, no default branch */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE project_id = %lld"
				 " AND action = 'pushed'",
				 f.id),
			 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM background_jobs WHERE kind = 'push'"
				 " AND payload->>'project_id' = '%lld'",
				 f.id),
			 0);
	resp *pr = R(api("GET", S(fmt("/projects/%lld", f.id)), f.owner, NULL));
	ck_status(pr, 200);
	ck_assert(jnull(pr->json, "default_branch"));
	/* protected branches are the project's, not the wiki's: a developer force-pushes */
	ck_code(R(api("POST", S(fmt("/projects/%lld/protected_branches", f.id)), f.owner,
		      "name=master")),
		201);
	ck_assert_int_eq(sh(&out, "-C a commit -q --amend -m amended && "
				  "git -C a push -q -f origin master"),
			 0);
	free(out);
	/* a public project's wiki clones anonymously */
	fx p;
	project(&p, "public");
	ck_code(create(&p, p.owner, "title=Open&content=open"), 201);
	ck_assert_int_eq(sh(&out, "clone -q '%s' c && cat c/Open.md", wiki_url(NULL, p.path)), 0);
	ck_assert_str_eq(S(out), "open");
	ck_assert_int_eq(info_refs(NULL, p.path, "git-receive-pack"), 401);
}
END_TEST

/* ---- SSH ---- */

static char *ssh_command(const char *key)
{
	return S(fmt("ssh -p %s -i %s/%s -o StrictHostKeyChecking=no "
		     "-o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes -o BatchMode=yes "
		     "-o LogLevel=ERROR",
		     getenv("COLLABD_SSH_PORT"), work, key));
}

static char *ssh_url(const char *path)
{
	const char *u = getenv("COLLABD_SSH_USER");
	return S(fmt("%s@127.0.0.1:%s.wiki.git", u ? u : "root", path));
}

START_TEST(test_wikis_ssh)
{
	ck_assert_msg(getenv("COLLABD_SSH_PORT"), "no sshd in the stack (COLLABD_SSH_PORT)");
	fx f;
	project(&f, "private");
	long long rep_id;
	char *rep = S(make_user("wiki", &rep_id, NULL));
	add_member(f.id, rep_id, 20);
	ck_code(create(&f, f.owner, "title=By%20API&content=api"), 201);
	char *out;
	char *pub[2];
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(
			system(S(fmt("ssh-keygen -q -t ed25519 -N '' -f '%s/key%d'", work, i))), 0);
		pub[i] = file_text("%s/key%d.pub", work, i);
		pub[i][strcspn(pub[i], "\n")] = '\0';
	}
	ck_code(R(api("POST", "/user/keys", f.owner, S(fmt("title=k&key=%s", S(enc(pub[0])))))),
		201);
	ck_code(R(api("POST", "/user/keys", rep, S(fmt("title=k&key=%s", S(enc(pub[1])))))), 201);
	/* clone, push; the API reads the push */
	ck_assert_int_eq(sh(&out, "clone -q -c core.sshCommand='%s' '%s' s && cat s/By-API.md",
			    ssh_command("key0"), ssh_url(f.path)),
			 0);
	ck_assert_str_eq(S(out), "api");
	ck_assert_int_eq(sh(&out, "-C s mv By-API.md Over-SSH.md && git -C s commit -q -m mv && "
				  "git -C s push -q"),
			 0);
	free(out);
	ck_body(R(api("GET", wikis(&f, "/Over-SSH"), f.owner, NULL)), 200,
		"{\"format\":\"markdown\",\"slug\":\"Over-SSH\",\"title\":\"Over SSH\","
		"\"content\":\"api\"}");
	ck_code(R(api("GET", wikis(&f, "/By-API"), f.owner, NULL)), 404);
	/* a reporter's key reads but does not push */
	ck_assert_int_eq(sh(&out, "clone -q -c core.sshCommand='%s' '%s' r", ssh_command("key1"),
			    ssh_url(f.path)),
			 0);
	free(out);
	ck_assert_int_ne(sh(&out, "-C r commit -q --allow-empty -m no && git -C r push -q"), 0);
	ck_assert_ptr_nonnull(strstr(S(out), "not allowed to write to this project's wiki"));
}
END_TEST

Suite *suite_wikis(void)
{
	Suite *s = suite_create("wikis");
	TCase *tc = tcase_create("wikis");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_wikis_shape);
	tcase_add_test(tc, test_wikis_errors);
	tcase_add_test(tc, test_wikis_access);
	tcase_add_test(tc, test_wikis_update_rename);
	tcase_add_test(tc, test_wikis_git_http);
	tcase_add_test(tc, test_wikis_ssh);
	suite_add_tcase(s, tc);
	return s;
}
