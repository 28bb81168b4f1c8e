#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on GPG keys, against a live collabd stack
(run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As its functional tests do: add, list, get and remove a GPG key of the current user
(/user/gpg_keys) and, as the admin, of another user (/users/:id/gpg_keys); a key taken
already and a text that is no key are refused with 400. The keys are made by gpg in a
scratch GNUPGHOME, whose agent is stopped and which is removed at the end. Any deviation
fails the run (message on stderr, exit 1); what the test creates is removed at the end.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgg%d%d" % (os.getpid(), int(time.time()) % 100000)


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab gpg: " + name, flush=True)


def gen_key(home, uid):
    env = dict(os.environ, GNUPGHOME=home)
    subprocess.run(["gpg", "--batch", "-q", "--passphrase", "", "--quick-gen-key", uid,
                    "ed25519", "sign", "never"], env=env, check=True,
                   stderr=subprocess.DEVNULL)
    email = uid[uid.index("<") + 1:uid.index(">")]
    return subprocess.run(["gpg", "--batch", "--armor", "--export", "<%s>" % email], env=env,
                          check=True, stdout=subprocess.PIPE).stdout.decode().strip()


def main(home):
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    created_users = []
    try:
        step("a user")
        u = gl.users.create({"username": TAG, "email": TAG + "@example.com",
                             "name": "User " + TAG, "password": "s3cret-pass-1",
                             "skip_confirmation": True})
        created_users.append(u)
        token = u.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        client = gitlab.Gitlab(URL, private_token=token)
        client.auth()

        step("keys of the current user")
        key = gen_key(home, "Mine <%s@example.com>" % TAG)
        mine = client.user.gpgkeys.create({"key": key})
        check(mine.key == key, "the key as given", mine.attributes)
        check([k.id for k in client.user.gpgkeys.list(all=True)] == [mine.id], "my keys")
        check(client.user.gpgkeys.get(mine.id).key == key, "my key")
        try:
            client.user.gpgkeys.create({"key": key})
            raise Failure("taken key accepted")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 400, "taken: 400", e.response_code)
        try:
            client.user.gpgkeys.create({"key": "not a key"})
            raise Failure("a text that is no key accepted")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 400, "no key: 400", e.response_code)
        mine.delete()
        check(client.user.gpgkeys.list(all=True) == [], "my key removed")

        step("keys of a user (admin)")
        other = gen_key(home, "Other <%s.o@example.com>" % TAG)
        k = u.gpgkeys.create({"key": other})
        check(u.gpgkeys.get(k.id).key == other, "the user's key")
        check([x.id for x in client.user.gpgkeys.list(all=True)] == [k.id], "theirs")
        try:
            client.users.get(u.id, lazy=True).gpgkeys.create({"key": key})
            raise Failure("a user added a key to a user")
        except glexc.GitlabCreateError as e:
            check(e.response_code == 403, "not an admin: 403", e.response_code)
        k.delete()
        check(client.user.gpgkeys.list(all=True) == [], "the user's key removed")
    finally:
        for u in created_users:
            try:
                u.delete()
            except Exception:
                pass
    print("python-gitlab gpg: ok")


if __name__ == "__main__":
    home = tempfile.mkdtemp(prefix="collabd-pgg.")
    try:
        main(home)
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab gpg: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
    finally:
        subprocess.run(["gpgconf", "--kill", "all"], env=dict(os.environ, GNUPGHOME=home))
        shutil.rmtree(home, ignore_errors=True)
