#include "entity/commit.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "entity/entity.h"

const char *entity_git_time(ctx *c, const git_time *t)
{
	time_t local = (time_t)t->time + (time_t)t->offset * 60;
	struct tm tm;
	gmtime_r(&local, &tm);
	char day[32];
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	int off = t->offset < 0 ? -t->offset : t->offset;
	return arena_printf(c->a, "%s.000%c%02d:%02d", day, t->offset < 0 ? '-' : '+', off / 60,
			    off % 60);
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

const char *entity_commit_title(ctx *c, const char *message)
{
	/* the first line; a message of blanks only has none */
	const char *m = message ? message : "";
	if (strspn(m, " \t\r\n\f\v") == strlen(m))
		return "--no commit message";
	const char *nl = strchr(m, '\n');
	char *line = arena_strndup(c->a, m, nl ? (size_t)(nl - m) : strlen(m));
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
