/* Unit suite: ci (.gitlab-ci.yml as GitLab 10 read it; no database), and the expected
 * failures of the repository functions the pipelines read through (core/errors.h). */
#include <check.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef fail

#include "ci/yaml.h"
#include "core/errors.h"
#include "db/db.h"
#include "git/commits.h"
#include "git/graph.h"
#include "git/refs.h"
#include "git/repo.h"

static arena *A;

static void setup(void)
{
	A = arena_new();
}

static void teardown(void)
{
	arena_destroy(A);
	A = NULL;
}

/* Parses text, which must be valid. */
static ci_config ok(const char *text)
{
	ci_config cf;
	const char *err = NULL;
	int rc = ci_yaml_parse(A, text, strlen(text), &cf, &err);
	ck_assert_msg(rc == 0, "unexpected error: %s", err ? err : "(none)");
	return cf;
}

/* The error of text, which must be invalid. */
static const char *bad(const char *text)
{
	ci_config cf;
	const char *err = NULL;
	ck_assert_int_eq(ci_yaml_parse(A, text, strlen(text), &cf, &err), ERR_INVALID);
	ck_assert_ptr_nonnull(err);
	return err;
}

static const ci_job *job(const ci_config *cf, const char *name)
{
	for (int i = 0; i < cf->njobs; i++)
		if (strcmp(cf->jobs[i].name, name) == 0)
			return &cf->jobs[i];
	ck_abort_msg("no job %s", name);
	return NULL;
}

/* The JSON of o's member at path ("a.b"), as text. */
static const char *at(json_object *o, const char *path)
{
	char *p = arena_strdup(A, path);
	for (char *k = strtok(p, "."); k; k = strtok(NULL, "."))
		if (!json_object_object_get_ex(o, k, &o))
			return NULL;
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

START_TEST(test_minimal)
{
	ci_config cf = ok("rspec:\n  script: rake spec\n");
	ck_assert_int_eq(cf.nstages, 3);
	ck_assert_str_eq(cf.stages[0], "build");
	ck_assert_str_eq(cf.stages[2], "deploy");
	ck_assert_int_eq(cf.njobs, 1);
	const ci_job *j = &cf.jobs[0];
	ck_assert_str_eq(j->name, "rspec");
	ck_assert_str_eq(j->stage, "test");
	ck_assert_int_eq(j->stage_idx, 1);
	ck_assert_str_eq(j->when, "on_success");
	ck_assert(!j->allow_failure);
	ck_assert_str_eq(at(j->options, "script"), "[\"rake spec\"]");
	ck_assert_str_eq(json_object_to_json_string(j->tags), "[ ]");
	ck_assert_ptr_null(j->only);
	ck_assert_ptr_null(j->environment);
}
END_TEST

START_TEST(test_stages_and_order)
{
	ci_config cf = ok("stages: [lint, build, ship]\n"
			  "z_ship:\n  stage: ship\n  script: [a]\n"
			  "a_build:\n  stage: build\n  script: [b]\n"
			  "y_lint:\n  type: lint\n  script: [c]\n"
			  "b_build:\n  stage: build\n  script: [d]\n");
	ck_assert_int_eq(cf.nstages, 3);
	ck_assert_int_eq(cf.njobs, 4);
	/* by stage, then in the file's order */
	ck_assert_str_eq(cf.jobs[0].name, "y_lint");
	ck_assert_str_eq(cf.jobs[1].name, "a_build");
	ck_assert_str_eq(cf.jobs[2].name, "b_build");
	ck_assert_str_eq(cf.jobs[3].name, "z_ship");
	ck_assert_int_eq(cf.jobs[3].stage_idx, 2);
	/* types is the old name of stages */
	cf = ok("types: [one, two]\nj:\n  stage: two\n  script: x\n");
	ck_assert_int_eq(cf.jobs[0].stage_idx, 1);
	ck_assert_str_eq(bad("stages: [one]\nj:\n  script: x\n"),
			 "j job: stage parameter should be one");
	ck_assert_str_eq(bad("j:\n  stage: nope\n  script: x\n"),
			 "j job: stage parameter should be build, test, deploy");
	ck_assert_str_eq(bad("stages: one\nj:\n  script: x\n"),
			 "stages config should be an array of strings");
}
END_TEST

START_TEST(test_globals_inherited)
{
	ci_config cf = ok("image: ruby:2.4\n"
			  "services: [postgres, {name: redis, alias: cache}]\n"
			  "before_script: [bundle]\n"
			  "after_script: [cleanup]\n"
			  "variables: {DB: pg, N: 3}\n"
			  "cache: {paths: [vendor/]}\n"
			  "a:\n  script: x\n"
			  "b:\n  script: y\n  image: {name: alpine, entrypoint: ['']}\n"
			  "  before_script: []\n  variables: {DB: mysql, OWN: 'yes'}\n"
			  "  cache: {key: k, untracked: true, policy: pull}\n");
	const ci_job *a = job(&cf, "a"), *b = job(&cf, "b");
	ck_assert_str_eq(at(a->options, "image"), "{\"name\":\"ruby:2.4\"}");
	ck_assert_str_eq(at(a->options, "services"),
			 "[{\"name\":\"postgres\"},{\"name\":\"redis\",\"alias\":\"cache\"}]");
	ck_assert_str_eq(at(a->options, "before_script"), "[\"bundle\"]");
	ck_assert_str_eq(at(a->options, "after_script"), "[\"cleanup\"]");
	ck_assert_str_eq(at(a->options, "cache"), "{\"key\":\"default\",\"paths\":[\"vendor\\/\"],"
						  "\"policy\":\"pull-push\"}");
	ck_assert_str_eq(json_object_to_json_string_ext(a->variables, JSON_C_TO_STRING_PLAIN),
			 "[{\"key\":\"DB\",\"value\":\"pg\",\"public\":true},"
			 "{\"key\":\"N\",\"value\":\"3\",\"public\":true}]");
	ck_assert_str_eq(at(b->options, "image"), "{\"name\":\"alpine\",\"entrypoint\":[\"\"]}");
	ck_assert_str_eq(at(b->options, "before_script"), "[]");
	ck_assert_str_eq(at(b->options, "cache"),
			 "{\"key\":\"k\",\"untracked\":true,\"policy\":\"pull\"}");
	ck_assert_str_eq(json_object_to_json_string_ext(b->variables, JSON_C_TO_STRING_PLAIN),
			 "[{\"key\":\"DB\",\"value\":\"mysql\",\"public\":true},"
			 "{\"key\":\"N\",\"value\":\"3\",\"public\":true},"
			 "{\"key\":\"OWN\",\"value\":\"yes\",\"public\":true}]");
}
END_TEST

START_TEST(test_job_keys)
{
	ci_config cf = ok("build:\n  stage: build\n  script: make\n"
			  "  artifacts: {name: bin, paths: [out/], untracked: false, when: always,"
			  " expire_in: 1 week}\n"
			  "test:\n  script: [make check]\n  dependencies: [build]\n"
			  "  tags: [docker, linux]\n  retry: 2\n  coverage: '/(\\d+)% covered/'\n"
			  "  allow_failure: true\n  when: on_failure\n"
			  "deploy:\n  stage: deploy\n  script: ship\n  when: manual\n"
			  "  environment: {name: review/$CI_COMMIT_REF_NAME,"
			  " url: 'https://x.example',"
			  " on_stop: stop}\n"
			  "stop:\n  stage: deploy\n  script: unship\n  when: manual\n"
			  "  allow_failure: false\n"
			  "  environment: {name: review/$CI_COMMIT_REF_NAME, action: stop}\n");
	const ci_job *b = job(&cf, "build"), *t = job(&cf, "test"), *d = job(&cf, "deploy"),
		     *s = job(&cf, "stop");
	ck_assert_str_eq(at(b->options, "artifacts"),
			 "{\"name\":\"bin\",\"paths\":[\"out\\/\"],\"untracked\":false,"
			 "\"when\":\"always\",\"expire_in\":\"1 week\"}");
	ck_assert_str_eq(at(t->options, "dependencies"), "[\"build\"]");
	ck_assert_str_eq(json_object_to_json_string_ext(t->tags, JSON_C_TO_STRING_PLAIN),
			 "[\"docker\",\"linux\"]");
	ck_assert_str_eq(at(t->options, "retry"), "2");
	ck_assert_str_eq(at(t->options, "coverage"), "\"(\\\\d+)% covered\"");
	ck_assert(t->allow_failure);
	ck_assert_str_eq(t->when, "on_failure");
	/* manual: allows failure unless it says otherwise */
	ck_assert_str_eq(d->when, "manual");
	ck_assert(d->allow_failure);
	ck_assert(!s->allow_failure);
	ck_assert_str_eq(d->environment, "review/$CI_COMMIT_REF_NAME");
	ck_assert_str_eq(at(d->options, "environment"),
			 "{\"name\":\"review\\/$CI_COMMIT_REF_NAME\","
			 "\"url\":\"https:\\/\\/x.example\","
			 "\"action\":\"start\",\"on_stop\":\"stop\"}");
	ck_assert_str_eq(at(s->options, "environment.action"), "\"stop\"");
	/* a string environment is its name */
	cf = ok("d:\n  script: x\n  environment: production\n");
	ck_assert_str_eq(cf.jobs[0].environment, "production");
	ck_assert_str_eq(at(cf.jobs[0].options, "environment"),
			 "{\"name\":\"production\",\"action\":\"start\"}");
}
END_TEST

START_TEST(test_job_errors)
{
	ck_assert_str_eq(bad("rspec:\n  stage: test\n"), "jobs:rspec script can't be blank");
	ck_assert_str_eq(bad("rspec:\n  script: []\n"), "jobs:rspec script can't be blank");
	ck_assert_str_eq(bad("rspec:\n  script: {a: b}\n"),
			 "jobs:rspec:script config should be a string or an array of strings");
	ck_assert_str_eq(bad("rspec: 3\n"), "jobs:rspec config should be a hash");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  foo: 1\n  bar: 2\n"),
			 "jobs:rspec config contains unknown keys: foo, bar");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  when: sometimes\n"),
			 "jobs:rspec when should be on_success, on_failure, always or manual");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  allow_failure: maybe\n"),
			 "jobs:rspec allow_failure should be a boolean value");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  tags: docker\n"),
			 "jobs:rspec tags should be an array of strings");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  dependencies: build\n"),
			 "jobs:rspec dependencies should be an array of strings");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  retry: 3\n"),
			 "jobs:rspec retry must be less than or equal to 2");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  retry: two\n"),
			 "jobs:rspec retry is not a number");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  coverage: '\\d+'\n"),
			 "jobs:rspec:coverage config must be a regular expression");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  only: master\n"),
			 "jobs:rspec:only config should be an array of strings or regexps");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  except: ['/(/']\n"),
			 "jobs:rspec:except config should be an array of strings or regexps");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  variables: [a]\n"),
			 "jobs:rspec:variables config should be a hash of key value pairs");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  image: [a]\n"),
			 "jobs:rspec:image config should be a hash or a string");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  cache: {keys: a}\n"),
			 "jobs:rspec:cache config contains unknown keys: keys");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  artifacts: {when: never}\n"),
			 "jobs:rspec:artifacts when should be on_success, on_failure or always");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  artifacts: {expire_in: soon}\n"),
			 "jobs:rspec:artifacts expire in should be a duration");
	ck_assert_str_eq(bad("rspec:\n  script: x\n  artifacts: {paths: a}\n"),
			 "jobs:rspec:artifacts paths should be an array of strings");
	ck_assert_str_eq(bad("d:\n  script: x\n  environment: {url: 'http://a'}\n"),
			 "jobs:d:environment name can't be blank");
	ck_assert_str_eq(bad("d:\n  script: x\n  environment: {name: a, action: go}\n"),
			 "jobs:d:environment action should be start or stop");
	ck_assert_str_eq(bad("d:\n  script: x\n  environment: /prod\n"),
			 "jobs:d:environment name has to contain only letters, digits, '-', '_', "
			 "'/', '$', '{', '}', '.', and spaces, but it cannot start or end with "
			 "'/'");
	ck_assert_str_eq(bad("d:\n  script: x\n  environment: {name: a, url: 'ftp:x'}\n"),
			 "jobs:d:environment url must be a valid url");
	ck_assert_str_eq(bad("a:\n  stage: build\n  script: x\n  dependencies: [b]\n"
			     "b:\n  script: y\n"),
			 "a job: dependency b is not defined in prior stages");
	ck_assert_str_eq(bad("a:\n  script: x\n  dependencies: [zz]\n"),
			 "a job: undefined dependency: zz");
	ck_assert_str_eq(bad("a:\n  script: x\n  environment: {name: e, on_stop: s}\n"),
			 "a job: on_stop job s is not defined");
	ck_assert_str_eq(bad("a:\n  script: x\n  environment: {name: e, on_stop: s}\n"
			     "s:\n  script: y\n  environment: {name: e}\n"),
			 "a job: on_stop job s needs to have action stop defined");
	ck_assert_str_eq(bad("a:\n  script: x\n  environment: {name: e, on_stop: s}\n"
			     "s:\n  script: y\n"),
			 "a job: on_stop job s does not have environment defined");
	ck_assert_str_eq(bad("before_script: echo\na:\n  script: x\n"),
			 "before_script config should be an array of strings");
	ck_assert_str_eq(bad("variables: 3\na:\n  script: x\n"),
			 "variables config should be a hash of key value pairs");
}
END_TEST

START_TEST(test_format_errors)
{
	ck_assert_str_eq(bad("just a string"), "Invalid configuration format");
	ck_assert_str_eq(bad("- a\n- b\n"), "Invalid configuration format");
	ck_assert_str_eq(bad(".hidden:\n  script: x\n"),
			 "jobs config should contain at least one visible job");
	const char *e = bad("a:\n  script: [x\n");
	ck_assert_msg(strncmp(e, "(<unknown>): ", 13) == 0 && strstr(e, "line "), "%s", e);
	e = bad("a: *nothing\n");
	ck_assert_msg(strstr(e, "nothing") != NULL, "%s", e);
	e = bad("{a: b}: c\n");
	ck_assert_msg(strncmp(e, "(<unknown>): ", 13) == 0, "%s", e);
}
END_TEST

START_TEST(test_anchors_and_merge)
{
	ci_config cf = ok(".job_template: &job_definition\n"
			  "  image: ruby:2.1\n"
			  "  services: [postgres]\n"
			  "  script: [shared]\n"
			  "  tags: &tags [t1]\n"
			  "test1:\n  <<: *job_definition\n  script: [test1 project]\n"
			  "test2:\n  <<: [*job_definition]\n  tags: *tags\n");
	ck_assert_int_eq(cf.njobs, 2);
	const ci_job *t1 = job(&cf, "test1"), *t2 = job(&cf, "test2");
	ck_assert_str_eq(at(t1->options, "script"), "[\"test1 project\"]");
	ck_assert_str_eq(at(t1->options, "image"), "{\"name\":\"ruby:2.1\"}");
	ck_assert_str_eq(at(t2->options, "script"), "[\"shared\"]");
	ck_assert_str_eq(json_object_to_json_string_ext(t2->tags, JSON_C_TO_STRING_PLAIN),
			 "[\"t1\"]");
	/* the first merged mapping wins over the later ones */
	cf = ok(".a: &a {when: always, script: from_a}\n"
		".b: &b {when: manual, script: from_b, stage: build}\n"
		"c:\n  <<: [*a, *b]\n  when: on_failure\n");
	ck_assert_str_eq(at(job(&cf, "c")->options, "script"), "[\"from_a\"]");
	ck_assert_str_eq(job(&cf, "c")->stage, "build");
	/* the mapping's own keys win over merged ones */
	ck_assert_str_eq(job(&cf, "c")->when, "on_failure");
}
END_TEST

START_TEST(test_scalars)
{
	json_object *o;
	const char *err;
	const char *t = "a: yes\nb: 'yes'\nc: ~\nd: 12\ne: 1.5\nf: off\ng: \"3\"\nh: 0x1\n"
			"i: 1e5\nj: -2\nk: !!str 4\n";
	ck_assert_int_eq(ci_yaml_load(A, t, strlen(t), &o, &err), 0);
	ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			 "{\"a\":true,\"b\":\"yes\",\"c\":null,\"d\":12,\"e\":1.5,\"f\":false,"
			 "\"g\":\"3\",\"h\":\"0x1\",\"i\":\"1e5\",\"j\":-2,\"k\":\"4\"}");
	ck_assert_int_eq(ci_yaml_load(A, "", 0, &o, &err), 0);
	ck_assert_ptr_null(o);
	/* the first document only */
	t = "a: 1\n---\nb: 2\n";
	ck_assert_int_eq(ci_yaml_load(A, t, strlen(t), &o, &err), 0);
	ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "{\"a\":1}");
}
END_TEST

START_TEST(test_hostile)
{
	/* a billion laughs: stopped at the bound, quickly, without building it */
	const char *laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
			     "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
			     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
			     "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
			     "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
			     "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
			     "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
			     "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
			     "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
	const char *e = bad(laughs);
	ck_assert_msg(strstr(e, "too large") != NULL, "%s", e);
	/* the same through merge keys */
	char *merges = arena_alloc(A, 1 << 16);
	strcpy(merges, "a0: &a0 {k: v, l: w}\n");
	for (int i = 1; i < 40; i++)
		sprintf(merges + strlen(merges), "a%d: &a%d {x%d: [*a%d, *a%d], <<: *a%d}\n", i, i,
			i, i - 1, i - 1, i - 1);
	e = bad(merges);
	ck_assert_msg(strstr(e, "too large") != NULL, "%s", e);
	/* the same with one long string: the aliases count for its length */
	char *longs = arena_alloc(A, 1 << 20);
	strcpy(longs, ".s: &s \"");
	memset(longs + strlen(longs), 'x', 100000);
	strcat(longs, "\"\nj:\n  script: [*s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s,"
		      " *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s,"
		      " *s, *s, *s]\n");
	e = bad(longs);
	ck_assert_msg(strstr(e, "too large") != NULL, "%s", e);
	/* regexes that would take gigabytes to compile, or exponential time to match */
	ck_assert_str_eq(bad("j:\n  script: x\n  only: ['/((a{255}){255}){255}/']\n"),
			 "jobs:j:only config should be an array of strings or regexps");
	ck_assert_str_eq(bad("j:\n  script: x\n  except: ['/(a*)\\1/']\n"),
			 "jobs:j:except config should be an array of strings or regexps");
	ck_assert_str_eq(bad("j:\n  script: x\n  coverage: '/(x{99}){99}{99}/'\n"),
			 "jobs:j:coverage config must be a regular expression");
	ok("j:\n  script: x\n  only: ['/^v[0-9]{1,3}\\.[0-9]{1,3}$/']\n");
	/* deep nesting */
	char *deep = arena_alloc(A, 4096);
	for (int i = 0; i < 1000; i++)
		deep[i] = '[';
	e = bad(deep);
	ck_assert_msg(strstr(e, "nested too deeply") != NULL, "%s", e);
	/* too big */
	size_t n = CI_YAML_MAX_BYTES + 1;
	char *big = arena_alloc(A, n + 1);
	memset(big, '#', n);
	ci_config cf;
	ck_assert_int_eq(ci_yaml_parse(A, big, n, &cf, &e), ERR_INVALID);
	ck_assert_msg(strstr(e, "too large") != NULL, "%s", e);
	/* bytes that are not text: an error, no crash */
	const char junk[] = "a: \x01\x02\xff\xfe\n\t- [}{";
	ck_assert_int_eq(ci_yaml_parse(A, junk, sizeof(junk) - 1, &cf, &e), ERR_INVALID);
	/* a NUL inside */
	const char nul[] = "a:\n  script: x\0y\n";
	ck_assert_int_eq(ci_yaml_parse(A, nul, sizeof(nul) - 1, &cf, &e), ERR_INVALID);
}
END_TEST

static bool sel(const char *yml, const char *ref, bool tag, const char *source)
{
	ci_config cf = ok(yml);
	return ci_job_selected(&cf.jobs[0], ref, tag, source, "group/project");
}

START_TEST(test_only_except)
{
	const char *only = "j:\n  script: x\n  only: [master, /^release-.*$/, tags, triggers]\n";
	ck_assert(sel(only, "master", false, "push"));
	ck_assert(sel(only, "release-1", false, "push"));
	ck_assert(!sel(only, "feature", false, "push"));
	ck_assert(sel(only, "v1.0", true, "push"));
	ck_assert(sel(only, "feature", false, "trigger"));
	const char *branches = "j:\n  script: x\n  only: [branches]\n";
	ck_assert(sel(branches, "feature", false, "push"));
	ck_assert(!sel(branches, "v1", true, "push"));
	const char *sources = "j:\n  script: x\n  only: [api, web, schedules, pushes]\n";
	ck_assert(sel(sources, "x", false, "api"));
	ck_assert(sel(sources, "x", false, "web"));
	ck_assert(sel(sources, "x", false, "schedule"));
	ck_assert(sel(sources, "x", false, "push"));
	ck_assert(!sel(sources, "x", false, "trigger"));
	const char *except = "j:\n  script: x\n  except: [tags, /^wip/]\n";
	ck_assert(sel(except, "master", false, "push"));
	ck_assert(!sel(except, "v1", true, "push"));
	ck_assert(!sel(except, "wip-x", false, "push"));
	const char *path = "j:\n  script: x\n  only: [master@group/project]\n";
	ck_assert(sel(path, "master", false, "push"));
	const char *other = "j:\n  script: x\n  only: [master@other/project]\n";
	ck_assert(!sel(other, "master", false, "push"));
	const char *refs = "j:\n  script: x\n  only: {refs: [tags]}\n";
	ck_assert(sel(refs, "v1", true, "push"));
	ck_assert(!sel(refs, "master", false, "push"));
}
END_TEST

START_TEST(test_slug)
{
	ck_assert_str_eq(ci_slug(A, "Feature/Add_Thing"), "feature-add-thing");
	ck_assert_str_eq(ci_slug(A, "--a--"), "a");
	char *l = arena_alloc(A, 101);
	memset(l, 'a', 100);
	ck_assert_int_eq(strlen(ci_slug(A, l)), 63);
}
END_TEST

/* ---- one error convention: 0 or a negative ERR_ code ---- */

START_TEST(test_error_codes_distinct)
{
	static const int codes[] = {
		ERR_MISSING,      ERR_INVALID,        ERR_VALIDATION, ERR_BAD_REQUEST,
		ERR_UNAUTHORIZED, ERR_FORBIDDEN,      ERR_SCOPE,      ERR_NOT_FOUND,
		ERR_NO_ROUTE,     ERR_SUDO_NOT_FOUND, ERR_CONFLICT,   ERR_TOO_LARGE,
		ERR_UNAVAILABLE,  ERR_INTERNAL,       ERR_OAUTH,      ERR_NOT_MODIFIED,
		ERR_URI_TOO_LONG, ERR_MOVED,          ERR_REFUSED,    ERR_EXISTS,
		ERR_BAD_NAME,
	};
	size_t n = sizeof(codes) / sizeof(*codes);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_lt(codes[i], 0);
		for (size_t j = i + 1; j < n; j++)
			ck_assert_int_ne(codes[i], codes[j]);
	}
}
END_TEST

/* A bare repository in a temporary directory with one commit on master that adds
 * README; its id in *tip. */
static git_repository *repo_with_commit(char *dir, git_oid *tip)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	git_repository *repo = NULL;
	ck_assert_int_eq(git_repository_init(&repo, dir, 1), 0);
	git_oid blob, tree;
	ck_assert_int_eq(git_blob_create_from_buffer(&blob, repo, "hello\n", 6), 0);
	git_treebuilder *tb = NULL;
	ck_assert_int_eq(git_treebuilder_new(&tb, repo, NULL), 0);
	ck_assert_int_eq(git_treebuilder_insert(NULL, tb, "README", &blob, GIT_FILEMODE_BLOB), 0);
	ck_assert_int_eq(git_treebuilder_write(&tree, tb), 0);
	git_treebuilder_free(tb);
	git_tree *t = NULL;
	ck_assert_int_eq(git_tree_lookup(&t, repo, &tree), 0);
	git_signature *sig = NULL;
	ck_assert_int_eq(git_signature_new(&sig, "A", "a@example.com", 1500000000, 0), 0);
	ck_assert_int_eq(git_commit_create(tip, repo, "refs/heads/master", sig, sig, NULL, "first",
					   t, 0, NULL),
			 0);
	git_signature_free(sig);
	git_tree_free(t);
	return repo;
}

START_TEST(test_git_expected_failures)
{
	git_libgit2_init();
	char dir[] = "/tmp/collabd-unit-git.XXXXXX";
	git_oid tip;
	git_repository *repo = repo_with_commit(dir, &tip);
	arena *a = arena_new();
	ctx c;
	ctx_init(&c, a, NULL, NULL, NULL);
	git_commit *commit = NULL;
	ck_assert_int_eq(gitc_commit_of(&c, repo, "master", &commit), 0);
	ck_assert_int_eq(gitc_commit_of(&c, repo, "no-such-branch", &commit), ERR_NOT_FOUND);
	ck_assert_int_eq(gitc_commit_of(&c, repo, "master", &commit), 0);
	git_blob *blob = NULL;
	ck_assert_int_eq(gitc_blob_at(&c, repo, commit, "README", &blob), 0);
	ck_assert_int_eq(gitc_blob_at(&c, repo, commit, "missing", &blob), ERR_NOT_FOUND);
	git_oid last;
	ck_assert_int_eq(graph_last_commit(repo, &tip, "README", &last), 0);
	ck_assert(git_oid_equal(&last, &tip));
	ck_assert_int_eq(graph_last_commit(repo, &tip, "missing", &last), ERR_NOT_FOUND);
	/* a refusal in GitLab's words, and a branch that is not there: nothing written */
	const char *msg = NULL;
	gitc_commit_req req = {.branch = "master",
			       .start_branch = "no-such-branch",
			       .message = "m",
			       .committer_name = "A",
			       .committer_email = "a@example.com"};
	git_commit *made = NULL;
	ck_assert_int_eq(gitc_commit_create(&c, repo, &req, &made, &msg), ERR_REFUSED);
	ck_assert_str_eq(msg, "You can only create or edit files when you are on a branch");
	msg = NULL;
	ck_assert_int_eq(gitc_cherry_pick(&c, repo, commit, "no-such-branch", "A", "a@example.com",
					  &made, &msg),
			 ERR_NOT_FOUND);
	git_oid head;
	ck_assert_int_eq(git_reference_name_to_id(&head, repo, "refs/heads/master"), 0);
	ck_assert(git_oid_equal(&head, &tip));
	arena_destroy(a);
	git_repository_free(repo);
	ck_assert_int_eq(repo_remove_dir(dir), 0);
}
END_TEST

/* The refs' expected failures are named codes (ERR_*), never libgit2's; nothing written
 * by a refused write. */
START_TEST(test_refs_expected_failures)
{
	git_libgit2_init();
	char dir[] = "/tmp/collabd-unit-refs.XXXXXX";
	git_oid tip, other = {{0}}, at;
	git_repository *repo = repo_with_commit(dir, &tip);
	arena *a = arena_new();
	db d = {0}; /* no connection: no transaction to undo writes in */
	ctx c;
	ctx_init(&c, a, NULL, &d, NULL);
	git_commit *commit = NULL;
	ck_assert_int_eq(refs_branch_commit(repo, "no-such-branch", &commit), ERR_NOT_FOUND);
	ck_assert_int_eq(refs_resolve_commit(repo, "no-such-ref", &commit), ERR_NOT_FOUND);
	const char *message;
	ck_assert_int_eq(refs_tag_lookup(&c, repo, "no-such-tag", &commit, &message),
			 ERR_NOT_FOUND);
	ck_assert_int_eq(refs_branch_create(&c, repo, "master", &tip), ERR_EXISTS);
	ck_assert_int_eq(refs_branch_create(&c, repo, "master/x", &tip), ERR_BAD_NAME);
	ck_assert_int_eq(refs_branch_create(&c, repo, "feature", &tip), 0);
	ck_assert_int_eq(refs_branch_update(&c, repo, "feature", &tip, &other), ERR_MOVED);
	ck_assert_int_eq(refs_branch_delete(&c, repo, "feature", &other), ERR_MOVED);
	ck_assert_int_eq(refs_branch_delete(&c, repo, "no-such-branch", NULL), ERR_NOT_FOUND);
	ck_assert_int_eq(git_reference_name_to_id(&at, repo, "refs/heads/feature"), 0);
	ck_assert(git_oid_equal(&at, &tip));
	ck_assert_int_eq(refs_branch_delete(&c, repo, "feature", &tip), 0);
	ck_assert_int_eq(refs_branch_commit(repo, "master", &commit), 0);
	ck_assert_int_eq(refs_tag_create(&c, repo, "v1", commit, NULL, NULL, NULL), 0);
	ck_assert_int_eq(refs_tag_create(&c, repo, "v1", commit, NULL, NULL, NULL), ERR_EXISTS);
	ck_assert_int_eq(refs_tag_create(&c, repo, "v1/x", commit, NULL, NULL, NULL), ERR_BAD_NAME);
	ck_assert_int_eq(refs_tag_delete(&c, repo, "no-such-tag"), ERR_NOT_FOUND);
	git_commit_free(commit);
	const char *head;
	ck_assert_int_eq(refs_head(&c, repo, &head, &at), 0);
	ck_assert_str_eq(head, "master");
	ck_assert_int_eq(refs_head(&c, NULL, &head, &at), ERR_NOT_FOUND);
	arena_destroy(a);
	git_repository_free(repo);
	ck_assert_int_eq(repo_remove_dir(dir), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ci");
	TCase *tc = tcase_create("gitlab-ci.yml");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_minimal);
	tcase_add_test(tc, test_stages_and_order);
	tcase_add_test(tc, test_globals_inherited);
	tcase_add_test(tc, test_job_keys);
	tcase_add_test(tc, test_job_errors);
	tcase_add_test(tc, test_format_errors);
	tcase_add_test(tc, test_anchors_and_merge);
	tcase_add_test(tc, test_scalars);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_only_except);
	tcase_add_test(tc, test_slug);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_error_codes_distinct);
	tcase_add_test(tc, test_git_expected_failures);
	tcase_add_test(tc, test_refs_expected_failures);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
