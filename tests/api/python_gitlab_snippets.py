#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on snippets of users and the user agent
details, against a live collabd stack (run by tests/api/run with COLLABD_URL and
COLLABD_ADMIN_TOKEN set).

As its functional tests do (test_snippets.py): a user with no snippets creates one, reads
it back, edits its title, reads its content, asks for its user agent detail (as the
admin: the User-Agent python-gitlab sent), finds it in the public list once public,
removes it; a project snippet's and an issue's user agent detail likewise. Any deviation
fails the run (message on stderr, exit 1); what the test creates is removed at the end.
"""
import os
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgs%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab snippets: " + name, flush=True)


def main():
    admin = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    admin.auth()
    created_users = []
    try:
        step("a user without snippets")
        u = admin.users.create({"username": TAG, "email": TAG + "@example.com",
                                "name": "User " + TAG, "password": "s3cret-pass-1",
                                "skip_confirmation": True})
        created_users.append(u)
        token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        gl = gitlab.Gitlab(URL, private_token=token)
        gl.auth()
        check(gl.snippets.list(all=True) == [], "no snippets yet")

        step("create, get, update, content")
        snippet = gl.snippets.create({"title": "snippet1", "file_name": "snippet1.py",
                                      "content": "import gitlab"})
        snippet = gl.snippets.get(snippet.id)
        check(snippet.project_id is None, "a personal snippet", snippet.attributes)
        check(snippet.author["username"] == TAG, "its author", snippet.attributes)
        snippet.title = "updated_title"
        snippet.save()
        snippet = gl.snippets.get(snippet.id)
        check(snippet.title == "updated_title", "title updated", snippet.attributes)
        check(snippet.content().decode() == "import gitlab", "content")
        check([s.id for s in gl.snippets.list(all=True)] == [snippet.id], "in my list")

        step("user agent detail (admin)")
        detail = admin.snippets.get(snippet.id, lazy=True).user_agent_detail()
        check(detail["user_agent"].startswith("python-gitlab/"), "user agent", detail)
        check(detail["akismet_submitted"] is False, "not submitted", detail)
        try:
            snippet.user_agent_detail()
            raise Failure("a user read a user agent detail")
        except glexc.GitlabGetError as e:
            check(e.response_code == 403, "user agent detail: 403", e.response_code)

        step("public list")
        check(snippet.id not in [s.id for s in gl.snippets.public(all=True)],
              "not public yet")
        snippet.visibility = "public"
        snippet.save()
        check(snippet.id in [s.id for s in admin.snippets.public(all=True)], "public now")

        step("delete")
        snippet.delete()
        check(gl.snippets.list(all=True) == [], "removed")
        try:
            gl.snippets.get(snippet.id)
            raise Failure("a removed snippet is found")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "removed: 404", e.response_code)

        step("project snippets and issues")
        project = gl.projects.create({"name": "Proj " + TAG})
        psnippet = project.snippets.create({"title": "snip1", "file_name": "foo.py",
                                            "content": "initial content",
                                            "visibility": "private"})
        issue = project.issues.create({"title": "issue " + TAG})
        aproject = admin.projects.get(project.id, lazy=True)
        for what, obj in (("project snippet", aproject.snippets.get(psnippet.id)),
                          ("issue", aproject.issues.get(issue.iid))):
            detail = obj.user_agent_detail()
            check(detail["user_agent"].startswith("python-gitlab/"), what, detail)
        gl.projects.delete(project.id)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab snippets: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab snippets: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
