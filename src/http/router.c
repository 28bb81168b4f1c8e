#include "http/router.h"

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
			if (rest)
				se = s + strlen(s);
			else
				while (*se && *se != '/')
					se++;
			if (se == s)
				return false;
			if (add) {
				/* a capture is text like any other parameter (it may reach SQL) */
				char *value = url_decode(r->ctx.a, s, (size_t)(se - s), false);
				if (!value || !valid_text(value))
					return false;
				param_add(r, arena_strndup(r->ctx.a, name, (size_t)(ne - name)), value, false,
					  SRC_PATH, true);
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

const route *router_match(const route *const *tables, request *r)
{
	for (size_t t = 0; tables[t]; t++) {
		for (const route *rt = tables[t]; rt->method; rt++) {
			if (strcmp(rt->method, r->method) != 0)
				continue;
			if (match(rt->pattern, r->path, r, false)) {
				if (!match(rt->pattern, r->path, r, true))
					return NULL;
				return rt;
			}
		}
	}
	return NULL;
}
