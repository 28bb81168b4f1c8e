#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on merge requests, against a live collabd
stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As a client would: a project with a commit on master and an issue, a branch with two
commits, a merge request opened on it with labels, listed with filters, its commits and
changes, a comment, an edit, the merge (a stale sha refused first), the merge commit on
master and the issue it closes; then the project's merge_method ff: a request that
fast-forwards master, one refused with 406 once master moved. Any deviation fails the run (message on stderr, exit 1);
what the test creates is removed at the end.
"""
import os
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgm%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab merge requests: " + name, flush=True)


def commit(project, branch, path, content, message, start=None, action="create"):
    data = {"branch": branch, "commit_message": message,
            "actions": [{"action": action, "file_path": path, "content": content}]}
    if start:
        data["start_branch"] = start
    return project.commits.create(data)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("a user and a project with a repository")
        user = gl.users.create({"username": TAG + "u", "email": TAG + "u@example.com",
                                "name": "Owner " + TAG, "password": "s3cret-pass-1",
                                "skip_confirmation": True})
        created_users.append(user)
        token = user.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        ug = gitlab.Gitlab(URL, private_token=token)
        ug.auth()
        project = ug.projects.create({"name": "Proj " + TAG, "path": TAG + "-p",
                                      "visibility": "private"})
        commit(project, "master", "README.md", "hello\n", "Initial")
        issue = project.issues.create({"title": "broken"})
        commit(project, "feature", "a.txt", "a\n", "Add a", start="master")
        second = commit(project, "feature", "b.txt", "b\n", "Add b")

        step("create")
        mr = project.mergerequests.create({
            "source_branch": "feature", "target_branch": "master", "title": "Feature",
            "description": "Closes #%d" % issue.iid, "labels": ["feature"],
            "remove_source_branch": True})
        check(mr.iid == 1 and mr.state == "opened" and mr.labels == ["feature"],
              "created", mr.attributes)
        check(mr.sha == second.id, "head sha", mr.sha, second.id)
        check(mr.force_remove_source_branch is True, "remove_source_branch", mr.attributes)
        try:
            project.mergerequests.create({"source_branch": "feature",
                                          "target_branch": "master", "title": "again"})
            raise Failure("a second open request was made")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 409, "second request: 409", e.response_code)

        step("list and get")
        mrs = project.mergerequests.list(state="opened", labels=["feature"])
        check([m.iid for m in mrs] == [1], "list", [m.iid for m in mrs])
        check(project.mergerequests.list(state="merged") == [], "no merged ones")
        check([m.iid for m in ug.mergerequests.list()] == [1], "global list")
        mr = project.mergerequests.get(1)
        check(mr.title == "Feature" and mr.author["username"] == TAG + "u", "get",
              mr.attributes)

        step("commits and changes")
        commits = list(mr.commits())
        check([c.title for c in commits] == ["Add b", "Add a"], "commits",
              [c.title for c in commits])
        changes = mr.changes()
        paths = sorted(c["new_path"] for c in changes["changes"])
        check(paths == ["a.txt", "b.txt"], "changes", paths)
        check(all(c["new_file"] for c in changes["changes"]), "new files", changes["changes"])

        step("comment and edit")
        note = mr.notes.create({"body": "Looks good"})
        check(note.body == "Looks good", "note", note.attributes)
        mr.description = "Closes #%d\n\nReady" % issue.iid
        mr.save()
        mr = project.mergerequests.get(1)
        check(mr.user_notes_count == 1 and mr.description.endswith("Ready"), "edited",
              mr.attributes)
        closes = mr.closes_issues()
        check([i.iid for i in closes] == [issue.iid], "closes_issues",
              [i.iid for i in closes])

        step("merge")
        try:
            mr.merge(sha="0" * 40)
            raise Failure("merged with a stale sha")
        except glexc.GitlabMRClosedError as e:
            check(e.response_code == 409, "stale sha: 409", e.response_code)
        mr.merge(sha=second.id)
        mr = project.mergerequests.get(1)
        check(mr.state == "merged" and mr.merge_commit_sha, "merged", mr.attributes)
        head = project.commits.get("master")
        check(head.id == mr.merge_commit_sha and len(head.parent_ids) == 2, "merge commit",
              head.attributes)
        check(project.files.raw("b.txt", ref="master") == b"b\n", "b.txt on master")
        check(project.issues.get(issue.iid).state == "closed", "issue closed")
        try:
            project.branches.get("feature")
            raise Failure("source branch kept")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "source branch removed", e.response_code)
        check([m.iid for m in project.mergerequests.list(state="merged")] == [1],
              "merged list")

        step("fast-forward merges (merge_method ff)")
        project.merge_method = "ff"
        project.save()
        check(ug.projects.get(project.id).merge_method == "ff", "merge_method",
              project.attributes)
        fast = commit(project, "fast", "c.txt", "c\n", "Add c", start="master")
        mr = project.mergerequests.create({"source_branch": "fast", "target_branch": "master",
                                           "title": "Fast"})
        mr.merge()
        mr = project.mergerequests.get(mr.iid)
        head = project.commits.get("master")
        check(mr.state == "merged" and mr.merge_commit_sha == fast.id == head.id
              and len(head.parent_ids) == 1, "fast-forward", mr.attributes, head.attributes)
        commit(project, "late", "d.txt", "d\n", "Add d", start="master")
        mr = project.mergerequests.create({"source_branch": "late", "target_branch": "master",
                                           "title": "Late"})
        commit(project, "master", "e.txt", "e\n", "Add e")
        try:
            mr.merge()
            raise Failure("merged what cannot fast-forward")
        except glexc.GitlabMRClosedError as e:
            check(e.response_code == 406, "no fast-forward: 406", e.response_code)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab merge requests: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab merge requests: FAILED: %s: %s" % (type(e).__name__, e),
              file=sys.stderr)
        sys.exit(1)
