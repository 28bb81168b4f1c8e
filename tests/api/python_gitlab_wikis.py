#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on project wikis, against a live collabd
stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As a client would: create pages in the three formats and in a directory, list them with
and without content, get one by its slug, edit its content, rename it, delete it, and see
a reporter refused a write and a developer refused a deletion. Any deviation fails the
run (message on stderr, exit 1); what the test creates is removed at the end.
"""
import os
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgw%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab wikis: " + name, flush=True)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("a user who owns a project, a reporter and a developer of it")
        users = []
        for suffix in ("o", "r", "d"):
            u = gl.users.create({"username": TAG + suffix, "email": TAG + suffix + "@example.com",
                                 "name": "User " + TAG + suffix, "password": "s3cret-pass-1",
                                 "skip_confirmation": True})
            created_users.append(u)
            token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
            client = gitlab.Gitlab(URL, private_token=token)
            client.auth()
            users.append((u, client))
        (owner, og), (reporter, rg), (dev, dg) = users
        project = og.projects.create({"name": "Wiki " + TAG, "visibility": "private"})
        project.members.create({"user_id": reporter.id,
                                "access_level": gitlab.const.REPORTER_ACCESS})
        project.members.create({"user_id": dev.id, "access_level": gitlab.const.DEVELOPER_ACCESS})

        step("create pages")
        home = project.wikis.create({"title": "Home Page", "content": "Welcome"})
        check(home.slug == "Home-Page" and home.title == "Home Page" and
              home.format == "markdown" and home.content == "Welcome", "created", home.attributes)
        project.wikis.create({"title": "Notes", "content": "= Notes", "format": "rdoc"})
        project.wikis.create({"title": "Guide", "content": "== Guide", "format": "asciidoc"})
        sub = project.wikis.create({"title": "title/subtitle", "content": "test content"})
        check(sub.slug == "title/subtitle" and sub.title == "subtitle", "in a directory",
              sub.attributes)
        try:
            project.wikis.create({"title": "Bad", "content": "x", "format": "textile"})
            raise Failure("unknown format accepted")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 400, "unknown format: 400", e.response_code)

        step("list and get")
        pages = project.wikis.list(all=True)
        check([(p.slug, p.format) for p in pages] ==
              [("Guide", "asciidoc"), ("Home-Page", "markdown"), ("Notes", "rdoc"),
               ("title/subtitle", "markdown")], "list", [p.attributes for p in pages])
        check(all("content" not in p.attributes for p in pages), "no content by default")
        full = project.wikis.list(all=True, with_content=True)
        check([p.content for p in full] == ["== Guide", "Welcome", "= Notes", "test content"],
              "with_content", [p.attributes for p in full])
        got = project.wikis.get("title/subtitle")
        check(got.content == "test content" and got.title == "subtitle", "get", got.attributes)
        as_reporter = rg.projects.get(project.id, lazy=True)
        check(as_reporter.wikis.get("Home-Page").content == "Welcome", "reporter reads")
        try:
            project.wikis.get("Missing")
            raise Failure("missing page found")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "missing: 404", e.response_code)

        step("update and rename")
        got.content = "update content"
        got.save()
        check(project.wikis.get("title/subtitle").content == "update content", "content saved")
        got.title = "renamed"
        got.save()
        check(got.slug == "title/renamed", "renamed", got.attributes)
        try:
            project.wikis.get("title/subtitle")
            raise Failure("old slug still found")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "old slug: 404", e.response_code)
        check(project.wikis.get("title/renamed").content == "update content", "moved content")

        step("access")
        try:
            as_reporter.wikis.create({"title": "R", "content": "x"})
            raise Failure("reporter wrote")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 403, "reporter write: 403", e.response_code)
        as_dev = dg.projects.get(project.id, lazy=True)
        mine = as_dev.wikis.create({"title": "Dev", "content": "by dev"})
        try:
            mine.delete()
            raise Failure("developer deleted")
        except glexc.GitlabDeleteError as e:
            check(e.response_code == 403, "developer delete: 403", e.response_code)

        step("delete")
        got.delete()
        project.wikis.delete("Dev")
        check([p.slug for p in project.wikis.list(all=True)] == ["Guide", "Home-Page", "Notes"],
              "deleted")
        og.projects.delete(project.id)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab wikis: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab wikis: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
