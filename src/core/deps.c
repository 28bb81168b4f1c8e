#include "core/deps.h"

#include <stdlib.h>

#include "core/crypto.h"

static int compare_keys(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

void deps_compact(dep_list *d)
{
	if (d->n < 2)
		return;
	qsort(d->keys, (size_t)d->n, sizeof(*d->keys), compare_keys);
	int n = 1;
	for (int i = 1; i < d->n; i++)
		if (d->keys[i] != d->keys[n - 1])
			d->keys[n++] = d->keys[i];
	d->n = n;
}

/* Appended as they come (a page of rows names the same namespace or owner again and
 * again: the neighbour is skipped at once, the rest when the array fills or at the end). */
void deps_add(ctx *c, long long key)
{
	dep_list *d = c->deps;
	if (!d)
		return;
	if (d->n && d->keys[d->n - 1] == key)
		return;
	if (d->n == DEPS_MAX) {
		deps_compact(d);
		if (d->n == DEPS_MAX) {
			d->none = true;
			return;
		}
	}
	d->keys[d->n++] = key;
}

void deps_none(ctx *c)
{
	if (c->deps)
		c->deps->none = true;
}

const char *deps_open_secret(ctx *c, const char *sealed)
{
	const char *plain = crypto_open(c->a, c->key, sealed);
	dep_list *d = c->deps;
	if (plain && d) {
		if (d->nsecrets == DEPS_MAX_SECRETS) {
			d->none = true;
		} else {
			d->plain[d->nsecrets] = plain;
			d->sealed[d->nsecrets++] = sealed;
		}
	}
	return plain;
}
