/* Repository search (git/search.h). */
#include "git/search.h"

#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/errors.h"
#include "core/log.h"

/* Blobs bigger than this are not searched (git grep reads them all; a search answer
 * should not wait on a generated megabyte file). */
#define GSEARCH_BLOB_MAX (1024 * 1024)
#define CONTEXT 2

static char ascii_lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch + ('a' - 'A')) : ch;
}

/* Whether the ql bytes at p are q's, ASCII case aside. */
static bool same(const char *p, const char *q, size_t ql)
{
	for (size_t j = 0; j < ql; j++)
		if (ascii_lower(p[j]) != ascii_lower(q[j]))
			return false;
	return true;
}

/* 16 bytes as one vector (GCC's and Clang's vector extension: SSE2 on x86-64, NEON on
 * ARM, plain code elsewhere). */
typedef unsigned char bytes16 __attribute__((vector_size(16)));

/* ASCII case-insensitive memmem: the first place in the n bytes at s that holds q (ql
 * bytes, not empty), or NULL. The candidates are the places whose byte and the byte
 * ql - 1 further match q's first and last with bit 0x20 set (their lower case, for
 * letters; never a miss, at times a candidate more), tested 16 places at a time; each is
 * then compared. A call of strncasecmp at every byte was most of a blob search's time,
 * and memchr for each case of the first byte no better (a common letter stops it every
 * few bytes). */
static const char *find(const char *s, size_t n, const char *q, size_t ql)
{
	if (ql > n)
		return NULL;
	const unsigned char *u = (const unsigned char *)s;
	unsigned char first = (unsigned char)q[0] | 0x20, last = (unsigned char)q[ql - 1] | 0x20;
	bytes16 vfirst = {0}, vlast = {0}, fold = {0};
	vfirst += first;
	vlast += last;
	fold += 0x20;
	size_t places = n - ql + 1, i = 0;
	for (; i + 16 <= places; i += 16) {
		bytes16 a, b;
		memcpy(&a, u + i, 16);
		memcpy(&b, u + i + ql - 1, 16);
		bytes16 hit = (bytes16)(((a | fold) == vfirst) & ((b | fold) == vlast));
		uint64_t h[2];
		memcpy(h, &hit, 16);
		if (!(h[0] | h[1]))
			continue;
		for (size_t k = i; k < i + 16; k++)
			if (same(s + k, q, ql))
				return s + k;
	}
	for (; i < places; i++)
		if (same(s + i, q, ql))
			return s + i;
	return NULL;
}

static bool holds(const char *s, size_t n, const char *q, size_t ql)
{
	return ql == 0 || find(s, n, q, ql) != NULL;
}

struct grep {
	ctx *c;
	git_repository *repo;
	const char *q;
	size_t ql, max, n, cap;
	gsearch_blob *hits;
};

static void add(struct grep *g, const char *path, int startline, const char *data, size_t len)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		gsearch_blob *h = arena_alloc(g->c->a, cap * sizeof(*h));
		if (g->n)
			memcpy(h, g->hits, g->n * sizeof(*h));
		g->hits = h;
		g->cap = cap;
	}
	g->hits[g->n++] = (gsearch_blob){path, startline, arena_strndup(g->c->a, data, len)};
}

/* The runs of the blob's lines that hold the query, each with its context. The matches
 * are found in the whole text (find) and mapped to their lines, rather than each line
 * searched in turn; a match that runs over a line's end is not one (git grep's are
 * within a line). */
static void grep_blob(struct grep *g, const char *path, const char *text, size_t len)
{
	/* line starts, then one past the end */
	size_t nl = 1;
	for (const char *e = text; (e = memchr(e, '\n', len - (size_t)(e - text))) != NULL;)
		if ((size_t)(++e - text) < len)
			nl++;
	size_t *start = arena_alloc(g->c->a, (nl + 1) * sizeof(*start));
	size_t k = 0;
	start[k++] = 0;
	for (const char *e = text; (e = memchr(e, '\n', len - (size_t)(e - text))) != NULL;)
		if ((size_t)(++e - text) < len)
			start[k++] = (size_t)(e - text);
	start[nl] = len;
	long run_from = -1, run_to = -1; /* lines [from, to] of the run being built */
	size_t l = 0, at = 0;            /* the line of offset at, where the search goes on */
	while (at < len && g->n < g->max) {
		const char *m = find(text + at, len - at, g->q, g->ql);
		if (!m)
			break;
		size_t off = (size_t)(m - text);
		while (start[l + 1] <= off)
			l++;
		if (off + g->ql > start[l + 1]) {
			at = off + 1; /* over the line's end: look further in the line */
			continue;
		}
		at = start[l + 1];
		long from = (long)l - CONTEXT < 0 ? 0 : (long)l - CONTEXT;
		long to = (long)(l + CONTEXT) >= (long)nl ? (long)nl - 1 : (long)(l + CONTEXT);
		if (run_from >= 0 && from <= run_to + 1) {
			run_to = to;
			continue;
		}
		if (run_from >= 0)
			add(g, path, (int)run_from + 1, text + start[run_from],
			    start[run_to + 1] - start[run_from]);
		run_from = from;
		run_to = to;
	}
	if (run_from >= 0 && g->n < g->max)
		add(g, path, (int)run_from + 1, text + start[run_from],
		    start[run_to + 1] - start[run_from]);
}

static int visit(const char *root, const git_tree_entry *e, void *payload)
{
	struct grep *g = payload;
	if (g->n >= g->max)
		return -1; /* enough: stop the walk */
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	git_blob *blob;
	if (git_blob_lookup(&blob, g->repo, git_tree_entry_id(e)) < 0)
		return 0;
	size_t len = (size_t)git_blob_rawsize(blob);
	const char *text = git_blob_rawcontent(blob);
	if (len <= GSEARCH_BLOB_MAX && !memchr(text, 0, len < 8000 ? len : 8000) &&
	    holds(text, len, g->q, g->ql)) {
		const char *path = arena_printf(g->c->a, "%s%s", root, git_tree_entry_name(e));
		grep_blob(g, path, text, len);
	}
	git_blob_free(blob);
	return 0;
}

int gsearch_blobs(ctx *c, git_repository *repo, const git_oid *tip, const char *query, size_t max,
		  gsearch_blob **out)
{
	*out = NULL;
	git_commit *commit;
	git_tree *tree;
	if (git_commit_lookup(&commit, repo, tip) < 0)
		return ERR_INTERNAL;
	int e = git_commit_tree(&tree, commit);
	git_commit_free(commit);
	if (e < 0)
		return ERR_INTERNAL;
	struct grep g = {.c = c, .repo = repo, .q = query, .ql = strlen(query), .max = max};
	git_tree_walk(tree, GIT_TREEWALK_PRE, visit, &g);
	git_tree_free(tree);
	*out = g.hits;
	return (int)g.n;
}

int gsearch_commits(ctx *c, git_repository *repo, const git_oid *tip, const char *query, size_t max,
		    git_oid **out)
{
	*out = NULL;
	git_revwalk *walk;
	if (git_revwalk_new(&walk, repo) < 0)
		return ERR_INTERNAL;
	git_revwalk_sorting(walk, GIT_SORT_TIME);
	if (git_revwalk_push(walk, tip) < 0) {
		git_revwalk_free(walk);
		return ERR_INTERNAL;
	}
	size_t n = 0, cap = 16, ql = strlen(query);
	git_oid *found = arena_alloc(c->a, cap * sizeof(*found)), oid;
	while (n < max && git_revwalk_next(&oid, walk) == 0) {
		git_commit *commit;
		if (git_commit_lookup(&commit, repo, &oid) < 0)
			continue;
		const char *msg = git_commit_message(commit);
		if (msg && holds(msg, strlen(msg), query, ql)) {
			if (n == cap) {
				git_oid *more = arena_alloc(c->a, 2 * cap * sizeof(*more));
				memcpy(more, found, n * sizeof(*more));
				found = more;
				cap *= 2;
			}
			found[n++] = oid;
		}
		git_commit_free(commit);
	}
	git_revwalk_free(walk);
	*out = found;
	return (int)n;
}
