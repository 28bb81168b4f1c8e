#!/usr/bin/python3
"""python-gitlab against the live stack (placeholder, filled in by the client test)."""
import os, sys
import gitlab
gl = gitlab.Gitlab(os.environ["COLLABD_URL"], private_token=os.environ["COLLABD_ADMIN_TOKEN"])
gl.auth()
assert gl.user.username == "root"
print("python-gitlab: ok")
