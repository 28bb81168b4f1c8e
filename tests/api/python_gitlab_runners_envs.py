#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on runners and environments, against a live
collabd stack (run by tests/api/run with COLLABD_URL, COLLABD_ADMIN_TOKEN,
COLLABD_DATABASE_URL and COLLABD_DIR set).

As a client would: list the runners a master may use and all of them as admin, read one,
change it, enable it in a second project and disable it there, remove it; create, list,
edit, stop and remove environments. Runners are registered as gitlab-runner does (POST
/runners with a registration token). Any deviation fails the run (message on stderr,
exit 1); what the test creates is removed at the end.
"""
import os
import subprocess
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
DB = os.environ["COLLABD_DATABASE_URL"]
TAG = "pgr%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab runners/environments: " + name, flush=True)


def sql(statement):
    out = subprocess.run(["psql", DB, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", statement],
                         check=True, capture_output=True, text=True).stdout
    return out.strip().split("\n")[0]


def make_runner(gl, project_ids, shared=False):
    """A runner registered as gitlab-runner does (POST /runners with the project's or the
    shared registration token), enabled in the other projects of project_ids: (id,
    token)."""
    if shared:
        reg = subprocess.run([os.environ["COLLABD_BIN"], "runners-token"], check=True,
                             capture_output=True, text=True).stdout.strip()
    else:
        reg = gl.projects.get(project_ids[0]).runners_token
    runner = gl.runners.create({"token": reg, "description": "runner " + TAG})
    for pid in project_ids[1:]:
        sql("INSERT INTO ci_runner_projects (runner_id, project_id) VALUES (%d, %d)"
            % (runner.id, pid))
    return runner.id, runner.token


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    runner_ids = []
    try:
        step("a user who masters two projects, and a reporter of the first")
        users = []
        for suffix in ("o", "r"):
            u = gl.users.create({"username": TAG + suffix, "email": TAG + suffix + "@example.com",
                                 "name": "User " + TAG + suffix, "password": "s3cret-pass-1",
                                 "skip_confirmation": True})
            created_users.append(u)
            token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
            client = gitlab.Gitlab(URL, private_token=token)
            client.auth()
            users.append((u, client))
        (owner, og), (reporter, rg) = users
        project = og.projects.create({"name": "Proj " + TAG, "visibility": "private"})
        second = og.projects.create({"name": "Second " + TAG, "visibility": "private"})
        project.members.create({"user_id": reporter.id,
                                "access_level": gitlab.const.REPORTER_ACCESS})

        step("runners: list, all, get")
        rid, rtoken = make_runner(gl, [project.id])
        shared_id, _ = make_runner(gl, [], shared=True)
        runner_ids += [rid, shared_id]
        mine = [r.id for r in og.runners.list(all=True)]
        check(mine == [rid], "the master's runners", mine)
        check([r.id for r in og.runners.list(scope="paused", all=True)] == [],
              "no paused runner")
        check([r.id for r in rg.runners.list(all=True)] == [], "a reporter's runners")
        everything = [r.id for r in gl.runners.all(scope="shared", all=True)]
        check(shared_id in everything and rid not in everything, "shared runners", everything)
        try:
            og.runners.all()
            raise Failure("a user listed all runners")
        except glexc.GitlabListError as e:
            check(e.response_code == 403, "all runners as a user: 403", e.response_code)
        try:
            og.runners.list(scope="shared")
            raise Failure("scope shared accepted")
        except glexc.GitlabListError as e:
            check(e.response_code == 400, "scope shared: 400", e.response_code)
        runner = og.runners.get(rid)
        check(runner.description == "runner " + TAG and runner.active and not runner.is_shared,
              "runner details", runner.attributes)
        check([p["id"] for p in runner.projects] == [project.id], "its projects",
              runner.projects)
        check(runner.token == rtoken, "its token", runner.attributes)
        check(not hasattr(og.runners.get(shared_id), "token"), "a shared runner's token hidden")
        try:
            rg.runners.get(rid)
            raise Failure("a reporter read a runner")
        except glexc.GitlabGetError as e:
            check(e.response_code == 403, "runner as reporter: 403", e.response_code)

        step("runners: update")
        runner.description = "renamed " + TAG
        runner.tag_list = ["docker", "ruby"]
        runner.active = False
        runner.access_level = "ref_protected"
        runner.save()
        again = og.runners.get(rid)
        check(again.description == "renamed " + TAG and sorted(again.tag_list) == ["docker", "ruby"]
              and not again.active and again.access_level == "ref_protected",
              "updated runner", again.attributes)
        check([r.id for r in og.runners.list(scope="paused", all=True)] == [rid], "paused now")
        try:
            og.runners.update(rid, {"access_level": "nope"})
            raise Failure("a bad access_level accepted")
        except glexc.GitlabUpdateError as e:
            check(e.response_code == 400, "bad access_level: 400", e.response_code)

        step("project runners: enable, list, disable")
        p2 = og.projects.get(second.id)
        enabled = p2.runners.create({"runner_id": rid})
        check(enabled.id == rid, "enabled runner", enabled.attributes)
        try:
            p2.runners.create({"runner_id": rid})
            raise Failure("a runner enabled twice")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 409, "enabled twice: 409", e.response_code)
        listed = [r.id for r in p2.runners.list(all=True)]
        check(rid in listed and shared_id in listed, "the project's runners", listed)
        p2.runners.delete(rid)
        check(rid not in [r.id for r in p2.runners.list(all=True)], "disabled")
        p1 = og.projects.get(project.id)
        try:
            p1.runners.delete(rid)
            raise Failure("the last project disabled")
        except glexc.GitlabDeleteError as e:
            check(e.response_code == 403, "last project: 403", e.response_code)

        step("runners: delete")
        og.runners.delete(rid)
        try:
            og.runners.get(rid)
            raise Failure("a removed runner read")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "removed runner: 404", e.response_code)
        runner_ids.remove(rid)

        step("environments: create, list, update")
        prod = p1.environments.create({"name": "production",
                                       "external_url": "https://prod.example.com"})
        check(prod.name == "production" and prod.slug == "production"
              and prod.external_url == "https://prod.example.com", "created", prod.attributes)
        review = p1.environments.create({"name": "review/" + TAG})
        check(review.slug.startswith("review-") and len(review.slug) <= 24, "slug",
              review.attributes)
        names = [e.name for e in p1.environments.list(all=True)]
        check(names == ["production", "review/" + TAG], "listed", names)
        check(len(rg.projects.get(project.id).environments.list(all=True)) == 2,
              "a reporter lists them")
        try:
            p1.environments.create({"name": "production"})
            raise Failure("a duplicate environment")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 400, "duplicate: 400", e.response_code)
        prod.external_url = "https://www.example.com"
        prod.save()
        check(p1.environments.list(all=True)[0].external_url == "https://www.example.com",
              "updated url")
        try:
            rg.projects.get(project.id).environments.create({"name": "nope"})
            raise Failure("a reporter made an environment")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 403, "reporter create: 403", e.response_code)

        step("environments: stop, delete")
        prod.stop()
        check(sql("SELECT state FROM environments WHERE id = %d" % prod.id) == "stopped",
              "stopped")
        review.delete()
        check([e.name for e in p1.environments.list(all=True)] == ["production"], "deleted")
        try:
            p1.environments.delete(review.id)
            raise Failure("a removed environment removed")
        except glexc.GitlabDeleteError as e:
            check(e.response_code == 404, "removed environment: 404", e.response_code)
    finally:
        for rid in runner_ids:
            try:
                gl.runners.delete(rid)
            except glexc.GitlabError:
                pass
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        sys.exit(1)
    print("python-gitlab runners/environments: ok")
