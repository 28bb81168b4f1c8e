#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on notes and award emoji, against a live
collabd stack (run by tests/api/run with COLLABD_URL, COLLABD_ADMIN_TOKEN and
COLLABD_DATABASE_URL set).

As a client would: comment on an issue and on a project snippet, list, read, edit and
delete the comments, award emoji to the issue, a comment and the snippet (and take one
back), post a comment that is only an emoji, and find the comment in the project's
events. The issue and the snippet are made in SQL (psql) until their create endpoints
exist: `fixture_issue` and `fixture_snippet` are the places to switch to the API. Any
deviation fails the run (message on stderr, exit 1); what the test creates is removed at
the end.
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
DATABASE_URL = os.environ["COLLABD_DATABASE_URL"]
TAG = "pgn%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab notes: " + name, flush=True)


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


def fixture_snippet(project_id, author_id, visibility):
    """A snippet of the project (its id); visibility 0, 10 or 20."""
    return int(sql("INSERT INTO snippets (project_id, author_id, title, file_name, content,"
                   " visibility) VALUES (%d, %d, 'snip', 'a.txt', 'hello', %d) RETURNING id"
                   % (project_id, author_id, visibility)))


def user(gl, name):
    u = gl.users.create({"username": TAG + name, "email": TAG + name + "@example.com",
                         "name": name.title() + " " + TAG, "password": "s3cret-pass-1",
                         "skip_confirmation": True})
    token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
    ug = gitlab.Gitlab(URL, private_token=token)
    ug.auth()
    return u, ug


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
        project = og.projects.create({"name": "Notes " + TAG, "visibility": "public"})
        project.members.create({"user_id": dev.id, "access_level": 30})
        iid = fixture_issue(project.id, owner.id, "Talk about it")
        issue = dg.projects.get(project.id, lazy=True).issues.get(iid, lazy=True)

        step("comment on the issue")
        note = issue.notes.create({"body": "First comment"})
        check(note.body == "First comment", "body", note.body)
        check(note.author["username"] == dev.username, "author", note.author)
        check(note.noteable_type == "Issue" and note.noteable_iid == iid, "noteable",
              note.noteable_type, note.noteable_iid)
        check(note.system is False, "system", note.system)
        second = issue.notes.create({"body": "Second comment"})
        bodies = [n.body for n in issue.notes.list(all=True)]
        check(bodies == ["Second comment", "First comment"], "newest first", bodies)
        bodies = [n.body for n in issue.notes.list(all=True, sort="asc")]
        check(bodies == ["First comment", "Second comment"], "sort=asc", bodies)
        page = issue.notes.list(per_page=1, page=2)
        check([n.id for n in page] == [note.id], "second page", [n.id for n in page])

        step("edit and read it back")
        note.body = "First comment, edited"
        note.save()
        check(issue.notes.get(note.id).body == "First comment, edited", "edited body")

        step("someone else may not edit it")
        oissue = og.projects.get(project.id, lazy=True).issues.get(iid, lazy=True)
        other, xg = user(gl, "other")
        created_users.append(other)
        xnote = xg.projects.get(project.id, lazy=True).issues.get(iid, lazy=True).notes.get(
            note.id)
        xnote.body = "not mine"
        try:
            xnote.save()
            raise Failure("an outsider edited a note")
        except glexc.GitlabUpdateError as e:
            check(e.response_code == 403, "outsider edit: 403", e.response_code)

        step("award emoji on the issue and on the comment")
        award = issue.awardemojis.create({"name": "thumbsup"})
        check(award.name == "thumbsup" and award.awardable_type == "Issue", "award",
              award.name, award.awardable_type)
        issue.awardemojis.create({"name": "tada"})
        names = sorted(a.name for a in issue.awardemojis.list(all=True))
        check(names == ["tada", "thumbsup"], "issue awards", names)
        try:
            oissue.awardemojis.create({"name": "thumbsup"})
            raise Failure("the author voted on their own issue")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 404, "own vote: 404", e.response_code)
        naward = oissue.notes.get(note.id).awardemojis.create({"name": "heart"})
        check(naward.awardable_type == "Note" and naward.awardable_id == note.id,
              "note award", naward.awardable_type, naward.awardable_id)
        check(len(issue.notes.get(note.id).awardemojis.list(all=True)) == 1, "note awards")
        issue.awardemojis.delete(award.id)
        names = [a.name for a in issue.awardemojis.list(all=True)]
        check(names == ["tada"], "after taking one back", names)

        step("a comment that is only an emoji awards it")
        emoji = oissue.notes.create({"body": ":smile:"})
        check(getattr(emoji, "name", None) == "smile", "emoji note", emoji.attributes)
        check(len(issue.notes.list(all=True)) == 2, "no note for the emoji")

        step("the comment in the project's events")
        events = [e for e in dg.projects.get(project.id).events.list(all=True)
                  if e.action_name == "commented on"]
        check(len(events) == 2, "two comment events", [e.attributes for e in events])
        check(events[-1].note["body"] == "First comment, edited", "event note",
              events[-1].note)

        step("delete a comment")
        second.delete()
        try:
            issue.notes.get(second.id)
            raise Failure("deleted note still readable")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "deleted note: 404", e.response_code)

        step("comments and awards on a snippet")
        sid = fixture_snippet(project.id, owner.id, 20)
        snippet = dg.projects.get(project.id, lazy=True).snippets.get(sid, lazy=True)
        snote = snippet.notes.create({"body": "Nice snippet"})
        check(snote.noteable_type == "Snippet" and snote.noteable_id == sid, "snippet note",
              snote.attributes)
        check([n.id for n in snippet.notes.list(all=True)] == [snote.id], "snippet notes")
        snote.body = "Nicer snippet"
        snote.save()
        check(snippet.notes.get(snote.id).body == "Nicer snippet", "snippet note edited")
        sa = snippet.awardemojis.create({"name": "rocket"})
        check(sa.awardable_type == "Snippet", "snippet award", sa.attributes)
        snote.delete()
        check(snippet.notes.list(all=True) == [], "snippet notes after delete")

        step("merge request notes: not found until merge requests exist")
        try:
            project.mergerequests.get(1, lazy=True).notes.list()
            raise Failure("merge request notes listed")
        except glexc.GitlabListError as e:
            check(e.response_code == 404, "merge request notes: 404", e.response_code)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab notes: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab notes: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
