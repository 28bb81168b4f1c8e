#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on project hooks and system hooks, against
a live collabd stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As python-gitlab's own functional tests do: a project hook created, listed, edited with
save(), read back and deleted; a system hook created, listed, tested (GET /hooks/:id) and
deleted; and what a developer and a non-admin are refused. The token is never shown.
Any deviation fails the run (message on stderr, exit 1); what the test creates is removed
at the end.
"""
import os
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgh%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab hooks: " + name, flush=True)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    system_hooks = []
    try:
        step("a user who owns a project and a developer of it")
        users = []
        for suffix in ("o", "d"):
            u = gl.users.create({"username": TAG + suffix, "email": TAG + suffix + "@example.com",
                                 "name": "User " + TAG + suffix, "password": "s3cret-pass-1",
                                 "skip_confirmation": True})
            created_users.append(u)
            token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
            client = gitlab.Gitlab(URL, private_token=token)
            client.auth()
            users.append((u, client))
        (owner, og), (dev, dg) = users
        project = og.projects.create({"name": "Hooks " + TAG, "visibility": "private"})
        project.members.create({"user_id": dev.id, "access_level": gitlab.const.DEVELOPER_ACCESS})

        step("project hooks")
        hook = project.hooks.create({"url": "http://hook.example.com/one", "token": "tok-" + TAG,
                                     "issues_events": True})
        check(hook.url == "http://hook.example.com/one" and hook.push_events is True and
              hook.issues_events is True and hook.note_events is False and
              hook.enable_ssl_verification is True and hook.project_id == project.id,
              "created", hook.attributes)
        check("token" not in hook.attributes, "token shown", hook.attributes)
        check([h.id for h in project.hooks.list(all=True)] == [hook.id], "listed")
        hook.note_events = True
        hook.save()
        again = project.hooks.get(hook.id)
        check(again.note_events is True and again.issues_events is True and
              "token" not in again.attributes, "saved", again.attributes)
        try:
            project.hooks.create({"url": "not a url"})
            raise Failure("bad url accepted")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 422, "bad url: 422", e.response_code)
        as_dev = dg.projects.get(project.id, lazy=True)
        try:
            as_dev.hooks.list()
            raise Failure("developer listed hooks")
        except glexc.GitlabListError as e:
            check(e.response_code == 403, "developer: 403", e.response_code)
        hook.delete()
        check(project.hooks.list(all=True) == [], "deleted")
        try:
            project.hooks.get(hook.id)
            raise Failure("deleted hook found")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "deleted: 404", e.response_code)

        step("system hooks")
        sh = gl.hooks.create({"url": "http://hook.example.com/system", "token": "s-" + TAG})
        system_hooks.append(sh)
        check(sh.url == "http://hook.example.com/system" and sh.push_events is True and
              "token" not in sh.attributes, "system hook created", sh.attributes)
        check(sh.id in [h.id for h in gl.hooks.list(all=True)], "system hook listed")
        test = gl.hooks.get(sh.id)
        check(test.event_name == "project_create" and test.name == "Ruby", "test event",
              test.attributes)
        try:
            og.hooks.list()
            raise Failure("non-admin listed system hooks")
        except glexc.GitlabListError as e:
            check(e.response_code == 403, "non-admin: 403", e.response_code)
        sh.delete()
        system_hooks.remove(sh)
        check(sh.id not in [h.id for h in gl.hooks.list(all=True)], "system hook deleted")
        og.projects.delete(project.id)
    finally:
        for h in system_hooks:
            try:
                h.delete()
            except Exception:
                pass
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab hooks: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab hooks: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
