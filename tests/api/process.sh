#!/usr/bin/env bash
# Process-model checks against the running test stack (sourced by tests/api/run, which
# has set dir, bin, url, pids, COLLABD_URL, COLLABD_ADMIN_TOKEN, COLLABD_INSTANCE_URLS
# and defined start_instance):
#  - a worker killed with SIGKILL is respawned and requests keep succeeding;
#  - SIGHUP replaces the workers of an instance with no failed request under load;
#  - one instance stopped (SIGTERM) and started again under load: nginx passes the
#    requests to the other one, no GET fails (run's start_instance restarts it);
#  - a database down gives 503s (never a hang or a 500), to the API, to git over HTTP
#    and to /-/readiness (whose JSON says db_check failed; liveness stays 200);
#    once it is back, every request succeeds, the first of each worker included.
# Prints "process: N passed, M failed" and returns non-zero on any failure.

proc_pass=0 proc_fail=0
check() { # NAME CONDITION...
	local name=$1; shift
	if "$@"; then proc_pass=$((proc_pass + 1)); echo "process: ok: $name"
	else proc_fail=$((proc_fail + 1)); echo "process: FAILED: $name"; fi
}

get_user() { # prints the status of GET /user
	curl -s -o /dev/null -m 10 -w '%{http_code}' -H "PRIVATE-TOKEN: $COLLABD_ADMIN_TOKEN" "$COLLABD_URL/api/v4/user"
}

# load LOG COUNT: COUNT sequential requests from 4 parallel clients, statuses to LOG
load() {
	local log=$1 count=$2 c
	for c in 1 2 3 4; do
		( for _ in $(seq 1 "$count"); do get_user; echo; done > "$log.$c" ) &
	done
}

all_200() { cat "$1".* > "$1"; [ -s "$1" ] && ! grep -qv '^200$' "$1"; }

# 1. respawn
master=${pids[0]}
# the workers are the master's children named collabd (the background process is collabd-bg)
worker=$(pgrep -x -P "$master" collabd | head -n 1)
kill -KILL "$worker"
sleep 1.5
check "killed worker is respawned" [ "$(pgrep -x -P "$master" collabd | wc -l)" -ge 3 ]
check "requests succeed after a worker died" [ "$(get_user)" = 200 ]
bg=$(pgrep -x -P "$master" collabd-bg)
kill -KILL "$bg"
sleep 1.5
bg_new=$(pgrep -x -P "$master" collabd-bg)
check "killed background process is respawned" [ -n "$bg_new" -a "$bg_new" != "$bg" ]

# 2. SIGHUP under load: no failed request
load "$dir/hup.log" 150
sleep 0.3
old=$(pgrep -P "$master" | sort | tr '\n' ' ')
kill -HUP "$master"
sleep 0.5
kill -HUP "$master"
wait_load() { local j; for j in $(jobs -p); do case " ${pids[*]} " in *" $j "*) ;; *) wait "$j";; esac; done; }
wait_load
sleep 1
old_alive=0
for p in $old; do kill -0 "$p" 2>/dev/null && old_alive=$((old_alive + 1)); done
check "SIGHUP replaced the workers (old ones still running: $old_alive)" [ $old_alive = 0 ]
check "the instance runs its configured workers after reload" [ "$(pgrep -x -P "$master" collabd | wc -l)" = 3 ]
check "the instance runs one background process after reload" [ "$(pgrep -x -P "$master" collabd-bg | wc -l)" = 1 ]
check "no failed request across two reloads" all_200 "$dir/hup.log"
echo "process: statuses under reload: $(sort "$dir/hup.log" | uniq -c | tr -s ' \n' ' ')"

# 3. restart of instance 2 under load: no failed request through the upstream over both
# (fastcgi_next_upstream error timeout), instance 2's own port fails while it is down
inst_urls=($COLLABD_INSTANCE_URLS)
url_status() { # URL: the status of GET URL/api/v4/user
	curl -s -o /dev/null -m 10 -w '%{http_code}' -H "PRIVATE-TOKEN: $COLLABD_ADMIN_TOKEN" "$1/api/v4/user"
}
# load_until LOG STOP: 4 clients, each until the file STOP exists (at most 3000 requests
# or 90 s each); a client that saw STOP ends its log with "end"
load_until() {
	local log=$1 stop=$2 c
	for c in 1 2 3 4; do
		( end=$((SECONDS + 90))
		  for _ in $(seq 1 3000); do
			[ -e "$stop" ] && { echo end; break; }
			[ $SECONDS -ge $end ] && break
			get_user; echo
		  done > "$log.$c" ) &
	done
}
# every client ran until told to stop, and every request it made answered 200
all_200_until_stop() {
	cat "$1".* > "$1"
	[ "$(grep -c '^end$' "$1")" = 4 ] && [ "$(grep -vc '^end$' "$1")" -gt 0 ] &&
		! grep -v '^end$' "$1" | grep -qv '^200$'
}
rm -f "$dir/restart.stop"
load_until "$dir/restart.log" "$dir/restart.stop"
sleep 0.5
old_master=${pids[1]}
kill -TERM "$old_master"
for _ in $(seq 1 400); do kill -0 "$old_master" 2>/dev/null || break; sleep 0.1; done
wait "$old_master"
stop_status=$?
check "instance 2 stops on SIGTERM under load (exit status $stop_status)" [ $stop_status = 0 ]
down2=$(url_status "${inst_urls[1]}") up1=$(url_status "${inst_urls[0]}")
check "instance 2's own port fails while it is down ($down2), instance 1's answers ($up1)" \
	[ "$down2" = 502 -a "$up1" = 200 ]
sleep 0.5 # requests keep coming while only instance 1 runs
start_instance 2
back=0
for _ in $(seq 1 50); do [ "$(url_status "${inst_urls[1]}")" = 200 ] && { back=1; break; }; sleep 0.2; done
check "instance 2 answers again after its restart" [ $back = 1 ]
check "the restarted instance runs its workers and background process" \
	[ "$(pgrep -x -P "${pids[1]}" collabd | wc -l)" = 3 -a "$(pgrep -x -P "${pids[1]}" collabd-bg | wc -l)" = 1 ]
sleep 0.5 # and while both run again
touch "$dir/restart.stop"
wait_load
check "no failed request while an instance stopped and started again" all_200_until_stop "$dir/restart.log"
echo "process: statuses across the restart: $(grep -v '^end$' "$dir/restart.log" | sort | uniq -c | tr -s ' \n' ' ')"

# 4. database restart: 503 while down, recovery without intervention
# git over HTTP asks collabd first (nginx's auth_request): a project to ask about
git_path=$(curl -s -X POST -H "PRIVATE-TOKEN: $COLLABD_ADMIN_TOKEN" \
	--data "name=process-git-$$&visibility=public" "$COLLABD_URL/api/v4/projects" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["path_with_namespace"])')
git_refs() { # SERVICE: the status of GET info/refs as the admin
	curl -s -o /dev/null -m 10 -w '%{http_code}' -u "root:$COLLABD_ADMIN_TOKEN" \
		"$COLLABD_URL/$git_path.git/info/refs?service=$1"
}
check "git answers before the database stops (got $(git_refs git-upload-pack))" \
	[ "$(git_refs git-upload-pack)" = 200 ]
pgbin=$(pg_bindir)
as_pg "$pgbin/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null
down=$(get_user)
check "database down answers 503 (got $down)" [ "$down" = 503 ]
git_down="$(git_refs git-upload-pack) $(git_refs git-receive-pack)"
check "database down: git's info/refs answers 503 (got $git_down)" [ "$git_down" = "503 503" ]
# the health checks (suite_monitoring.c has them up): readiness says the database is
# down, in GitLab's shape; liveness and health only that the workers answer
ready_down=$(curl -s -m 10 -w ' %{http_code}' "$COLLABD_URL/-/readiness")
check "database down: readiness answers 503 with db_check failed (got $ready_down)" \
	grep -q '^{"db_check":{"status":"failed","message":"[^"]*"},"fs_shards_check":{"status":"ok","labels":{"shard":"default"}}} 503$' <<<"$ready_down"
live_down="$(curl -s -o /dev/null -m 10 -w '%{http_code}' "$COLLABD_URL/-/liveness") $(curl -s -o /dev/null -m 10 -w '%{http_code}' "$COLLABD_URL/-/health")"
check "database down: liveness and health answer 200 (got $live_down)" [ "$live_down" = "200 200" ]
git_said=$(GIT_TERMINAL_PROMPT=0 timeout 20 git ls-remote \
	"http://root:$COLLABD_ADMIN_TOKEN@${COLLABD_URL#http://}/$git_path.git" 2>&1)
check "database down: git ls-remote sees 503 ($git_said)" \
	grep -q "error: 503" <<<"$git_said"
as_pg "$pgbin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w -t 60 \
	-o "-p $(cat "$dir/pg/port") -k $dir/pg/run -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null
# once it accepts connections again, the first request of every worker succeeds: a worker
# whose connection the restart ended reconnects before its request (db_ensure_idle), it
# does not answer 503 first; 12 requests, more than the 6 workers of the two instances
after=$(for _ in $(seq 1 12); do get_user; echo; done | sort | uniq -c | tr -s ' \n' ' ')
check "every request succeeds once the database is back (statuses:$after)" [ "$after" = " 12 200 " ]
root_seen() {
	curl -s -H "PRIVATE-TOKEN: $COLLABD_ADMIN_TOKEN" "$COLLABD_URL/api/v4/users?username=root" |
		grep -q '"username":"root"'
}
check "data written before the restart is still there" root_seen
check "git answers again once the database is back" [ "$(git_refs git-upload-pack)" = 200 ]
check "readiness answers 200 once the database is back" \
	[ "$(curl -s -o /dev/null -m 10 -w '%{http_code}' "$COLLABD_URL/-/readiness")" = 200 ]

echo "process: $proc_pass passed, $proc_fail failed"
[ $proc_fail = 0 ]
