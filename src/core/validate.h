/* Checks on the shape of values clients send. Each returns true when valid. */
#ifndef COLLABD_VALIDATE_H
#define COLLABD_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

/* A user or group path: letters, digits, '_', '-', '.'; not starting with '-', not
 * ending in '.', '.git' or '.atom'; 1..255 characters. */
bool valid_namespace_path(const char *s);
/* A project path (GitLab 10's PROJECT_REGEX_STR): letters, digits, '_', '-', '.'; not
 * starting with '-', not only dots, not ending in '.git' or '.atom'; 1..255 characters. */
bool valid_project_path(const char *s);
/* GitLab 10's reserved paths (lib/gitlab/path_regex.rb), compared without regard to case:
 * what a user or a top-level group may not be called (TOP_LEVEL_ROUTES, and the
 * locations of collabd's own nginx), what a subgroup may not be called (the project
 * wildcard routes and the group routes), and what a project may not be called (the
 * project wildcard routes). */
bool path_reserved_top_level(const char *s);
bool path_reserved_subgroup(const char *s);
bool path_reserved_project(const char *s);
/* something@something, no whitespace, at most 255 characters. */
bool valid_email(const char *s);
/* #RGB or #RRGGBB. */
bool valid_hex_color(const char *s);
/* ISO 8601 date-time: YYYY-MM-DD, optionally followed by T or space, HH:MM[:SS[.frac]]
 * and Z or +HH:MM / -HH:MM, with real calendar values. */
bool valid_datetime(const char *s);
/* YYYY-MM-DD with real calendar values. */
bool valid_date(const char *s);
/* The number of characters (code points) of UTF-8 text s. */
size_t utf8_chars(const char *s);
/* s[0..n) is UTF-8 that PostgreSQL takes as valid (control characters and NUL
 * included: whether a NUL may be stored is the caller's question). */
bool valid_utf8(const char *s, size_t n);
/* Valid UTF-8 without C0 controls but tab, CR and LF: what a path capture may hold (it
 * names a record; text parameters take any valid UTF-8). */
bool valid_text(const char *s);
/* The one check of a branch or tag name the API is given (to create, to point at, to
 * store): git's check-ref-format of refs/heads/<s> (no "..", "@{", "//", control
 * character or DEL, space, ~ ^ : ? * [ \, no component starting with '.' or ending in
 * ".lock", no trailing '/' or '.'), and, as GitLab's GitRefValidator, not starting with
 * '-', "refs/heads/" or "refs/remotes/", not "HEAD", not "@" alone; valid UTF-8, at most
 * 1024 bytes and 250 a component (a lock file's name must fit the file system). */
bool valid_ref_name(const char *s);
/* The same for a protected branch's name, which may be a wildcard: '*' anywhere. */
bool valid_ref_pattern(const char *s);

#endif
