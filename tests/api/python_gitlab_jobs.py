#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on jobs, against a live collabd stack (run
by tests/api/run with COLLABD_URL, COLLABD_ADMIN_TOKEN, COLLABD_DATABASE_URL and
COLLABD_DIR set).

As a client would: list a project's and a pipeline's jobs, read one, its trace, its
artifacts archive (by job and by ref), one file of it, and cancel, retry and play jobs.
Pipelines and jobs are made in SQL (psql) and their trace and archive written into the
stack's storage path, as the runner API would. Any deviation fails the run (message on
stderr, exit 1); what the test creates is removed at the end.
"""
import io
import os
import subprocess
import sys
import time
import traceback
import zipfile

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
DATABASE_URL = os.environ["COLLABD_DATABASE_URL"]
STORAGE = os.path.join(os.environ["COLLABD_DIR"], "storage")
TAG = "pgj%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab jobs: " + name, flush=True)


def sql(statement):
    """The first column of the first row statement returns (psql)."""
    out = subprocess.run(["psql", DATABASE_URL, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c",
                          statement], check=True, capture_output=True, text=True).stdout
    return out.split("\n")[0]


def pipeline(project_id, sha, status):
    return int(sql("INSERT INTO ci_pipelines (project_id, ref, sha, status) VALUES"
                   " (%d, 'master', '%s', '%s') RETURNING id" % (project_id, sha, status)))


def job(pipeline_id, name, status, stage_idx=0, when="on_success"):
    return int(sql("WITH s AS (INSERT INTO commit_statuses (project_id, sha, ref, name, stage,"
                   " status, pipeline_id, stage_idx, \"when\") SELECT project_id, sha, ref,"
                   " '%s', 'test', '%s', id, %d, '%s' FROM ci_pipelines WHERE id = %d"
                   " RETURNING id, project_id, pipeline_id) INSERT INTO ci_builds (id,"
                   " project_id, pipeline_id) SELECT id, project_id, pipeline_id FROM s"
                   " RETURNING id" % (name, status, stage_idx, when, pipeline_id)))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    # nginx's workers read them
    for d in (os.path.dirname(path), os.path.dirname(os.path.dirname(path))):
        os.chmod(d, 0o755)
    os.chmod(path, 0o644)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("a user who owns a project with a commit")
        u = gl.users.create({"username": TAG, "email": TAG + "@example.com",
                             "name": "User " + TAG, "password": "s3cret-pass-1",
                             "skip_confirmation": True})
        created_users.append(u)
        token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        client = gitlab.Gitlab(URL, private_token=token)
        client.auth()
        project = client.projects.create({"name": "Proj " + TAG, "visibility": "private"})
        commit = project.commits.create({"branch": "master", "commit_message": "init",
                                         "actions": [{"action": "create", "file_path": "a",
                                                      "content": "a"}]})

        step("a pipeline with a finished job (trace, artifacts), a pending and a manual one")
        p = pipeline(project.id, commit.id, "running")
        built = job(p, "build", "success")
        pending = job(p, "test", "pending")
        manual = job(p, "deploy", "manual", when="manual")
        trace = b"Running with gitlab-runner\n\x1b[32;1mJob succeeded\x1b[0;m\n"
        write(os.path.join(STORAGE, "ci", "traces", str(project.id), "%d.log" % built), trace)
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("out/report.txt", "all good\n")
            z.writestr("binary.bin", bytes(range(256)))
        data = archive.getvalue()
        write(os.path.join(STORAGE, "ci", "artifacts", str(project.id), str(built),
                           "artifacts.zip"), data)
        sql("UPDATE ci_builds SET artifacts_file = 'artifacts.zip', artifacts_size = %d"
            " WHERE id = %d" % (len(data), built))
        sql("SELECT ci_process_pipeline(%d)" % p)

        step("project.jobs.list, pipeline jobs, scope")
        ids = [j.id for j in project.jobs.list(all=True)]
        check(ids == [manual, pending, built], "jobs newest first", ids)
        ids = [j.id for j in project.jobs.list(scope=["pending", "manual"], all=True)]
        check(ids == [manual, pending], "scope[]", ids)
        ids = [j.id for j in project.pipelines.get(p, lazy=True).jobs.list(all=True)]
        check(ids == [manual, pending, built], "pipeline jobs", ids)
        try:
            project.jobs.list(scope="bogus")
            raise Failure("a bad scope was accepted")
        except glexc.GitlabListError as e:
            check(e.response_code == 400, "bad scope: 400", e.response_code)

        step("project.jobs.get, trace, artifacts")
        j = project.jobs.get(built)
        check(j.name == "build" and j.status == "success", "job", j.attributes)
        check(j.commit["id"] == commit.id and j.pipeline["id"] == p, "commit, pipeline",
              j.attributes)
        check(j.artifacts_file == {"filename": "artifacts.zip", "size": len(data)},
              "artifacts_file", j.attributes)
        check(j.trace() == trace, "trace", j.trace())
        check(j.artifacts() == data, "artifacts")
        check(j.artifact("out/report.txt") == b"all good\n", "one artifact file")
        check(j.artifact("binary.bin") == bytes(range(256)), "a binary artifact file")
        try:
            j.artifact("nope.txt")
            raise Failure("a missing artifact file was found")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "missing file: 404", e.response_code)
        check(project.jobs.get(pending).trace() == b"", "no trace yet: empty")
        sql("UPDATE ci_pipelines SET status = 'success' WHERE id = %d" % p)
        got = project.artifacts.download(ref_name="master", job="build")
        check(got == data, "artifacts of the ref's latest successful pipeline")
        try:
            project.jobs.get(999999999)
            raise Failure("an unknown job was found")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "unknown job: 404", e.response_code)

        step("cancel, retry, play")
        t = project.jobs.get(pending)
        t.cancel()
        check(project.jobs.get(pending).status == "canceled", "canceled")
        new = t.retry()
        check(new["id"] != pending and new["status"] == "pending", "retried", new)
        check(project.jobs.get(new["id"]).name == "test", "the new job")
        d = project.jobs.get(manual)
        d.play()
        check(project.jobs.get(manual).status == "pending", "played")
        try:
            d.play()
            raise Failure("a pending job was played")
        except glexc.GitlabJobPlayError as e:
            check(e.response_code == 400, "unplayable: 400", e.response_code)
        try:
            project.jobs.get(new["id"]).retry()
            raise Failure("a pending job was retried")
        except glexc.GitlabJobRetryError as e:
            check(e.response_code == 403, "not retryable: 403", e.response_code)
        client.projects.delete(project.id)
    finally:
        for user in created_users:
            try:
                user.delete()
            except Exception:
                pass
    print("python-gitlab jobs: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab jobs: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
