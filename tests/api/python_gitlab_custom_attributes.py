#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on custom attributes, against a live
collabd stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As its functional tests do (test_user_custom_attributes, test_group_custom_attributes,
test_project_custom_attributes): set, read back, replace, list and delete a user's, a
group's and a project's attribute, and find the record in its list by the
custom_attributes filter (python-gitlab sends custom_attributes[KEY]=VALUE); a user who is
no admin gets 403. Any deviation fails the run (message on stderr, exit 1); what the test
creates is removed at the end.
"""
import os
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgca%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab custom attributes: " + name, flush=True)


def attributes_of(record, manager, name):
    """The functional tests' sequence on one record; manager lists the records."""
    attrs = record.customattributes
    check(attrs.list() == [], name + ": none at first")
    attr = attrs.set("key" + TAG, "value1")
    check(attr.key == "key" + TAG and attr.value == "value1", name + ": set", attr.attributes)
    found = manager.list(custom_attributes={"key" + TAG: "value1"})
    check([r.id for r in found] == [record.id], name + ": found by the filter",
          [r.id for r in found])
    check(manager.list(custom_attributes={"key" + TAG: "value2"}) == [],
          name + ": another value matches nothing")
    check(len(attrs.list()) == 1, name + ": one in the list")
    attrs.set("key" + TAG, "value2")
    attr = attrs.get("key" + TAG)
    check(attr.value == "value2", name + ": replaced", attr.attributes)
    check(len(attrs.list()) == 1, name + ": still one")
    found = manager.list(custom_attributes={"key" + TAG: "value2"}, with_custom_attributes=True)
    check(len(found) == 1 and found[0].custom_attributes == [
        {"key": "key" + TAG, "value": "value2"}], name + ": with_custom_attributes",
        [r.attributes for r in found])
    attr.delete()
    check(attrs.list() == [], name + ": deleted")
    try:
        attrs.get("key" + TAG)
        raise Failure(name + ": a deleted attribute found")
    except glexc.GitlabGetError as e:
        check(e.response_code == 404, name + ": deleted: 404", e.response_code)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("a user who owns a group and a project")
        u = gl.users.create({"username": TAG, "email": TAG + "@example.com",
                             "name": "User " + TAG, "password": "s3cret-pass-1",
                             "skip_confirmation": True})
        created_users.append(u)
        group = gl.groups.create({"name": "Group " + TAG, "path": "g" + TAG})
        project = gl.projects.create({"name": "Proj " + TAG, "namespace_id": group.id})

        step("a user's attributes")
        attributes_of(u, gl.users, "user")
        step("a group's attributes")
        attributes_of(group, gl.groups, "group")
        step("a project's attributes")
        attributes_of(project, gl.projects, "project")

        step("admins only")
        token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        client = gitlab.Gitlab(URL, private_token=token)
        client.auth()
        mine = client.users.get(u.id, lazy=True)
        try:
            mine.customattributes.set("mine", "x")
            raise Failure("a user set their own attribute")
        except glexc.GitlabSetError as e:
            check(e.response_code == 403, "not an admin: 403", e.response_code)
        check(u.customattributes.list() == [], "nothing set")
        gl.projects.delete(project.id)
        gl.groups.delete(group.id)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab custom attributes: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab custom attributes: FAILED: %s: %s" % (type(e).__name__, e),
              file=sys.stderr)
        sys.exit(1)
