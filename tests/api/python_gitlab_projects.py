#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on groups, projects and notification
settings, against a live collabd stack (run by tests/api/run with COLLABD_URL and
COLLABD_ADMIN_TOKEN set).

As a client would: create a group and a project in it, fetch the project by its
URL-encoded path, edit it, list the group's projects, change notification settings,
delete it. Any deviation fails the run (message on stderr, exit 1); what the test creates
is removed at the end.
"""
import os
import sys
import time
import traceback
import urllib.parse

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgp%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab projects: " + name, flush=True)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_groups = []
    created_users = []
    try:
        step("a user who owns the group")
        user = gl.users.create({"username": TAG + "u", "email": TAG + "u@example.com",
                                "name": "Owner " + TAG, "password": "s3cret-pass-1",
                                "skip_confirmation": True})
        created_users.append(user)
        token = user.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        ug = gitlab.Gitlab(URL, private_token=token)
        ug.auth()

        step("create a group and a project in it")
        group = ug.groups.create({"name": "Group " + TAG, "path": TAG + "-g",
                                  "description": "made by python-gitlab"})
        created_groups.append(group)
        check(group.full_path == TAG + "-g", "group full_path", group.full_path)
        project = ug.projects.create({"name": "Proj " + TAG, "path": TAG + "-p",
                                      "namespace_id": group.id, "visibility": "private",
                                      "description": "first"})
        full = "%s-g/%s-p" % (TAG, TAG)
        check(project.path_with_namespace == full, "path_with_namespace",
              project.path_with_namespace)
        check(project.namespace["id"] == group.id and project.namespace["kind"] == "group",
              "namespace", project.namespace)
        check(project.http_url_to_repo.endswith("/" + full + ".git"), "http_url_to_repo",
              project.http_url_to_repo)

        step("fetch it by its URL-encoded path")
        by_path = ug.projects.get(full)
        check(by_path.id == project.id, "get by path", by_path.id, project.id)
        raw = ug.http_get("/projects/" + urllib.parse.quote(full, safe=""))
        check(raw["id"] == project.id, "raw get by encoded path", raw)

        step("a private project is invisible to others")
        anon = gitlab.Gitlab(URL)
        try:
            anon.projects.get(project.id)
            raise Failure("anonymous caller saw a private project")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "anonymous get: 404", e.response_code)

        step("edit it")
        by_path.description = "edited"
        by_path.issues_enabled = False
        by_path.save()
        again = ug.projects.get(project.id)
        check(again.description == "edited" and again.issues_enabled is False, "edit kept",
              again.description, again.issues_enabled)

        step("list the group's projects")
        listed = ug.groups.get(group.id).projects.list(all=True)
        check([p.id for p in listed] == [project.id], "group projects", [p.id for p in listed])
        details = ug.groups.get(full.split("/")[0])
        # the detail record's projects array (python-gitlab's manager hides the attribute)
        check(any(p["id"] == project.id for p in details.attributes["projects"]),
              "group details projects", details.attributes["projects"])

        step("notification settings")
        ns = again.notificationsettings.get()
        check(ns.level in ("global", "watch", "participating", "mention", "disabled", "custom"),
              "level", ns.level)
        ns.level = "watch"
        ns.save()
        check(again.notificationsettings.get().level == "watch", "project level kept")
        gns = details.notificationsettings.get()
        gns.level = "custom"
        gns.save()
        got = details.notificationsettings.get()
        check(got.level == "custom" and "events" in got.attributes, "group custom level",
              got.attributes)
        mine = ug.notificationsettings.get()
        check(mine.notification_email == user.email, "global notification_email",
              mine.attributes)
        try:
            ns.level = "loud"
            ns.save()
            raise Failure("invalid level accepted")
        except glexc.GitlabUpdateError as e:
            check(e.response_code == 400, "invalid level: 400", e.response_code)

        step("delete it")
        ug.projects.delete(project.id)
        try:
            ug.projects.get(project.id)
            raise Failure("deleted project still readable")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "deleted project: 404", e.response_code)
        check(ug.groups.get(group.id).projects.list(all=True) == [],
              "group has no projects after delete")
    finally:
        for g in created_groups:
            try:
                gl.groups.delete(g.id)
            except Exception:
                pass
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab projects: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab projects: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
