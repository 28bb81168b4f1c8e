/* Unit suite: core (arena, buf, jw, config, crypto, sshkey, turns, validate). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/cidr.h"
#include "core/config.h"
#include "core/crypto.h"
#include "core/files.h"
#include "core/json_stream.h"
#include "core/jw.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/sshkey.h"
#include "core/turns.h"
#include "core/validate.h"

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

/* ---- arena ---- */

START_TEST(test_arena_alignment)
{
	static const size_t sizes[] = {1, 3, 7, 15, 16, 17, 33, 100, 1};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		unsigned char *p = arena_alloc(A, sizes[i]);
		ck_assert_uint_eq((uintptr_t)p % 16, 0);
		for (size_t j = 0; j < sizes[i]; j++)
			ck_assert_uint_eq(p[j], 0);
		memset(p, 0xAB, sizes[i]);
	}
}
END_TEST

START_TEST(test_arena_zeroed_after_reuse)
{
	unsigned char *p = arena_alloc(A, 64);
	memset(p, 0xFF, 64);
	arena_reset(A);
	unsigned char *q = arena_alloc(A, 64);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(q[i], 0);
}
END_TEST

START_TEST(test_arena_big_allocation)
{
	size_t base = arena_capacity(A);
	char *small = arena_strdup(A, "before");
	size_t big = 5 * base + 3;
	unsigned char *p = arena_alloc(A, big);
	ck_assert_uint_eq((uintptr_t)p % 16, 0);
	ck_assert_uint_ge(arena_capacity(A), base + big);
	for (size_t i = 0; i < big; i++)
		ck_assert_uint_eq(p[i], 0);
	memset(p, 0x5A, big); /* the whole block is ours (ASan checks the bounds) */
	char *after = arena_strdup(A, "after");
	ck_assert_str_eq(small, "before");
	ck_assert_str_eq(after, "after");
	ck_assert_uint_eq(p[big - 1], 0x5A);
}
END_TEST

/* A big allocation has a block of its own behind the head: the small ones around it
 * share the head block, and arena_alloc_uninit's memory is the caller's to fill whole. */
START_TEST(test_arena_big_allocation_keeps_head)
{
	char *before = arena_strdup(A, "before");
	size_t base = arena_capacity(A);
	size_t big = 3 * base + 5;
	unsigned char *p = arena_alloc_uninit(A, big);
	ck_assert_uint_eq((uintptr_t)p % 16, 0);
	memset(p, 0x5A, big); /* ASan checks the bounds */
	char *after = arena_strdup(A, "after");
	/* the big block and nothing else: "after" went where "before" is */
	ck_assert_uint_eq(arena_capacity(A), base + ((big + 15) & ~(size_t)15));
	ck_assert_ptr_eq(after, before + 16);
	unsigned char *q = arena_alloc(A, big);
	for (size_t i = 0; i < big; i++)
		ck_assert_uint_eq(q[i], 0);
	ck_assert_str_eq(before, "before");
	ck_assert_str_eq(after, "after");
	ck_assert_uint_eq(p[big - 1], 0x5A);
	arena_reset(A);
	ck_assert_uint_eq(arena_capacity(A), base);
	ck_assert_str_eq(arena_strdup(A, "again"), "again");
}
END_TEST

START_TEST(test_arena_many_blocks)
{
	size_t base = arena_capacity(A);
	char *ptrs[2000];
	for (int i = 0; i < 2000; i++)
		ptrs[i] = arena_printf(A, "string number %d", i);
	ck_assert_uint_gt(arena_capacity(A), base);
	for (int i = 0; i < 2000; i++) {
		char want[32];
		snprintf(want, sizeof(want), "string number %d", i);
		ck_assert_str_eq(ptrs[i], want);
	}
}
END_TEST

static int order[8];
static int norder;

static void record(void *p)
{
	order[norder++] = *(int *)p;
}

START_TEST(test_arena_reset_runs_cleanups_newest_first)
{
	static int one = 1, two = 2, three = 3;
	norder = 0;
	arena_defer(A, record, &one);
	arena_defer(A, record, &two);
	arena_alloc(A, 3 * arena_capacity(A)); /* cleanups survive a new block */
	arena_defer(A, record, &three);
	ck_assert_int_eq(norder, 0);
	arena_reset(A);
	ck_assert_int_eq(norder, 3);
	ck_assert_int_eq(order[0], 3);
	ck_assert_int_eq(order[1], 2);
	ck_assert_int_eq(order[2], 1);
	/* they run once */
	arena_reset(A);
	ck_assert_int_eq(norder, 3);
}
END_TEST

START_TEST(test_arena_destroy_runs_cleanups)
{
	static int seven = 7;
	arena *a = arena_new();
	norder = 0;
	arena_defer(a, record, &seven);
	arena_destroy(a);
	ck_assert_int_eq(norder, 1);
	ck_assert_int_eq(order[0], 7);
	arena_destroy(NULL);
}
END_TEST

START_TEST(test_arena_reset_keeps_one_block)
{
	size_t base = arena_capacity(A);
	for (int i = 0; i < 100; i++)
		arena_alloc(A, 1000);
	arena_alloc(A, 10 * base);
	ck_assert_uint_gt(arena_capacity(A), 10 * base);
	arena_reset(A);
	ck_assert_uint_eq(arena_capacity(A), base);
	/* and the arena is usable again, up to the same block */
	arena_alloc(A, base / 2);
	ck_assert_uint_eq(arena_capacity(A), base);
}
END_TEST

START_TEST(test_arena_strings)
{
	ck_assert_ptr_null(arena_strdup(A, NULL));
	ck_assert_str_eq(arena_strdup(A, ""), "");
	ck_assert_str_eq(arena_strndup(A, "abcdef", 3), "abc");
	ck_assert_str_eq(arena_printf(A, "%s-%d-%03d", "x", 42, 7), "x-42-007");
}
END_TEST

/* ---- buf ---- */

START_TEST(test_buf_append_grows)
{
	buf b;
	buf_init(&b, A, 4);
	ck_assert_str_eq(buf_cstr(&b), "");
	char want[1001];
	for (int i = 0; i < 1000; i++) {
		buf_putc(&b, (char)('a' + i % 26));
		want[i] = (char)('a' + i % 26);
	}
	want[1000] = '\0';
	ck_assert_uint_eq(b.len, 1000);
	ck_assert_uint_gt(b.cap, b.len);
	ck_assert_str_eq(buf_cstr(&b), want);
	buf_append(&b, "xyz\0ignored", 3);
	buf_puts(&b, "!");
	ck_assert_uint_eq(b.len, 1004);
	ck_assert_str_eq(buf_cstr(&b) + 1000, "xyz!");
}
END_TEST

START_TEST(test_buf_printf_grows)
{
	buf b;
	buf_init(&b, A, 0);
	buf_puts(&b, "head:");
	char big[3000];
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	buf_printf(&b, "%s|%d", big, 12345);
	ck_assert_uint_eq(b.len, 5 + 2999 + 6);
	ck_assert_int_eq(strncmp(buf_cstr(&b), "head:qqq", 8), 0);
	ck_assert_str_eq(buf_cstr(&b) + 5 + 2999, "|12345");
	buf_printf(&b, "%s", "");
	ck_assert_uint_eq(b.len, 5 + 2999 + 6);
	ck_assert_uint_eq(strlen(buf_cstr(&b)), b.len);
}
END_TEST

START_TEST(test_buf_urlencode)
{
	buf b;
	buf_init(&b, A, 8);
	buf_urlencode(&b, "a b&c=d/e?f#g+h%i~j._-K9\xc3\xa9[]");
	ck_assert_str_eq(buf_cstr(&b), "a%20b%26c%3Dd%2Fe%3Ff%23g%2Bh%25i~j._-K9%C3%A9%5B%5D");
	buf b2;
	buf_init(&b2, A, 8);
	buf_urlencode(&b2, "");
	ck_assert_str_eq(buf_cstr(&b2), "");
}
END_TEST

/* buf_put_base64 writes base64 that decodes to the bytes, of the padded length, for every
 * length mod 3 and every byte value, appended to what the buffer holds and growing it. */
START_TEST(test_buf_put_base64)
{
	unsigned char bytes[700];
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)(i * 37 + i / 256);
	for (size_t n = 0; n < sizeof(bytes); n += n < 20 ? 1 : 97) {
		buf b;
		buf_init(&b, A, 4);
		buf_puts(&b, "x:");
		buf_put_base64(&b, bytes, n);
		size_t want = (n + 2) / 3 * 4;
		ck_assert_uint_eq(b.len, 2 + want);
		ck_assert_uint_eq(strlen(buf_cstr(&b)), b.len);
		ck_assert_str_eq(buf_cstr(&b) + 2 + want, "");
		if (n > 0) {
			unsigned char *back;
			size_t back_len;
			ck_assert_int_eq(
				crypto_base64_decode(A, buf_cstr(&b) + 2, &back, &back_len), 0);
			ck_assert_uint_eq(back_len, n);
			ck_assert(memcmp(back, bytes, n) == 0);
		}
		buf_putc(&b, '!');
		ck_assert_str_eq(buf_cstr(&b) + 2 + want, "!");
	}
	buf b;
	buf_init(&b, A, 0);
	buf_put_base64(&b, NULL, 0);
	ck_assert_str_eq(buf_cstr(&b), "");
	buf_put_base64(&b, "\x00\xff\x10\x41", 4);
	ck_assert_str_eq(buf_cstr(&b), "AP8QQQ==");
	buf_put_base64(&b, "\xfb\xff", 2);
	ck_assert_str_eq(buf_cstr(&b), "AP8QQQ==+/8=");
}
END_TEST

/* ---- jw ---- */

/* What respond_json() sends for o. */
static const char *json_c_text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
}

START_TEST(test_jw_strings_as_json_c)
{
	/* every byte but NUL, at every place of a longer string (the writer looks at 8 bytes
	 * at a time), as json-c escapes it */
	for (int c = 1; c < 256; c++) {
		for (int at = 0; at < 24; at++) {
			char s[25];
			memset(s, 'x', 24);
			s[24] = '\0';
			s[at] = (char)c;
			if (at > 0)
				s[at - 1] = (char)(c ^ 0x80);
			jw w;
			jw_init(&w, A, 4);
			jw_str(&w, s);
			json_object *o = json_object_new_string(s);
			ck_assert_str_eq(buf_cstr(&w.b), json_c_text(o));
			json_object_put(o);
		}
	}
	for (int c = 1; c < 256; c++) {
		char s[8] = {'a', (char)c, 'b', (char)c, '\0'};
		for (int at = 0; at < 2; at++) {
			const char *str = at ? s + 1 : s;
			jw w;
			jw_init(&w, A, 4);
			jw_str(&w, str);
			json_object *o = json_object_new_string(str);
			ck_assert_str_eq(buf_cstr(&w.b), json_c_text(o));
			json_object_put(o);
		}
	}
}
END_TEST

/* jw_put_time: a timestamptz as PostgreSQL prints it in UTC (0 to 6 digits of a second)
 * in GitLab's form, milliseconds truncated as to_char's MS; anything else as it is. */
START_TEST(test_jw_put_time)
{
	static const char *const cases[][2] = {
		{"2017-07-19 11:04:06+00", "\"2017-07-19T11:04:06.000Z\""},
		{"2017-07-19 11:04:06.1+00", "\"2017-07-19T11:04:06.100Z\""},
		{"2017-07-19 11:04:06.12+00", "\"2017-07-19T11:04:06.120Z\""},
		{"2017-07-19 11:04:06.123+00", "\"2017-07-19T11:04:06.123Z\""},
		{"2017-07-19 11:04:06.123999+00", "\"2017-07-19T11:04:06.123Z\""},
		{"2017-07-19 11:04:06.000001+00", "\"2017-07-19T11:04:06.000Z\""},
		{"2017-07-19T11:04:06.123Z", "\"2017-07-19T11:04:06.123Z\""},
		{"2017-07-19 11:04:06.5+02", "\"2017-07-19 11:04:06.5+02\""},
		{"0044-03-15 12:00:00+00 BC", "\"0044-03-15 12:00:00+00 BC\""},
		{"infinity", "\"infinity\""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		jw w;
		jw_init(&w, A, 4);
		jw_begin_object(&w);
		jw_put_time(&w, "t", cases[i][0]);
		jw_end_object(&w);
		char want[64];
		snprintf(want, sizeof(want), "{\"t\":%s}", cases[i][1]);
		ck_assert_str_eq(buf_cstr(&w.b), want);
	}
	jw w;
	jw_init(&w, A, 4);
	jw_begin_object(&w);
	jw_put_time(&w, "t", NULL);
	jw_end_object(&w);
	ck_assert_str_eq(buf_cstr(&w.b), "{\"t\":null}");
}
END_TEST

/* jw_put_base64: the member json-c writes for the base64 text ('/' as it is), from a
 * writer that starts too small for it. */
START_TEST(test_jw_base64_as_json_c)
{
	size_t n = 100000;
	unsigned char *bytes = arena_alloc(A, n);
	for (size_t i = 0; i < n; i++)
		bytes[i] = (unsigned char)(i * 131 + i / 7);
	for (size_t len = 0; len <= n; len += len < 4 ? 1 : n - 4) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "size", json_object_new_int64((long long)len));
		json_object_object_add(
			o, "content",
			json_object_new_string(crypto_base64_encode(A, bytes, len, 1)));
		json_object_object_add(o, "sha", json_object_new_string("abc"));
		jw w;
		jw_init(&w, A, 4);
		jw_begin_object(&w);
		jw_put_int(&w, "size", (long long)len);
		jw_put_base64(&w, "content", bytes, len);
		jw_put_str(&w, "sha", "abc");
		jw_end_object(&w);
		ck_assert_uint_eq(w.b.len, strlen(json_c_text(o)));
		ck_assert_str_eq(buf_cstr(&w.b), json_c_text(o));
		json_object_put(o);
	}
	jw w;
	jw_init(&w, A, 0);
	jw_begin_array(&w);
	jw_base64(&w, "\xfb\xff", 2);
	jw_base64(&w, "", 0);
	jw_end_array(&w);
	ck_assert_str_eq(buf_cstr(&w.b), "[\"+/8=\",\"\"]");
}
END_TEST

START_TEST(test_jw_document_as_json_c)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(-9223372036854775807LL - 1));
	json_object_object_add(o, "max", json_object_new_int64(9223372036854775807LL));
	json_object_object_add(o, "zero", json_object_new_int64(0));
	json_object_object_add(o, "sk", json_object_new_string("a/b \xc3\xa9 \"q\" \\"));
	json_object_object_add(o, "none", NULL);
	json_object_object_add(o, "t", json_object_new_boolean(1));
	json_object *a = json_object_new_array();
	json_object_array_add(a, json_object_new_object());
	json_object_array_add(a, json_object_new_array());
	json_object_array_add(a, json_object_new_string("x"));
	json_object_object_add(o, "list", a);
	json_object *inner = json_object_new_object();
	json_object_object_add(inner, "f", json_object_new_boolean(0));
	json_object_object_add(o, "inner", inner);
	json_object_object_add(o, "url", json_object_new_string("http://h/a b.git"));

	jw w;
	jw_init(&w, A, 0);
	jw_begin_object(&w);
	jw_put_int(&w, "id", -9223372036854775807LL - 1);
	jw_put_int_or_null(&w, "max", "9223372036854775807");
	jw_put_int(&w, "zero", 0);
	jw_put_str(&w, "sk", "a/b \xc3\xa9 \"q\" \\");
	jw_put_str(&w, "none", NULL);
	jw_put_bool(&w, "t", true);
	jw_key(&w, "list");
	jw_begin_array(&w);
	jw_begin_object(&w);
	jw_end_object(&w);
	jw_raw(&w, "[]", 2);
	jw_str(&w, "x");
	jw_end_array(&w);
	jw_key(&w, "inner");
	json_object *f = json_object_new_object();
	json_object_object_add(f, "f", json_object_new_boolean(0));
	jw_json(&w, f);
	json_object_put(f);
	jw_key(&w, "url");
	jw_str_begin(&w);
	jw_str_part(&w, "http://h/");
	jw_str_part(&w, "a b");
	jw_str_part(&w, ".git");
	jw_str_end(&w);
	jw_end_object(&w);
	ck_assert_str_eq(buf_cstr(&w.b), json_c_text(o));
	json_object_put(o);
}
END_TEST

/* ---- config ---- */

static const char *const config_keys[] = {
	"LISTEN",   "WORKERS",   "DATABASE_URL", "EXTERNAL_URL", "KEY_FILE",    "STORAGE_PATH",
	"SSH_HOST", "LOG_LEVEL", "MAX_BODY",     "BACKLOG",      "SOCKET_MODE", "CACHE_VERIFY",
};

static char config_path[64];

static void config_setup(void)
{
	for (size_t i = 0; i < sizeof(config_keys) / sizeof(*config_keys); i++) {
		char env[64];
		snprintf(env, sizeof(env), "COLLABD_%s", config_keys[i]);
		unsetenv(env);
	}
	config_path[0] = '\0';
}

static void config_teardown(void)
{
	if (config_path[0])
		unlink(config_path);
}

/* Writes text to a new temporary file whose name is left in config_path. */
static const char *config_file(const char *text)
{
	snprintf(config_path, sizeof(config_path), "/tmp/collabd-test-XXXXXX");
	int fd = mkstemp(config_path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return config_path;
}

START_TEST(test_config_defaults)
{
	config c;
	ck_assert_int_eq(config_load(&c, NULL), 0);
	ck_assert_str_eq(c.listen, "127.0.0.1:9000");
	ck_assert_str_eq(c.external_url, "http://localhost:8080");
	ck_assert_str_eq(c.database_url, "dbname=collabd");
	ck_assert_int_eq(c.max_body, 10485760);
	ck_assert_int_eq(c.backlog, 1024);
	ck_assert_int_gt(c.workers, 0);                        /* 0 means 2 x cores */
	ck_assert_int_eq(c.write_transactions, 2 * c.workers); /* 0 means 4 x cores */
	config_free(&c);
	ck_assert_ptr_null(c.listen);
}
END_TEST

/* ---- turns ---- */

/* What the children of a turns test share: how many hold a turn now, the most that
 * did at once, and the order in which they got theirs. */
typedef struct {
	int holding, most, n;
	char order[16];
} turns_log;

static turns_log *turns_log_new(void)
{
	turns_log *l =
		mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(l, MAP_FAILED);
	memset(l, 0, sizeof(*l));
	return l;
}

/* A child that takes a turn of id, notes it as `name` in l, holds it ms milliseconds,
 * and gives it back (or dies holding it when give is false). */
static pid_t turns_child(int id, turns_log *l, char name, int ms, bool give)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid > 0)
		return pid;
	turns_take(id);
	int now = __atomic_add_fetch(&l->holding, 1, __ATOMIC_SEQ_CST);
	int most = __atomic_load_n(&l->most, __ATOMIC_SEQ_CST);
	while (now > most && !__atomic_compare_exchange_n(&l->most, &most, now, false,
							  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	l->order[__atomic_fetch_add(&l->n, 1, __ATOMIC_SEQ_CST)] = name;
	usleep((useconds_t)ms * 1000);
	__atomic_sub_fetch(&l->holding, 1, __ATOMIC_SEQ_CST);
	if (give)
		turns_give(id);
	_exit(0);
}

static void turns_wait_child(pid_t pid)
{
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Until n processes wait for a turn of id (GETNCNT), at most 10 s. */
static void turns_await_waiters(int id, int n)
{
	for (int i = 0; i < 10000 && semctl(id, 0, GETNCNT) != n; i++)
		usleep(1000);
	ck_assert_int_eq(semctl(id, 0, GETNCNT), n);
}

START_TEST(test_turns_at_most_n)
{
	int id = turns_new(2);
	ck_assert_int_ge(id, 0);
	turns_log *l = turns_log_new();
	pid_t pids[6];
	for (int i = 0; i < 6; i++)
		pids[i] = turns_child(id, l, (char)('a' + i), 30, true);
	for (int i = 0; i < 6; i++)
		turns_wait_child(pids[i]);
	ck_assert_int_eq(l->n, 6);
	ck_assert_int_eq(l->most, 2);
	ck_assert_int_eq(semctl(id, 0, GETVAL), 2); /* every turn given back */
	turns_free(id);
	munmap(l, sizeof(*l));
}
END_TEST

START_TEST(test_turns_in_order)
{
	/* with the one turn held, a, b and c come to wait in that order; each gets the turn
	 * in the order it came, whatever the scheduler does */
	int id = turns_new(1);
	ck_assert_int_ge(id, 0);
	turns_log *l = turns_log_new();
	turns_take(id);
	pid_t a = turns_child(id, l, 'a', 1, true);
	turns_await_waiters(id, 1);
	pid_t b = turns_child(id, l, 'b', 1, true);
	turns_await_waiters(id, 2);
	pid_t c = turns_child(id, l, 'c', 1, true);
	turns_await_waiters(id, 3);
	turns_give(id);
	turns_wait_child(a);
	turns_wait_child(b);
	turns_wait_child(c);
	ck_assert_str_eq(l->order, "abc");
	turns_free(id);
	munmap(l, sizeof(*l));
}
END_TEST

START_TEST(test_turns_of_the_dead)
{
	/* a process that dies with its turn gives it back (a worker killed mid-transaction
	 * does not shrink the instance's turns for good) */
	int id = turns_new(1);
	ck_assert_int_ge(id, 0);
	turns_log *l = turns_log_new();
	turns_wait_child(turns_child(id, l, 'a', 0, false));
	ck_assert_int_eq(l->n, 1);
	ck_assert_int_eq(semctl(id, 0, GETVAL), 1);
	turns_wait_child(turns_child(id, l, 'b', 0, true));
	ck_assert_str_eq(l->order, "ab");
	turns_free(id);
	munmap(l, sizeof(*l));
}
END_TEST

START_TEST(test_turns_none_or_gone)
{
	/* no set: a turn at once; a set removed while one waits: the wait ends */
	turns_take(-1);
	turns_give(-1);
	int id = turns_new(1);
	ck_assert_int_ge(id, 0);
	turns_log *l = turns_log_new();
	turns_take(id);
	pid_t a = turns_child(id, l, 'a', 0, true);
	turns_await_waiters(id, 1);
	turns_free(id);
	turns_wait_child(a);
	ck_assert_str_eq(l->order, "a");
	turns_take(id); /* gone: no wait */
	munmap(l, sizeof(*l));
}
END_TEST

START_TEST(test_config_file)
{
	const char *path = config_file("# collabd\n"
				       "\n"
				       "   listen   =   /run/collabd.sock   \n"
				       "workers=3\n"
				       "\t# indented comment\n"
				       "external_url = https://git.example.com:8443//\n"
				       "database_url = host=/tmp dbname=x\n"
				       "max_body = 1024\n");
	config c;
	ck_assert_int_eq(config_load(&c, path), 0);
	ck_assert_str_eq(c.listen, "/run/collabd.sock");
	ck_assert_int_eq(c.workers, 3);
	ck_assert_str_eq(c.external_url, "https://git.example.com:8443");
	ck_assert_str_eq(c.database_url, "host=/tmp dbname=x");
	ck_assert_int_eq(c.max_body, 1024);
	ck_assert_str_eq(c.ssh_host, "localhost"); /* untouched keys keep their default */
	config_free(&c);
}
END_TEST

START_TEST(test_config_unknown_key)
{
	config c;
	ck_assert_int_eq(config_load(&c, config_file("listen = x\nlisten_on = y\n")), -1);
	config_free(&c);
}
END_TEST

START_TEST(test_config_line_without_equals)
{
	config c;
	ck_assert_int_eq(config_load(&c, config_file("workers 4\n")), -1);
	config_free(&c);
}
END_TEST

START_TEST(test_config_missing_file)
{
	config c;
	ck_assert_int_eq(config_load(&c, "/nonexistent/collabd.conf"), -1);
	config_free(&c);
}
END_TEST

START_TEST(test_config_bad_number)
{
	static const char *const bad[] = {
		"workers = 4x\n",
		"workers = -1\n",
		"workers =\n",
		"max_body = 1e6\n",
		"backlog = 99999999999999999999\n",
		"backlog = 2000000000\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		config c;
		ck_assert_msg(config_load(&c, config_file(bad[i])) == -1, "accepted %s", bad[i]);
		config_free(&c);
		unlink(config_path);
	}
}
END_TEST

START_TEST(test_config_bool)
{
	config c;
	ck_assert_int_eq(config_load(&c, NULL), 0);
	ck_assert(!c.cache_verify);
	config_free(&c);
	ck_assert_int_eq(config_load(&c, config_file("cache_verify = true\n")), 0);
	ck_assert(c.cache_verify);
	config_free(&c);
	unlink(config_path);
	ck_assert_int_eq(config_load(&c, config_file("cache_verify = 0\n")), 0);
	ck_assert(!c.cache_verify);
	config_free(&c);
	unlink(config_path);
	ck_assert_int_eq(config_load(&c, config_file("cache_verify = yes please\n")), -1);
	config_free(&c);
}
END_TEST

START_TEST(test_config_env_override)
{
	const char *path = config_file("workers = 3\nexternal_url = http://file\n");
	setenv("COLLABD_WORKERS", "7", 1);
	setenv("COLLABD_EXTERNAL_URL", "https://env.example/", 1);
	setenv("COLLABD_SSH_HOST", "ssh.example", 1);
	config c;
	ck_assert_int_eq(config_load(&c, path), 0);
	ck_assert_int_eq(c.workers, 7);
	ck_assert_str_eq(c.external_url, "https://env.example");
	ck_assert_str_eq(c.ssh_host, "ssh.example");
	config_free(&c);
}
END_TEST

START_TEST(test_config_env_bad_number)
{
	setenv("COLLABD_MAX_BODY", "lots", 1);
	config c;
	ck_assert_int_eq(config_load(&c, NULL), -1);
	config_free(&c);
}
END_TEST

START_TEST(test_config_monitoring_whitelist)
{
	config c;
	ck_assert_int_eq(config_load(&c, NULL), 0);
	ck_assert_str_eq(c.monitoring_whitelist, "127.0.0.0/8, ::1/128");
	config_free(&c);
	ck_assert_int_eq(
		config_load(&c, config_file("monitoring_whitelist = 10.0.0.0/8 fd00::/8\n")), 0);
	ck_assert(cidr_list_match(c.monitoring_whitelist, "10.9.8.7"));
	ck_assert(!cidr_list_match(c.monitoring_whitelist, "127.0.0.1"));
	config_free(&c);
	unlink(config_path);
	ck_assert_int_eq(config_load(&c, config_file("monitoring_whitelist = 10.0.0.0/40\n")), -1);
	config_free(&c);
	unlink(config_path);
}
END_TEST

/* repository_storages (core/storages.h): absent, one "default" at storage_path; named
 * absolute paths with "default" among them; anything else fails the load. */
START_TEST(test_config_repository_storages)
{
	config c;
	ck_assert_int_eq(config_load(&c, config_file("storage_path = /srv/a\n")), 0);
	ck_assert_int_eq(c.storages.n, 1);
	ck_assert_str_eq(c.storages.items[0].name, "default");
	ck_assert_str_eq(storages_path(&c.storages, "default"), "/srv/a");
	ck_assert_ptr_null(storages_path(&c.storages, "fast"));
	config_free(&c);
	unlink(config_path);
	ck_assert_int_eq(config_load(&c, config_file("repository_storages = default:/srv/a/ ,"
						     " fast : /mnt/fast_1,\n")),
			 0);
	ck_assert_int_eq(c.storages.n, 2);
	ck_assert_str_eq(storages_path(&c.storages, "default"), "/srv/a");
	ck_assert_str_eq(storages_path(&c.storages, "fast"), "/mnt/fast_1");
	config_free(&c);
	ck_assert_int_eq(c.storages.n, 0);
	unlink(config_path);
	static const char *const bad[] = {
		"fast:/mnt/fast",               /* no default */
		"default:relative/path",        /* not absolute */
		"default:/a, default:/b",       /* twice */
		"default:/a, Fast:/b",          /* not a name */
		"default:/a, /b",               /* no name */
		"default:/a, fast:",            /* no path */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char line[128];
		snprintf(line, sizeof(line), "repository_storages = %s\n", bad[i]);
		ck_assert_msg(config_load(&c, config_file(line)) < 0, "%s", bad[i]);
		config_free(&c);
		unlink(config_path);
	}
}
END_TEST

/* ---- crypto ---- */

START_TEST(test_crypto_token)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	char t1[TOKEN_LEN + 1], t2[TOKEN_LEN + 1];
	ck_assert_int_eq(crypto_token(t1), 0);
	ck_assert_int_eq(crypto_token(t2), 0);
	ck_assert_uint_eq(strlen(t1), TOKEN_LEN);
	ck_assert_uint_eq(strspn(t1, alphabet), TOKEN_LEN);
	ck_assert_uint_eq(strspn(t2, alphabet), TOKEN_LEN);
	ck_assert_str_ne(t1, t2); /* 120 random bits */
	ck_assert_int_eq(TOKEN_LEN, 20);
}
END_TEST

START_TEST(test_crypto_sha256_hex)
{
	ck_assert_str_eq(crypto_sha256_hex(A, "", 0),
			 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ck_assert_str_eq(crypto_sha256_hex(A, "abc", 3),
			 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert_str_eq(crypto_sha256_hex(
				 A, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56),
			 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* only n bytes count */
	ck_assert_str_eq(crypto_sha256_hex(A, "abcdef", 3),
			 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	unsigned char md5[16];
	crypto_md5("", 0, md5);
	static const unsigned char empty_md5[16] = {0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04,
						    0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8, 0x42, 0x7e};
	ck_assert_mem_eq(md5, empty_md5, 16);
}
END_TEST

static const unsigned char KEY1[32] = "0123456789abcdef0123456789abcdef";
static const unsigned char KEY2[32] = "0123456789abcdef0123456789abcdeF";

START_TEST(test_crypto_seal_open)
{
	const char *plain = "glpat-secret runner token \xc3\xa9";
	char *s1 = crypto_seal(A, KEY1, plain);
	char *s2 = crypto_seal(A, KEY1, plain);
	ck_assert_ptr_nonnull(s1);
	ck_assert_uint_eq(strlen(s1), 2 * (12 + strlen(plain) + 16));
	ck_assert_uint_eq(strspn(s1, "0123456789abcdef"), strlen(s1));
	ck_assert_str_ne(s1, s2); /* fresh nonce each time */
	ck_assert_str_eq(crypto_open(A, KEY1, s1), plain);
	ck_assert_str_eq(crypto_open(A, KEY1, s2), plain);

	char *e = crypto_seal(A, KEY1, "");
	ck_assert_str_eq(crypto_open(A, KEY1, e), "");
}
END_TEST

START_TEST(test_crypto_token_sealed)
{
	char t1[TOKEN_LEN + 1], t2[TOKEN_LEN + 1];
	const char *s1 = NULL, *s2 = NULL;
	ck_assert_int_eq(crypto_token_sealed(A, KEY1, t1, &s1), 0);
	ck_assert_int_eq(crypto_token_sealed(A, KEY1, t2, &s2), 0);
	ck_assert_uint_eq(strlen(t1), TOKEN_LEN);
	ck_assert_str_ne(t1, t2);
	/* the seal is of the token given back, under that key only */
	ck_assert_str_eq(crypto_open(A, KEY1, s1), t1);
	ck_assert_str_eq(crypto_open(A, KEY1, s2), t2);
	ck_assert_ptr_null(crypto_open(A, KEY2, s1));
}
END_TEST

static char flip(char c)
{
	return c == '0' ? '1' : '0';
}

START_TEST(test_crypto_open_tampered)
{
	const char *plain = "a secret worth keeping";
	char *s = crypto_seal(A, KEY1, plain);
	size_t n = strlen(s);
	/* one changed hex digit in the nonce, the ciphertext or the tag */
	size_t positions[] = {0, 24, 24 + 2 * strlen(plain) - 1, n - 1};
	for (size_t i = 0; i < sizeof(positions) / sizeof(*positions); i++) {
		char *t = arena_strdup(A, s);
		t[positions[i]] = flip(t[positions[i]]);
		ck_assert_msg(crypto_open(A, KEY1, t) == NULL, "tamper at %zu accepted",
			      positions[i]);
	}
	ck_assert_ptr_null(crypto_open(A, KEY2, s));
	/* malformed text */
	ck_assert_ptr_null(crypto_open(A, KEY1, ""));
	ck_assert_ptr_null(crypto_open(A, KEY1, arena_strndup(A, s, n - 1)));
	ck_assert_ptr_null(crypto_open(A, KEY1, arena_strndup(A, s, 2 * (12 + 16) - 2)));
	char *upper = arena_strdup(A, s);
	for (char *p = upper; *p; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	if (strcmp(upper, s) != 0)
		ck_assert_ptr_null(crypto_open(A, KEY1, upper));
	char *junk = arena_strdup(A, s);
	junk[30] = 'g';
	ck_assert_ptr_null(crypto_open(A, KEY1, junk));
}
END_TEST

START_TEST(test_crypto_key_file)
{
	char dir[] = "/tmp/collabd-key-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *path = arena_printf(A, "%s/instance.key", dir);
	unsigned char key[32];
	ck_assert_int_eq(crypto_key_load(path, key), -1);
	ck_assert_int_eq(crypto_key_create(path), 0);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(st.st_size, 32);
	ck_assert_int_eq(crypto_key_create(path), -1); /* never overwrites */
	ck_assert_int_eq(crypto_key_load(path, key), 0);
	char *sealed = crypto_seal(A, key, "x");
	ck_assert_str_eq(crypto_open(A, key, sealed), "x");
	ck_assert_int_eq(chmod(path, 0640), 0);
	ck_assert_int_eq(crypto_key_load(path, key), -1); /* readable by others: refused */
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(test_crypto_password)
{
	char *h1 = crypto_password_hash(A, "correct horse");
	char *h2 = crypto_password_hash(A, "correct horse");
	ck_assert_ptr_nonnull(h1);
	ck_assert_int_eq(strncmp(h1, "$y$", 3), 0);
	ck_assert_str_ne(h1, h2); /* salted */
	ck_assert_int_eq(crypto_password_check("correct horse", h1), 1);
	ck_assert_int_eq(crypto_password_check("correct horse", h2), 1);
	ck_assert_int_eq(crypto_password_check("correct horsE", h1), 0);
	ck_assert_int_eq(crypto_password_check("", h1), 0);
	ck_assert_int_eq(crypto_password_check("correct horse", NULL), 0);
	ck_assert_int_eq(crypto_password_check("correct horse", ""), 0);
	ck_assert_int_eq(crypto_password_check("correct horse", "*"), 0);
	ck_assert_int_eq(crypto_password_check("correct horse", "!locked"), 0);
	/* a truncated hash does not verify */
	ck_assert_int_eq(
		crypto_password_check("correct horse", arena_strndup(A, h1, strlen(h1) - 1)), 0);
}
END_TEST

START_TEST(test_crypto_base64_vectors)
{
	static const struct {
		const char *plain, *padded, *bare;
	} v[] = {
		{"", "", ""},
		{"f", "Zg==", "Zg"},
		{"fo", "Zm8=", "Zm8"},
		{"foo", "Zm9v", "Zm9v"},
		{"foob", "Zm9vYg==", "Zm9vYg"},
		{"fooba", "Zm9vYmE=", "Zm9vYmE"},
		{"foobar", "Zm9vYmFy", "Zm9vYmFy"}, /* RFC 4648 */
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		size_t n = strlen(v[i].plain);
		ck_assert_str_eq(crypto_base64_encode(A, (const unsigned char *)v[i].plain, n, 1),
				 v[i].padded);
		ck_assert_str_eq(crypto_base64_encode(A, (const unsigned char *)v[i].plain, n, 0),
				 v[i].bare);
		if (n == 0)
			continue;
		unsigned char *out;
		size_t len;
		ck_assert_int_eq(crypto_base64_decode(A, v[i].padded, &out, &len), 0);
		ck_assert_uint_eq(len, n);
		ck_assert_mem_eq(out, v[i].plain, n);
	}
}
END_TEST

START_TEST(test_crypto_base64_binary_roundtrip)
{
	unsigned char all[256];
	for (int i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	for (size_t n = 250; n <= 256; n++) {
		char *e = crypto_base64_encode(A, all, n, 1);
		ck_assert_uint_eq(strlen(e), (n + 2) / 3 * 4);
		unsigned char *out;
		size_t len;
		ck_assert_int_eq(crypto_base64_decode(A, e, &out, &len), 0);
		ck_assert_uint_eq(len, n);
		ck_assert_mem_eq(out, all, n);
	}
}
END_TEST

START_TEST(test_crypto_base64_malformed)
{
	static const char *const bad[] = {
		"",         "Zg",       "Zg=",   "Zm9vY",  "Zg=a", "Z===",      "====",
		"Zm9v!A==", "Zg==Zg==", "Zm9 v", "Zm9v\n", "Zm-_", "Zm9vYg=\n", "=Zm9",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		unsigned char *out = NULL;
		size_t len = 0;
		ck_assert_msg(crypto_base64_decode(A, bad[i], &out, &len) == -1, "accepted \"%s\"",
			      bad[i]);
	}
}
END_TEST

/* ---- sshkey ---- */

/* Generated with ssh-keygen; fingerprints from `ssh-keygen -l -E md5 -f`. */
#define ED25519_B64 "AAAAC3NzaC1lZDI1NTE5AAAAIHTNfbfrK8uS0/vY+R4JQ/iDi9lvwHwBTQk+pdrXTSw7"
#define ED25519_MD5 "28:38:97:e8:6d:61:07:12:71:5e:be:62:88:68:7a:c0"
#define RSA_B64                                                                                    \
	"AAAAB3NzaC1yc2EAAAADAQABAAABAQC1VSWVYwDfNwUoqwTofUJCTRYX31CwGoIDqAZ17svSB4CMJNtK2MgS87Ym" \
	"wsAIimqmAVeazaHbe81MYKX8blU0ZJKCn+lBsIB9pdE+lP0AxH31L/WQf5UGXoeVr6MKvCubf1BVSF3ZNVUv8VET" \
	"DLckbyVc9ktqnjzz+ufIrwQRbvEABh7oA7rveFO00AHoadlYBDj1xI00OhpHEDm4FimT7T8w94Q0R240b4PybCca" \
	"Qa1AEHxYj/Q8LU7Clr6U6cTEX5WVQ5pMCM6+rK6k6TEW4tQY5JECvocf1KbhCRFWH6lpt9P44CsC+LnCiZra0ztn" \
	"GYBX8vRXymm+TRAQrm1n"
#define RSA_MD5 "d5:89:e0:b1:70:18:2e:b1:24:cb:7d:b5:73:87:18:e7"
#define ECDSA256_B64                                                                               \
	"AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBO/aIcH3TJvVG4+Wlv4Qr9a5Gp/GeEd1ySPB" \
	"/sza+u+YEua4xJQNarsGPaVE7eXNyZmwRJ1nGHxJ52raPWK9ca8="
#define ECDSA256_MD5 "c8:e2:66:1c:25:12:f4:ca:f3:6d:e7:3f:b2:f8:29:27"
#define ECDSA384_B64                                                                               \
	"AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBHigmVp2wyz7XpICiFDBrtgdl0zsC42ozK38" \
	"CeYMAtQ2z/CiGHauwGCZlf/nzwN00iifygV86oGieSEmBjyVOxhAKOX0zVZYiLoUFl4XDwWxw/h88EEoG7S5bmgU" \
	"bpa8aw=="
#define ECDSA384_MD5 "39:4e:f4:ad:73:a6:be:ca:c7:e7:94:fe:27:cb:2b:e4"

START_TEST(test_sshkey_valid)
{
	static const struct {
		const char *text, *type, *fingerprint, *normalized;
		int bits;
	} v[] = {
		{"ssh-ed25519 " ED25519_B64 " ed@example.com", "ssh-ed25519", ED25519_MD5,
		 "ssh-ed25519 " ED25519_B64 " ed@example.com", 256},
		{"ssh-rsa " RSA_B64 " rsa@example.com", "ssh-rsa", RSA_MD5,
		 "ssh-rsa " RSA_B64 " rsa@example.com", 2048},
		{"ecdsa-sha2-nistp256 " ECDSA256_B64 " ec@example.com", "ecdsa-sha2-nistp256",
		 ECDSA256_MD5, "ecdsa-sha2-nistp256 " ECDSA256_B64 " ec@example.com", 256},
		{"ecdsa-sha2-nistp384 " ECDSA384_B64, "ecdsa-sha2-nistp384", ECDSA384_MD5,
		 "ecdsa-sha2-nistp384 " ECDSA384_B64, 384},
		/* surrounding and repeated blanks are normalised; the comment keeps its spaces */
		{"  ssh-ed25519\t " ED25519_B64 "   my laptop key  \n", "ssh-ed25519", ED25519_MD5,
		 "ssh-ed25519 " ED25519_B64 " my laptop key", 256},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		sshkey k;
		ck_assert_msg(sshkey_parse(A, v[i].text, &k) == 0, "rejected key %zu", i);
		ck_assert_str_eq(k.type, v[i].type);
		ck_assert_str_eq(k.fingerprint, v[i].fingerprint);
		ck_assert_str_eq(k.normalized, v[i].normalized);
		ck_assert_int_eq(k.bits, v[i].bits);
	}
}
END_TEST

START_TEST(test_sshkey_line_breaks_stripped)
{
	/* a key pasted from a terminal that wrapped it */
	const char *text =
		"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC1VSWVYwDfNwUoqwTofUJCTRYX31CwGoIDqAZ"
		"17svSB4CMJNtK2MgS87Ym\r\n"
		"wsAIimqmAVeazaHbe81MYKX8blU0ZJKCn+lBsIB9pdE+lP0AxH31L/WQf5UGXoeVr6MKvCubf1"
		"BVSF3ZNVUv8VET\n"
		"DLckbyVc9ktqnjzz+ufIrwQRbvEABh7oA7rveFO00AHoadlYBDj1xI00OhpHEDm4FimT7T8w94"
		"Q0R240b4PybCca\n"
		"Qa1AEHxYj/Q8LU7Clr6U6cTEX5WVQ5pMCM6+rK6k6TEW4tQY5JECvocf1KbhCRFWH6lpt9P44C"
		"sC+LnCiZra0ztn\n"
		"GYBX8vRXymm+TRAQrm1n rsa@exam\nple.com\n";
	sshkey k;
	ck_assert_int_eq(sshkey_parse(A, text, &k), 0);
	ck_assert_str_eq(k.fingerprint, RSA_MD5);
	ck_assert_str_eq(k.normalized, "ssh-rsa " RSA_B64 " rsa@example.com");
}
END_TEST

/* The blob of b64 re-encoded after keeping only its first keep bytes. */
static const char *truncated(const char *b64, size_t drop)
{
	unsigned char *blob;
	size_t n;
	ck_assert_int_eq(crypto_base64_decode(A, b64, &blob, &n), 0);
	ck_assert_uint_gt(n, drop);
	return crypto_base64_encode(A, blob, n - drop, 1);
}

/* A blob from length-prefixed parts. */
static const char *blob(const unsigned char *const *parts, const uint32_t *lens, int n)
{
	unsigned char b[1024];
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		b[len++] = (unsigned char)(lens[i] >> 24);
		b[len++] = (unsigned char)(lens[i] >> 16);
		b[len++] = (unsigned char)(lens[i] >> 8);
		b[len++] = (unsigned char)lens[i];
		memcpy(b + len, parts[i], lens[i]);
		len += lens[i];
	}
	return crypto_base64_encode(A, b, len, 1);
}

START_TEST(test_sshkey_invalid)
{
	const char *bad[] = {
		"",
		"ssh-ed25519",
		"ssh-ed25519 ",
		ED25519_B64,
		"ssh-ed25519 " ED25519_B64 "!",                     /* malformed base64 */
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHTNfbfrK8uS", /* truncated base64 text */
		"ssh-rsa " ED25519_B64,                             /* prefix does not match blob */
		"ecdsa-sha2-nistp384 " ECDSA256_B64,                /* wrong curve */
		"ssh-ed25519 " RSA_B64,
		"ssh-foo " ED25519_B64, /* unknown type */
		"SSH-ED25519 " ED25519_B64,
		arena_printf(A, "ssh-ed25519 %s", truncated(ED25519_B64, 1)),
		arena_printf(A, "ssh-rsa %s", truncated(RSA_B64, 1)),
		arena_printf(A, "ssh-rsa %s", truncated(RSA_B64, 257)), /* modulus gone */
		arena_printf(A, "ecdsa-sha2-nistp256 %s", truncated(ECDSA256_B64, 1)),
		"ssh-ed25519 " ED25519_B64 "AAAA", /* trailing bytes after the key */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		sshkey k;
		ck_assert_msg(sshkey_parse(A, bad[i], &k) == -1, "accepted key %zu: %s", i, bad[i]);
	}
}
END_TEST

START_TEST(test_sshkey_rsa_bits)
{
	static const unsigned char type[] = "ssh-rsa", e[] = {1, 0, 1};
	unsigned char m768[97], m512[65], zero[4] = {0};
	m768[0] = 0; /* mpint sign byte */
	memset(m768 + 1, 0xFF, 96);
	m512[0] = 0;
	memset(m512 + 1, 0xFF, 64);
	const unsigned char *parts[] = {type, e, m768};
	uint32_t lens[] = {7, 3, sizeof(m768)};
	sshkey k;
	ck_assert_int_eq(sshkey_parse(A, arena_printf(A, "ssh-rsa %s", blob(parts, lens, 3)), &k),
			 0);
	ck_assert_int_eq(k.bits, 768);
	m768[1] = 0x01; /* top byte 00000001: 761 bits */
	ck_assert_int_eq(sshkey_parse(A, arena_printf(A, "ssh-rsa %s", blob(parts, lens, 3)), &k),
			 -1);
	parts[2] = m512;
	lens[2] = sizeof(m512);
	ck_assert_int_eq(sshkey_parse(A, arena_printf(A, "ssh-rsa %s", blob(parts, lens, 3)), &k),
			 -1);
	parts[2] = zero;
	lens[2] = sizeof(zero);
	ck_assert_int_eq(sshkey_parse(A, arena_printf(A, "ssh-rsa %s", blob(parts, lens, 3)), &k),
			 -1);
}
END_TEST

/* ---- validate ---- */

/* The validators see exact-size heap copies, so that a read past the end shows up
 * under AddressSanitizer. */
typedef bool (*validator)(const char *);

static bool check_copy(validator fn, const char *s)
{
	char *c = strdup(s);
	bool ok = fn(c);
	free(c);
	return ok;
}

static void expect_all(validator fn, const char *const *values, size_t n, bool want)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(check_copy(fn, values[i]) == want, "%s: \"%s\"",
			      want ? "rejected" : "accepted", values[i]);
}

#define EXPECT(fn, want, ...)                                                                      \
	do {                                                                                       \
		const char *const v_[] = {__VA_ARGS__};                                            \
		expect_all(fn, v_, sizeof(v_) / sizeof(*v_), want);                                \
	} while (0)

START_TEST(test_valid_namespace_path)
{
	char long_ok[256], long_bad[257];
	memset(long_ok, 'a', 255);
	long_ok[255] = '\0';
	memset(long_bad, 'a', 256);
	long_bad[256] = '\0';
	EXPECT(valid_namespace_path, true, "john", "john.doe", "john_doe-2", "_x", "a", "A1",
	       "a.b.c", "x-", long_ok);
	EXPECT(valid_namespace_path, false, "", "-john", "john.", ".", "john.git", "john.atom",
	       "jo hn", "jo/hn", "j\xc3\xb6hn", "a@b", "a+b", long_bad);
}
END_TEST

START_TEST(test_valid_email)
{
	char long_bad[300];
	memset(long_bad, 'a', 299);
	long_bad[299] = '\0';
	long_bad[10] = '@';
	EXPECT(valid_email, true, "a@b", "john.doe+tag@example.com", "x@localhost");
	EXPECT(valid_email, false, "", "@b", "a@", "a@b@c", "a b@c", "a\t@b", "ab", "a@b\n",
	       long_bad);
}
END_TEST

START_TEST(test_valid_hex_color)
{
	EXPECT(valid_hex_color, true, "#fff", "#A1b2C3", "#000000", "#FFF");
	EXPECT(valid_hex_color, false, "", "#", "fff", "ffffff", "#ff", "#ffff", "#12345",
	       "#1234567", "#ggg", "#12345g", " #fff");
}
END_TEST

START_TEST(test_valid_datetime)
{
	EXPECT(valid_datetime, true, "2017-09-05", "2017-09-05T10:12:35Z",
	       "2017-09-05T10:12:35.123Z", "2017-09-05T10:12:35.1z", "2017-09-05 10:12",
	       "2017-09-05T10:12", "2017-09-05T10:12:35", "2017-09-05T10:12:35+02:00",
	       "2017-09-05T10:12:35-0530", "2017-09-05T10:12:35+05", "2017-09-05T00:00:00.000000Z",
	       "2016-02-29T23:59:59Z", "2000-02-29", "2017-12-31T23:59:60Z", "2017-01-31",
	       "2017-04-30T12:00Z");
	EXPECT(valid_datetime, false, "", "2017", "2017-09", "2017-09-0", "2017-9-5", "17-09-05",
	       "2017/09/05", "2017-02-30", "2017-02-29", "1900-02-29", "2017-04-31", "2017-06-31",
	       "2017-13-01", "2017-00-10", "2017-01-00", "2017-01-32", "0000-01-01", "2017-09-05T",
	       "2017-09-05 ", "2017-09-05T1", "2017-09-05T10", "2017-09-05T10:", "2017-09-05T10:1",
	       "2017-09-05T24:00:00Z", "2017-09-05T10:60Z", "2017-09-05T10:12:61Z",
	       "2017-09-05T10:12:3", "2017-09-05T10:12:35.", "2017-09-05T10:12:35.Z",
	       "2017-09-05T10:12:35ZZ", "2017-09-05T10:12:35Zx", "2017-09-05X10:12",
	       "2017-09-05T10-12", "2017-09-05T10:12:35+15:00", "2017-09-05T10:12:35+02:60",
	       "2017-09-05T10:12:35+02:0", "2017-09-05T10:12:35+", "2017-09-05T10:12:35+1",
	       "2017-09-05T10:12:35 UTC", "2017-09-05T10:12:35+02:00x", "2017-09-05x");
}
END_TEST

START_TEST(test_valid_date)
{
	EXPECT(valid_date, true, "2017-09-05", "2016-02-29", "2000-02-29", "2017-12-31");
	EXPECT(valid_date, false, "", "2017", "2017-02-30", "2017-02-29", "2100-02-29",
	       "2017-09-05T10:12:35Z", "2017-09-05 ", "2017-9-05", "2017-09-5", "2017-09-05x",
	       "2017-11-31", "abcd-ef-gh");
}
END_TEST

START_TEST(test_valid_text)
{
	EXPECT(valid_text, true, "", "plain", "tab\tnl\ncr\r", "caf\xc3\xa9", "\xe2\x82\xac",
	       "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xf4\x8f\xbf\xbf", "\xc2\x80",
	       "\xe0\xa0\x80", "\xf0\x90\x80\x80");
	EXPECT(valid_text, false, "\x01", "a\x1b[0m", "\x1f", "\xc3", "\xc3\x28", "\xc0\xaf",
	       "\xc1\xbf", "\x80", "\xbf", "\xfe", "\xff", "\xf5\x80\x80\x80", "\xe2\x82",
	       "\xe2\x28\xa1", "\xf0\x9f\x98", "x\xf0\x9f\x98",
	       "\xe0\x80\xaf",      /* overlong 3-byte */
	       "\xe0\x9f\xbf",      /* overlong 3-byte */
	       "\xf0\x80\x80\xaf",  /* overlong 4-byte */
	       "\xf0\x8f\xbf\xbf",  /* overlong 4-byte */
	       "\xed\xa0\x80",      /* UTF-16 surrogate */
	       "\xed\xbf\xbf",      /* UTF-16 surrogate */
	       "\xf4\x90\x80\x80"); /* past U+10FFFF */
}
END_TEST

/* git check-ref-format's rules and GitLab's additions, each rule broken once. */
#define BAD_REF_NAMES                                                                              \
	"", "-D", "--all", "--upload-pack=id", "-", "@", "HEAD", "del\x7f", "tab\tx", "nl\nx",     \
		"a b", "a..b", "a@{1}", "a~1", "a^", "a:b", "a?", "a[b", "a\\b", "a//b", "/a",     \
		"a/", "a.", ".a", "a/.b", "a.lock", "a.lock/b", "refs/heads/a", "refs/remotes/a",  \
		"\xc3\x28"

START_TEST(test_valid_ref_name)
{
	EXPECT(valid_ref_name, true, "master", "feature/x-1", "v1.0.0", "a-", "a@b", "HEADS",
	       "release/10.x", "caf\xc3\xa9", "a.b/c.d", "x.locks", "refs/tags/v1",
	       "0123456789abcdef0123456789abcdef01234567");
	EXPECT(valid_ref_name, false, BAD_REF_NAMES, "release-*", "*");
	char long_component[252];
	memset(long_component, 'a', 251);
	long_component[251] = '\0';
	ck_assert(!valid_ref_name(long_component));
	long_component[250] = '\0';
	ck_assert(valid_ref_name(long_component));
	EXPECT(valid_ref_pattern, true, "release-*", "*", "*-stable", "feature/*", "master");
	EXPECT(valid_ref_pattern, false, BAD_REF_NAMES);
}
END_TEST

/* Text parameters: any valid UTF-8, control characters and NUL included (a NUL's fate
 * is the parameter view's, http/request.h param_check_text); the same refusals as
 * valid_text for what is not UTF-8 PostgreSQL takes. */
START_TEST(test_valid_utf8)
{
	static const char *const good[] = {"",
					   "plain",
					   "\x1b[32;1m$ make\x1b[0;m",
					   "\x01\x7f",
					   "caf\xc3\xa9",
					   "\xf0\x9f\x98\x80",
					   "\xf4\x8f\xbf\xbf"};
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ck_assert_msg(valid_utf8(good[i], strlen(good[i])), "refused %zu", i);
	ck_assert(valid_utf8("a\0b\0", 4));
	static const char *const bad[] = {"\xc3",         "\xc0\xaf",
					  "\xed\xa0\x80", "\xf4\x90\x80\x80",
					  "\xe0\x80\xaf", "\xff",
					  "ok\xe2\x82"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_msg(!valid_utf8(bad[i], strlen(bad[i])), "accepted %zu", i);
	/* a sequence cut by the length is not one, whatever follows it */
	ck_assert(!valid_utf8("\xc3\xa9", 1));
	ck_assert(!valid_utf8("a\0\xff", 3));
}
END_TEST

/* What a client sent reaches a log line escaped: no line of its own, no terminal
 * control. */
START_TEST(test_log_escapes_controls)
{
	char path[] = "/tmp/collabd-log-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	int saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
	log_set_request_id("r\n1");
	log_error("user %s", "eve\ncollabd[1] error: forged\x1b[2J\x7f\t");
	log_set_request_id(NULL);
	dup2(saved, STDERR_FILENO);
	close(saved);
	char line[512];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	close(fd);
	ck_assert_int_gt(n, 0);
	line[n] = '\0';
	ck_assert_ptr_nonnull(strstr(line, " error req=r\\x0a1: user eve\\x0acollabd[1] error: "
					   "forged\\x1b[2J\\x7f\\x09\n"));
	ck_assert_ptr_eq(strchr(line, '\n'), line + n - 1);
}
END_TEST

/* ---- files ---- */

START_TEST(test_files_image_type)
{
	static const struct {
		const char *data;
		size_t len;
		const char *want;
	} t[] = {
		{"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16, "png"},
		{"\xff\xd8\xff\xe0\0\x10JFIF", 10, "jpg"},
		{"GIF89a\1\0\1\0", 10, "gif"},
		{"GIF87a", 6, "gif"},
		{"BM\x36\0\0\0", 6, "bmp"},
		{"II*\0\x08\0\0\0", 8, "tiff"},
		{"MM\0*\0\0\0\x08", 8, "tiff"},
		{"\0\0\1\0\1\0\x10\x10", 8, "ico"},
		{"<html><script>alert(1)</script></html>", 38, NULL},
		{"<svg xmlns=\"http://www.w3.org/2000/svg\"/>", 41, NULL},
		{"\x89PNG\r\n\x1a", 7, NULL}, /* cut short */
		{"GIF88a", 6, NULL},
		{"\0\0\2\0", 4, NULL}, /* a cursor, not an icon */
		{"", 0, NULL},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		const char *got = files_image_type(t[i].data, t[i].len);
		ck_assert_msg(t[i].want ? got && strcmp(got, t[i].want) == 0 : !got,
			      "case %zu: expected %s, got %s", i, t[i].want ? t[i].want : "NULL",
			      got ? got : "NULL");
	}
}
END_TEST

START_TEST(test_files_sanitize_name)
{
	arena *a = arena_new();
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"dk.png", "dk.png"},
		{"../../etc/passwd", "passwd"},
		{"..\\..\\boot.ini", "boot.ini"},
		{"dir/", "dir"},
		{"..", "_.."},
		{".", "_."},
		{"", "unnamed"},
		{"/", "unnamed"},
		{"a b$(x);`y`.sh", "a_b__x___y_.sh"},
		{"r\xc3\xa9sum\xc3\xa9.pdf", "r\xc3\xa9sum\xc3\xa9.pdf"},
		{"\xe2\x80\xae"
		 "fdp.exe",
		 "_fdp.exe"}, /* right-to-left override */
		{"a\xc2\xa0"
		 "b.txt",
		 "a_b.txt"}, /* no-break space */
		{"\xef\xbb\xbf"
		 "x",
		 "_x"},                            /* byte order mark */
		{"\xf0\x9f\x98\x80.txt", "_.txt"}, /* an emoji is no [[:word:]] either */
		{"x+y-z_1.tar.gz", "x+y-z_1.tar.gz"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *got = files_sanitize_name(a, cases[i].in);
		ck_assert_msg(got && strcmp(got, cases[i].out) == 0, "%s: got %s", cases[i].in,
			      got ? got : "(null)");
	}
	ck_assert_ptr_null(files_sanitize_name(a, "bad\xff.txt"));
	char longname[300];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_ptr_null(files_sanitize_name(a, longname));
	longname[FILES_NAME_MAX] = '\0';
	ck_assert_ptr_nonnull(files_sanitize_name(a, longname));
	arena_destroy(a);
}
END_TEST

START_TEST(test_cidr_match)
{
	const char *list = "127.0.0.0/8, ::1/128 10.1.0.0/16,192.0.2.7";
	ck_assert(cidr_list_match(list, "127.0.0.1"));
	ck_assert(cidr_list_match(list, "127.255.3.4"));
	ck_assert(cidr_list_match(list, "::1"));
	ck_assert(cidr_list_match(list, "10.1.200.3"));
	ck_assert(cidr_list_match(list, "192.0.2.7"));
	/* an IPv4-mapped IPv6 address matches the IPv4 ranges */
	ck_assert(cidr_list_match(list, "::ffff:127.0.0.1"));
	ck_assert(!cidr_list_match(list, "128.0.0.1"));
	ck_assert(!cidr_list_match(list, "10.2.0.1"));
	ck_assert(!cidr_list_match(list, "192.0.2.8"));
	ck_assert(!cidr_list_match(list, "::2"));
	ck_assert(!cidr_list_match(list, "fe80::1"));
	ck_assert(!cidr_list_match(list, ""));
	ck_assert(!cidr_list_match(list, "localhost"));
	ck_assert(!cidr_list_match(list, NULL));
	ck_assert(!cidr_list_match("", "127.0.0.1"));
	/* prefixes that do not end on a byte */
	ck_assert(cidr_list_match("172.16.0.0/12", "172.31.255.255"));
	ck_assert(!cidr_list_match("172.16.0.0/12", "172.32.0.0"));
	ck_assert(cidr_list_match("2001:db8::/33", "2001:db8:7fff::1"));
	ck_assert(!cidr_list_match("2001:db8::/33", "2001:db8:8000::1"));
	ck_assert(cidr_list_match("0.0.0.0/0", "8.8.8.8"));
	ck_assert(!cidr_list_match("0.0.0.0/0", "2001:db8::1"));
}
END_TEST

START_TEST(test_cidr_check)
{
	const char *bad = NULL;
	ck_assert_int_eq(cidr_list_check("127.0.0.0/8, ::1/128", &bad), 0);
	ck_assert_int_eq(cidr_list_check("", &bad), 0);
	ck_assert_int_eq(cidr_list_check("127.0.0.0/33", &bad), -1);
	ck_assert_str_eq(bad, "127.0.0.0/33");
	ck_assert_int_eq(cidr_list_check("::1/128,10.0.0.0/x", &bad), -1);
	ck_assert_str_eq(bad, "10.0.0.0/x");
	ck_assert_int_eq(cidr_list_check("example.com", &bad), -1);
	ck_assert_int_eq(cidr_list_check("10.0.0.0/", &bad), -1);
}
END_TEST

static void metrics_label(size_t i, const char **method, const char **pattern, void *arg)
{
	(void)arg;
	*method = "GET";
	*pattern = i == 0 ? "/api/v4/a\"b" : "/api/v4/c";
}

/* Counts added in forked children (the workers) are seen by the parent (the master). */
START_TEST(test_metrics_shared)
{
	ck_assert_int_eq(metrics_init(2), 0);
	for (int k = 0; k < 3; k++) {
		pid_t pid = fork();
		if (pid == 0) {
			for (int i = 0; i < 1000; i++)
				metrics_add(METRIC_DB_ROUND_TRIPS, 1);
			metrics_request(0, 200, 0.003);
			metrics_request(0, 418, 20);
			metrics_set_worker(k);
			metrics_busy(k != 1);
			_exit(0);
		}
		ck_assert_int_gt(pid, 0);
		int st;
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	}
	metrics_worker_gone(2);
	arena *a = arena_new();
	buf b;
	buf_init(&b, a, 256);
	metrics_format(&b, metrics_label, NULL);
	const char *t = buf_cstr(&b);
	ck_assert_ptr_nonnull(strstr(t, "\ncollabd_db_round_trips_total 3000\n"));
	ck_assert_ptr_nonnull(strstr(t, "# TYPE collabd_response_cache_hits_total counter\n"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"collabd_http_requests_total{method=\"GET\",route=\"/api/v4/a\\\"b\",code=\"200\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, "code=\"4xx\"} 3\n"));
	ck_assert_ptr_null(strstr(t, "route=\"/api/v4/c\""));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"0.0025\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"0.005\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"10\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"+Inf\"} 6\n"));
	ck_assert_ptr_nonnull(strstr(t, "_count{method=\"GET\",route=\"/api/v4/a\\\"b\"} 6\n"));
	/* worker 0 busy, 1 idle, 2 busy but gone */
	ck_assert_ptr_nonnull(strstr(t, "\ncollabd_workers_busy 1\n"));
	arena_destroy(a);
}
END_TEST

/* ---- json_stream ---- */

/* What the callback saw: "key[index]=<json>;" for each value. */
struct js_seen {
	char text[4096];
	int calls;
	int stop_at; /* the call that answers 7 (0: none) */
};

static int js_collect(void *arg, const char *key, long index, json_object *value)
{
	struct js_seen *seen = arg;
	size_t len = strlen(seen->text);
	snprintf(seen->text + len, sizeof(seen->text) - len, "%s[%ld]=%s;", key, index,
		 json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN));
	return ++seen->calls == seen->stop_at ? 7 : 0;
}

/* Feeds doc in chunks of `chunk` bytes: what json_stream_end (or the failing feed)
 * returned, the values seen in *seen and the error in err. */
static int js_run(const char *doc, size_t chunk, int depth, size_t max, struct js_seen *seen,
		  char err[256])
{
	memset(seen->text, 0, sizeof(seen->text));
	seen->calls = 0;
	json_stream *s = json_stream_new(depth, max, js_collect, seen);
	ck_assert_ptr_nonnull(s);
	size_t n = strlen(doc);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i += chunk)
		rc = json_stream_feed(s, doc + i, n - i < chunk ? n - i : chunk);
	if (rc == 0)
		rc = json_stream_end(s);
	snprintf(err, 256, "%s", json_stream_error(s));
	json_stream_free(s);
	return rc;
}

static const char js_doc[] =
	" {\"description\": \"a \\\"quoted\\\" \\u00e9t\\u00e9 \\\\ text\", \"visibility_level\":10,"
	" \"archived\" : false, \"labels\": [ {\"id\": 1, \"title\": \"b]u}g\"}, {\"id\":2} ],"
	" \"empty\": [], \"project_feature\": {\"wiki_access_level\": 20}, \"n\": -1.5e3,"
	" \"nested\": [[1,[2]], \"x\\ny\", null], \"none\": null, \"t\": true}\n";

START_TEST(test_json_stream_chunks)
{
	struct js_seen whole = {0}, seen = {0};
	char err[256];
	ck_assert_int_eq(js_run(js_doc, sizeof(js_doc), 8, 1024, &whole, err), 0);
	ck_assert_str_eq(whole.text,
			 "description[-1]=\"a \\\"quoted\\\" \xc3\xa9t\xc3\xa9 \\\\ text\";"
			 "visibility_level[-1]=10;archived[-1]=false;"
			 "labels[0]={\"id\":1,\"title\":\"b]u}g\"};labels[1]={\"id\":2};"
			 "project_feature[-1]={\"wiki_access_level\":20};n[-1]=-1.5e3;"
			 "nested[0]=[1,[2]];nested[1]=\"x\\ny\";nested[2]=null;none[-1]=null;"
			 "t[-1]=true;");
	/* every chunk size puts a boundary inside each string, escape and number */
	for (size_t chunk = 1; chunk < 40; chunk++) {
		ck_assert_int_eq(js_run(js_doc, chunk, 8, 1024, &seen, err), 0);
		ck_assert_str_eq(seen.text, whole.text);
	}
}
END_TEST

START_TEST(test_json_stream_depth)
{
	/* 100,000 levels inside an element: refused by the depth limit, not the stack */
	size_t deep = 100000;
	char *doc = malloc(2 * deep + 64);
	ck_assert_ptr_nonnull(doc);
	char *p = doc + sprintf(doc, "{\"issues\": [");
	memset(p, '[', deep);
	p += deep;
	memset(p, ']', deep);
	p += deep;
	strcpy(p, "]}");
	struct js_seen seen = {0};
	char err[256];
	ck_assert_int_eq(js_run(doc, 4096, 32, 1 << 20, &seen, err), JSON_STREAM_ERROR);
	ck_assert_int_eq(seen.calls, 0);
	ck_assert_str_eq(err, "element 0 of \"issues\" is nested too deeply");
	free(doc);
	/* as deep as allowed: read */
	ck_assert_int_eq(js_run("{\"a\":[[[1]]]}", 3, 3, 100, &seen, err), 0);
	ck_assert_str_eq(seen.text, "a[0]=[[1]];");
	ck_assert_int_eq(js_run("{\"a\":[[[[1]]]]}", 3, 3, 100, &seen, err), JSON_STREAM_ERROR);
}
END_TEST

START_TEST(test_json_stream_size)
{
	struct js_seen seen = {0};
	char err[256];
	/* the element {"t":"xxxx...x"}: 28 bytes, against a bound of 25 */
	const char *doc = "{\"a\":[1,{\"t\":\"xxxxxxxxxxxxxxxxxxxx\"},3]}";
	for (size_t chunk = 1; chunk < 8; chunk++) {
		ck_assert_int_eq(js_run(doc, chunk, 8, 25, &seen, err), JSON_STREAM_ERROR);
		ck_assert_str_eq(seen.text, "a[0]=1;");
		ck_assert_str_eq(err, "element 1 of \"a\" is larger than 25 bytes");
	}
	/* exactly at the bound: read */
	ck_assert_int_eq(js_run(doc, 5, 8, 28, &seen, err), 0);
	ck_assert_int_eq(seen.calls, 3);
	ck_assert_int_eq(js_run(doc, 5, 8, 27, &seen, err), JSON_STREAM_ERROR);
	/* a member's name counts too */
	ck_assert_int_eq(js_run("{\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\":1}", 4, 8, 10,
				&seen, err),
			 JSON_STREAM_ERROR);
	ck_assert_str_eq(err, "a member's name is larger than 10 bytes");
}
END_TEST

START_TEST(test_json_stream_bad)
{
	struct js_seen seen = {0};
	char err[256];
	static const char *const cut[] = {
		"{\"a\":[1,2",   "{\"a\":\"tex", "{\"a\":\"\\u00", "{\"a\":1", "{\"a\"", "{", "",
		"{\"a\":[1,2],",
	};
	for (size_t i = 0; i < sizeof(cut) / sizeof(*cut); i++) {
		ck_assert_int_eq(js_run(cut[i], 2, 8, 100, &seen, err), JSON_STREAM_ERROR);
		ck_assert_str_eq(err, "the document ends before its object does");
	}
	static const char *const bad[] = {
		"[1]",        "{\"a\":[1,]}",  "{\"a\":[1 2]}",   "{\"a\":1,}", "{a:1}",
		"{\"a\":1}x", "{\"a\":[tru]}", "{\"a\":\"\\q\"}", "{1:2}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_msg(js_run(bad[i], 1, 8, 100, &seen, err) == JSON_STREAM_ERROR, "%s",
			      bad[i]);
	/* the callback stops the reading with its own code */
	seen.stop_at = 2;
	ck_assert_int_eq(js_run("{\"a\":[1,2,3]}", 1, 8, 100, &seen, err), 7);
	ck_assert_int_eq(seen.calls, 2);
	ck_assert_str_eq(err, "stopped at element 1 of \"a\"");
	seen.stop_at = 0;
	ck_assert_int_eq(js_run("{}", 1, 8, 100, &seen, err), 0);
	ck_assert_int_eq(seen.calls, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("core");

	TCase *tc = tcase_create("arena");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_arena_alignment);
	tcase_add_test(tc, test_arena_zeroed_after_reuse);
	tcase_add_test(tc, test_arena_big_allocation);
	tcase_add_test(tc, test_arena_big_allocation_keeps_head);
	tcase_add_test(tc, test_arena_many_blocks);
	tcase_add_test(tc, test_arena_reset_runs_cleanups_newest_first);
	tcase_add_test(tc, test_arena_destroy_runs_cleanups);
	tcase_add_test(tc, test_arena_reset_keeps_one_block);
	tcase_add_test(tc, test_arena_strings);
	suite_add_tcase(s, tc);

	tc = tcase_create("buf");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_buf_append_grows);
	tcase_add_test(tc, test_buf_printf_grows);
	tcase_add_test(tc, test_buf_urlencode);
	tcase_add_test(tc, test_buf_put_base64);
	suite_add_tcase(s, tc);

	tc = tcase_create("jw");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_jw_strings_as_json_c);
	tcase_add_test(tc, test_jw_document_as_json_c);
	tcase_add_test(tc, test_jw_base64_as_json_c);
	tcase_add_test(tc, test_jw_put_time);
	suite_add_tcase(s, tc);

	tc = tcase_create("config");
	tcase_add_checked_fixture(tc, config_setup, config_teardown);
	tcase_add_test(tc, test_config_defaults);
	tcase_add_test(tc, test_config_file);
	tcase_add_test(tc, test_config_unknown_key);
	tcase_add_test(tc, test_config_line_without_equals);
	tcase_add_test(tc, test_config_missing_file);
	tcase_add_test(tc, test_config_bad_number);
	tcase_add_test(tc, test_config_bool);
	tcase_add_test(tc, test_config_env_override);
	tcase_add_test(tc, test_config_env_bad_number);
	tcase_add_test(tc, test_config_monitoring_whitelist);
	tcase_add_test(tc, test_config_repository_storages);
	suite_add_tcase(s, tc);

	tc = tcase_create("crypto");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30); /* yescrypt is slow on purpose */
	tcase_add_test(tc, test_crypto_token);
	tcase_add_test(tc, test_crypto_sha256_hex);
	tcase_add_test(tc, test_crypto_seal_open);
	tcase_add_test(tc, test_crypto_token_sealed);
	tcase_add_test(tc, test_crypto_open_tampered);
	tcase_add_test(tc, test_crypto_key_file);
	tcase_add_test(tc, test_crypto_password);
	tcase_add_test(tc, test_crypto_base64_vectors);
	tcase_add_test(tc, test_crypto_base64_binary_roundtrip);
	tcase_add_test(tc, test_crypto_base64_malformed);
	suite_add_tcase(s, tc);

	tc = tcase_create("turns");
	tcase_add_test(tc, test_turns_at_most_n);
	tcase_add_test(tc, test_turns_in_order);
	tcase_add_test(tc, test_turns_of_the_dead);
	tcase_add_test(tc, test_turns_none_or_gone);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_test(tc, test_files_image_type);
	tcase_add_test(tc, test_files_sanitize_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("sshkey");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sshkey_valid);
	tcase_add_test(tc, test_sshkey_line_breaks_stripped);
	tcase_add_test(tc, test_sshkey_invalid);
	tcase_add_test(tc, test_sshkey_rsa_bits);
	suite_add_tcase(s, tc);

	tc = tcase_create("validate");
	tcase_add_test(tc, test_valid_namespace_path);
	tcase_add_test(tc, test_valid_email);
	tcase_add_test(tc, test_valid_hex_color);
	tcase_add_test(tc, test_valid_datetime);
	tcase_add_test(tc, test_valid_date);
	tcase_add_test(tc, test_valid_text);
	tcase_add_test(tc, test_valid_ref_name);
	tcase_add_test(tc, test_valid_utf8);
	tcase_add_test(tc, test_log_escapes_controls);
	suite_add_tcase(s, tc);

	tc = tcase_create("cidr");
	tcase_add_test(tc, test_cidr_match);
	tcase_add_test(tc, test_cidr_check);
	suite_add_tcase(s, tc);

	tc = tcase_create("json_stream");
	tcase_add_test(tc, test_json_stream_chunks);
	tcase_add_test(tc, test_json_stream_depth);
	tcase_add_test(tc, test_json_stream_size);
	tcase_add_test(tc, test_json_stream_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("metrics");
	tcase_add_test(tc, test_metrics_shared);
	suite_add_tcase(s, tc);

	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
