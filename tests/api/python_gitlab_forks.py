#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on the forks of a project and the users'
activities, against a live collabd stack (run by tests/api/run with COLLABD_URL and
COLLABD_ADMIN_TOKEN set).

As its functional tests do: fork a project (project.forks.create) and find the fork in
project.forks.list(), with a filter and by pages; a user signs in (the OAuth password
grant) and is in gl.user_activities.list() with that day; a non-admin is refused. Any
deviation fails the run (message on stderr, exit 1); what the test creates is removed at
the end.
"""
import datetime
import os
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc
import requests

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgf%d%d" % (os.getpid(), int(time.time()) % 100000)
PASSWORD = "s3cret-pass-1"


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab forks: " + name, flush=True)


def new_user(gl, suffix, created):
    name = TAG + suffix
    u = gl.users.create({"username": name, "email": name + "@example.com",
                         "name": "User " + name, "password": PASSWORD,
                         "skip_confirmation": True})
    created.append(u)
    token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
    client = gitlab.Gitlab(URL, private_token=token)
    client.auth()
    return u, client


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created = []
    try:
        step("a public project and two forks of it")
        owner, oc = new_user(gl, "o", created)
        _, c1 = new_user(gl, "a", created)
        _, c2 = new_user(gl, "b", created)
        src = oc.projects.create({"name": "Src " + TAG, "visibility": "public"})
        fork1 = c1.projects.get(src.id).forks.create({})
        check(fork1.forked_from_project["id"] == src.id, "fork's source", fork1.attributes)
        fork2 = c2.projects.get(src.id).forks.create({})
        c2.projects.update(fork2.id, {"visibility": "private"})

        step("project.forks.list()")
        forks = oc.projects.get(src.id).forks.list(all=True)
        check(sorted(f.id for f in forks) == [fork1.id],
              "the owner sees the public fork only", [f.id for f in forks])
        forks = gl.projects.get(src.id).forks.list(all=True, order_by="id", sort="asc")
        check([f.id for f in forks] == [fork1.id, fork2.id], "the admin sees both, by id",
              [f.id for f in forks])
        check(forks[0].forked_from_project["id"] == src.id, "the record's source",
              forks[0].attributes)
        forks = gl.projects.get(src.id).forks.list(visibility="private")
        check([f.id for f in forks] == [fork2.id], "visibility filter", [f.id for f in forks])
        page = gl.projects.get(src.id).forks.list(per_page=1, page=2, order_by="id",
                                                  sort="asc")
        check([f.id for f in page] == [fork2.id], "second page", [f.id for f in page])
        check(oc.projects.get(src.id).forks.list(simple=True)[0].id == fork1.id, "simple")

        step("gl.user_activities.list()")
        r = requests.post(URL + "/oauth/token", data={
            "grant_type": "password", "username": owner.username, "password": PASSWORD})
        check(r.status_code == 200, "sign-in", r.status_code, r.text)
        today = datetime.date.today().isoformat()
        acts = gl.user_activities.list(all=True)
        mine = [a for a in acts if a.username == owner.username]
        check(len(mine) == 1, "the signed-in user is listed", [a.attributes for a in acts])
        db_today = mine[0].last_activity_on
        # the database's day, within a day of this machine's (time zones)
        check(abs((datetime.date.fromisoformat(db_today) -
                   datetime.date.fromisoformat(today)).days) <= 1,
              "today's activity", mine[0].attributes)
        check(mine[0].last_activity_at == db_today, "last_activity_at", mine[0].attributes)
        later = gl.user_activities.list(all=True, query_parameters={"from": "2999-01-01"})
        check([a for a in later if a.username == owner.username] == [], "from")
        try:
            oc.user_activities.list()
            raise Failure("a non-admin listed the activities")
        except glexc.GitlabListError as e:
            check(e.response_code == 403, "non-admin: 403", e.response_code)

        c2.projects.delete(fork2.id)
        c1.projects.delete(fork1.id)
        oc.projects.delete(src.id)
    finally:
        for u in created:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab forks: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab forks: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
