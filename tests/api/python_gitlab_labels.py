#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on labels, project snippets and issue
boards, against a live collabd stack (run by tests/api/run with COLLABD_URL and
COLLABD_ADMIN_TOKEN set).

As a client would: create, list, edit, subscribe to and remove labels; create, read, edit
and remove a project snippet and its raw content; find the project's board, add label
lists to it, move one and remove one. Any deviation fails the run (message on stderr,
exit 1); what the test creates is removed at the end.
"""
import os
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgl%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab labels: " + name, flush=True)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("a user who owns a project, and a guest of it")
        users = []
        for suffix in ("o", "g"):
            u = gl.users.create({"username": TAG + suffix, "email": TAG + suffix + "@example.com",
                                 "name": "User " + TAG + suffix, "password": "s3cret-pass-1",
                                 "skip_confirmation": True})
            created_users.append(u)
            token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
            client = gitlab.Gitlab(URL, private_token=token)
            client.auth()
            users.append((u, client))
        (owner, og), (guest, gg) = users
        project = og.projects.create({"name": "Proj " + TAG, "visibility": "private"})
        project.members.create({"user_id": guest.id, "access_level": gitlab.const.GUEST_ACCESS})
        as_guest = gg.projects.get(project.id)

        step("labels: create, list, edit")
        bug = project.labels.create({"name": "bug", "color": "#FF0000",
                                     "description": "broken", "priority": 2})
        check(bug.name == "bug" and bug.color == "#ff0000" and bug.priority == 2,
              "created label", bug.attributes)
        project.labels.create({"name": "feature", "color": "LightGreen"})
        names = [label.name for label in project.labels.list(all=True)]
        check(names == ["bug", "feature"], "labels listed by title", names)
        bug.new_name = "defect"
        bug.color = "navy"
        bug.save()
        check(bug.name == "defect" and bug.color == "#000080", "edited label", bug.attributes)
        try:
            project.labels.create({"name": "feature", "color": "red"})
            raise Failure("duplicate label accepted")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 409, "duplicate label: 409", e.response_code)
        try:
            as_guest.labels.create({"name": "nope", "color": "red"})
            raise Failure("guest made a label")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 403, "guest label: 403", e.response_code)

        step("labels: subscribe and unsubscribe")
        mine = [label for label in as_guest.labels.list(all=True) if label.name == "defect"][0]
        mine.subscribe()
        check(mine.subscribed is True, "subscribed", mine.attributes)
        try:
            mine.subscribe()
            raise Failure("subscribed twice")
        except glexc.GitlabSubscribeError as e:
            check(e.response_code == 304, "second subscribe: 304", e.response_code)
        mine.unsubscribe()
        check(mine.subscribed is False, "unsubscribed", mine.attributes)

        step("labels: delete (GitLab 10's DELETE /projects/:id/labels?name=)")
        og.http_delete("/projects/%d/labels" % project.id, query_data={"name": "feature"})
        names = [label.name for label in project.labels.list(all=True)]
        check(names == ["defect"], "label removed", names)

        step("snippets: create, read, edit, raw, delete")
        snippet = project.snippets.create({"title": "hello", "file_name": "hello.py",
                                           "content": "print('hi')\n", "visibility": "internal",
                                           "description": "says hi"})
        check(snippet.title == "hello" and snippet.author["id"] == owner.id,
              "created snippet", snippet.attributes)
        check(snippet.content() == b"print('hi')\n", "raw content", snippet.content())
        got = as_guest.snippets.get(snippet.id)
        check(got.file_name == "hello.py", "guest reads the snippet", got.attributes)
        snippet.title = "hello again"
        snippet.code = "print('hi again')\n"
        snippet.save()
        check(project.snippets.get(snippet.id).title == "hello again", "snippet edited")
        check(snippet.content() == b"print('hi again')\n", "raw content edited")
        try:
            got.title = "mine now"
            got.save()
            raise Failure("guest edited the snippet")
        except glexc.GitlabUpdateError as e:
            check(e.response_code == 403, "guest edit: 403", e.response_code)
        check([s.id for s in project.snippets.list(all=True)] == [snippet.id], "snippets listed")
        snippet.delete()
        check(project.snippets.list(all=True) == [], "snippet removed")

        step("boards: the default board and its lists")
        boards = project.boards.list(all=True)
        check(len(boards) == 1 and boards[0].attributes["lists"] == [], "one empty board",
              [b.attributes for b in boards])
        board = boards[0]
        labels = {label.name: label for label in project.labels.list(all=True)}
        todo = project.labels.create({"name": "todo", "color": "#cccccc"})
        doing = project.labels.create({"name": "doing", "color": "#00ff00"})
        lists = [board.lists.create({"label_id": label.id})
                 for label in (labels["defect"], todo, doing)]
        check([bl.position for bl in lists] == [0, 1, 2], "list positions", lists)
        check(lists[1].label["name"] == "todo", "list label", lists[1].attributes)
        moving = board.lists.get(lists[2].id)
        moving.position = 0
        moving.save()
        order = [bl.label["name"] for bl in board.lists.list(all=True)]
        check(order == ["doing", "defect", "todo"], "list moved", order)
        board.lists.delete(lists[0].id)
        got = [(bl.label["name"], bl.position) for bl in board.lists.list(all=True)]
        check(got == [("doing", 0), ("todo", 1)], "list removed, positions dense", got)
        try:
            as_guest.boards.list(all=True)[0].lists.create({"label_id": labels["defect"].id})
            raise Failure("guest added a list")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 403, "guest list: 403", e.response_code)
        again = project.boards.list(all=True)
        check([b.id for b in again] == [board.id] and len(again[0].attributes["lists"]) == 2,
              "board with its lists", [b.attributes for b in again])
        og.projects.delete(project.id)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab labels: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab labels: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
