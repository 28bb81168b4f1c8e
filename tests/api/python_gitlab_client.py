#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) against a live collabd stack.

Run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set. Every deviation from
what a GitLab 10.x server would answer fails the run: a message on stderr and exit 1.
Everything the test creates is removed again at the end (also when it fails).
"""
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import gitlab
import gitlab.exceptions as glexc
import requests

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
NUSERS = 25
PASSWORD = "s3cret-pass-%d" % os.getpid()

# python-gitlab warns (UserWarning) about a Link/web_url base that differs from the
# configured URL, about truncated lists and about deprecated arguments: all failures here.
warnings.filterwarnings("error", category=UserWarning)
warnings.filterwarnings("error", category=DeprecationWarning, module="__main__")

# Valid OpenSSH public keys, used when ssh-keygen is not installed. Generated with
# ssh-keygen -t ed25519 / -t rsa -b 2048; the private halves were thrown away.
EMBEDDED_KEYS = [
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILZWjBLQ8GjXb9QLQZCjPu17HaxmYivS30TiXJYU3y/J bench1@collabd",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOZpKUY8FPb3J76xEpJVOhpEdb0H/oKgfMgbphUrZOI+ bench2@collabd",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP4+SRawNzqI1HEFMBbdeVPMN+fpWC0Bn6YycFwCv/l4 bench3@collabd",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCdBdkTiU3Uw9AKP/GebQOoYD9JIvuN+JJumMsqU4T549HD3c6plFt3pAlgS5Xc6azhDZi9inQcTs075iFyiUWhA2IFTLnWnWM9Ug/4d4gDPmv0OpSr2EBX+27+1cYeNIH5xXuqApuzxk9dTt7OeusBuxvDqT+TRD2r0t8GIMreAtA1m6rJyrZNOdA6vZtJ0jilG9UUJGXSzewlqBJBbbhx5AfMR/6DhLP96+/M47Zg8qU2F9jwHf+vHYf2Udi8E5/9k//0CuJB8vMCq0U58u/yXngQZ/cI80n2vX4SgRJnz+L5nf1L8h5idoLkuXnTYvqrTGk2A/vsTGnh9vx4b5Wf rsa1@collabd",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDLi5bGHQ2mLA2BlIBXa9lJn1sMFsI0CyarkxwdgJOd03N/NUnYruH2cQpSr4OJ4hoX/Hu5mfiel3JELii2ZhsxhEjQksYmAIhCJ7Jgjf7poFaCu/0d+Z7zQ8hAX8C8vrmisHP5BdDM3CIwHg2cE5xVxBNDO6bjWKYFU0r34KP2fwIgHw8MK6IvkiyqmUM74rwljC17/Ifzt1C0SscKTjL/+RrmhvSKzIUsf483EG0gx98LB28iEzUmxRDEsgG75NrXos5PU6wvOTX96df/GZt5rUPVXubQ+jVMTqqt9cCxgcPyICBCWtMpKDyD0enMBU7qG1pR73agyqbq6Z98/p7r rsa2@collabd",
]

USER_BASIC = {"id", "username", "name", "state", "avatar_url", "web_url"}
USER_SINGLE = USER_BASIC | {"created_at", "bio", "location", "skype", "linkedin", "twitter",
                            "website_url", "organization"}
USER_PUBLIC = USER_SINGLE | {"last_sign_in_at", "confirmed_at", "last_activity_on", "email",
                             "theme_id", "color_scheme_id", "projects_limit", "current_sign_in_at",
                             "identities", "can_create_group", "can_create_project",
                             "two_factor_enabled", "external"}
USER_ADMIN = USER_PUBLIC | {"is_admin"}


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def expect_error(exc_class, code, fn, *args, **kwargs):
    """fn(*args) must raise exc_class with response_code == code."""
    try:
        fn(*args, **kwargs)
    except exc_class as e:
        check(e.response_code == code, "%s: expected HTTP %d, got %r (%s)"
              % (getattr(fn, "__name__", fn), code, e.response_code, e.error_message))
        return e
    raise Failure("%s: expected %s (HTTP %d), got success"
                  % (getattr(fn, "__name__", fn), exc_class.__name__, code))


def step(name):
    print("python-gitlab: " + name, flush=True)


def is_iso_ms(s):
    """2017-09-05T10:12:35.123Z"""
    if not isinstance(s, str) or len(s) != 24 or not s.endswith("Z") or s[19] != ".":
        return False
    try:
        datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        return False
    return True


def fresh_keys(n):
    """n new public keys: from ssh-keygen when present, else the embedded ones."""
    keygen = "/usr/bin/ssh-keygen"
    if os.access(keygen, os.X_OK):
        tmp = tempfile.mkdtemp(prefix="collabd-keys.")
        try:
            keys = []
            for i in range(n):
                kind = ["-t", "rsa", "-b", "2048"] if i % 2 else ["-t", "ed25519"]
                path = os.path.join(tmp, "k%d" % i)
                subprocess.run([keygen, "-q", "-N", "", "-C", "test%d@collabd" % i, "-f", path] + kind,
                               check=True, stdin=subprocess.DEVNULL)
                with open(path + ".pub") as f:
                    keys.append(f.read().strip())
            return keys
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    check(n <= len(EMBEDDED_KEYS), "not enough embedded keys")
    return EMBEDDED_KEYS[:n]


def key_body(k):
    """type and base64 blob, without the comment"""
    return " ".join(k.split()[:2])


class Run:
    def __init__(self):
        self.gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
        self.prefix = "pgc%d%d" % (int(time.time()), os.getpid())
        self.users = []          # created User objects
        self.root_keys = []      # key ids created on the admin's own account
        self.broadcasts = []     # broadcast message ids

    # ---- authentication and version ----
    def auth(self):
        step("auth")
        gl = self.gl
        gl.auth()
        check(gl.user.username == "root", "gl.user.username is not root", gl.user.username)
        attrs = set(gl.user.attributes)
        check(USER_ADMIN <= attrs, "admin's /user lacks fields", sorted(USER_ADMIN - attrs))
        check(gl.user.is_admin is True, "root is not is_admin")
        check(getattr(gl.user, "private_token", None) == ADMIN_TOKEN, "an admin's /user lacks private_token")
        check(isinstance(gl.user.id, int), "user id is not an integer")
        check(is_iso_ms(gl.user.created_at), "created_at is not ISO 8601 with ms", gl.user.created_at)
        check(gl.user.web_url == URL + "/root", "web_url", gl.user.web_url)
        version, revision = gl.version()
        check(version.startswith("10."), "version is not 10.x", version)
        check(revision not in ("unknown", ""), "no revision", revision)
        bad = gitlab.Gitlab(URL, private_token="not-a-token")
        expect_error(glexc.GitlabAuthenticationError, 401, bad.auth)
        anon = gitlab.Gitlab(URL)
        expect_error(glexc.GitlabAuthenticationError, 401, anon.users.list, get_all=False)

    # ---- users ----
    def create_users(self):
        step("create %d users" % NUSERS)
        for i in range(NUSERS):
            name = "%s_%02d" % (self.prefix, i)
            attrs = {"username": name, "email": name + "@example.test", "name": "Client Test %02d" % i,
                     "password": PASSWORD, "skip_confirmation": True}
            if i == 0:
                attrs.update(bio="bio 0", location="Earth")
            u = self.gl.users.create(attrs)
            self.users.append(u)
            check(u.username == name, "created username", u.username)
            check(u.email == name + "@example.test", "created email", u.email)
            check(u.state == "active", "created state", u.state)
            check(u.is_admin is False, "created user is admin")
            check(isinstance(u.id, int) and u.id > 0, "created id", u.id)
        ids = [u.id for u in self.users]
        check(len(set(ids)) == NUSERS, "ids not unique", ids)
        check(self.users[0].bio == "bio 0" and self.users[0].location == "Earth",
              "bio/location not stored", self.users[0].bio, self.users[0].location)
        # username taken again
        e = expect_error(glexc.GitlabCreateError, 409, self.gl.users.create, {
            "username": self.users[0].username, "email": self.prefix + "_dup@example.test",
            "name": "dup", "password": PASSWORD})
        # missing attribute
        e = expect_error(glexc.GitlabCreateError, 400, self.gl.users.create,
                         {"username": self.prefix + "_x", "name": "x", "password": PASSWORD})
        check("email" in str(e.error_message), "missing email message", e.error_message)

    def list_users(self):
        step("list users: pages, iterator, get_all")
        gl, prefix = self.gl, self.prefix
        want = {u.id for u in self.users}
        seen = []
        for page in range(1, 5):
            items = gl.users.list(search=prefix, per_page=10, page=page)
            expected = [10, 10, 5, 0][page - 1]
            check(len(items) == expected, "page %d has %d users, expected %d" % (page, len(items), expected))
            for u in items:
                check(USER_ADMIN <= set(u.attributes), "listed user (admin caller) lacks fields",
                      sorted(USER_ADMIN - set(u.attributes)))
            seen += [u.id for u in items]
        check(sorted(seen) == sorted(want), "explicit pages did not return each user once", seen)

        lst = gl.users.list(search=prefix, iterator=True, per_page=10)
        check(lst.total == NUSERS, "X-Total", lst.total)
        check(lst.total_pages == 3, "X-Total-Pages", lst.total_pages)
        check(lst.per_page == 10, "X-Per-Page", lst.per_page)
        check(lst.current_page == 1, "X-Page", lst.current_page)
        check(lst.next_page == 2, "X-Next-Page", lst.next_page)
        check(lst.prev_page is None, "X-Prev-Page", lst.prev_page)
        ids = [u.id for u in lst]
        check(len(ids) == NUSERS and set(ids) == want, "iterator did not return each user once", ids)

        ids = [u.id for u in gl.users.list(search=prefix, get_all=True, per_page=7)]
        check(len(ids) == NUSERS and set(ids) == want, "get_all did not return each user once", ids)

        # the last page: no next, prev set (the middle page is covered above)
        lst = gl.users.list(search=prefix, iterator=True, per_page=10, page=3)
        check(lst.current_page == 3 and lst.next_page is None and lst.prev_page == 2,
              "page 3 headers", lst.current_page, lst.next_page, lst.prev_page)
        check(len(list(lst)) == 5, "page 3 iterated further than the last page")

        # raw headers: Link order and query repetition
        r = gl.http_get("/users", query_data={"search": prefix, "per_page": 10, "page": 2}, raw=True)
        check(r.headers.get("Content-Type") == "application/json", "Content-Type", r.headers.get("Content-Type"))
        link = r.headers.get("Link", "")
        rels = [part.split('rel="')[1].rstrip('"') for part in link.split(", ")]
        check(rels == ["prev", "next", "first", "last"], "Link rel order", link)
        check(all(("search=" + prefix) in part for part in link.split(", ")), "Link lacks search=", link)
        check(r.links["next"]["url"].startswith(URL + "/api/v4/users?"), "Link base", r.links["next"]["url"])

        # username filter and the public view for a normal caller comes later (self.as_user)
        one = gl.users.list(username=self.users[3].username)
        check(len(one) == 1 and one[0].id == self.users[3].id, "username filter", [u.id for u in one])

    def get_user(self):
        step("get user")
        u0 = self.users[0]
        u = self.gl.users.get(u0.id)
        check(set(u.attributes) >= USER_ADMIN, "admin view lacks fields", sorted(USER_ADMIN - set(u.attributes)))
        check(u.username == u0.username and u.email == u0.email and u.name == u0.name,
              "get returned other values", u.attributes)
        check(u.bio == "bio 0" and u.location == "Earth", "bio/location", u.bio, u.location)
        check(u.state == "active" and u.is_admin is False and u.external is False, "flags", u.attributes)
        check(u.identities == [], "identities", u.identities)
        check(u.web_url == "%s/%s" % (URL, u0.username), "web_url", u.web_url)
        check(is_iso_ms(u.created_at), "created_at", u.created_at)
        expect_error(glexc.GitlabGetError, 404, self.gl.users.get, 999999999)
        # update through PUT
        u.bio = "changed bio"
        u.save()
        check(self.gl.users.get(u0.id).bio == "changed bio", "PUT /users/:id did not change bio")

    # ---- SSH keys ----
    def keys(self):
        step("ssh keys")
        gl = self.gl
        k = fresh_keys(5)
        user = gl.users.get(self.users[1].id)
        # admin managing another user's keys
        uk = user.keys.create({"title": "laptop", "key": k[0]})
        check(uk.title == "laptop" and key_body(uk.key) == key_body(k[0]), "user key fields", uk.attributes)
        check(set(uk.attributes) >= {"id", "title", "key", "created_at"}, "key fields", uk.attributes)
        check(is_iso_ms(uk.created_at), "key created_at", uk.created_at)
        uk2 = user.keys.create({"title": "desktop", "key": k[1]})
        listed = user.keys.list()
        check(sorted(x.id for x in listed) == sorted([uk.id, uk2.id]), "GET /users/:id/keys", listed)
        # the same key again, for the same and for another user: 400
        e = expect_error(glexc.GitlabCreateError, 400, user.keys.create, {"title": "again", "key": k[0]})
        other = gl.users.get(self.users[2].id)
        expect_error(glexc.GitlabCreateError, 400, other.keys.create, {"title": "theirs", "key": k[0]})
        # not a key
        expect_error(glexc.GitlabCreateError, 400, user.keys.create, {"title": "junk", "key": "ssh-rsa AAAAjunk"})
        e = expect_error(glexc.GitlabHttpError, 400, gl.http_post, "/users/%d/keys" % user.id,
                         post_data={"title": "none"})
        check("key" in str(e.error_message), "missing key message", e.error_message)
        user.keys.delete(uk2.id)
        check([x.id for x in user.keys.list()] == [uk.id], "user key not deleted")

        # the current user's keys (the admin's own account)
        me = gl.user
        mk = me.keys.create({"title": "root key", "key": k[2]})
        self.root_keys.append(mk.id)
        check(mk.title == "root key" and key_body(mk.key) == key_body(k[2]), "own key fields", mk.attributes)
        got = me.keys.get(mk.id)
        check(got.id == mk.id and got.title == "root key" and key_body(got.key) == key_body(k[2]),
              "GET /user/keys/:id", got.attributes)
        check(mk.id in [x.id for x in me.keys.list()], "GET /user/keys lacks the key")
        e = expect_error(glexc.GitlabCreateError, 400, me.keys.create, {"title": "dup", "key": k[2]})
        check(isinstance(e.error_message, (dict, str)), "duplicate key message", e.error_message)
        # another user's key id through /user/keys: 404
        expect_error(glexc.GitlabGetError, 404, me.keys.get, uk.id)
        mk.delete()
        self.root_keys.remove(mk.id)
        expect_error(glexc.GitlabGetError, 404, me.keys.get, mk.id)
        expect_error(glexc.GitlabDeleteError, 404, me.keys.delete, mk.id)
        self.spare_keys = k[3:]

    # ---- block / unblock ----
    def block(self):
        step("block / unblock")
        gl = self.gl
        user = gl.users.get(self.users[4].id)
        check(user.block() is True, "block() did not return True")
        check(user.state == "blocked", "local state after block")
        check(gl.users.get(user.id).state == "blocked", "server state after block")
        blocked = [u.id for u in gl.users.list(search=self.prefix, blocked=True, get_all=True)]
        check(blocked == [user.id], "blocked=true filter", blocked)
        active = [u.id for u in gl.users.list(search=self.prefix, active=True, get_all=True)]
        check(user.id not in active and len(active) == NUSERS - 1, "active=true filter", active)
        # a blocked user's credentials no longer work
        tok = user.impersonationtokens.create({"name": "while blocked", "scopes": ["api"]})
        blocked_gl = gitlab.Gitlab(URL, private_token=tok.token)
        try:
            blocked_gl.auth()
            raise Failure("a blocked user authenticated")
        except (glexc.GitlabAuthenticationError, glexc.GitlabGetError) as e:
            check(e.response_code in (401, 403), "blocked user's token", e.response_code)
        check(user.unblock() is True, "unblock() did not return True")
        check(user.state == "active" and gl.users.get(user.id).state == "active", "unblock")
        check(user.unblock() is False, "unblocking an active user did not return false")
        blocked_gl.auth()
        check(blocked_gl.user.id == user.id, "unblocked user's token")
        expect_error(glexc.GitlabBlockError, 404, gl.users.get(999999999, lazy=True).block)

    # ---- impersonation tokens ----
    def impersonation(self):
        step("impersonation tokens")
        gl = self.gl
        target = gl.users.get(self.users[5].id)
        tok = target.impersonationtokens.create({"name": "client test", "scopes": ["api"]})
        for f in ("id", "name", "token", "scopes", "active", "revoked", "impersonation", "created_at", "expires_at"):
            check(f in tok.attributes, "impersonation token lacks " + f, tok.attributes)
        check(tok.scopes == ["api"] and tok.impersonation is True and tok.active is True and tok.revoked is False,
              "impersonation token values", tok.attributes)
        check(isinstance(tok.token, str) and len(tok.token) >= 20, "token", tok.token)
        gl2 = gitlab.Gitlab(URL, private_token=tok.token)
        gl2.auth()
        check(gl2.user.id == target.id and gl2.user.username == target.username, "gl2.auth() is not the target",
              gl2.user.attributes)
        attrs = set(gl2.user.attributes)
        check(attrs >= USER_PUBLIC and "is_admin" not in attrs and "private_token" not in attrs,
              "current-user view of a normal user", sorted(attrs))
        listed = target.impersonationtokens.list(state="active")
        check(tok.id in [t.id for t in listed], "impersonation token not listed", listed)
        for t in listed:
            check("token" not in t.attributes, "listed impersonation token shows its secret")
        got = target.impersonationtokens.get(tok.id)
        check(got.name == "client test" and got.active is True, "GET impersonation token", got.attributes)
        # a normal user cannot manage tokens or users
        expect_error(glexc.GitlabCreateError, 403, gl2.users.get(target.id, lazy=True).impersonationtokens.create,
                     {"name": "nope", "scopes": ["api"]})
        expect_error(glexc.GitlabCreateError, 403, gl2.users.create,
                     {"username": self.prefix + "_nope", "email": "n@example.test", "name": "n", "password": PASSWORD})
        # the normal (non-admin) view of another user
        other = gl2.users.get(self.users[0].id)
        oattrs = set(other.attributes)
        check(oattrs >= USER_SINGLE and "email" not in oattrs and "is_admin" not in oattrs,
              "single-user view for a normal caller", sorted(oattrs))
        listed = gl2.users.list(search=self.prefix, per_page=5, get_all=False)
        check(len(listed) == 5, "normal caller's list")
        for u in listed:
            check(set(u.attributes) == USER_BASIC, "user list for a normal caller", sorted(u.attributes))
        # sudo needs admin
        expect_error(glexc.GitlabHttpError, 403, gl2.http_get, "/user", sudo=self.users[0].username)
        # admin sudo
        me = gl.http_get("/user", sudo=target.username)
        check(me["id"] == target.id, "sudo as username", me)
        me = gl.http_get("/user", sudo=str(target.id))
        check(me["id"] == target.id, "sudo as id", me)
        expect_error(glexc.GitlabHttpError, 404, gl.http_get, "/user", sudo=self.prefix + "_nobody")

        # a normal user's own keys, through gl2
        key = self.spare_keys[0]
        k = gl2.user.keys.create({"title": "gl2", "key": key})
        check(k.id in [x.id for x in gl2.user.keys.list()], "gl2 key list")
        check(k.id in [x.id for x in target.keys.list()], "admin does not see gl2's key")
        gl2.user.keys.delete(k.id)

        self.gl2 = gl2
        self.gl2_user = target
        self.gl2_token = tok

    def revoke(self):
        step("revoke impersonation token")
        target, tok = self.gl2_user, self.gl2_token
        target.impersonationtokens.delete(tok.id)
        got = target.impersonationtokens.get(tok.id)
        check(got.revoked is True and got.active is False, "revoked token state", got.attributes)
        check(tok.id not in [t.id for t in target.impersonationtokens.list(state="active")],
              "revoked token still listed as active")
        check(tok.id in [t.id for t in target.impersonationtokens.list(state="inactive")],
              "revoked token not listed as inactive")
        expect_error(glexc.GitlabAuthenticationError, 401, gitlab.Gitlab(URL, private_token=tok.token).auth)

    # ---- OAuth ----
    def oauth(self):
        step("oauth password grant")
        u = self.users[6]
        r = requests.post(URL + "/oauth/token",
                          data={"grant_type": "password", "username": u.username, "password": PASSWORD},
                          timeout=30)
        check(r.status_code == 200, "POST /oauth/token", r.status_code, r.text)
        body = r.json()
        check(body.get("token_type", "").lower() == "bearer" and body.get("access_token"), "token body", body)
        check(r.headers.get("Cache-Control") == "no-store", "token response Cache-Control", r.headers)
        glo = gitlab.Gitlab(URL, oauth_token=body["access_token"])
        glo.auth()
        check(glo.user.username == u.username, "oauth user", glo.user.username)
        # and as a JSON body, the way some clients send it
        r = requests.post(URL + "/oauth/token",
                          json={"grant_type": "password", "username": u.username, "password": PASSWORD},
                          timeout=30)
        check(r.status_code == 200 and r.json().get("access_token"), "POST /oauth/token (JSON)", r.status_code, r.text)
        r = requests.post(URL + "/oauth/token",
                          data={"grant_type": "password", "username": u.username, "password": "wrong"},
                          timeout=30)
        check(r.status_code == 401 and r.json().get("error") == "invalid_grant", "wrong password", r.status_code, r.text)
        # Doorkeeper 4.2 (GitLab 10.x) answers every token error with 401
        r = requests.post(URL + "/oauth/token", data={"grant_type": "client_credentials"}, timeout=30)
        check(r.status_code == 401 and r.json().get("error") == "unsupported_grant_type", "unsupported grant",
              r.status_code, r.text)
        r = requests.post(URL + "/oauth/token", data={"username": u.username, "password": PASSWORD}, timeout=30)
        check(r.status_code == 401 and r.json().get("error") == "invalid_request", "missing grant_type",
              r.status_code, r.text)
        expect_error(glexc.GitlabAuthenticationError, 401, gitlab.Gitlab(URL, oauth_token="0" * 64).auth)

    # ---- broadcast messages ----
    def broadcasts_(self):
        step("broadcast messages")
        gl = self.gl
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        starts = (now - datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
        ends = (now + datetime.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
        msg = gl.broadcastmessages.create({"message": "maintenance " + self.prefix, "starts_at": starts,
                                           "ends_at": ends, "color": "#cecece", "font": "#FFFFFF"})
        self.broadcasts.append(msg.id)
        for f in ("id", "message", "starts_at", "ends_at", "color", "font", "active"):
            check(f in msg.attributes, "broadcast message lacks " + f, msg.attributes)
        check(msg.message == "maintenance " + self.prefix and msg.color == "#cecece" and msg.font == "#FFFFFF",
              "broadcast message values", msg.attributes)
        check(msg.active is True, "a current message is not active", msg.attributes)
        check(msg.starts_at.startswith(starts[:19]) and is_iso_ms(msg.starts_at), "starts_at", msg.starts_at, starts)
        dflt = gl.broadcastmessages.create({"message": "defaults " + self.prefix})
        self.broadcasts.append(dflt.id)
        check(is_iso_ms(dflt.starts_at) and is_iso_ms(dflt.ends_at) and dflt.ends_at > dflt.starts_at,
              "default starts_at/ends_at", dflt.attributes)
        ids = [m.id for m in gl.broadcastmessages.list(get_all=True)]
        check(msg.id in ids and dflt.id in ids, "broadcast list", ids)
        got = gl.broadcastmessages.get(msg.id)
        check(got.message == msg.message, "broadcast get")
        got.message = "changed " + self.prefix
        got.color = "#000000"
        got.save()
        again = gl.broadcastmessages.get(msg.id)
        check(again.message == "changed " + self.prefix and again.color == "#000000" and again.font == "#FFFFFF",
              "broadcast update", again.attributes)
        e = expect_error(glexc.GitlabHttpError, 400, gl.http_post, "/broadcast_messages",
                         post_data={"color": "#ffffff"})
        check("message" in str(e.error_message), "missing message", e.error_message)
        # a normal user: 403; nobody: 401
        expect_error(glexc.GitlabCreateError, 403, self.gl2.broadcastmessages.create, {"message": "hi"})
        expect_error(glexc.GitlabListError, 403, self.gl2.broadcastmessages.list, get_all=False)
        expect_error(glexc.GitlabAuthenticationError, 401, gitlab.Gitlab(URL).broadcastmessages.create, {"message": "hi"})
        for mid in list(self.broadcasts):
            gl.broadcastmessages.delete(mid)
            self.broadcasts.remove(mid)
        expect_error(glexc.GitlabGetError, 404, gl.broadcastmessages.get, msg.id)
        expect_error(glexc.GitlabDeleteError, 404, gl.broadcastmessages.delete, msg.id)

    # ---- events ----
    def events(self):
        step("events")
        ev = self.gl.users.get(self.users[0].id).events.list(get_all=False)
        check(isinstance(ev, list), "user events")
        ev = self.gl.events.list(get_all=False)
        check(isinstance(ev, list), "own events")

    # ---- deletion ----
    def delete_users(self):
        step("delete users")
        gl = self.gl
        for u in list(self.users):
            u.delete()
            self.users.remove(u)
            deadline = time.time() + 10
            while True:  # GitLab deletes users asynchronously: wait for the 404
                try:
                    gl.users.get(u.id)
                except glexc.GitlabGetError as e:
                    check(e.response_code == 404, "deleted user get", e.response_code)
                    break
                check(time.time() < deadline, "deleted user %d still there" % u.id)
                time.sleep(0.1)
        left = gl.users.list(search=self.prefix, get_all=True)
        check(left == [], "users left after deletion", [u.username for u in left])
        expect_error(glexc.GitlabDeleteError, 404, gl.users.delete, 999999999)

    def cleanup(self):
        """Best effort, after a failure."""
        for kid in self.root_keys:
            try:
                self.gl.user.keys.delete(kid)
            except Exception:
                pass
        for mid in self.broadcasts:
            try:
                self.gl.broadcastmessages.delete(mid)
            except Exception:
                pass
        for u in self.users:
            try:
                u.delete(hard_delete=True)
            except Exception:
                pass


def main():
    run = Run()
    try:
        run.auth()
        run.create_users()
        run.list_users()
        run.get_user()
        run.keys()
        run.block()
        run.impersonation()
        run.oauth()
        run.broadcasts_()
        run.events()
        run.revoke()
        run.delete_users()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr, flush=True)
        run.cleanup()
        return 1
    print("python-gitlab: ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
