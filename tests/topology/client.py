#!/usr/bin/python3
"""The tests of the several-hosts topology (tests/topology/run starts it and runs this in
the lb namespace, next to nginx):

  rw       read-your-writes: callers write (an issue, its title, a note) and read back at
           once through nginx while the replica applies every commit 300 ms late: no
           answer may be stale; the replica takes the reads of a caller who wrote nothing
  restart  the replica stopped and started under a steady read load: every answer 200
  lag      the replica's replay paused while writes go on: after replica_max_lag the
           reads go to the primary (the replica's counter stands still) and none is
           stale; replay resumed, the replica takes reads again
  kill     every process of app1 killed (SIGKILL) under writes and reads: nginx's next
           upstream answers, no read fails, no acknowledged write is lost

Environment: TOPO_URL (nginx), TOPO_HOST_URLS (each host alone, for its /-/metrics and
the read-back through app2), TOPO_ADMIN_TOKEN, TOPO_ACTIONS (the run's fault commands),
TOPO_TESTS. Each test prints its figures; the last line is "topology: N passed, M failed".
"""
import os
import re
import subprocess
import sys
import threading
import time

import requests

URL = os.environ["TOPO_URL"].rstrip("/")
API = URL + "/api/v4"
HOSTS = os.environ["TOPO_HOST_URLS"].split()
ADMIN = os.environ["TOPO_ADMIN_TOKEN"]
ACTIONS = os.environ["TOPO_ACTIONS"]
TESTS = os.environ.get("TOPO_TESTS", "rw restart lag kill").split()
MAX_LAG = 1.0  # the replica_max_lag the run configures
TIMEOUT = 15

results = []  # (test, passed, summary)
local = threading.local()


def say(*a):
    print("topology:", *a, flush=True)


def session(token=None):
    s = requests.Session()
    s.trust_env = False  # no proxy from the environment: nginx is on this namespace's loopback
    if token:
        s.headers["PRIVATE-TOKEN"] = token
    return s


def action(name, *args):
    """Runs one of the run's fault commands; returns its output (raises on failure)."""
    out = subprocess.run([os.path.join(ACTIONS, name), *args], check=True,
                         capture_output=True, text=True, timeout=90)
    return out.stdout.strip()


def must(resp, *ok):
    if resp.status_code not in ok:
        raise AssertionError("%s %s: %d %s" % (resp.request.method, resp.request.url,
                                               resp.status_code, resp.text[:200]))
    return resp.json() if resp.content else None


# ---- the figures of /-/metrics

READS_RE = re.compile(r'^collabd_db_reads_total\{target="(primary|replica)"\} ([0-9.e+]+)$', re.M)


def reads():
    """{"primary": n, "replica": n} summed over the hosts that answer, None when collabd
    exposes no such counter."""
    total, seen = {"primary": 0.0, "replica": 0.0}, False
    for h in HOSTS:
        try:
            r = session().get(h + "/-/metrics", timeout=5)
        except requests.RequestException:
            continue  # a host killed
        if r.status_code != 200:
            continue
        for target, n in READS_RE.findall(r.text):
            total[target] += float(n)
            seen = True
    return total if seen else None


def delta(before, after):
    if before is None or after is None:
        return None
    return {k: after[k] - before[k] for k in before}


def pct(d):
    if d is None or d["primary"] + d["replica"] == 0:
        return "n/a"
    return "%.0f%%" % (100.0 * d["replica"] / (d["primary"] + d["replica"]))


def share(d):
    if d is None:
        return "n/a"
    n = d["primary"] + d["replica"]
    return "%.0f%% of %d" % (100.0 * d["replica"] / n, n) if n else "0 reads"


# ---- a load: threads that run a function until a deadline or a stop

class Load:
    def __init__(self):
        self.stop = threading.Event()
        self.threads = []
        self.lock = threading.Lock()
        self.errors = []

    def add(self, fn, *args):
        def run():
            try:
                while not self.stop.is_set():
                    fn(*args)
            except Exception as e:  # a bug of the test itself, or an assertion
                with self.lock:
                    self.errors.append("%s: %r" % (fn.__name__, e))
                self.stop.set()
        t = threading.Thread(target=run, daemon=True)
        self.threads.append(t)
        t.start()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(TIMEOUT + 5)
        if self.errors:
            raise AssertionError("; ".join(self.errors[:3]))


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.n = {}
        self.samples = {}

    def add(self, key, sample=None):
        with self.lock:
            self.n[key] = self.n.get(key, 0) + 1
            if sample is not None and len(self.samples.setdefault(key, [])) < 5:
                self.samples[key].append(sample)

    def __getitem__(self, key):
        return self.n.get(key, 0)


# ---- the callers: users of their own, each with a public project and an issue

class Caller:
    def __init__(self, name, writes=True):
        admin = session(ADMIN)
        name = "topo-%s-%d" % (name, os.getpid())
        u = must(admin.post(API + "/users", data={
            "username": name, "email": name + "@example.com", "name": name,
            "password": "password-" + name, "skip_confirmation": "true"}, timeout=TIMEOUT), 201)
        self.token = must(admin.post(API + "/users/%d/impersonation_tokens" % u["id"], data={
            "name": "topology", "scopes[]": "api"}, timeout=TIMEOUT), 201)["token"]
        self.s = session(self.token)
        if not writes:
            return
        self.project = must(self.s.post(API + "/projects", data={
            "name": name, "visibility": "public"}, timeout=TIMEOUT), 201)["id"]
        self.issue = must(self.s.post(API + "/projects/%d/issues" % self.project, data={
            "title": "base"}, timeout=TIMEOUT), 201)["iid"]

    def issue_url(self, iid=None):
        return API + "/projects/%d/issues/%d" % (self.project, iid or self.issue)


def outsider_read(callers, reader, c):
    """One read of a caller who wrote nothing, counted in c by its status: in turn, a
    read-only user reading a public project's issues and an anonymous one reading the
    project (the issues need credentials)."""
    if not hasattr(local, "turn"):
        local.turn, local.anon, local.reader = 0, session(), session(reader.token)
    local.turn += 1
    k = local.turn // 2 % len(callers)
    if local.turn % 2:
        s, url = local.reader, API + "/projects/%d/issues?per_page=5" % callers[k].project
    else:
        s, url = local.anon, API + "/projects/%d" % callers[k].project
    try:
        r = s.get(url, timeout=TIMEOUT)
        c.add(r.status_code, None if r.status_code == 200 else url + " " + r.text[:120])
    except requests.RequestException as e:
        c.add("error", repr(e)[:160])


# ---- 1. read-your-writes

def test_rw(callers):
    c = Counter()

    def check(key, ok, what):
        c.add("reads")
        if not ok:
            c.add("stale", what)

    def writer(caller, seq=[0]):
        s = caller.s
        seq[0] += 1
        title = "rw-%d-%d" % (caller.project, seq[0])
        iss = must(s.post(API + "/projects/%d/issues" % caller.project,
                          data={"title": title}, timeout=TIMEOUT), 201)
        c.add("writes")
        r = s.get(caller.issue_url(iss["iid"]), timeout=TIMEOUT)
        check("issue", r.status_code == 200 and r.json()["title"] == title,
              "new issue %s: %d" % (title, r.status_code))
        title2 = title + "-edited"
        must(s.put(caller.issue_url(iss["iid"]), data={"title": title2}, timeout=TIMEOUT), 200)
        c.add("writes")
        r = s.get(caller.issue_url(iss["iid"]), timeout=TIMEOUT)
        check("title", r.status_code == 200 and r.json()["title"] == title2,
              "edited title %s: %d %s" % (title2, r.status_code, r.text[:80]))
        body = "note of " + title2
        note = must(s.post(caller.issue_url(iss["iid"]) + "/notes", data={"body": body},
                           timeout=TIMEOUT), 201)
        c.add("writes")
        r = s.get(caller.issue_url(iss["iid"]) + "/notes/%d" % note["id"], timeout=TIMEOUT)
        check("note", r.status_code == 200 and r.json()["body"] == body,
              "note %d: %d" % (note["id"], r.status_code))
        # and the list, which a cache or a replica could serve from before the note
        r = s.get(caller.issue_url(iss["iid"]) + "/notes", timeout=TIMEOUT)
        check("notes", r.status_code == 200 and any(n["id"] == note["id"] for n in r.json()),
              "notes of %s lack %d" % (title2, note["id"]))

    # that the replica lags indeed: a write read from db2 at once is stale
    naive, naive_stale = 5, 0
    db2 = subprocess.Popen([os.path.join(ACTIONS, "replica-psql")], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        def replica_read(sql):
            db2.stdin.write(sql + ";\n")
            return db2.stdout.readline().strip()
        replica_read("SELECT 1")  # connected
        for i in range(naive):
            title = "naive-%d" % i
            must(callers[0].s.put(callers[0].issue_url(), data={"title": title},
                                  timeout=TIMEOUT), 200)
            seen = replica_read("SELECT title FROM issues WHERE project_id = %d AND iid = %d"
                                % (callers[0].project, callers[0].issue))
            naive_stale += seen != title
    finally:
        db2.stdin.close()
        db2.wait(10)

    # the reads of callers who did not write (read-only and anonymous) of public projects
    anon = Counter()
    m0 = reads()
    load = Load()
    for _ in range(2):
        load.add(outsider_read, callers, READERS[_], anon)
    time.sleep(3)
    load.finish()
    m1 = reads()
    anon_share = delta(m0, m1)

    # the writers, with the non-writers reading beside them
    load = Load()
    for caller in callers:
        load.add(writer, caller, [0])
    for _ in range(2):
        load.add(outsider_read, callers, READERS[_], anon)
    time.sleep(8)
    load.finish()
    m2 = reads()
    mixed = delta(m1, m2)

    fails = []
    if c["stale"]:
        fails.append("stale answers: %s" % c.samples.get("stale"))
    if naive_stale == 0:
        fails.append("the replica does not lag: the test proves nothing")
    if anon["error"] or any(k != 200 for k in anon.n):
        fails.append("non-writers' reads failed: %s" % anon.samples)
    if anon_share is None:
        fails.append("collabd exposes no collabd_db_reads_total")
    elif anon_share["replica"] <= 0:
        fails.append("the replica took none of the non-writers' reads")
    summary = ("%d callers, %d writes, %d read-backs, %d stale; naive replica reads stale %d/%d; "
               "replica share: non-writers alone %s, with writers %s"
               % (len(callers), c["writes"], c["reads"], c["stale"], naive_stale, naive,
                  share(anon_share), share(mixed)))
    figures = "%d stale of %d, replica took %s of non-writers' reads" % (
        c["stale"], c["reads"], pct(anon_share))
    return fails, summary, figures


# ---- 2. the replica stopped and started under load

def test_restart(callers):
    c = Counter()
    load = Load()
    m0 = reads()
    for _ in range(4):
        load.add(outsider_read, callers, READERS[_ % 2], c)
    time.sleep(2)
    m1 = reads()
    action("replica-stop")
    t_stop = time.monotonic()
    time.sleep(3)
    m2 = reads()
    action("replica-start")
    down = time.monotonic() - t_stop
    time.sleep(3)  # the hosts find the replica again
    m3 = reads()
    time.sleep(2)
    load.finish()
    m4 = reads()
    fails = []
    bad = sum(n for k, n in c.n.items() if k != 200)
    if bad:
        fails.append("%d failed requests: %s" % (bad, c.samples))
    if c[200] == 0:
        fails.append("no request answered")
    after = delta(m3, m4)
    if after is not None and after["replica"] <= 0:
        fails.append("the replica took no reads once started again")
    summary = ("%d reads by 4 readers, %d not 200; replica down %.1f s; replica share: before %s, "
               "while down %s, after %s" % (sum(c.n.values()), bad, down, share(delta(m0, m1)),
                                            share(delta(m1, m2)), share(after)))
    return fails, summary, "%d of %d failed" % (bad, sum(c.n.values()))


# ---- 3. the replica lagging

def test_lag(callers):
    w = callers[0]
    state = {"seq": 0, "acked": 0, "phase": "before"}
    c = Counter()

    def writer():
        state["seq"] += 1
        k = state["seq"]
        must(w.s.put(w.issue_url(), data={"title": "lag-%d" % k}, timeout=TIMEOUT), 200)
        state["acked"] = k
        c.add("writes")
        r = w.s.get(w.issue_url(), timeout=TIMEOUT)
        c.add("reads")
        if r.status_code != 200 or r.json()["title"] != "lag-%d" % k:
            c.add("stale", "read-back lag-%d: %d %s" % (k, r.status_code, r.text[:80]))
        time.sleep(0.05)

    def reader(who):
        # a read-only caller: fresh only when its reads go to the primary, which they
        # must while the replica is behind by more than replica_max_lag
        s = getattr(local, "s", None) or session(who.token)
        local.s = s
        phase, floor = state["phase"], state["acked"]
        r = s.get(w.issue_url(), timeout=TIMEOUT)
        if r.status_code != 200:
            c.add("failed", "%d %s" % (r.status_code, r.text[:80]))
            return
        m = re.fullmatch(r"lag-(\d+)", r.json()["title"])
        seen = int(m.group(1)) if m else 0
        if phase == "paused" and state["phase"] == "paused":
            c.add("paused reads")
            if seen < floor:
                c.add("stale", "read-only caller read lag-%d after lag-%d was acknowledged" % (seen, floor))

    load = Load()
    load.add(writer)
    for i in range(3):
        load.add(reader, READERS[i % 2])
    time.sleep(2)
    m0 = reads()
    action("replica-sql", "SELECT pg_wal_replay_pause()")
    time.sleep(MAX_LAG + 1.5)  # the hosts see the lag pass replica_max_lag
    state["phase"] = "paused"
    m1 = reads()
    time.sleep(3)
    m2 = reads()
    state["phase"] = "resumed"
    behind = action("primary-sql", "SELECT pg_current_wal_lsn()")
    replayed = action("replica-sql", "SELECT pg_last_wal_replay_lsn()")
    action("replica-sql", "SELECT pg_wal_replay_resume()")
    time.sleep(MAX_LAG + 1.5)
    m3 = reads()
    time.sleep(3)
    load.finish()
    m4 = reads()
    paused, resumed = delta(m1, m2), delta(m3, m4)
    fails = []
    if c["stale"]:
        fails.append("stale answers: %s" % c.samples.get("stale"))
    if c["failed"]:
        fails.append("failed reads: %s" % c.samples.get("failed"))
    if c["paused reads"] == 0:
        fails.append("no read while the replay was paused")
    if paused is None:
        fails.append("collabd exposes no collabd_db_reads_total")
    else:
        if paused["replica"] != 0:
            fails.append("the replica took %d reads while its replay was paused" % paused["replica"])
        if paused["primary"] <= 0:
            fails.append("the primary took no reads while the replica lagged")
        if resumed["replica"] <= 0:
            fails.append("the replica took no reads once replay resumed")
    summary = ("%d writes, %d read-backs, %d read-only reads while paused, %d stale; "
               "paused at %s (primary at %s); reads while paused: primary +%s replica +%s; "
               "after resume: replica share %s"
               % (c["writes"], c["reads"], c["paused reads"], c["stale"], replayed, behind,
                  "%d" % paused["primary"] if paused else "n/a",
                  "%d" % paused["replica"] if paused else "n/a", share(resumed)))
    figures = "%d stale, replica +%s while paused, %s after" % (
        c["stale"], "%d" % paused["replica"] if paused else "n/a", pct(resumed))
    return fails, summary, figures


# ---- 4. a host killed

def test_kill(callers):
    writers, readers = callers[:2], callers[2:4] or callers[:2]
    acked, lock = [], threading.Lock()
    c = Counter()
    kill_at, gone_at = [None], [None]

    def writer(caller, seq):
        seq[0] += 1
        title = "kill-%d-%d" % (caller.project, seq[0])
        t0 = time.monotonic()
        try:
            r = caller.s.post(API + "/projects/%d/issues" % caller.project,
                              data={"title": title}, timeout=TIMEOUT)
        except requests.RequestException as e:
            c.add("write failed", "%s: %r" % (title, e))
            return
        if r.status_code == 201:
            with lock:
                acked.append((caller, r.json()["iid"], title))
            c.add("writes")
        else:
            # in flight on app1: sent before its last process was gone (a connection
            # accepted into the backlog of a dying listener is lost with it), and
            # answered by nginx as a broken upstream
            in_flight = (kill_at[0] is not None and (gone_at[0] is None or t0 <= gone_at[0])
                         and r.status_code == 502)
            c.add("write failed", "%s: %d at %+.2f s of the kill%s" % (
                title, r.status_code, t0 - (kill_at[0] or t0), "" if in_flight else " (not in flight)"))
            if not in_flight:
                c.add("write failed not in flight")

    def reader(caller):
        with lock:
            mine = [a for a in acked[-20:] if a[0] is caller] or [(caller, caller.issue, None)]
        _, iid, title = mine[-1]
        try:
            r = caller.s.get(caller.issue_url(iid), timeout=TIMEOUT)
        except requests.RequestException as e:
            c.add("read failed", repr(e)[:160])
            return
        if r.status_code != 200:
            c.add("read failed", "%d %s" % (r.status_code, r.text[:80]))
        else:
            c.add("reads")
            if title and r.json()["title"] != title:
                c.add("stale", "read %s: %s" % (title, r.json()["title"]))

    load = Load()
    for caller in writers:
        load.add(writer, caller, [0])
    for caller in readers:
        load.add(reader, caller)
    time.sleep(2)
    before = (c["writes"], c["reads"])
    kill_at[0] = time.monotonic()
    killed = int(action("kill-app1"))
    gone_at[0] = time.monotonic()
    time.sleep(3)
    load.finish()
    after = (c["writes"] - before[0], c["reads"] - before[1])

    # every acknowledged write, read back through app2 alone (app1 is gone), and on
    # the primary
    app2 = HOSTS[1] + "/api/v4"
    lost = []
    for caller, iid, title in acked:
        r = caller.s.get(app2 + "/projects/%d/issues/%d" % (caller.project, iid), timeout=TIMEOUT)
        if r.status_code != 200 or r.json()["title"] != title:
            lost.append("%s: %d" % (title, r.status_code))
    on_primary = int(action("primary-sql", "SELECT count(*) FROM issues WHERE title LIKE 'kill-%'"))
    fails = []
    if killed == 0:
        fails.append("no process killed in app1")
    if lost:
        fails.append("%d acknowledged writes lost: %s" % (len(lost), lost[:3]))
    if on_primary < len(acked):
        fails.append("the primary has %d of the %d acknowledged issues" % (on_primary, len(acked)))
    if c["read failed"]:
        fails.append("%d reads failed: %s" % (c["read failed"], c.samples.get("read failed")))
    if c["write failed not in flight"]:
        fails.append("writes failed that were not in flight on app1: %s"
                     % c.samples.get("write failed"))
    if c["stale"]:
        fails.append("stale reads: %s" % c.samples.get("stale"))
    if after[0] == 0 or after[1] == 0:
        fails.append("nothing answered after the kill (%d writes, %d reads)" % after)
    summary = ("%d processes killed; %d writes acknowledged (%d after the kill), all %d read back "
               "through app2 and on the primary (%d rows); %d reads (%d after), %d failed; "
               "%d writes failed (in flight on app1 during the %.2f s it took to die)"
               % (killed, len(acked), after[0], len(acked) - len(lost), on_primary, c["reads"],
                  after[1], c["read failed"], c["write failed"], gone_at[0] - kill_at[0]))
    figures = "%d acknowledged writes lost, %d reads and %d writes failed" % (
        len(lost), c["read failed"], c["write failed"])
    return fails, summary, figures


def main():
    t0 = time.monotonic()
    global READERS
    callers = [Caller("w%d" % i) for i in range(4)]
    READERS = [Caller("r%d" % i, writes=False) for i in range(2)]
    say("%d callers ready in %.1f s" % (len(callers), time.monotonic() - t0))
    tests = {"rw": test_rw, "restart": test_restart, "lag": test_lag, "kill": test_kill}
    for name in TESTS:
        t = time.monotonic()
        try:
            fails, summary, figures = tests[name](callers)
        except Exception as e:
            fails, summary, figures = ["%r" % e], "did not finish", "did not finish"
        ok = not fails
        results.append((name, ok, figures))
        say("%s: %s (%.1f s): %s" % (name, "ok" if ok else "FAILED", time.monotonic() - t, summary))
        for f in fails:
            say("  %s: %s" % (name, f))
    passed = sum(1 for r in results if r[1])
    say("summary: " + "; ".join("%s %s (%s)" % (n, "ok" if ok else "FAILED", f)
                                for n, ok, f in results))
    print("topology: %d passed, %d failed" % (passed, len(results) - passed), flush=True)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
