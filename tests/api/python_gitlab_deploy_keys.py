#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on deploy keys, against a live collabd
stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As python-gitlab's own functional tests use them: a project's keys created, listed, got,
updated (title, can_push) and deleted; the same key in the admins' list of every deploy
key; enabled on a second project and taken off it again; a developer refused. Any
deviation fails the run (message on stderr, exit 1); what the test creates is removed at
the end.
"""
import base64
import os
import struct
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgd%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab deploy keys: " + name, flush=True)


def new_key(comment):
    """A well-formed ed25519 public key of random bytes (fingerprints are unique)."""
    def string(b):
        return struct.pack(">I", len(b)) + b
    blob = string(b"ssh-ed25519") + string(os.urandom(32))
    return "ssh-ed25519 %s %s" % (base64.b64encode(blob).decode(), comment)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("a user who owns two projects, and a developer of the first")
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
        project = og.projects.create({"name": "Deploy " + TAG, "visibility": "private"})
        project2 = og.projects.create({"name": "Deploy two " + TAG, "visibility": "private"})
        project.members.create({"user_id": dev.id, "access_level": gitlab.const.DEVELOPER_ACCESS})

        step("create, list, get")
        text = new_key("foo@bar")
        key = project.keys.create({"title": "foo@bar", "key": text})
        check(key.title == "foo@bar" and key.key == text and key.can_push is False,
              "created", key.attributes)
        pushing = project.keys.create({"title": "pusher", "key": new_key("p@q"),
                                       "can_push": True})
        check(pushing.can_push is True, "can_push on create", pushing.attributes)
        check([k.id for k in project.keys.list(all=True)] == [key.id, pushing.id], "listed")
        got = project.keys.get(key.id)
        check(got.title == "foo@bar" and got.key == text, "got", got.attributes)
        all_ids = [k.id for k in gl.deploykeys.list(all=True)]
        check(key.id in all_ids and pushing.id in all_ids, "in the admins' list")

        step("update")
        got.title = "renamed"
        got.can_push = True
        got.save()
        got = project.keys.get(key.id)
        check(got.title == "renamed" and got.can_push is True, "updated", got.attributes)

        step("enable on another project, then take it off")
        project2.keys.enable(key.id)
        on2 = project2.keys.list(all=True)
        check([k.id for k in on2] == [key.id] and on2[0].can_push is False, "enabled",
              [k.attributes for k in on2])
        project2.keys.delete(key.id)
        check(project2.keys.list(all=True) == [], "taken off project 2")
        check([k.id for k in project.keys.list(all=True)] == [key.id, pushing.id],
              "still on project 1")

        step("access")
        as_dev = dg.projects.get(project.id, lazy=True)
        try:
            as_dev.keys.list()
            raise Failure("developer listed")
        except glexc.GitlabListError as e:
            check(e.response_code == 403, "developer list: 403", e.response_code)
        try:
            dg.deploykeys.list()
            raise Failure("non-admin listed every key")
        except glexc.GitlabListError as e:
            check(e.response_code == 403, "non-admin list: 403", e.response_code)
        try:
            project.keys.get(key.id + 100000)
            raise Failure("unknown key found")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "unknown key: 404", e.response_code)

        step("delete")
        got.delete()
        pushing.delete()
        check(project.keys.list(all=True) == [], "deleted")
        all_ids = [k.id for k in gl.deploykeys.list(all=True)]
        check(key.id not in all_ids and pushing.id not in all_ids,
              "gone with their last project")
        og.projects.delete(project.id)
        og.projects.delete(project2.id)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab deploy keys: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab deploy keys: FAILED: %s: %s" % (type(e).__name__, e),
              file=sys.stderr)
        sys.exit(1)
