#include "http/router.h"

#include <stdlib.h>
#include <string.h>

#include "core/validate.h"

/* Matches one pattern against the raw path; on success adds the captures. A segment
 * capture is decoded inside the segment, so %2F never splits it. */
static bool match(const char *pattern, const char *path, request *r, bool add)
{
	const char *p = pattern, *s = path;
	while (*p) {
		if (*p == ':' || *p == '*') {
			bool rest = *p == '*';
			const char *name = p + 1, *ne = name;
			while (*ne && *ne != '/')
				ne++;
			const char *se = s;
			if (rest && !*ne) {
				se = s + strlen(s);
			} else if (rest) {
				/* a *capture before the end of the pattern takes the segments the
				 * rest of it leaves: as many slashes follow it in the path as in
				 * the pattern (*id in "*id/uploads/:secret/:filename") */
				unsigned k = 0;
				for (const char *c = ne; *c; c++)
					k += *c == '/';
				se = s + strlen(s);
				while (k > 0 && se > s)
					if (*--se == '/')
						k--;
				if (k > 0)
					return false;
			} else
				while (*se && *se != '/')
					se++;
			if (se == s)
				return false;
			if (add) {
				/* a capture is text like any other parameter (it may reach SQL) */
				char *value = url_decode(r->ctx.a, s, (size_t)(se - s), false);
				if (!value || !valid_text(value))
					return false;
				param_add(r, arena_strndup(r->ctx.a, name, (size_t)(ne - name)),
					  value, false, SRC_PATH, true);
			}
			p = ne;
			s = se;
			continue;
		}
		if (*p != *s)
			return false;
		p++;
		s++;
	}
	/* allow one trailing slash */
	return *s == '\0' || (s[0] == '/' && s[1] == '\0');
}

/* The number of slashes in s, a trailing one left out (match allows one). */
static unsigned slashes(const char *s)
{
	unsigned n = 0;
	for (const char *c = s; *c; c++)
		n += *c == '/' && c[1] != '\0';
	return n;
}

/* The routes of the tables router_index was given, in order, each with its pattern's
 * slashes and whether it ends in a *rest capture: a route whose pattern has other slashes
 * than the path (captures hold no raw slash) is passed over without being matched. */
static struct {
	const route *const *tables;
	size_t n;
	const route **routes;
	unsigned *slashes;
	bool *rest;
	size_t *table_n; /* the number of routes of each table */
} idx;

void router_index(const route *const *tables)
{
	size_t n = 0;
	for (size_t t = 0; tables[t]; t++)
		for (const route *rt = tables[t]; rt->method; rt++)
			n++;
	free(idx.routes);
	free(idx.slashes);
	free(idx.rest);
	free(idx.table_n);
	size_t ntables = 0;
	while (tables[ntables])
		ntables++;
	idx.table_n = calloc(ntables + 1, sizeof(*idx.table_n));
	idx.routes = malloc(n * sizeof(*idx.routes));
	idx.slashes = malloc(n * sizeof(*idx.slashes));
	idx.rest = malloc(n * sizeof(*idx.rest));
	if (!idx.routes || !idx.slashes || !idx.rest || !idx.table_n)
		abort();
	size_t i = 0;
	for (size_t t = 0; tables[t]; t++)
		for (const route *rt = tables[t]; rt->method; rt++, i++) {
			idx.table_n[t]++;
			idx.routes[i] = rt;
			idx.slashes[i] = slashes(rt->pattern);
			idx.rest[i] = strchr(rt->pattern, '*') != NULL;
		}
	idx.n = n;
	idx.tables = tables;
}

/* Whether rt is the route of r's method and path. */
static bool matches(const route *rt, const request *r)
{
	return strcmp(rt->method, r->method) == 0 && match(rt->pattern, r->path, NULL, false);
}

/* rt with its captures added to r, or NULL when one is badly encoded. */
static const route *captured(const route *rt, request *r)
{
	return match(rt->pattern, r->path, r, true) ? rt : NULL;
}

const route *router_match(const route *const *tables, request *r)
{
	if (idx.tables == tables) {
		unsigned n = slashes(r->path);
		for (size_t i = 0; i < idx.n; i++)
			if ((idx.rest[i] ? n >= idx.slashes[i] : n == idx.slashes[i]) &&
			    matches(idx.routes[i], r))
				return captured(idx.routes[i], r);
		return NULL;
	}
	for (size_t t = 0; tables[t]; t++)
		for (const route *rt = tables[t]; rt->method; rt++)
			if (matches(rt, r))
				return captured(rt, r);
	return NULL;
}

size_t router_count(void)
{
	return idx.n;
}

size_t router_position(const route *rt)
{
	/* each table is an array: rt's table is the one whose range holds it */
	size_t base = 0;
	for (size_t t = 0; rt && idx.tables && idx.tables[t]; t++) {
		size_t n = idx.table_n[t];
		if (rt >= idx.tables[t] && rt < idx.tables[t] + n)
			return base + (size_t)(rt - idx.tables[t]);
		base += n;
	}
	return idx.n;
}

const route *router_at(size_t i)
{
	return i < idx.n ? idx.routes[i] : NULL;
}
