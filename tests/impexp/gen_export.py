#!/usr/bin/python3
"""Writes a GitLab 10.8 project export (format 0.2.3): a tar.gz of VERSION, project.json
with every relation collabd imports (labels, milestones, issues with notes, award emoji,
assignees and label links, merge requests with notes, snippets, members, protected
branches and tags, triggers, pipeline schedules with variables, pipelines with jobs,
badges), project.bundle (a git bundle of --commits commits on master, and one branch per
merge request) and, with --uploads, uploads/.

Everything is a function of the options, so a test knows what to expect: issue K has
iid K, title "Issue K", author members[K % len(authors)] where authors is the members
then one exported user that is nobody's (id 999, ghost@import.invalid, "Ghost Writer"),
created_at BASE + K minutes; see the code for the rest. project.json is written a record
at a time (the benchmark's 10,000 issues and 50,000 notes stay small in memory).

Used by tests/api/suite_project_import_relations.c and the import benchmark:
  gen_export.py --out export.tar.gz --emails a@x,b@y --issues 10000 --notes-per-issue 5 \
      --commits 3000
"""
import argparse
import datetime
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

BASE = datetime.datetime(2017, 3, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)
GHOST = {"id": 999, "email": "ghost@import.invalid", "username": "ghost-writer",
         "name": "Ghost Writer"}


def ts(minutes, seconds=0):
    t = BASE + datetime.timedelta(minutes=minutes, seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def git(work, *args, inp=None):
    return subprocess.run(["git", "-C", work] + list(args), input=inp, check=True,
                          stdout=subprocess.PIPE, env=dict(os.environ, GIT_CONFIG_NOSYSTEM="1",
                                                           HOME=work)).stdout


def make_bundle(path, commits, branches):
    """A repository of `commits` commits on master and branch feature-K (K = 1..branches)
    one commit off master's commit number commits - K; returns the heads by name."""
    work = tempfile.mkdtemp(prefix="gen-export-")
    try:
        git(work, "init", "-q", "-b", "master")
        stream = io.BytesIO()
        w = stream.write
        for i in range(1, commits + 1):
            data = ("line %d\n" % i).encode()
            w(b"commit refs/heads/master\nmark :%d\n" % i)
            w(b"author Gen <gen@import.invalid> %d +0000\n" % (1488369600 + i * 60))
            w(b"committer Gen <gen@import.invalid> %d +0000\n" % (1488369600 + i * 60))
            msg = b"Commit %d\n" % i
            w(b"data %d\n%s" % (len(msg), msg))
            if i > 1:
                w(b"from :%d\n" % (i - 1))
            w(b"M 100644 inline file-%d.txt\ndata %d\n%s\n" % (i % 50, len(data), data))
        for k in range(1, branches + 1):
            base = max(1, commits - k)
            data = ("feature %d\n" % k).encode()
            w(b"commit refs/heads/feature-%d\nmark :%d\n" % (k, commits + k))
            w(b"author Gen <gen@import.invalid> %d +0000\n" % (1488369600 + (commits + k) * 60))
            w(b"committer Gen <gen@import.invalid> %d +0000\n" % (1488369600 + (commits + k) * 60))
            msg = b"Feature %d\n" % k
            w(b"data %d\n%s" % (len(msg), msg))
            w(b"from :%d\n" % base)
            w(b"M 100644 inline feature-%d.txt\ndata %d\n%s\n" % (k, len(data), data))
        w(b"done\n")
        git(work, "fast-import", "--quiet", "--done", inp=stream.getvalue())
        heads = {}
        for line in git(work, "for-each-ref", "--format=%(refname:short) %(objectname)",
                        "refs/heads").decode().splitlines():
            name, sha = line.split()
            heads[name] = sha
        git(work, "bundle", "create", "-q", path, "--all")
        return heads
    finally:
        shutil.rmtree(work)


def label(i, with_priority):
    return {"id": 500 + i, "title": "label-%d" % i,
            "color": "#FC0" if i == 2 else "#%06X" % (0x428BCA + i),
            "project_id": 1, "created_at": ts(-100 + i), "updated_at": ts(-90 + i),
            "template": False, "description": "Label %d" % i, "type": "ProjectLabel",
            "priorities": ([{"id": 1, "project_id": 1, "label_id": 500 + i, "priority": i,
                             "created_at": ts(-100), "updated_at": ts(-100)}]
                           if with_priority else [])}


def group_label():
    return {"id": 600, "title": "group-label", "color": "#FF0000", "group_id": 7,
            "project_id": None, "created_at": ts(-200), "updated_at": ts(-200),
            "template": False, "description": "", "type": "GroupLabel", "priorities": []}


def event(ident, target_type, target_id, action, author_id, at):
    return {"id": ident, "target_type": target_type, "target_id": target_id, "project_id": 1,
            "created_at": at, "updated_at": at, "action": action, "author_id": author_id}


def milestone(m):
    return {"id": 700 + m, "title": "Milestone %d" % m, "project_id": 1,
            "description": "Milestone %d's description" % m,
            "due_date": "2017-%02d-15" % (m % 12 + 1), "start_date": None,
            "created_at": ts(-50 + m), "updated_at": ts(-40 + m),
            "state": "closed" if m % 4 == 0 else "active", "iid": m,
            "events": [event(900 + m, "Milestone", 700 + m, 1, 101, ts(-50 + m))]}


def note(kind, target, n, j, authors, at):
    a = authors[(n + j) % len(authors)]
    return {"id": 100000 + n * 100 + j, "note": "Note %d of %s %d" % (j, kind, n),
            "noteable_type": kind, "author_id": a["id"], "created_at": ts(at, j + 1),
            "updated_at": ts(at, j + 2), "project_id": 1, "attachment": {"url": None},
            "line_code": None, "commit_id": None, "noteable_id": target,
            "system": False, "st_diff": None, "updated_by_id": None,
            "discussion_id": "%040x" % (n * 1000 + j + 1), "type": None,
            "author": {"name": a["name"]}, "events": [], "award_emoji": []}


def issue(k, a):
    authors = a.authors
    closed = k % 3 == 0
    rec = {"id": 1000 + k, "title": "Issue %d" % k, "author_id": authors[k % len(authors)]["id"],
           "project_id": 1, "created_at": ts(k), "updated_at": ts(k, 50),
           "position": 0, "branch_name": None, "description": "Description of issue %d" % k,
           "state": "closed" if closed else ("reopened" if k % 11 == 0 else "opened"),
           "iid": k, "updated_by_id": None, "confidential": k % 5 == 0,
           "due_date": "2017-06-%02d" % (k % 28 + 1) if k % 4 == 0 else None,
           "moved_to_id": None, "lock_version": None, "time_estimate": 0,
           "closed_at": ts(k, 40) if closed else None, "discussion_locked": None,
           "events": [event(30000 + k, "Issue", 1000 + k, 1,
                            authors[k % len(authors)]["id"], ts(k))]
           + ([event(40000 + k, "Issue", 1000 + k, 3, authors[(k + 1) % len(authors)]["id"],
                     ts(k, 40))] if closed else []),
           "timelogs": [],
           "issue_assignees": [{"user_id": authors[(k + 1) % len(authors)]["id"],
                                "issue_id": 1000 + k}],
           "label_links": [], "notes": [], "award_emoji": []}
    if a.milestones and k % 2 == 1:
        rec["milestone"] = milestone(k % a.milestones + 1)
    if a.labels:
        rec["label_links"].append({"id": k, "label_id": 500 + k % a.labels,
                                   "target_id": 1000 + k, "target_type": "Issue",
                                   "created_at": ts(k, 5), "updated_at": ts(k, 5),
                                   "label": label(k % a.labels, k % a.labels == 0)})
    if k % 7 == 0:
        rec["label_links"].append({"id": 10000 + k, "label_id": 600, "target_id": 1000 + k,
                                   "target_type": "Issue", "created_at": ts(k, 6),
                                   "updated_at": ts(k, 6), "label": group_label()})
    if a.bad_value and k == 2:
        rec["state"] = "archived"
    if a.bad_reference and k == 1:
        rec["label_links"].append({"id": 99999, "label_id": 12345, "target_id": 1001,
                                   "target_type": "Issue", "created_at": ts(k, 7),
                                   "updated_at": ts(k, 7)})
    for j in range(a.notes_per_issue):
        rec["notes"].append(note("Issue", 1000 + k, k, j, authors, k))
    if k == 2 and rec["notes"]:
        rec["notes"][0]["award_emoji"] = [{"id": 70000, "name": "smile",
                                           "user_id": authors[0]["id"],
                                           "awardable_type": "Note", "created_at": ts(k, 9),
                                           "updated_at": ts(k, 9)}]
    if k % 2 == 0:
        rec["award_emoji"].append({"id": k, "name": "thumbsup", "user_id": authors[0]["id"],
                                   "awardable_type": "Issue", "created_at": ts(k, 8),
                                   "updated_at": ts(k, 8)})
    return rec


def merge_request(k, a, heads):
    authors = a.authors
    state = ["opened", "merged", "closed"][k % 3]
    rec = {"id": 2000 + k, "target_branch": "master", "source_branch": "feature-%d" % k,
           "source_project_id": 1, "author_id": authors[(k + 2) % len(authors)]["id"],
           "assignee_id": authors[k % len(authors)]["id"], "title": "Merge request %d" % k,
           "created_at": ts(5000 + k), "updated_at": ts(5000 + k, 30), "state": state,
           "merge_status": "can_be_merged", "target_project_id": 1, "iid": k,
           "description": "Description of merge request %d" % k, "position": 0,
           "updated_by_id": None, "merge_error": None,
           "merge_params": {"force_remove_source_branch": None},
           "merge_when_pipeline_succeeds": False, "merge_user_id": None,
           "merge_commit_sha": None, "time_estimate": 0, "discussion_locked": None,
           "diff_head_sha": heads.get("feature-%d" % k),
           "merge_request_diff": {"id": 3000 + k, "state": "collected",
                                  "merge_request_diff_commits": [],
                                  "merge_request_diff_files": [],
                                  "merge_request_id": 2000 + k, "created_at": ts(5000 + k),
                                  "updated_at": ts(5000 + k),
                                  "base_commit_sha": heads.get("master"),
                                  "head_commit_sha": heads.get("feature-%d" % k),
                                  "start_commit_sha": heads.get("master"), "real_size": "1"},
           "events": [event(50000 + k, "MergeRequest", 2000 + k, 1,
                            authors[(k + 2) % len(authors)]["id"], ts(5000 + k))]
           + ([event(60000 + k, "MergeRequest", 2000 + k, 7, authors[0]["id"],
                     ts(5000 + k, 20))] if state == "merged" else []),
           "timelogs": [], "label_links": [], "notes": [], "award_emoji": []}
    if a.milestones:
        rec["milestone"] = milestone(1)
    if a.labels:
        rec["label_links"].append({"id": 20000 + k, "label_id": 500, "target_id": 2000 + k,
                                   "target_type": "MergeRequest", "created_at": ts(5000 + k, 1),
                                   "updated_at": ts(5000 + k, 1), "label": label(0, True)})
    for j in range(a.notes_per_mr):
        rec["notes"].append(note("MergeRequest", 2000 + k, k, j, authors, 5000 + k))
    return rec


def snippet(k, a):
    authors = a.authors
    return {"id": 4000 + k, "title": "Snippet %d" % k, "content": "print(%d)\n" % k,
            "author_id": authors[k % len(authors)]["id"], "project_id": 1,
            "created_at": ts(6000 + k), "updated_at": ts(6000 + k, 10),
            "file_name": "snippet%d.py" % k, "visibility_level": [0, 10, 20][k % 3],
            "description": "Snippet %d's description" % k,
            "notes": [note("Snippet", 4000 + k, k, 0, authors, 6000 + k)], "award_emoji": []}


def pipeline(k, a, heads):
    status = ["success", "failed", "running"][k % 3]
    rec = {"id": 8000 + k, "project_id": 1, "ref": "master", "sha": heads.get("master"),
           "before_sha": "0" * 40, "push_data": None, "created_at": ts(7000 + k),
           "updated_at": ts(7000 + k, 59), "tag": False, "yaml_errors": None,
           "committed_at": None, "status": status, "started_at": ts(7000 + k, 1),
           "finished_at": None if status == "running" else ts(7000 + k, 58),
           "duration": None if status == "running" else 57, "user_id": a.authors[0]["id"],
           "lock_version": 0, "auto_canceled_by_id": None, "pipeline_schedule_id": None,
           "source": "push", "protected": False, "notes": [], "stages": [], "statuses": []}
    for j, name in enumerate(["build", "test"]):
        rec["statuses"].append({
            "id": 9000 + k * 10 + j, "project_id": 1, "status": status if j else "success",
            "finished_at": rec["finished_at"] if j else ts(7000 + k, 30),
            "trace": None, "created_at": ts(7000 + k), "updated_at": ts(7000 + k, 59),
            "started_at": ts(7000 + k, 1 + j * 30), "runner_id": None, "coverage": None,
            "commit_id": 8000 + k, "commands": None, "job_id": None, "name": name,
            "deploy": False, "options": None, "allow_failure": False, "stage": name,
            "trigger_request_id": None, "stage_idx": j, "tag": False, "ref": "master",
            "user_id": a.authors[0]["id"], "type": "Ci::Build", "target_url": None,
            "description": None, "artifacts_file": None, "erased_at": None, "when": "on_success",
            "yaml_variables": None, "queued_at": None, "token": None, "environment": None})
    return rec


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="the archive (.tar.gz) to write")
    p.add_argument("--emails", default="", help="the members' emails, comma-separated; "
                   "exported user ids 101, 102, ...")
    p.add_argument("--issues", type=int, default=12)
    p.add_argument("--notes-per-issue", type=int, default=3)
    p.add_argument("--merge-requests", type=int, default=3)
    p.add_argument("--notes-per-mr", type=int, default=2)
    p.add_argument("--labels", type=int, default=3)
    p.add_argument("--milestones", type=int, default=2)
    p.add_argument("--snippets", type=int, default=2)
    p.add_argument("--pipelines", type=int, default=3)
    p.add_argument("--commits", type=int, default=5)
    p.add_argument("--uploads", action="store_true", help="an uploads/ file, linked from "
                   "issue 1's description")
    p.add_argument("--bad-reference", action="store_true",
                   help="issue 1 gets a label link to a label the export does not hold")
    p.add_argument("--bad-value", action="store_true",
                   help="issue 2 gets a state no GitLab has")
    a = p.parse_args()
    emails = [e for e in a.emails.split(",") if e]
    members = [{"id": 101 + i, "email": e, "username": "member%d" % (i + 1),
                "name": "Member %d" % (i + 1)} for i, e in enumerate(emails)]
    a.authors = members + [GHOST]

    tmp = tempfile.mkdtemp(prefix="gen-export-tree-")
    try:
        heads = make_bundle(os.path.join(tmp, "project.bundle"), max(1, a.commits),
                            a.merge_requests)
        with open(os.path.join(tmp, "VERSION"), "w") as f:
            f.write("0.2.3")
        with open(os.path.join(tmp, "project.json"), "w") as f:
            write_tree(f, a, members, heads)
        if a.uploads:
            d = os.path.join(tmp, "uploads", "0123456789abcdef0123456789abcdef")
            os.makedirs(d)
            with open(os.path.join(d, "notes.txt"), "w") as f:
                f.write("an uploaded file\n")
        with tarfile.open(a.out, "w:gz") as t:
            t.add(tmp, arcname=".")
    finally:
        shutil.rmtree(tmp)


def write_tree(f, a, members, heads):
    dump = lambda o: json.dumps(o, separators=(",", ":"))

    def array(key, n, make, first=False):
        f.write('%s"%s":[' % ("" if first else ",", key))
        for i in range(n):
            if i:
                f.write(",")
            f.write(dump(make(i)))
        f.write("]")

    f.write('{"description":"An imported project","visibility_level":0,"archived":false,')
    f.write('"merge_requests_ff_only_enabled":false,"shared_runners_enabled":true,'
            '"build_allow_git_fetch":true,"build_timeout":3600,"build_coverage_regex":null,'
            '"ci_config_path":null,"only_allow_merge_if_pipeline_succeeds":false,'
            '"only_allow_merge_if_all_discussions_are_resolved":false,'
            '"request_access_enabled":false,"printing_merge_request_link_enabled":true')
    array("labels", a.labels, lambda i: label(i, i == 0))
    array("milestones", a.milestones, lambda i: milestone(i + 1))
    array("issues", a.issues, lambda i: issue(i + 1, a))
    array("snippets", a.snippets, lambda i: snippet(i + 1, a))
    array("releases", 0, None)
    array("project_members", len(members), lambda i: {
        "id": 50 + i, "access_level": 30, "source_id": 1, "source_type": "Project",
        "user_id": members[i]["id"], "notification_level": 3, "created_at": ts(-300),
        "updated_at": ts(-300), "created_by_id": None, "invite_email": None,
        "invite_token": None, "invite_accepted_at": None, "requested_at": None,
        "expires_at": None, "user": {k: members[i][k] for k in ("id", "email", "username")}})
    array("merge_requests", a.merge_requests, lambda i: merge_request(i + 1, a, heads))
    array("pipelines", a.pipelines, lambda i: pipeline(i + 1, a, heads))
    array("variables", 2, lambda i: {
        "id": 500 + i, "project_id": 1, "key": ["DEPLOY_TOKEN", "REGION"][i],
        "value": ["s3cr3t-%d" % i, "eu-1"][i], "protected": [True, False][i]})
    array("triggers", 2, lambda i: {
        "id": 300 + i, "token": "%030x" % (0xabc + i), "project_id": 1,
        "created_at": ts(-20 + i), "updated_at": ts(-10 + i), "owner_id": a.authors[0]["id"],
        "description": "Trigger %d" % (i + 1)})
    array("pipeline_schedules", 1, lambda i: {
        "id": 400, "description": "Nightly", "ref": "master", "cron": "0 4 * * *",
        "cron_timezone": "UTC", "next_run_at": ts(10000), "project_id": 1,
        "owner_id": a.authors[0]["id"], "active": True, "created_at": ts(-30),
        "updated_at": ts(-25), "variables": [{"key": "DEPLOY", "value": "yes"},
                                             {"key": "REGION", "value": "eu-1"}]})
    array("services", 0, None)
    array("hooks", 0, None)
    array("protected_branches", 2, lambda i: {
        "id": 200 + i, "project_id": 1, "name": ["master", "release-*"][i],
        "created_at": ts(-60 + i), "updated_at": ts(-55 + i),
        "merge_access_levels": [{"id": 1, "protected_branch_id": 200 + i,
                                 "access_level": [30, 40][i], "created_at": ts(-60),
                                 "updated_at": ts(-60)}],
        "push_access_levels": [{"id": 1, "protected_branch_id": 200 + i,
                                "access_level": [40, 0][i], "created_at": ts(-60),
                                "updated_at": ts(-60)}]})
    array("protected_tags", 1, lambda i: {
        "id": 250, "project_id": 1, "name": "v*", "created_at": ts(-60), "updated_at": ts(-60),
        "create_access_levels": [{"id": 1, "protected_tag_id": 250, "access_level": 40,
                                  "created_at": ts(-60), "updated_at": ts(-60)}]})
    f.write(',"project_feature":{"builds_access_level":20,"created_at":"%s","id":1,'
            '"issues_access_level":20,"merge_requests_access_level":20,"project_id":1,'
            '"snippets_access_level":20,"updated_at":"%s","wiki_access_level":20,'
            '"repository_access_level":20}' % (ts(-300), ts(-300)))
    array("custom_attributes", 2, lambda i: {
        "id": 160 + i, "created_at": ts(-70 + i), "updated_at": ts(-70 + i), "project_id": 1,
        "key": ["department", "cost_center"][i], "value": ["tools", "cc-%d" % (42 + i)][i]})
    array("project_badges", 2, lambda i: {
        "id": 150 + i, "created_at": ts(-70 + i), "updated_at": ts(-65 + i), "project_id": 1,
        "type": "ProjectBadge", "link_url": "https://ci.example.com/%%{project_path}/%d" % i,
        "image_url": "https://ci.example.com/badge-%d.svg" % i})
    f.write("}")


if __name__ == "__main__":
    sys.exit(main())
