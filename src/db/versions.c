#include "db/versions.h"

#include "core/buf.h"

const db_stmt db_versions_stmts[] = {
	/* $1 the keys of rows (a bigint[]), $2 the sets (their numbers, a bigint[]): the sum
	 * of their versions, a set's being the sum of its 64 stripes, keys -(n * 64 + 64) to
	 * -(n * 64 + 1) (sql/0010_cache_keys.sql); a key never bumped is 0 */
	{"cache_versions",
	 "SELECT ((SELECT coalesce(sum(v), 0) FROM cache_epochs WHERE k = ANY ($1::bigint[]))"
	 " + (SELECT coalesce(sum(e.v), 0) FROM unnest($2::bigint[]) s (n) JOIN cache_epochs e"
	 " ON e.k BETWEEN -(s.n * 64 + 64) AND -(s.n * 64 + 1)))::text",
	 2, 1},
	{NULL, NULL, 0, 0},
};

/* The keys of rows go as one array, the sets (negative) as their numbers in another. */
long long db_versions_sum(ctx *c, const long long *keys, int n)
{
	buf rows, sets;
	buf_init(&rows, c->a, 16 + (size_t)n * 8);
	buf_init(&sets, c->a, 32);
	buf_putc(&rows, '{');
	buf_putc(&sets, '{');
	for (int i = 0; i < n; i++) {
		buf *b = keys[i] < 0 ? &sets : &rows;
		if (b->len > 1)
			buf_putc(b, ',');
		buf_printf(b, "%lld", keys[i] < 0 ? -keys[i] : keys[i]);
	}
	buf_putc(&rows, '}');
	buf_putc(&sets, '}');
	const char *v[2] = {buf_cstr(&rows), buf_cstr(&sets)};
	PGresult *res = db_query(c, "cache_versions", 2, v, NULL);
	if (!res || PQntuples(res) != 1)
		return -1;
	return db_int(res, 0, 0);
}
