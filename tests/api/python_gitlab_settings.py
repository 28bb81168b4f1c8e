#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.12) on the application settings, against a
live collabd stack (run by tests/api/run with COLLABD_URL and COLLABD_ADMIN_TOKEN set).

As a client would: gl.settings.get(), attributes changed and save(), read back through a
new get(); a value collabd refuses (400, nothing changed) and a user who is no admin
(403). Any deviation fails the run (message on stderr, exit 1). The settings are the
instance's: what the test changes is put back at the end.
"""
import os
import sys
import time
import traceback

import gitlab
import gitlab.exceptions as glexc

URL = os.environ["COLLABD_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["COLLABD_ADMIN_TOKEN"]
TAG = "pgs%d%d" % (os.getpid(), int(time.time()) % 100000)

CHANGED = ("default_projects_limit", "signup_enabled", "restricted_visibility_levels",
           "default_project_visibility", "home_page_url", "max_attachment_size")


class Failure(Exception):
    pass


def check(cond, msg, *details):
    if not cond:
        raise Failure(msg + "".join("\n    " + repr(d) for d in details))


def step(name):
    print("python-gitlab settings: " + name, flush=True)


def main():
    gl = gitlab.Gitlab(URL, private_token=ADMIN_TOKEN)
    gl.auth()
    step("get")
    settings = gl.settings.get()
    before = {k: getattr(settings, k) for k in CHANGED}
    check(settings.id == 1, "id", settings.id)
    check(isinstance(settings.default_projects_limit, int), "default_projects_limit",
          settings.default_projects_limit)
    check(settings.default_project_visibility in ("private", "internal", "public"),
          "default_project_visibility", settings.default_project_visibility)
    check(isinstance(settings.restricted_visibility_levels, list),
          "restricted_visibility_levels", settings.restricted_visibility_levels)
    check(settings.password_authentication_enabled_for_git is True,
          "password_authentication_enabled_for_git",
          settings.password_authentication_enabled_for_git)
    user = None
    try:
        step("change and save")
        settings.default_projects_limit = 77
        settings.signup_enabled = False
        settings.restricted_visibility_levels = ["public"]
        settings.default_project_visibility = "internal"
        settings.home_page_url = "https://example.com/" + TAG
        settings.save()
        again = gl.settings.get()
        check(again.default_projects_limit == 77, "limit read back", again.default_projects_limit)
        check(again.signup_enabled is False, "signup read back", again.signup_enabled)
        check(again.restricted_visibility_levels == ["public"], "levels read back",
              again.restricted_visibility_levels)
        check(again.default_project_visibility == "internal", "visibility read back",
              again.default_project_visibility)
        check(again.home_page_url == "https://example.com/" + TAG, "url read back",
              again.home_page_url)

        step("a value refused, nothing changed")
        again.max_attachment_size = 0
        again.default_projects_limit = 78
        try:
            again.save()
            raise Failure("max_attachment_size 0 accepted")
        except glexc.GitlabUpdateError as e:
            check(e.response_code == 400, "400", e.response_code, str(e))
        now = gl.settings.get()
        check(now.default_projects_limit == 77 and now.max_attachment_size ==
              before["max_attachment_size"], "unchanged", now.default_projects_limit,
              now.max_attachment_size)

        step("not an admin")
        user = gl.users.create({"username": TAG, "email": TAG + "@example.com",
                                "name": "User " + TAG, "password": "s3cret-pass-1",
                                "skip_confirmation": True})
        check(user.projects_limit == 77, "a new user's limit", user.projects_limit)
        token = user.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token
        as_user = gitlab.Gitlab(URL, private_token=token)
        try:
            as_user.settings.get()
            raise Failure("a user read the settings")
        except glexc.GitlabGetError as e:
            check(e.response_code == 403, "403", e.response_code, str(e))
    finally:
        step("put back")
        back = gl.settings.get()
        for k, v in before.items():
            setattr(back, k, v)
        back.save()
        restored = gl.settings.get()
        for k, v in before.items():
            check(getattr(restored, k) == v, "put back: " + k, getattr(restored, k), v)
        if user is not None:
            user.delete()
    print("python-gitlab settings: ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        traceback.print_exc()
        print("python-gitlab settings: FAILED: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
