#!/usr/bin/python3
"""A `git fast-import` stream of a realistic repository, for the benchmark's seeded
repositories (contrib/bench/run): deterministic for a seed.

  repo_gen.py [--seed N] [--commits N] [--files N] LIST-DIR | git fast-import --quiet

- master: COMMITS commits by a few dozen authors over two years, each changing one to
  four files (a window of lines rewritten, lines added), now and then a new file;
- FILES files (default 300) in about thirty directories, a few hundred bytes to ~8 KB
  of source-like text each, all made by the first commit and never deleted;
- feature branches that fork from master, get some commits and are merged back (merge
  commits on master) or are left open; two stable branches; tags on master every few
  hundred commits, every other one annotated.

Writes into LIST-DIR: branches (one name a line), tags, files (the paths of the first
commit, which every branch and tag has).
"""
import argparse
import os
import random
import sys

WORDS = ("request response buffer config parse render cache token user project group "
         "branch commit tree blob index query result error status value count limit "
         "offset page header body stream socket worker queue event handler record "
         "field schema table column filter order").split()
DIRS = ["src/core", "src/api", "src/http", "src/db", "src/git", "src/auth", "src/entity",
        "src/ci", "src/util", "lib/parser", "lib/render", "lib/cache", "include",
        "include/internal", "tests/unit", "tests/api", "tests/fixtures", "docs",
        "docs/api", "docs/admin", "tools", "scripts", "config", "contrib/bench",
        "contrib/dev", "web/js", "web/css", "web/templates", "packaging/debian", "sql"]
EXTS = {"src": ".c", "lib": ".c", "include": ".h", "tests": ".c", "docs": ".md",
        "tools": ".py", "scripts": ".sh", "config": ".yml", "contrib": ".sh", "web": ".js",
        "packaging": ".txt", "sql": ".sql"}
FIRST = "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Karl Laura Nina Oscar".split()
LAST = "Smith Jones Garcia Miller Davis Lopez Wilson Anderson Thomas Taylor Moore".split()


def line(rng):
    n = rng.randint(2, 12)
    indent = "\t" * rng.randint(0, 3)
    return indent + " ".join(rng.choice(WORDS) for _ in range(n)) + (";" if rng.random() < 0.6 else "")


def new_file(rng):
    size = int(rng.lognormvariate(7.6, 0.7))  # median ~2 KB
    size = max(300, min(size, 8000))
    lines = []
    total = 0
    while total < size:
        ln = line(rng)
        lines.append(ln)
        total += len(ln) + 1
    return lines


def edit(rng, lines):
    lines = list(lines)
    if not lines:
        return [line(rng)]
    at = rng.randrange(len(lines))
    cut = rng.randint(0, min(6, len(lines) - at))
    add = [line(rng) for _ in range(rng.randint(1, 8))]
    lines[at:at + cut] = add
    return lines


class Gen:
    def __init__(self, args):
        self.rng = random.Random(args.seed)
        self.out = sys.stdout.buffer
        self.mark = 0
        self.time = 1451606400  # 2016-01-01
        self.step = max(1, (2 * 365 * 86400) // max(1, args.commits))
        self.authors = [(f, l) for f in FIRST for l in LAST]
        self.rng.shuffle(self.authors)
        self.authors = self.authors[:40]
        self.contents = {}  # (branch, path) -> lines, per branch snapshot below

    def data(self, b):
        self.out.write(b"data %d\n" % len(b))
        self.out.write(b)
        self.out.write(b"\n")

    def who(self):
        # a few authors make most commits
        f, l = self.authors[min(int(self.rng.paretovariate(1.2)) - 1, len(self.authors) - 1)]
        self.time += self.rng.randint(self.step // 4, self.step * 2)
        return "%s %s <%s.%s@example.com> %d +0000" % (f, l, f.lower(), l.lower(), self.time)

    def commit(self, ref, message, parent, changes, merge=None):
        """changes: {path: lines}; returns the new mark."""
        self.mark += 1
        w = self.who()
        out = self.out
        out.write(b"commit refs/heads/%s\nmark :%d\n" % (ref.encode(), self.mark))
        out.write(("author %s\ncommitter %s\n" % (w, w)).encode())
        self.data(message.encode())
        if parent:
            out.write(b"from :%d\n" % parent)
        if merge:
            out.write(b"merge :%d\n" % merge)
        for path, lines in sorted(changes.items()):
            out.write(b"M 100644 inline %s\n" % path.encode())
            self.data(("\n".join(lines) + "\n").encode())
        return self.mark

    def message(self, files):
        verb = self.rng.choice(["Fix", "Add", "Update", "Refactor", "Simplify", "Document",
                                "Speed up", "Handle", "Test", "Rename"])
        what = " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(1, 4)))
        body = ""
        if self.rng.random() < 0.5:
            body = "\n\n" + " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(8, 40)))
            body += "\n\nTouches " + ", ".join(sorted(files)) + "."
        return "%s %s%s\n" % (verb, what, body)

    def changes(self, tree, nfiles):
        paths = list(tree)
        ch = {}
        for _ in range(nfiles):
            if self.rng.random() < 0.04:
                d = self.rng.choice(DIRS)
                p = "%s/%s_%d%s" % (d, self.rng.choice(WORDS), self.mark, EXTS[d.split("/")[0]])
                ch[p] = new_file(self.rng)
            else:
                p = paths[min(int(self.rng.paretovariate(0.8)) - 1, len(paths) - 1)] \
                    if self.rng.random() < 0.5 else self.rng.choice(paths)
                ch[p] = edit(self.rng, ch.get(p, tree[p]))
        tree.update(ch)
        return ch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--commits", type=int, default=3000)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("lists")
    args = ap.parse_args()
    g = Gen(args)
    rng = g.rng

    # the first commit: every file
    tree = {}
    for i in range(args.files):
        d = DIRS[i % len(DIRS)] if i < len(DIRS) else rng.choice(DIRS)
        name = "%s_%s_%d%s" % (rng.choice(WORDS), rng.choice(WORDS), i, EXTS[d.split("/")[0]])
        tree["%s/%s" % (d, name)] = new_file(rng)
    tree["README.md"] = new_file(rng)
    first_files = sorted(tree)
    head = g.commit("master", "Initial commit\n", None, dict(tree))
    n = 1
    open_features = []  # (name, mark, tree, commits left, merge?, paths changed, fork mark)
    branches = ["master"]
    tags = []
    feature_no = 0
    while n < args.commits:
        # now and then a feature branch forks from master
        if rng.random() < 0.02 and len(open_features) < 4:
            feature_no += 1
            name = "feature/%s-%s-%d" % (rng.choice(WORDS), rng.choice(WORDS), feature_no)
            open_features.append([name, head, dict(tree), rng.randint(3, 25), rng.random() < 0.7, set(),
                                  head])
        if open_features and rng.random() < 0.3:
            f = rng.choice(open_features)
            ch = g.changes(f[2], rng.randint(1, 4))
            f[5].update(ch)
            f[1] = g.commit(f[0], g.message(ch), f[1], ch)
            f[3] -= 1
            n += 1
            if f[3] <= 0:
                open_features.remove(f)
                if f[4]:
                    # merged into master: master takes the files the feature changed (in
                    # sorted order: a set's order follows PYTHONHASHSEED, and the order of
                    # master's new paths decides the random choices that follow)
                    ch = {p: f[2][p] for p in sorted(f[5])}
                    tree.update(ch)
                    head = g.commit("master", "Merge branch '%s' into 'master'\n" % f[0], head, ch,
                                    merge=f[1])
                    n += 1
                    if rng.random() < 0.5:
                        g.out.write(b"reset refs/heads/%s\nfrom 0000000000000000000000000000000000000000\n\n"
                                    % f[0].encode())  # deleted once merged
                        continue
                branches.append(f[0])
            continue
        ch = g.changes(tree, rng.randint(1, 4))
        head = g.commit("master", g.message(ch), head, ch)
        n += 1
        if n % 400 == 0:
            t = "v%d.%d.0" % (1 + n // 1200, (n // 400) % 3)
            if len(tags) % 2 == 0:
                g.out.write(b"tag %s\nfrom :%d\n" % (t.encode(), head))
                g.out.write(("tagger %s\n" % g.who()).encode())
                g.data(("Release %s\n" % t).encode())
            else:
                g.out.write(b"reset refs/tags/%s\nfrom :%d\n\n" % (t.encode(), head))
            tags.append(t)
            if t.endswith(".0.0") or len(tags) == 3:
                stable = "%d-%d-stable" % (1 + n // 1200, (n // 400) % 3)
                g.out.write(b"reset refs/heads/%s\nfrom :%d\n\n" % (stable.encode(), head))
                branches.append(stable)
    # an open feature exists only once it has a commit of its own (fast-import makes a
    # branch's ref with its first commit): one forked in the last rounds may have none
    for f in open_features:
        if f[1] != f[6]:
            branches.append(f[0])
    g.out.flush()
    with open(os.path.join(args.lists, "branches"), "w") as fh:
        fh.write("\n".join(sorted(set(branches))) + "\n")
    with open(os.path.join(args.lists, "tags"), "w") as fh:
        fh.write("\n".join(tags) + "\n")
    with open(os.path.join(args.lists, "files"), "w") as fh:
        fh.write("\n".join(first_files) + "\n")


if __name__ == "__main__":
    main()
