#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on badges and users' emails, against a
live collabd stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As its functional tests do: create a project's and a group's badge, find it in the list,
edit and read it back, render a preview, remove it; add, list and remove emails of a user
(the admin's /users/:id/emails) and of the current user (/user/emails). Any deviation
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
TAG = "pgb%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab badges: " + name, flush=True)


def badges_of(source, name):
    badge_image = "http://example.com"
    badge_link = "http://example/img.svg"
    badge = source.badges.create({"link_url": badge_link, "image_url": badge_image})
    check(badge in source.badges.list(), name + ": badge in the list")
    check(badge.kind == ("project" if name == "project" else "group"), name + ": kind",
          badge.attributes)
    badge.image_url = "http://another.example.com"
    badge.save()
    badge = source.badges.get(badge.id)
    check(badge.image_url == "http://another.example.com", name + ": edited", badge.attributes)
    try:
        source.badges.create({"link_url": "ftp://nope", "image_url": badge_image})
        raise Failure(name + ": invalid URL accepted")
    except glexc.GitlabCreateError as e:
        check(e.response_code == 400, name + ": invalid URL: 400", e.response_code)
    return badge


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("a user who owns a group and a project in it")
        u = gl.users.create({"username": TAG, "email": TAG + "@example.com",
                             "name": "User " + TAG, "password": "s3cret-pass-1",
                             "skip_confirmation": True})
        created_users.append(u)
        token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        client = gitlab.Gitlab(URL, private_token=token)
        client.auth()
        group = client.groups.create({"name": "Group " + TAG, "path": "g" + TAG})
        project = client.projects.create({"name": "Proj " + TAG, "namespace_id": group.id})

        step("group badges")
        gbadge = badges_of(group, "group")
        step("project badges")
        pbadge = badges_of(project, "project")
        kinds = sorted(b.kind for b in project.badges.list(all=True))
        check(kinds == ["group", "project"], "the project's list holds its group's badge", kinds)

        step("render")
        got = project.badges.render("http://l.example/%{project_path}",
                                    "http://i.example/%{project_id}.svg")
        check(got["rendered_link_url"] == "http://l.example/" + project.path_with_namespace and
              got["rendered_image_url"] == "http://i.example/%d.svg" % project.id,
              "rendered", got)
        try:
            project.badges.render("nope", "http://i.example")
            raise Failure("invalid render accepted")
        except glexc.GitlabRenderError as e:
            check(e.response_code == 400, "render invalid: 400", e.response_code)

        pbadge.delete()
        gbadge.delete()
        check(project.badges.list(all=True) == [], "badges removed")

        step("emails of a user (admin)")
        email = u.emails.create({"email": TAG + ".foo2@bar.com"})
        check(email in u.emails.list(), "email in the list")
        try:
            u.emails.create({"email": TAG + ".FOO2@bar.com"})
            raise Failure("taken address accepted")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 400, "taken: 400", e.response_code)
        email.delete()
        check(u.emails.list(all=True) == [], "email removed")

        step("emails of the current user")
        mine = client.user.emails.create({"email": TAG + ".mine@bar.com"})
        check([e.email for e in client.user.emails.list(all=True)] == [TAG + ".mine@bar.com"],
              "my emails")
        check(client.user.emails.get(mine.id).email == TAG + ".mine@bar.com", "my email")
        mine.delete()
        check(client.user.emails.list(all=True) == [], "my email removed")
        client.projects.delete(project.id)
        client.groups.delete(group.id)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab badges: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab badges: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
