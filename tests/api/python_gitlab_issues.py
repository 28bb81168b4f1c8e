#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on issues and milestones, against a live
collabd stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As a client would: a project with a milestone, issues created with labels, a milestone
and an assignee, listed with filters, edited, closed and reopened, subscribed to, time
tracked, moved and deleted; group milestones and the milestone's issues. Any deviation
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
TAG = "pgi%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab issues: " + name, flush=True)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_groups = []
    created_users = []
    try:
        step("a user, a group and a project")
        user = gl.users.create({"username": TAG + "u", "email": TAG + "u@example.com",
                                "name": "Owner " + TAG, "password": "s3cret-pass-1",
                                "skip_confirmation": True})
        created_users.append(user)
        token = user.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        ug = gitlab.Gitlab(URL, private_token=token)
        ug.auth()
        group = ug.groups.create({"name": "Group " + TAG, "path": TAG + "-g"})
        created_groups.append(group)
        project = ug.projects.create({"name": "Proj " + TAG, "path": TAG + "-p",
                                      "namespace_id": group.id, "visibility": "private"})
        other = ug.projects.create({"name": "Other " + TAG, "path": TAG + "-o",
                                    "namespace_id": group.id, "visibility": "private"})

        step("milestones")
        ms = project.milestones.create({"title": "1.0", "due_date": "2031-01-31"})
        check(ms.iid == 1 and ms.state == "active" and ms.due_date == "2031-01-31",
              "milestone", ms.attributes)
        ms.description = "the first"
        ms.save()
        check(project.milestones.get(ms.id).description == "the first", "milestone edit")
        gms = group.milestones.create({"title": "g1"})
        check(gms.group_id == group.id, "group milestone", gms.attributes)

        step("create issues")
        i1 = project.issues.create({"title": "Crash", "description": "it breaks",
                                    "labels": ["bug", "p1"], "milestone_id": ms.id,
                                    "assignee_ids": [user.id]})
        check(i1.iid == 1 and i1.labels == ["bug", "p1"], "issue 1", i1.attributes)
        check(i1.milestone["id"] == ms.id, "issue milestone", i1.milestone)
        check(i1.assignee["id"] == user.id and len(i1.assignees) == 1, "assignee", i1.assignee)
        check(i1.subscribed is True, "author subscribed")
        i2 = project.issues.create({"title": "Docs"})
        check(i2.iid == 2 and i2.labels == [], "issue 2", i2.attributes)
        check(ug.projects.get(project.id).open_issues_count == 2, "open_issues_count")

        step("list with filters")
        check([i.iid for i in project.issues.list(all=True)] == [2, 1], "all issues")
        check([i.iid for i in project.issues.list(labels=["bug"])] == [1], "labels filter")
        check([i.iid for i in project.issues.list(milestone="1.0")] == [1], "milestone")
        check([i.iid for i in project.issues.list(iids=[2])] == [2], "iids")
        check([i.iid for i in project.issues.list(search="breaks")] == [1], "search")
        check([i.iid for i in project.issues.list(order_by="created_at", sort="asc")] == [1, 2],
              "sort asc")
        check(len(gl.issues.list(scope="all", search="breaks", all=True)) >= 1, "GET /issues")
        check(len(ug.issues.list()) == 2, "created by me")
        check([i.iid for i in group.issues.list(all=True)] == [2, 1], "group issues")
        check([i.iid for i in ms.issues()] == [1], "milestone issues")
        check(list(ms.merge_requests()) == [], "milestone merge requests")

        step("edit, close, reopen")
        i2 = project.issues.get(2)
        i2.title = "Docs!"
        i2.labels = ["doc"]
        i2.save()
        check(project.issues.get(2).labels == ["doc"] and i2.title == "Docs!", "edit",
              i2.attributes)
        i2.state_event = "close"
        i2.save()
        i2 = project.issues.get(2)
        check(i2.state == "closed" and i2.closed_at, "closed", i2.attributes)
        check([i.iid for i in project.issues.list(state="closed")] == [2], "closed list")
        check(ug.projects.get(project.id).open_issues_count == 1, "count after close")
        i2.state_event = "reopen"
        i2.save()
        check(project.issues.get(2).state == "opened", "reopened")

        step("subscriptions")
        i2 = project.issues.get(2)
        i2.unsubscribe()
        check(project.issues.get(2).subscribed is False, "unsubscribed")
        i2.subscribe()
        check(project.issues.get(2).subscribed is True, "subscribed")
        try:
            i2.subscribe()
            raise Failure("subscribing twice accepted")
        except glexc.GitlabSubscribeError as e:
            check(e.response_code == 304, "subscribe twice: 304", e.response_code)

        step("time tracking")
        i1 = project.issues.get(1)
        i1.time_estimate("3h30m")
        i1.add_spent_time("1h")
        # (time_stats() answers an issue's cached time_stats: read it again)
        stats = project.issues.get(1).time_stats()
        check(stats["time_estimate"] == 12600 and stats["total_time_spent"] == 3600,
              "time stats", stats)
        check(stats["human_time_estimate"] == "3h 30m", "human estimate", stats)
        i1.reset_spent_time()
        i1.reset_time_estimate()
        check(project.issues.get(1).time_stats()["total_time_spent"] == 0, "reset")

        step("move")
        moved = project.issues.get(1)
        moved.move(other.id)
        check(moved.project_id == other.id and moved.iid == 1, "moved", moved.attributes)
        check(project.issues.get(1).state == "closed", "source closed")
        check(other.issues.get(1).title == "Crash", "in the target")

        step("delete")
        project.issues.delete(2)
        try:
            project.issues.get(2)
            raise Failure("deleted issue still readable")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "deleted issue: 404", e.response_code)
        check(ug.projects.get(project.id).open_issues_count == 0, "count after delete")
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
    print("python-gitlab issues: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab issues: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
