/* Unit suite: db (what it reads from PostgreSQL's text output, the job queue's kinds;
 * no database). */
#include <check.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#undef fail

#include "db/db.h"
#include "db/queue.h"
#include "db/replica.h"
#include "hook.h"

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

START_TEST(test_text_array)
{
	const char **v;
	ck_assert_int_eq(db_text_array(A, "{}", &v), 0);
	ck_assert_int_eq(db_text_array(A, "{a}", &v), 1);
	ck_assert_str_eq(v[0], "a");
	ck_assert_int_eq(db_text_array(A, "{beta,Alpha,zeta}", &v), 3);
	ck_assert_str_eq(v[0], "beta");
	ck_assert_str_eq(v[1], "Alpha");
	ck_assert_str_eq(v[2], "zeta");
	/* quoted: spaces, commas, braces, quotes and backslashes, the empty string, "NULL" */
	const char *quoted = "{\"a b\",\"c,d\",\"{x}\",\"q\\\"r\",\"s\\\\t\",\"\",\"NULL\"}";
	ck_assert_int_eq(db_text_array(A, quoted, &v), 7);
	ck_assert_str_eq(v[0], "a b");
	ck_assert_str_eq(v[1], "c,d");
	ck_assert_str_eq(v[2], "{x}");
	ck_assert_str_eq(v[3], "q\"r");
	ck_assert_str_eq(v[4], "s\\t");
	ck_assert_str_eq(v[5], "");
	ck_assert_str_eq(v[6], "NULL");
	/* an unquoted NULL is SQL NULL: left out */
	ck_assert_int_eq(db_text_array(A, "{a,NULL,b}", &v), 2);
	ck_assert_str_eq(v[1], "b");
	ck_assert_int_eq(db_text_array(A, "{\xc3\xa9t\xc3\xa9,Project:watch}", &v), 2);
	ck_assert_str_eq(v[0], "\xc3\xa9t\xc3\xa9");
	ck_assert_str_eq(v[1], "Project:watch");
	/* not an array literal */
	ck_assert_int_eq(db_text_array(A, NULL, &v), -1);
	ck_assert_int_eq(db_text_array(A, "", &v), -1);
	ck_assert_int_eq(db_text_array(A, "{a", &v), -1);
	ck_assert_int_eq(db_text_array(A, "{\"a}", &v), -1);
	ck_assert_int_eq(db_text_array(A, "{\"a\"b}", &v), -1);
}
END_TEST

START_TEST(test_lsn_parse)
{
	uint64_t v = 0;
	ck_assert(db_lsn_parse("0/0", &v) && v == 0);
	ck_assert(db_lsn_parse("16/B374D848", &v) && v == ((uint64_t)0x16 << 32 | 0xB374D848));
	ck_assert(db_lsn_parse("FFFFFFFF/FFFFFFFF", &v) && v == UINT64_MAX);
	/* ordered as the positions are: the low half is no decimal fraction */
	uint64_t a, b;
	ck_assert(db_lsn_parse("1/FFFFFFFF", &a) && db_lsn_parse("2/0", &b) && a < b);
	ck_assert(db_lsn_parse("0/A", &a) && db_lsn_parse("0/9", &b) && a > b);
	const char *bad[] = {"", "/", "1/", "/1", "1", "1/2/3", "x/1", "1/x", "1/2 ",
			     "100000000/0", "0/100000000", NULL};
	for (int i = 0; bad[i]; i++)
		ck_assert_msg(!db_lsn_parse(bad[i], &v), "%s taken", bad[i]);
	ck_assert(!db_lsn_parse(NULL, &v));
}
END_TEST

START_TEST(test_int_array)
{
	long long *v;
	ck_assert_int_eq(db_int_array(A, "{}", &v), 0);
	ck_assert_int_eq(db_int_array(A, "{7}", &v), 1);
	ck_assert_int_eq(v[0], 7);
	ck_assert_int_eq(db_int_array(A, "{{3,30},{12,-40}}", &v), 4);
	ck_assert_int_eq(v[0], 3);
	ck_assert_int_eq(v[1], 30);
	ck_assert_int_eq(v[2], 12);
	ck_assert_int_eq(v[3], -40);
	ck_assert_int_eq(db_int_array(A, "{9223372036854775807}", &v), 1);
	ck_assert(v[0] == 9223372036854775807LL);
	ck_assert_int_eq(db_int_array(A, NULL, &v), -1);
	ck_assert_int_eq(db_int_array(A, "{a}", &v), -1);
	ck_assert_int_eq(db_int_array(A, "7", &v), -1);
}
END_TEST

/* The kinds of db/jobs.def, each under its own name, and nothing else. */
/* Instances started at once each write the hooks: none may fail for the other's
 * writing (they shared one temporary name, and one renamed the other's away). */
START_TEST(test_hook_install_at_once)
{
	char dir[] = "/tmp/collabd-hooks.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	config cfg = {0};
	cfg.storage_path = dir;
	pid_t kids[4];
	for (int k = 0; k < 4; k++) {
		kids[k] = fork();
		ck_assert_int_ge(kids[k], 0);
		if (kids[k] == 0) {
			int bad = 0;
			for (int i = 0; i < 200; i++)
				bad += hook_install(&cfg, "/usr/bin/collabd", NULL) < 0;
			_exit(bad ? 1 : 0);
		}
	}
	for (int k = 0; k < 4; k++) {
		int st;
		ck_assert_int_eq(waitpid(kids[k], &st, 0), kids[k]);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d failed", k);
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/hooks/pre-receive", dir);
	ck_assert_int_eq(access(path, X_OK), 0);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_queue_kinds)
{
	for (int k = 0; k < JOB_NKINDS; k++) {
		const char *name = queue_kind_name(k);
		ck_assert_ptr_nonnull(name);
		ck_assert_int_eq(queue_kind_parse(name), k);
	}
	ck_assert_str_eq(queue_kind_name(JOB_PUSH), "push");
	ck_assert_int_eq(queue_kind_parse("merge_request_check"), JOB_MERGE_REQUEST_CHECK);
	ck_assert_ptr_null(queue_kind_name(-1));
	ck_assert_ptr_null(queue_kind_name(JOB_NKINDS));
	ck_assert_int_eq(queue_kind_parse("core_test"), -1);
	ck_assert_int_eq(queue_kind_parse(""), -1);
	ck_assert_int_eq(queue_kind_parse(NULL), -1);
}
END_TEST

/* enqueue refuses a kind that is not in db/jobs.def (no job nobody runs) before it
 * touches the connection, which this context does not have */
START_TEST(test_queue_enqueue_unknown_kind)
{
	ctx c;
	ctx_init(&c, A, NULL, NULL, NULL);
	ck_assert_int_eq(queue_enqueue(&c, JOB_NKINDS, "{}"), ERR_INVALID);
	ck_assert_int_eq(queue_enqueue(&c, -1, "{}"), ERR_INVALID);
	ck_assert_int_eq(queue_enqueue(&c, JOB_NKINDS + 100, "{}"), ERR_INVALID);
	ck_assert_int_eq(queue_enqueue(&c, JOB_PUSH, NULL), ERR_INVALID);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("db");
	TCase *tc = tcase_create("array literals");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_text_array);
	tcase_add_test(tc, test_int_array);
	tcase_add_test(tc, test_lsn_parse);
	suite_add_tcase(s, tc);
	TCase *q = tcase_create("job queue");
	/* the hooks' 800 installs each fsync: seconds on a disk that others load */
	tcase_set_timeout(q, 120);
	tcase_add_checked_fixture(q, setup, teardown);
	tcase_add_test(q, test_queue_kinds);
	tcase_add_test(q, test_queue_enqueue_unknown_kind);
	tcase_add_test(q, test_hook_install_at_once);
	suite_add_tcase(s, q);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
