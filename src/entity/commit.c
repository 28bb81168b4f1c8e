#include "entity/commit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "entity/entity.h"

/* v as n digits (zero-padded) at p; p past them. */
static char *digits(char *p, int v, int n)
{
	for (int i = n - 1; i >= 0; i--, v /= 10)
		p[i] = (char)('0' + v % 10);
	return p + n;
}

const char *entity_git_time(ctx *c, const git_time *t)
{
	/* written by hand: a page of commits has three dates each, and strftime with
	 * printf cost more than the rest of the commit's record */
	time_t local = (time_t)t->time + (time_t)t->offset * 60;
	struct tm tm;
	gmtime_r(&local, &tm);
	int off = t->offset < 0 ? -t->offset : t->offset;
	int year = tm.tm_year + 1900;
	if (year < 0 || year > 9999 || off / 60 > 99)
		return arena_printf(c->a, "%04d-%02d-%02dT%02d:%02d:%02d.000%c%02d:%02d", year,
				    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
				    t->offset < 0 ? '-' : '+', off / 60, off % 60);
	char *s = arena_alloc(c->a, sizeof("2017-09-20T11:50:22.000+03:00")), *p = s;
	p = digits(p, year, 4);
	*p++ = '-';
	p = digits(p, tm.tm_mon + 1, 2);
	*p++ = '-';
	p = digits(p, tm.tm_mday, 2);
	*p++ = 'T';
	p = digits(p, tm.tm_hour, 2);
	*p++ = ':';
	p = digits(p, tm.tm_min, 2);
	*p++ = ':';
	p = digits(p, tm.tm_sec, 2);
	memcpy(p, ".000", 4);
	p += 4;
	*p++ = t->offset < 0 ? '-' : '+';
	p = digits(p, off / 60, 2);
	*p++ = ':';
	p = digits(p, off % 60, 2);
	*p = '\0';
	return s;
}

/* Bytes of the first n characters (UTF-8) of s, and whether s has more. */
static size_t utf8_prefix(const char *s, size_t n, bool *more)
{
	size_t i = 0, chars = 0;
	while (s[i] && chars < n) {
		i++;
		while (((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		chars++;
	}
	*more = s[i] != '\0';
	return i;
}

const char *entity_commit_full_title(ctx *c, const char *message)
{
	/* a message of blanks only has no first line */
	const char *m = message ? message : "";
	if (strspn(m, " \t\r\n\f\v") == strlen(m))
		return "--no commit message";
	const char *nl = strchr(m, '\n');
	return arena_strndup(c->a, m, nl ? (size_t)(nl - m) : strlen(m));
}

const char *entity_commit_description(ctx *c, const char *message)
{
	const char *m = message ? message : "";
	bool more;
	utf8_prefix(entity_commit_full_title(c, m), 99, &more);
	if (more)
		return m; /* a title of 100 characters or more is cut: the whole message */
	const char *nl = strchr(m, '\n');
	if (!nl)
		return NULL;
	/* what follows the first line, less one line end (Ruby's chomp) */
	const char *rest = nl + 1;
	size_t n = strlen(rest);
	if (n >= 2 && rest[n - 2] == '\r' && rest[n - 1] == '\n')
		n -= 2;
	else if (n >= 1 && (rest[n - 1] == '\n' || rest[n - 1] == '\r'))
		n--;
	return arena_strndup(c->a, rest, n);
}

const char *entity_commit_title(ctx *c, const char *message)
{
	const char *line = entity_commit_full_title(c, message);
	bool more;
	utf8_prefix(line, 99, &more);
	if (!more)
		return line; /* under 100 characters */
	/* truncate(81, separator: ' ', omission: '…'): 80 characters, back to the last
	 * space at or before the 81st */
	size_t cut = utf8_prefix(line, 80, &more);
	for (size_t i = cut + (line[cut] == ' ' ? 1 : 0); i > 0; i--)
		if (line[i - 1] == ' ') {
			cut = i - 1;
			break;
		}
	return arena_printf(c->a, "%.*s\xE2\x80\xA6", (int)cut, line);
}

json_object *entity_commit(ctx *c, const git_commit *commit)
{
	char id[GIT_OID_HEXSZ + 1];
	git_oid_tostr(id, sizeof(id), git_commit_id(commit));
	const git_signature *author = git_commit_author(commit);
	const git_signature *committer = git_commit_committer(commit);
	const char *message = git_commit_message(commit);
	const char *committed = entity_git_time(c, &committer->when);
	json_object *o = json_object_new_object();
	json_put_str(o, "id", id);
	json_put_str(o, "short_id", arena_strndup(c->a, id, 11));
	json_put_str(o, "title", entity_commit_title(c, message));
	json_put_str(o, "created_at", committed);
	json_object *parents = json_object_new_array();
	for (unsigned i = 0; i < git_commit_parentcount(commit); i++) {
		char p[GIT_OID_HEXSZ + 1];
		git_oid_tostr(p, sizeof(p), git_commit_parent_id(commit, i));
		json_object_array_add(parents, json_object_new_string(p));
	}
	json_object_object_add(o, "parent_ids", parents);
	json_put_str(o, "message", message ? message : "");
	json_put_str(o, "author_name", author->name);
	json_put_str(o, "author_email", author->email);
	json_put_str(o, "authored_date", entity_git_time(c, &author->when));
	json_put_str(o, "committer_name", committer->name);
	json_put_str(o, "committer_email", committer->email);
	json_put_str(o, "committed_date", committed);
	return o;
}

/* Records kept as text by this process, by commit id (a commit's record follows from its
 * id alone, whichever repository holds it): a page of history presents each commit once
 * per process, not at every request. One slot per hash of the id; a newer record takes
 * the slot of an older one. About 1 KB each: 8 MB when every slot is taken. */
#define COMMIT_MEMO_SLOTS 8192

static struct kept_commit {
	git_oid id;
	char *text; /* malloc'd; NULL: empty */
	size_t len;
} commit_memo[COMMIT_MEMO_SLOTS];

/* commit's slot holding its record, filled when it held another; NULL when the text
 * cannot be kept (no memory), with the record in *made (the caller's to put). */
static const struct kept_commit *kept(ctx *c, const git_commit *commit, json_object **made)
{
	const git_oid *id = git_commit_id(commit);
	unsigned h = (unsigned)id->id[0] | (unsigned)id->id[1] << 8 | (unsigned)id->id[2] << 16;
	struct kept_commit *m = &commit_memo[h % COMMIT_MEMO_SLOTS];
	if (!m->text || !git_oid_equal(&m->id, id)) {
		json_object *o = entity_commit(c, commit);
		size_t len;
		const char *s = json_object_to_json_string_length(
			o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
		char *text = s ? malloc(len + 1) : NULL;
		if (!text) {
			*made = o;
			return NULL;
		}
		memcpy(text, s, len + 1);
		json_object_put(o);
		free(m->text);
		git_oid_cpy(&m->id, id);
		m->text = text;
		m->len = len;
	}
	return m;
}

json_object *entity_commit_kept(ctx *c, const git_commit *commit)
{
	json_object *made;
	const struct kept_commit *m = kept(c, commit, &made);
	if (!m)
		return made;
	/* an object that prints as the kept text (a copy in c's arena: the slot may take
	 * another commit before the response is written) */
	json_object *o = json_object_new_object();
	char *text = arena_alloc(c->a, m->len + 1);
	memcpy(text, m->text, m->len + 1);
	json_object_set_serializer(o, json_object_userdata_to_json_string, text, NULL);
	return o;
}

const char *entity_commit_text(ctx *c, const git_commit *commit, size_t *len)
{
	json_object *made;
	const struct kept_commit *m = kept(c, commit, &made);
	if (!m) { /* printed here, as respond_json would */
		const char *s = json_object_to_json_string_length(
			made, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, len);
		char *text = arena_strndup(c->a, s ? s : "null", s ? *len : 4);
		*len = strlen(text);
		json_object_put(made);
		return text;
	}
	char *text = arena_alloc(c->a, m->len + 1);
	memcpy(text, m->text, m->len + 1);
	*len = m->len;
	return text;
}
