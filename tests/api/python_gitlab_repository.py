#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on repository content, against a live
collabd stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As a client would: create, read, update and delete files (a path with slashes and
spaces), make a commit with actions, read it back, list the tree and compare two
branches, download archives in several formats and refs, and tag with release notes. Any deviation fails the run (message on stderr, exit 1); what the test creates
is removed at the end.
"""
import base64
import io
import os
import sys
import tarfile
import time
import traceback
import zipfile

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgr%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab repository: " + name, flush=True)


def set_release_description(gl, project, tag, description):
    """python-gitlab 1.x's ProjectTag.set_release_description, which 3.x no longer has:
    POST the release of a tag without one, PUT it when there is one."""
    path = "/projects/%d/repository/tags/%s/release" % (project.id, tag.name)
    data = {"description": description}
    if tag.release is None:
        got = gl.http_post(path, post_data=data)
    else:
        got = gl.http_put(path, post_data=data)
    tag.release = got
    return got


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("a user and a private project")
        user = gl.users.create({"username": TAG + "u", "email": TAG + "u@example.com",
                                "name": "Writer " + TAG, "password": "s3cret-pass-1",
                                "skip_confirmation": True})
        created_users.append(user)
        token = user.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        ug = gitlab.Gitlab(URL, private_token=token)
        ug.auth()
        project = ug.projects.create({"name": "Repo " + TAG, "visibility": "private"})

        step("files: create, get, update")
        path = "docs/user guide/intro.md"
        f = project.files.create({"file_path": path, "branch": "master",
                                  "content": "hello\n", "commit_message": "add intro"})
        check(f.file_path == path, "created file_path", f.attributes)
        got = project.files.get(file_path=path, ref="master")
        check(got.decode() == b"hello\n", "decoded content", got.attributes)
        check(got.file_name == "intro.md" and got.encoding == "base64", "file record",
              got.attributes)
        got.content = "hello again\n"
        got.save(branch="master", commit_message="update intro")
        again = project.files.get(file_path=path, ref="master")
        check(again.decode() == b"hello again\n", "updated content", again.attributes)
        check(project.files.raw(file_path=path, ref="master") == b"hello again\n", "raw")
        try:
            project.files.create({"file_path": path, "branch": "master", "content": "x",
                                  "commit_message": "again"})
            raise Failure("existing file created again")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 400, "existing file: 400", e.response_code)

        step("commits: create with actions, get, list")
        data = {
            "branch": "feature",
            "start_branch": "master",
            "commit_message": "several at once",
            "actions": [
                {"action": "create", "file_path": "src/main.c", "content": "int main;\n"},
                {"action": "create", "file_path": "bin/blob",
                 "content": base64.b64encode(b"\x00\x01\x02").decode(), "encoding": "base64"},
                {"action": "move", "previous_path": path, "file_path": "docs/intro.md"},
            ],
        }
        commit = project.commits.create(data)
        check(commit.title == "several at once", "commit title", commit.attributes)
        check(len(commit.parent_ids) == 1, "one parent", commit.attributes)
        same = project.commits.get(commit.id)
        check(same.id == commit.id and "stats" in same.attributes, "commit by id",
              same.attributes)
        diff = same.diff()
        check(sorted(d["new_path"] for d in diff) == ["bin/blob", "docs/intro.md", "src/main.c"],
              "commit diff", diff)
        history = project.commits.list(ref_name="feature", all=True)
        check(len(history) == 3 and history[0].id == commit.id, "history", history)

        step("tree and compare")
        tree = project.repository_tree(ref="feature", recursive=True, all=True)
        paths = [e["path"] for e in tree]
        check("src/main.c" in paths and "docs" in paths, "recursive tree", paths)
        check(tree[0]["type"] == "tree", "trees first", tree)
        cmp = project.repository_compare("master", "feature")
        check([c["id"] for c in cmp["commits"]] == [commit.id], "compare commits", cmp)
        check(cmp["compare_same_ref"] is False and len(cmp["diffs"]) == 3, "compare", cmp)

        step("archives: formats and refs")
        master = project.commits.get("master")
        prefix = "%s-master-%s" % (project.path, master.id)
        tgz = project.repository_archive()
        check(tgz[:2] == b"\x1f\x8b", "the default archive is gzip", tgz[:8])
        names = tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz").getnames()
        check(prefix + "/docs/user guide/intro.md" in names and prefix in names,
              "tar.gz of the default branch", prefix, names)
        with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as t:
            got = t.extractfile(prefix + "/docs/user guide/intro.md").read()
        check(got == b"hello again\n", "file in the archive", got)
        zipped = project.repository_archive(sha="feature", format="zip")
        zprefix = "%s-feature-%s" % (project.path, commit.id)
        with zipfile.ZipFile(io.BytesIO(zipped)) as z:
            names = z.namelist()
            check(z.read(zprefix + "/bin/blob") == b"\x00\x01\x02", "zip bytes", names)
        check(zprefix + "/src/main.c" in names and zprefix + "/docs/intro.md" in names,
              "zip of a branch", zprefix, names)
        bz = project.repository_archive(sha=commit.id, format="tar.bz2")
        names = tarfile.open(fileobj=io.BytesIO(bz), mode="r:bz2").getnames()
        check("%s-%s-%s/src/main.c" % (project.path, commit.id, commit.id) in names,
              "tar.bz2 of a commit", names)
        try:
            project.repository_archive(sha="no-such-ref", format="tar")
            raise Failure("archive of an unknown ref")
        except glexc.GitlabListError as e:
            check(e.response_code == 404, "unknown ref: 404", e.response_code)

        step("tags with a release")
        tag = project.tags.create({"tag_name": "v1.0", "ref": "master", "message": "first",
                                   "release_description": "Notes 1.0"})
        check(tag.release == {"tag_name": "v1.0", "description": "Notes 1.0"},
              "tag created with its release", tag.attributes)
        check(tag.commit["id"] == master.id and tag.message == "first", "tag", tag.attributes)
        plain = project.tags.create({"tag_name": "v1.1", "ref": "feature"})
        check(plain.release is None, "tag without a release", plain.attributes)
        got = set_release_description(ug, project, plain, "Notes 1.1")
        check(got == {"tag_name": "v1.1", "description": "Notes 1.1"}, "release created", got)
        first = project.tags.get("v1.0")
        set_release_description(ug, project, first, "Notes 1.0, edited")
        check(project.tags.get("v1.0").release["description"] == "Notes 1.0, edited",
              "release edited", project.tags.get("v1.0").attributes)
        listed = {t.name: t.release for t in project.tags.list(all=True)}
        check(listed == {"v1.0": {"tag_name": "v1.0", "description": "Notes 1.0, edited"},
                         "v1.1": {"tag_name": "v1.1", "description": "Notes 1.1"}},
              "tags with their releases", listed)
        try:
            set_release_description(ug, project, project.tags.get("v1.1"), "again")
            check(project.tags.get("v1.1").release["description"] == "again", "PUT release")
            plain.release = None
            set_release_description(ug, project, plain, "twice")
            raise Failure("a second release of one tag")
        except glexc.GitlabHttpError as e:
            check(e.response_code == 409, "second release: 409", e.response_code)
        tarred = project.repository_archive(sha="v1.1", format="tar")
        names = tarfile.open(fileobj=io.BytesIO(tarred), mode="r:").getnames()
        check("%s-v1.1-%s/bin/blob" % (project.path, commit.id) in names, "tar of a tag",
              names)
        project.tags.delete("v1.1")
        check([t.name for t in project.tags.list(all=True)] == ["v1.0"], "tag deleted")

        step("delete a file")
        project.files.delete(file_path="src/main.c", branch="feature", commit_message="rm")
        try:
            project.files.get(file_path="src/main.c", ref="feature")
            raise Failure("deleted file still readable")
        except glexc.GitlabGetError as e:
            check(e.response_code == 404, "deleted file: 404", e.response_code)
        ug.projects.delete(project.id)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab repository: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab repository: FAILED: %s: %s" % (type(e).__name__, e),
              file=sys.stderr)
        sys.exit(1)
