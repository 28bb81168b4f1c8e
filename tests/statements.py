#!/usr/bin/env python3
"""Statements checked at build time: every statement entry ({"name", sql, nparams,
ncols}) of src/ gives a column count above 1 through the enum of its columns (not a bare
number), and a parameter count above 4 through the enum that indexes its parameter array;
no statement name is made at run time (a db_query/db_query_with/db_defer whose name is a
function call such as arena_printf). Each finding is printed as file:line and fails."""
import os
import re
import sys

EXCLUDED = set()
EXCLUDED_DIRS = ()

ENTRY = re.compile(r'\{\s*"([a-z_0-9]+)"(?:\s*(?:[A-Za-z_]+|"[a-z_0-9]*"))*\s*,')
CALL = re.compile(r'\bdb_(?:query|query_with|defer)\s*\(')
PRINTED = re.compile(r'\b(?:\w*printf|\w*strcat|\w*strcpy|buf_\w+)\s*\(')


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def strip_comments(text):
    """Comments blanked out (newlines kept, so that line numbers stay)."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"' or ch == "'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def group_end(text, i, close):
    """Index just past the bracket that closes the group starting at i (after its
    opener), skipping string and character literals."""
    depth, n = 1, len(text)
    while i < n:
        ch = text[i]
        if ch == '"' or ch == "'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def split_top(body):
    """body split at its top-level commas."""
    parts, depth, start, i, n = [], 0, 0, 0, len(body)
    while i < n:
        ch = body[i]
        if ch == '"' or ch == "'":
            j = i + 1
            while j < n and body[j] != ch:
                j += 2 if body[j] == "\\" else 1
            i = j + 1
            continue
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    parts.append(body[start:])
    return [p.strip().replace("\\\n", " ") for p in parts]


def check(path, text):
    found = []
    text = strip_comments(text)
    for m in ENTRY.finditer(text):
        end = group_end(text, m.start() + 1, "}")
        parts = split_top(text[m.start() + 1:end - 1])
        # {name, sql, nparams, ncols}: the SQL is string literals and macros; a db_call
        # ({name, n, values}) has three parts and is looked at as a call below
        if len(parts) != 4 or not parts[1] or '"' not in parts[1] and not re.match(r"[A-Z_]", parts[1]):
            continue
        nparams, ncols = parts[2], parts[3]
        where = "%s:%d" % (path, line_of(text, m.start()))
        if re.fullmatch(r"\d+", ncols) and int(ncols) > 1:
            found.append('%s: statement "%s" gives its %s columns as a bare number '
                         "(an enum of its columns, XX_NCOLS)" % (where, m.group(1), ncols))
        if re.fullmatch(r"\d+", nparams) and int(nparams) > 4:
            found.append('%s: statement "%s" gives its %s parameters as a bare number '
                         "(an enum of its parameters, XX_NPARAMS)" % (where, m.group(1), nparams))
    for m in CALL.finditer(text):
        end = group_end(text, m.end(), ")")
        args = split_top(text[m.end():end - 1])
        if len(args) < 2:
            continue
        name = args[1]
        # a literal, a choice between literals, or a name chosen from a table of
        # literals; never one printed at run time (arena_printf, snprintf, buf_printf,
        # strcat). The condition of a choice may call anything.
        depth, q = 0, -1
        for i, ch in enumerate(name):
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "?" and depth == 0:
                q = i
                break
        if PRINTED.search(name[q + 1:]):
            found.append("%s:%d: statement name made at run time: %s"
                         % (path, line_of(text, m.start()), " ".join(name.split())))
    return found


SAMPLE = r"""
enum { XX_ID, XX_NAME, XX_NCOLS };
static const db_stmt good[] = {
	{"xx_show", "SELECT id, name FROM xx WHERE id = $1", 1, XX_NCOLS},
	{"xx_count", "SELECT count(*) FROM xx", 0, 1},
	{"xx_five", "SELECT $1, $2, $3, $4, $5", XX_FIVE_NPARAMS, 1}, /* {"xx", "a", 9, 9} */
	{NULL, NULL, 0, 0},
};
static const db_stmt bad[] = {
	{"xx_list", "SELECT id, name FROM xx"
	 " LIMIT $1", 1, 2},
	{"xx_insert", SQL_INSERT("$1, $2, $3, $4, $5"), 5, 0},
};
static int f(ctx *c, bool b)
{
	db_query(c, b ? "xx_show" : "xx_count", 1, v, &err);
	db_query(c, s->stmt, 1, v, &err);
	db_query(c, pick(b) ? "xx_show" : "xx_count", 1, v, &err);
	db_defer(c, arena_printf(c->a, "xx_%s", kind), 1, v);
	db_query(c, table_of(b), 1, v, &err);
	return db_query(c, b ? "xx_show" : buf_cstr(&name), 1, v, &err) != NULL;
}
"""
SAMPLE_FOUND = [("xx_list", 10, "columns"), ("xx_insert", 12, "parameters"),
                ("run time", 19, "arena_printf"), ("run time", 21, "buf_cstr")]


def self_test():
    """The checker on a sample whose findings are known: a checker that finds nothing
    proves nothing."""
    found = check("sample.c", SAMPLE)
    want = ["sample.c:%d:" % line for _, line, _ in SAMPLE_FOUND]
    got = [f.split(" ", 1)[0] for f in found]
    ok = sorted(got) == sorted(want) and all(
        any(w in f and what in f for f in found) for w, _, what in SAMPLE_FOUND)
    if not ok:
        print("tests/statements.py: the checker is broken on its sample:")
        print("\n".join(found) or "(nothing found)")
    return ok


def main():
    if not self_test():
        return 1
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = []
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, root)
            if rel in EXCLUDED or rel.startswith(EXCLUDED_DIRS):
                continue
            with open(full, encoding="utf-8") as fh:
                found += check(rel, fh.read())
    for line in sorted(found):
        print(line)
    if found:
        print("%d statement(s) not checked at build time (see tests/statements.py)" % len(found))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
