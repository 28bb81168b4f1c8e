#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on project uploads, against a live collabd
stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As a client would: project.upload() of bytes and of a file on disk, the answer's alt, url
and markdown, then the markdown link followed (the project's path + url) with the token:
the same bytes back; another user who cannot see the private project gets 404, and an
upload as them is refused. Any deviation fails the run (message on stderr, exit 1); what
the test creates is removed at the end.
"""
import os
import re
import sys
import tempfile
import time
import traceback

import gitlab
import gitlab.exceptions as glexc
import requests

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgu%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab uploads: " + name, flush=True)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("two users, a private project of the first")
        clients = []
        for suffix in ("o", "s"):
            u = gl.users.create({"username": TAG + suffix, "email": TAG + suffix + "@example.com",
                                 "name": "User " + TAG + suffix, "password": "s3cret-pass-1",
                                 "skip_confirmation": True})
            created_users.append(u)
            token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
            client = gitlab.Gitlab(URL, private_token=token)
            client.auth()
            clients.append((client, token))
        (og, otoken), (sg, stoken) = clients
        project = og.projects.create({"name": "Uploads " + TAG, "visibility": "private"})

        step("upload bytes")
        data = bytes(range(256)) * 40
        up = project.upload("notes v1.bin", filedata=data)
        check(set(up.keys()) == {"alt", "url", "markdown"}, "the answer's keys", up)
        check(re.fullmatch(r"/uploads/[0-9a-f]{32}/notes_v1\.bin", up["url"]), "url", up)
        check(up["alt"] == "notes_v1.bin", "alt", up)
        check(up["markdown"] == "[notes_v1.bin](%s)" % up["url"], "markdown", up)

        step("the markdown link, followed")
        link = "%s/%s%s" % (URL, project.path_with_namespace, up["url"])
        got = requests.get(link, headers={"PRIVATE-TOKEN": otoken}, timeout=30)
        check(got.status_code == 200 and got.content == data, "the bytes back",
              got.status_code, len(got.content))
        check(got.headers.get("Content-Disposition", "").startswith("attachment"),
              "a download", got.headers)

        step("upload a file on disk (an image)")
        png = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                            "0000000049454e44ae426082")
        with tempfile.NamedTemporaryFile(suffix=".png") as f:
            f.write(png)
            f.flush()
            img = project.upload("pixel.png", filepath=f.name)
        check(img["markdown"] == "![pixel](%s)" % img["url"], "an image's markdown", img)
        got = requests.get("%s/%s%s" % (URL, project.path_with_namespace, img["url"]),
                           headers={"PRIVATE-TOKEN": otoken}, timeout=30)
        check(got.status_code == 200 and got.content == png, "the image back", got.status_code)
        check(got.headers.get("Content-Type") == "image/png", "shown as an image", got.headers)

        step("a stranger sees nothing and uploads nothing")
        got = requests.get(link, headers={"PRIVATE-TOKEN": stoken}, timeout=30)
        check(got.status_code == 404, "stranger's GET", got.status_code)
        theirs = sg.projects.get(project.id, lazy=True)
        try:
            theirs.upload("x.txt", filedata=b"x")
            raise Failure("stranger uploaded")
        except glexc.GitlabUploadError as e:
            check(e.response_code == 404, "stranger's upload: 404", e.response_code)
        og.projects.delete(project.id)
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab uploads: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab uploads: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
