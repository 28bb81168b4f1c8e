#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on CI variables, pipeline triggers and
pipeline schedules, against a live collabd stack (run by tests/api/run with COLLABD_URL
and COLLABD_ADMIN_TOKEN set).

As a client would: project and group variables (create, list, get, save, delete), a
trigger (create, list, save, take_ownership by another master, delete) and its
invocation with variables making a pipeline, a schedule (create, list, get, save,
take_ownership, its variables, delete), and a developer refused what masters may do.
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
TAG = "pgc%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab ci settings: " + name, flush=True)


def refused(fn, code, what):
    try:
        fn()
    except glexc.GitlabError as e:
        check(e.response_code == code, what + ": %d" % code, e.response_code, str(e))
        return
    raise Failure(what + ": not refused")


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("an owner, a master and a developer")
        users = []
        for suffix in ("o", "m", "d"):
            u = gl.users.create({"username": TAG + suffix, "email": TAG + suffix + "@example.com",
                                 "name": "User " + TAG + suffix, "password": "s3cret-pass-1",
                                 "skip_confirmation": True})
            created_users.append(u)
            token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
            client = gitlab.Gitlab(URL, private_token=token)
            client.auth()
            users.append((u, client))
        (owner, og), (master, mg), (dev, dg) = users
        project = og.projects.create({"name": "CI " + TAG, "visibility": "private"})
        project.members.create({"user_id": master.id,
                                "access_level": gitlab.const.MAINTAINER_ACCESS})
        project.members.create({"user_id": dev.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
        project.commits.create({"branch": "master", "commit_message": "ci", "actions": [
            {"action": "create", "file_path": ".gitlab-ci.yml",
             "content": "test:\n  script: echo $GREETING\n"}]})

        step("project variables")
        var = project.variables.create({"key": "GREETING", "value": "hello"})
        check(var.key == "GREETING" and var.value == "hello" and var.protected is False,
              "created", var.attributes)
        project.variables.create({"key": "SECRET", "value": "s", "protected": True})
        check(sorted(v.key for v in project.variables.list(all=True)) == ["GREETING", "SECRET"],
              "listed")
        var = project.variables.get("GREETING")
        var.value = "hi there"
        var.save()
        check(project.variables.get("GREETING").value == "hi there", "saved")
        secret = project.variables.get("SECRET")
        check(secret.protected is True, "protected", secret.attributes)
        secret.delete()
        refused(lambda: project.variables.get("SECRET"), 404, "deleted variable")
        refused(lambda: project.variables.create({"key": "GREETING", "value": "x"}), 400,
                "duplicate key")
        refused(lambda: project.variables.create({"key": "bad-key", "value": "x"}), 400,
                "bad key")
        as_dev = dg.projects.get(project.id, lazy=True)
        refused(lambda: as_dev.variables.list(), 403, "developer lists variables")

        step("group variables")
        group = og.groups.create({"name": "G " + TAG, "path": "g-" + TAG})
        gv = group.variables.create({"key": "G_VAR", "value": "g"})
        check(gv.value == "g", "group variable", gv.attributes)
        check([v.key for v in group.variables.list(all=True)] == ["G_VAR"], "group listed")
        gv = group.variables.get("G_VAR")
        gv.value = "g2"
        gv.save()
        check(group.variables.get("G_VAR").value == "g2", "group saved")
        gv.delete()
        check(group.variables.list(all=True) == [], "group deleted")

        step("triggers")
        trigger = project.triggers.create({"description": "deploy"})
        check(len(trigger.token) == 20 and trigger.owner["id"] == owner.id, "trigger",
              trigger.attributes)
        check([t.id for t in project.triggers.list(all=True)] == [trigger.id], "triggers listed")
        trigger.description = "deploy it"
        trigger.save()
        check(project.triggers.get(trigger.id).description == "deploy it", "trigger saved")
        as_master = mg.projects.get(project.id, lazy=True)
        check(as_master.triggers.get(trigger.id).token == trigger.token[:4], "short token")
        refused(lambda: as_dev.triggers.list(), 403, "developer lists triggers")

        step("a trigger's invocation makes a pipeline")
        anon = gitlab.Gitlab(URL)
        pipeline = anon.projects.get(project.id, lazy=True).trigger_pipeline(
            "master", trigger.token, variables={"GREETING": "from trigger"})
        check(pipeline.id > 0 and pipeline.ref == "master", "pipeline", pipeline.attributes)
        check(project.triggers.get(trigger.id).last_used is not None, "last_used")
        refused(lambda: anon.projects.get(project.id, lazy=True).trigger_pipeline(
            "master", "not-a-token"), 404, "bad token")
        refused(lambda: anon.projects.get(project.id, lazy=True).trigger_pipeline(
            "no-such-branch", trigger.token), 400, "bad ref")
        trigger.delete()
        refused(lambda: anon.projects.get(project.id, lazy=True).trigger_pipeline(
            "master", trigger.token), 404, "deleted trigger")

        step("pipeline schedules")
        sched = project.pipelineschedules.create({"description": "nightly", "ref": "master",
                                                  "cron": "0 4 * * *",
                                                  "cron_timezone": "Europe/Berlin"})
        check(sched.active is True and sched.next_run_at and sched.owner["id"] == owner.id,
              "schedule", sched.attributes)
        sched.variables.create({"key": "WHO", "value": "schedule"})
        got = project.pipelineschedules.get(sched.id)
        check(got.attributes["variables"] == [{"key": "WHO", "value": "schedule"}] and
              got.attributes["last_pipeline"] is None, "schedule details", got.attributes)
        got.cron = "30 5 * * 1-5"
        got.active = False
        got.save()
        got = project.pipelineschedules.get(sched.id)
        check(got.cron == "30 5 * * 1-5" and got.active is False, "schedule saved",
              got.attributes)
        check([s.id for s in project.pipelineschedules.list(all=True)] == [sched.id],
              "schedules listed")
        refused(lambda: project.pipelineschedules.create(
            {"description": "x", "ref": "master", "cron": "not cron"}), 400, "bad cron")
        as_master.pipelineschedules.get(sched.id).take_ownership()
        check(project.pipelineschedules.get(sched.id).owner["id"] == master.id, "taken over")
        refused(lambda: as_dev.pipelineschedules.get(sched.id).take_ownership(), 403,
                "developer takes over")
        project.pipelineschedules.get(sched.id).variables.delete("WHO")
        check(project.pipelineschedules.get(sched.id).attributes["variables"] == [],
              "schedule variable deleted")
        project.pipelineschedules.delete(sched.id)
        refused(lambda: project.pipelineschedules.get(sched.id), 404, "deleted schedule")

        group.delete()
        og.projects.delete(project.id)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab ci settings: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab ci settings: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
