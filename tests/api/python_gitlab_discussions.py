#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on discussions, against a live collabd
stack (run by tests/api/run with COLLABD_URL, COLLABD_ADMIN_TOKEN and
COLLABD_DATABASE_URL set).

As python-gitlab's own functional tests use them (test_issue_discussions,
test_merge_request_discussion, test_commit_discussion): start a discussion of an issue,
a merge request and a commit, answer it, read the answer back, edit and delete it;
then resolve the merge request's
discussion as its `resolved` attribute saved does. The issue and the merge request are
made in SQL (psql), as the notes test makes its issue. Any deviation fails the run
(message on stderr, exit 1); the users it creates are removed at the end.
"""
import os
import subprocess
import sys
import time
import traceback

import gitlab

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
DATABASE_URL = os.environ["COLLABD_DATABASE_URL"]
TAG = "pgd%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab discussions: " + name, flush=True)


def sql(statement):
    """The first column of the first row statement returns (psql)."""
    out = subprocess.run(["psql", DATABASE_URL, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c",
                          statement], check=True, capture_output=True, text=True).stdout
    return out.split("\n")[0]


def fixture_issue(project_id, author_id, title):
    """An open issue of the project (its iid)."""
    return int(sql("INSERT INTO issues (project_id, iid, title, author_id) VALUES (%d,"
                   " next_iid('issues', 'Project', %d), '%s', %d) RETURNING iid"
                   % (project_id, project_id, title, author_id)))


def fixture_merge_request(project_id, author_id):
    """An open merge request of the project (its iid)."""
    return int(sql("INSERT INTO merge_requests (target_project_id, iid, source_project_id,"
                   " source_branch, target_branch, title, state, merge_status, author_id)"
                   " VALUES (%d, next_iid('merge_requests', 'Project', %d), %d, 'f',"
                   " 'master', 'm', 'opened', 'can_be_merged', %d) RETURNING iid"
                   % (project_id, project_id, project_id, author_id)))


def user(gl, name):
    u = gl.users.create({"username": TAG + name, "email": TAG + name + "@example.com",
                         "name": name.title() + " " + TAG, "password": "s3cret-pass-1",
                         "skip_confirmation": True})
    token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
    ug = gitlab.Gitlab(URL, private_token=token)
    ug.auth()
    return u, ug


def discussion_life(noteable, what):
    """python-gitlab's functional test of the discussions of an issue or a merge
    request: the discussion, with its first note still there, is returned."""
    size = len(noteable.discussions.list())
    discussion = noteable.discussions.create({"body": "Discussion body"})
    check(len(noteable.discussions.list()) == size + 1, what + ": listed")
    check(discussion.individual_note is False, what + ": not individual",
          discussion.attributes)
    check(discussion.attributes["notes"][0]["body"] == "Discussion body",
          what + ": first note", discussion.attributes)

    note = discussion.notes.create({"body": "first note"})
    check(note.type == "DiscussionNote", what + ": reply type", note.attributes)
    note_from_get = discussion.notes.get(note.id)
    note_from_get.body = "updated body"
    note_from_get.save()

    discussion = noteable.discussions.get(discussion.id)
    check(discussion.attributes["notes"][-1]["body"] == "updated body",
          what + ": updated body", discussion.attributes)

    note_from_get.delete()
    discussion = noteable.discussions.get(discussion.id)
    check(len(discussion.attributes["notes"]) == 1, what + ": one note left",
          discussion.attributes)
    return discussion


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("an owner, a developer and a public project")
        owner, og = user(gl, "owner")
        created_users.append(owner)
        dev, dg = user(gl, "dev")
        created_users.append(dev)
        project = og.projects.create({"name": "Discussions " + TAG, "visibility": "public"})
        project.members.create({"user_id": dev.id, "access_level": 30})
        dproject = dg.projects.get(project.id, lazy=True)

        step("an issue's discussion")
        iid = fixture_issue(project.id, owner.id, "Talk about it")
        issue = dproject.issues.get(iid, lazy=True)
        discussion_life(issue, "issue")
        step("its notes are the notes API's")
        bodies = [n.body for n in issue.notes.list(all=True)]
        check(bodies == ["Discussion body"], "issue notes", bodies)

        step("a merge request's discussion")
        mr_iid = fixture_merge_request(project.id, owner.id)
        mr = dproject.mergerequests.get(mr_iid, lazy=True)
        discussion = discussion_life(mr, "merge request")
        check(discussion.attributes["notes"][0]["resolvable"] is True, "resolvable",
              discussion.attributes)

        step("resolve it")
        discussion.resolved = True
        discussion.save()
        discussion = mr.discussions.get(discussion.id)
        first = discussion.attributes["notes"][0]
        check(first["resolved"] is True and first["resolved_by"]["id"] == dev.id,
              "resolved", first)
        discussion.resolved = False
        discussion.save()
        first = mr.discussions.get(discussion.id).attributes["notes"][0]
        check(first["resolved"] is False and first["resolved_by"] is None, "unresolved",
              first)

        step("a commit's discussion")
        sha = project.commits.create({
            "branch": "master", "commit_message": "add a",
            "actions": [{"action": "create", "file_path": "a", "content": "a"}]}).id
        commit = dproject.commits.get(sha, lazy=True)
        discussion = discussion_life(commit, "commit")
        check(discussion.attributes["notes"][0]["noteable_type"] == "Commit", "commit note",
              discussion.attributes)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab discussions: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab discussions: FAILED: %s: %s" % (type(e).__name__, e),
              file=sys.stderr)
        sys.exit(1)
