#include "git/graph.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/log.h"

/* The table is emptied (between two calls) past these sizes: ~100 MB at most. */
#define MAX_NODES (1u << 19)
#define MAX_WORDS (8u << 20)  /* of parents and change lists */
#define MAX_POOL (32u << 20)  /* bytes of path names */
#define MAX_DEPTH 64          /* directories of a path asked about */
#define NONE UINT32_MAX       /* no node, path or change list */
#define EVERYTHING UINT32_MAX /* a change list's length: the parent is unreadable */

typedef struct {
	git_oid id, tree;
	long long time;
	uint32_t parents; /* the first in g.words */
	uint32_t changes; /* in g.words, per parent (one for a root) [n, codes...]; NONE */
	uint32_t mark;    /* the stamp of the last walk that reached it */
	uint32_t nparents;
	bool read; /* time, tree and parents known */
} node;

/* A change list holds path codes, sorted: path id << 1, | 1 when everything below the
 * path changed too (an entry that appeared, went, or is not a directory on both sides),
 * 0 for a directory on both sides whose content differs (and a root commit's paths). */
static struct {
	node *nodes;
	uint32_t n, cap;
	uint32_t *index; /* open addressing on the id: node + 1; 0: empty */
	uint32_t index_cap;
	uint32_t *words;
	size_t nwords, words_cap;
	char *pool;
	size_t npool, pool_cap;
	uint32_t *paths; /* path id -> its name's offset in pool */
	uint32_t npaths, paths_cap;
	uint32_t *path_index; /* open addressing on the name: path id + 1; 0: empty */
	uint32_t path_index_cap;
	uint32_t stamp;
} g;

static void graph_reset(void)
{
	free(g.nodes);
	free(g.index);
	free(g.words);
	free(g.pool);
	free(g.paths);
	free(g.path_index);
	memset(&g, 0, sizeof(g));
}

/* Room for need items of size in *p (of *cap): false when out of memory. */
static bool reserve(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	void *q = realloc(*(void **)p, n * size);
	if (!q)
		return false;
	*(void **)p = q;
	*cap = n;
	return true;
}

static bool reserve32(void *p, uint32_t *cap, size_t need, size_t size)
{
	size_t c = *cap;
	bool ok = need < UINT32_MAX / 2 && reserve(p, &c, need, size);
	*cap = (uint32_t)c;
	return ok;
}

/* ---- nodes by commit id ---- */

static uint32_t oid_slot(const uint32_t *index, uint32_t cap, const git_oid *id)
{
	uint64_t h;
	memcpy(&h, id->id, sizeof(h));
	uint32_t i = (uint32_t)h & (cap - 1);
	while (index[i] && !git_oid_equal(&g.nodes[index[i] - 1].id, id))
		i = (i + 1) & (cap - 1);
	return i;
}

/* The node of id (added, unread, when add): its number, or NONE. */
static uint32_t node_of(const git_oid *id, bool add)
{
	if (g.index_cap) {
		uint32_t i = oid_slot(g.index, g.index_cap, id);
		if (g.index[i])
			return g.index[i] - 1;
	}
	if (!add)
		return NONE;
	if (2 * ((size_t)g.n + 1) > g.index_cap) {
		uint32_t cap = g.index_cap ? 2 * g.index_cap : 4096;
		uint32_t *index = calloc(cap, sizeof(*index));
		if (!index)
			return NONE;
		for (uint32_t k = 0; k < g.n; k++)
			index[oid_slot(index, cap, &g.nodes[k].id)] = k + 1;
		free(g.index);
		g.index = index;
		g.index_cap = cap;
	}
	if (!reserve32(&g.nodes, &g.cap, (size_t)g.n + 1, sizeof(*g.nodes)))
		return NONE;
	g.nodes[g.n] = (node){.id = *id, .changes = NONE};
	g.index[oid_slot(g.index, g.index_cap, id)] = g.n + 1;
	return g.n++;
}

/* Reads node k's commit (once): false when it cannot be read (not kept: another
 * repository may hold it). */
static bool node_read(git_repository *repo, uint32_t k)
{
	if (g.nodes[k].read)
		return true;
	git_commit *commit = NULL;
	git_oid id = g.nodes[k].id;
	if (git_commit_lookup(&commit, repo, &id) < 0)
		return false;
	unsigned np = git_commit_parentcount(commit);
	size_t first = g.nwords;
	bool ok = first + np < UINT32_MAX && reserve(&g.words, &g.words_cap, first + np, 4);
	for (unsigned i = 0; ok && i < np; i++) {
		uint32_t p = node_of(git_commit_parent_id(commit, i), true);
		ok = p != NONE;
		g.words[first + i] = p;
	}
	if (ok) {
		node *n = &g.nodes[k];
		n->time = (long long)git_commit_time(commit);
		n->tree = *git_commit_tree_id(commit);
		n->parents = (uint32_t)first;
		n->nparents = np;
		n->read = true;
		g.nwords = first + np;
	}
	git_commit_free(commit);
	return ok;
}

/* ---- path names ---- */

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static uint32_t name_slot(const uint32_t *index, uint32_t cap, const char *s, size_t len)
{
	uint32_t i = (uint32_t)name_hash(s, len) & (cap - 1);
	for (; index[i]; i = (i + 1) & (cap - 1)) {
		const char *t = g.pool + g.paths[index[i] - 1];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			break;
	}
	return i;
}

/* The id of path s[0..len) (added when new), or NONE (out of memory). */
static uint32_t path_id(const char *s, size_t len)
{
	if (g.path_index_cap) {
		uint32_t i = name_slot(g.path_index, g.path_index_cap, s, len);
		if (g.path_index[i])
			return g.path_index[i] - 1;
	}
	if (2 * ((size_t)g.npaths + 1) > g.path_index_cap) {
		uint32_t cap = g.path_index_cap ? 2 * g.path_index_cap : 4096;
		uint32_t *index = calloc(cap, sizeof(*index));
		if (!index)
			return NONE;
		for (uint32_t k = 0; k < g.npaths; k++) {
			const char *t = g.pool + g.paths[k];
			index[name_slot(index, cap, t, strlen(t))] = k + 1;
		}
		free(g.path_index);
		g.path_index = index;
		g.path_index_cap = cap;
	}
	if (g.npool + len + 1 >= UINT32_MAX || g.npaths >= UINT32_MAX / 4 ||
	    !reserve(&g.pool, &g.pool_cap, g.npool + len + 1, 1) ||
	    !reserve32(&g.paths, &g.paths_cap, (size_t)g.npaths + 1, sizeof(*g.paths)))
		return NONE;
	memcpy(g.pool + g.npool, s, len);
	g.pool[g.npool + len] = '\0';
	g.paths[g.npaths] = (uint32_t)g.npool;
	g.npool += len + 1;
	g.path_index[name_slot(g.path_index, g.path_index_cap, s, len)] = g.npaths + 1;
	return g.npaths++;
}

/* ---- what a commit changes ---- */

typedef struct {
	uint32_t *v;
	size_t n, cap;
} codes;

static bool add_code(codes *out, const char *path, size_t len, const char *name, uint32_t below)
{
	size_t nl = strlen(name);
	char buf[4096];
	if (len + nl >= sizeof(buf))
		return false;
	memcpy(buf, path, len);
	memcpy(buf + len, name, nl);
	uint32_t id = path_id(buf, len + nl);
	if (id == NONE || !reserve(&out->v, &out->cap, out->n + 1, sizeof(*out->v)))
		return false;
	out->v[out->n++] = id << 1 | below;
	return true;
}

/* Appends "name/" to path[0..len): the new length, or 0 when too long. */
static size_t descend(char *path, size_t len, const char *name)
{
	size_t nl = strlen(name);
	if (len + nl + 2 > 4096)
		return 0;
	memcpy(path + len, name, nl);
	path[len + nl] = '/';
	return len + nl + 1;
}

/* Every path of tree (under path[0..len)), exactly (a root commit's changes). */
static bool list_tree(git_repository *repo, const git_oid *id, char *path, size_t len, codes *out)
{
	git_tree *tree = NULL;
	if (git_tree_lookup(&tree, repo, id) < 0)
		return false;
	bool ok = true;
	for (size_t i = 0; ok && i < git_tree_entrycount(tree); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		ok = add_code(out, path, len, git_tree_entry_name(e), 0);
		if (ok && git_tree_entry_type(e) == GIT_OBJECT_TREE) {
			size_t sub = descend(path, len, git_tree_entry_name(e));
			ok = sub && list_tree(repo, git_tree_entry_id(e), path, sub, out);
		}
	}
	git_tree_free(tree);
	return ok;
}

/* The paths where trees a and b (under path[0..len)) differ: only directories whose ids
 * differ are read. */
static bool diff_trees(git_repository *repo, const git_oid *a, const git_oid *b, char *path,
		       size_t len, codes *out)
{
	if (git_oid_equal(a, b))
		return true;
	git_tree *ta = NULL, *tb = NULL;
	if (git_tree_lookup(&ta, repo, a) < 0 || git_tree_lookup(&tb, repo, b) < 0) {
		git_tree_free(ta);
		return false;
	}
	bool ok = true;
	for (size_t i = 0; ok && i < git_tree_entrycount(ta); i++) {
		const git_tree_entry *ea = git_tree_entry_byindex(ta, i);
		const char *name = git_tree_entry_name(ea);
		const git_tree_entry *eb = git_tree_entry_byname(tb, name);
		if (eb && git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)) &&
		    git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb))
			continue;
		bool dirs = eb && git_tree_entry_type(ea) == GIT_OBJECT_TREE &&
			    git_tree_entry_type(eb) == GIT_OBJECT_TREE;
		ok = add_code(out, path, len, name, !dirs);
		if (ok && dirs) {
			size_t sub = descend(path, len, name);
			ok = sub && diff_trees(repo, git_tree_entry_id(ea), git_tree_entry_id(eb),
					       path, sub, out);
		}
	}
	for (size_t i = 0; ok && i < git_tree_entrycount(tb); i++) {
		const char *name = git_tree_entry_name(git_tree_entry_byindex(tb, i));
		if (!git_tree_entry_byname(ta, name))
			ok = add_code(out, path, len, name, 1);
	}
	git_tree_free(ta);
	git_tree_free(tb);
	return ok;
}

static int by_code(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Node k's change lists (found once; not kept when a parent was unreadable): their
 * offset in g.words, or NONE on an error. k has been read. */
static uint32_t node_changes(git_repository *repo, uint32_t k)
{
	if (g.nodes[k].changes != NONE)
		return g.nodes[k].changes;
	static codes scratch;
	char path[4096];
	uint32_t np = g.nodes[k].nparents;
	/* the parents first: reading one adds to g.words, where the lists go next */
	bool complete = true;
	for (uint32_t i = 0; i < np; i++)
		if (!node_read(repo, g.words[g.nodes[k].parents + i]))
			complete = false;
	size_t start = g.nwords;
	for (uint32_t i = 0; i < (np ? np : 1); i++) {
		scratch.n = 0;
		git_oid tree = g.nodes[k].tree;
		bool ok;
		if (np == 0) {
			ok = list_tree(repo, &tree, path, 0, &scratch);
		} else {
			uint32_t p = g.words[g.nodes[k].parents + i];
			if (!g.nodes[p].read) {
				if (!reserve(&g.words, &g.words_cap, g.nwords + 1, 4)) {
					g.nwords = start;
					return NONE;
				}
				g.words[g.nwords++] = EVERYTHING; /* as same_at failing: changed */
				continue;
			}
			git_oid ptree = g.nodes[p].tree;
			ok = diff_trees(repo, &ptree, &tree, path, 0, &scratch);
		}
		if (!ok || g.nwords + 1 + scratch.n >= UINT32_MAX ||
		    !reserve(&g.words, &g.words_cap, g.nwords + 1 + scratch.n, 4)) {
			g.nwords = start;
			return NONE;
		}
		qsort(scratch.v, scratch.n, sizeof(*scratch.v), by_code);
		size_t m = 0;
		for (size_t j = 0; j < scratch.n; j++)
			if (m == 0 || scratch.v[m - 1] != scratch.v[j])
				scratch.v[m++] = scratch.v[j];
		g.words[g.nwords++] = (uint32_t)m;
		memcpy(g.words + g.nwords, scratch.v, m * sizeof(*scratch.v));
		g.nwords += m;
	}
	if (complete)
		g.nodes[k].changes = (uint32_t)start;
	return (uint32_t)start;
}

/* ---- walks ---- */

typedef struct {
	long long time;
	uint64_t seq;
	uint32_t node;
} item;

struct graph_walk {
	git_repository *repo;
	item *heap;
	size_t n, cap;
	uint64_t seq;
	/* the path filter: the codes that say a commit changes it */
	bool filtered;
	uint32_t want[2 * MAX_DEPTH + 2];
	size_t nwant;
};

/* The stamp of a new walk (marks of older walks then mean nothing). */
static uint32_t new_stamp(void)
{
	if (++g.stamp == 0) {
		for (uint32_t k = 0; k < g.n; k++)
			g.nodes[k].mark = 0;
		g.stamp = 1;
	}
	return g.stamp;
}

static void maybe_reset(void)
{
	if (g.n > MAX_NODES || g.nwords > MAX_WORDS || g.npool > MAX_POOL)
		graph_reset();
}

static bool before(const item *a, const item *b)
{
	return a->time != b->time ? a->time > b->time : a->seq < b->seq;
}

/* Queues node k unless the walk has reached it already (or it cannot be read). */
static void walk_push(graph_walk *w, uint32_t k)
{
	if (g.nodes[k].mark == g.stamp)
		return;
	g.nodes[k].mark = g.stamp;
	if (!node_read(w->repo, k) || !reserve(&w->heap, &w->cap, w->n + 1, sizeof(*w->heap)))
		return;
	item it = {g.nodes[k].time, w->seq++, k};
	size_t i = w->n++;
	while (i > 0 && before(&it, &w->heap[(i - 1) / 2])) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = it;
}

static uint32_t walk_pop(graph_walk *w)
{
	if (w->n == 0)
		return NONE;
	uint32_t out = w->heap[0].node;
	item last = w->heap[--w->n];
	size_t i = 0;
	for (;;) {
		size_t k = 2 * i + 1;
		if (k >= w->n)
			break;
		if (k + 1 < w->n && before(&w->heap[k + 1], &w->heap[k]))
			k++;
		if (!before(&w->heap[k], &last))
			break;
		w->heap[i] = w->heap[k];
		i = k;
	}
	if (w->n > 0)
		w->heap[i] = last;
	for (uint32_t p = 0; p < g.nodes[out].nparents; p++)
		walk_push(w, g.words[g.nodes[out].parents + p]);
	return out;
}

graph_walk *graph_walk_new(git_repository *repo, const git_oid *tip)
{
	maybe_reset();
	graph_walk *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->repo = repo;
	new_stamp();
	uint32_t k = node_of(tip, true);
	if (k == NONE || !node_read(repo, k)) {
		free(w);
		return NULL;
	}
	walk_push(w, k);
	return w;
}

void graph_walk_free(graph_walk *w)
{
	if (w) {
		free(w->heap);
		free(w);
	}
}

bool graph_walk_path(graph_walk *w, const char *path)
{
	w->filtered = true;
	w->nwant = 0;
	size_t len = strlen(path);
	uint32_t id = path_id(path, len);
	if (id == NONE)
		return false;
	w->want[w->nwant++] = id << 1;
	w->want[w->nwant++] = id << 1 | 1;
	/* a directory on the way that appeared, went, or is not one on both sides */
	for (size_t i = 0; i < len; i++) {
		if (path[i] != '/')
			continue;
		if (w->nwant == sizeof(w->want) / sizeof(w->want[0]) ||
		    (id = path_id(path, i)) == NONE)
			return false;
		w->want[w->nwant++] = id << 1 | 1;
	}
	return true;
}

static bool has_code(const uint32_t *v, uint32_t n, uint32_t code)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == code;
}

/* Whether node k changes the walk's path: 1, 0, or ERR_INTERNAL on an error. */
static int changes_path(graph_walk *w, uint32_t k)
{
	uint32_t at = node_changes(w->repo, k);
	if (at == NONE)
		return ERR_INTERNAL;
	uint32_t lists = g.nodes[k].nparents ? g.nodes[k].nparents : 1;
	for (uint32_t l = 0; l < lists; l++) {
		uint32_t n = g.words[at++];
		if (n == EVERYTHING)
			continue;
		bool hit = false;
		for (size_t i = 0; i < w->nwant && !hit; i++)
			hit = has_code(g.words + at, n, w->want[i]);
		if (!hit)
			return 0; /* the same as this parent there */
		at += n;
	}
	return 1;
}

int graph_walk_next(graph_walk *w, git_oid *id, long long *time)
{
	uint32_t k;
	while ((k = walk_pop(w)) != NONE) {
		if (w->filtered) {
			int c = changes_path(w, k);
			if (c < 0) {
				log_error("commit graph: cannot read the trees of a commit");
				return ERR_INTERNAL;
			}
			if (c == 0)
				continue;
		}
		*id = g.nodes[k].id;
		*time = g.nodes[k].time;
		return 1;
	}
	return 0;
}

int graph_last_commit(git_repository *repo, const git_oid *tip, const char *path, git_oid *out)
{
	graph_walk *w = graph_walk_new(repo, tip);
	if (!w)
		return ERR_INTERNAL;
	long long time;
	int rc = !graph_walk_path(w, path) ? ERR_INTERNAL : graph_walk_next(w, out, &time);
	rc = rc == 1 ? 0 : rc == 0 ? ERR_NOT_FOUND : rc;
	graph_walk_free(w);
	return rc;
}

int graph_descendant_of(git_repository *repo, const git_oid *commit, const git_oid *ancestor)
{
	maybe_reset();
	uint32_t stamp = new_stamp();
	uint32_t start = node_of(commit, true);
	if (start == NONE || !node_read(repo, start))
		return ERR_INTERNAL;
	uint32_t *stack = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	g.nodes[start].mark = stamp;
	for (uint32_t k = start;; k = stack[--n]) {
		if (k != start && git_oid_equal(&g.nodes[k].id, ancestor)) {
			rc = 1;
			break;
		}
		if (node_read(repo, k)) {
			uint32_t np = g.nodes[k].nparents;
			if (!reserve(&stack, &cap, n + np, sizeof(*stack))) {
				rc = ERR_INTERNAL;
				break;
			}
			for (uint32_t p = 0; p < np; p++) {
				uint32_t q = g.words[g.nodes[k].parents + p];
				if (g.nodes[q].mark != stamp) {
					g.nodes[q].mark = stamp;
					stack[n++] = q;
				}
			}
		}
		if (n == 0)
			break;
	}
	free(stack);
	return rc;
}
