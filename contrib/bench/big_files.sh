#!/usr/bin/env bash
# Big files through the API (a measurement, not a test): the time of
# GET /projects/:id/repository/files/:path?ref= (JSON, base64 content) beside
# GET .../files/:path/raw?ref= (the bytes, sent by nginx beyond raw_inline_max) and
# GET .../repository/blobs/:sha (JSON), the CPU time of the one collabd worker
# answering them and its peak resident set (VmHWM, reset before each file), for blobs
# of BIG_SIZES MiB (1 10 30) of random bytes pushed over git smart HTTP, with the
# response cache off (every request runs its handler). Then the writes, whose body is
# at most max_body (10 MiB; base64 makes it 4/3 of the content, a form's %2B and %2F a
# little more): PUT .../files/:path with encoding=base64, and POST .../repository/commits
# with one base64 action, of BIG_WRITE_MB (7) MiB. Wall times are the best of BIG_TRIES
# (3) runs, CPU times their mean.
#
#   contrib/bench/big_files.sh [BIN]   BIN: a collabd binary (default build/run/collabd,
#                                      built by `./contrib/dev run` or `make -C build/run`)
#
# Prints a Markdown table; KEEP_STACK=1 keeps the stack directory.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/contrib/lib/stack.sh"
bin=$(readlink -f "${1:-$top/build/run/collabd}")
sizes=${BIG_SIZES:-1 10 30}
tries=${BIG_TRIES:-3}
write_mb=${BIG_WRITE_MB:-7}
[ -x "$bin" ] || { log "no collabd binary at $bin"; exit 1; }

dir=$(mktemp -d /tmp/collabd-bigfiles.XXXXXX)
chmod 755 "$dir"
cpid=""
cleanup() {
	stack_nginx_stop "$dir"
	stack_fcgiwrap_stop "$dir"
	[ -n "$cpid" ] && { kill -TERM "$cpid" 2>/dev/null; wait "$cpid" 2>/dev/null; }
	stack_pg_stop "$dir"
	[ -n "${KEEP_STACK:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT

url=$(stack_pg_start "$dir")
port=$(free_port)
stack_collabd_conf "$dir" 1 "$url" "$port"
# no response cache by default: every request runs its handler (a 10 MiB file's answer
# would be served from the cache from the third request on); BIG_CACHE_MB=64 measures
# the default configuration, whose cache keeps (or refuses) the big answers
echo "cache_size_mb = ${BIG_CACHE_MB:-0}" >> "$dir/collabd-1.conf"
export COLLABD_CONFIG=$dir/collabd-1.conf
"$bin" keygen >/dev/null
"$bin" migrate >/dev/null
token=$("$bin" user-create root root@example.com Administrator --admin --password benchpass123)
# one worker: every request below is answered by the process whose memory is read
COLLABD_WORKERS=1 "$bin" serve 2>>"$dir/collabd.log" &
cpid=$!
wait_for_socket "$dir/collabd-1.sock"
stack_nginx_conf "$dir" "$port" "$dir/collabd-1.sock"
stack_fcgiwrap_start "$dir"
stack_nginx_start "$dir"
base=http://127.0.0.1:$port/api/v4
worker=""
for _ in $(seq 1 50); do
	for p in $(ps -o pid= --ppid "$cpid"); do
		case $(cat "/proc/$p/comm" 2>/dev/null) in collabd-bg | "") ;; *) worker=$p ;; esac
	done
	[ -n "$worker" ] && break
	sleep 0.1
done
[ -n "$worker" ] || { log "no worker found"; exit 1; }

api() { curl -sS -f -H "PRIVATE-TOKEN: $token" "$@"; }
pid=$(api -X POST --data "name=big" "$base/projects" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')

# the files, pushed in one commit
work=$dir/work
git init -q -b master "$work"
for mb in $sizes; do
	head -c $((mb * 1048576)) /dev/urandom > "$work/big-$mb.bin"
done
git -C "$work" add .
git -C "$work" -c user.name=bench -c user.email=bench@example.com commit -qm "big files"
git -C "$work" push -q "http://root:$token@127.0.0.1:$port/root/big.git" master 2>/dev/null

# timed CMD...: the wall time of CMD (its output dropped; it must succeed), in s
timed() {
	python3 -c 'import time, subprocess, sys
s = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print("%.3f" % (time.monotonic() - s))' "$@"
}
# cpu_ticks: the worker's CPU time so far (user + system), in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$worker/stat"; }
hz=$(getconf CLK_TCK)
# best_of CMD...: "BEST CPU": the least wall time of $tries runs of CMD, and the worker's
# CPU time a run (the mean): on a shared machine the wall time also counts the waits
# for a core, the CPU time only the worker's own work
best_of() {
	local i t0 best
	t0=$(cpu_ticks)
	best=$(for i in $(seq 1 "$tries"); do timed "$@"; done | sort -n | head -n 1)
	echo "$best $(awk -v a="$t0" -v b="$(cpu_ticks)" -v n="$tries" -v hz="$hz" 'BEGIN {printf "%.2f", (b - a) / n / hz}')"
}
# fmt "BEST CPU": as a table cell
fmt() { set -- $1; echo "$1 s (CPU $2 s)"; }
reset_peak() { echo 5 > "/proc/$worker/clear_refs"; }
peak_mb() { awk '/^VmHWM:/ {printf "%.0f", $2 / 1024}' "/proc/$worker/status"; }

echo "| blob | GET files/:path?ref= (JSON) | GET files/:path/raw | GET blobs/:sha (JSON) | worker peak RSS |"
echo "|---|---|---|---|---|"
echo "| (best wall time of $tries; the worker's CPU time a request) | | | | |"
for mb in $sizes; do
	f=big-$mb.bin
	blob=$(git -C "$work" rev-parse "HEAD:$f")
	# the answer is right (and the file in the download cache before /raw is timed)
	got=$(api "$base/projects/$pid/repository/files/$f?ref=master" |
		python3 -c 'import json,sys,base64,hashlib; o=json.load(sys.stdin); print(o["size"], o["blob_id"], hashlib.sha1(base64.b64decode(o["content"])).hexdigest())')
	[ "$got" = "$(stat -c %s "$work/$f") $blob $(sha1sum < "$work/$f" | cut -c1-40)" ] ||
		{ log "wrong answer for $f: $got"; exit 1; }
	api -o /dev/null "$base/projects/$pid/repository/files/$f/raw?ref=master"
	reset_peak
	json=$(best_of curl -sS -f -H "PRIVATE-TOKEN: $token" "$base/projects/$pid/repository/files/$f?ref=master")
	raw=$(best_of curl -sS -f -H "PRIVATE-TOKEN: $token" "$base/projects/$pid/repository/files/$f/raw?ref=master")
	blobs=$(best_of curl -sS -f -H "PRIVATE-TOKEN: $token" "$base/projects/$pid/repository/blobs/$blob")
	echo "| $mb MiB | $(fmt "$json") | $(fmt "$raw") | $(fmt "$blobs") | $(peak_mb) MiB |"
done

# the writes: a body of at most max_body, new content each time (an unchanged file is
# no commit)
python3 - "$dir" "$write_mb" "$tries" <<'PY'
import base64, json, os, sys, urllib.parse
d, mb, tries = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(tries):
    b = base64.b64encode(os.urandom(mb * 1048576)).decode()
    with open("%s/put-%d.form" % (d, i), "w") as f:
        f.write(urllib.parse.urlencode({"branch": "master", "commit_message": "w",
                                        "encoding": "base64", "content": b}))
    with open("%s/commit-%d.json" % (d, i), "w") as f:
        json.dump({"branch": "master", "commit_message": "c", "actions": [
            {"action": "update", "file_path": "w.bin", "encoding": "base64", "content": b}]}, f)
PY
api -o /dev/null -X POST --data "branch=master&commit_message=w&content=x" "$base/projects/$pid/repository/files/w.bin"
reset_peak
t0=$(cpu_ticks)
put=$(for i in $(seq 0 $((tries - 1))); do
	timed curl -sS -f -X PUT -H "PRIVATE-TOKEN: $token" --data-binary "@$dir/put-$i.form" \
		"$base/projects/$pid/repository/files/w.bin"
done | sort -n | head -n 1)
put="$put $(awk -v a="$t0" -v b="$(cpu_ticks)" -v n="$tries" -v hz="$hz" 'BEGIN {printf "%.2f", (b - a) / n / hz}')"
put_peak=$(peak_mb)
reset_peak
t0=$(cpu_ticks)
post=$(for i in $(seq 0 $((tries - 1))); do
	timed curl -sS -f -X POST -H "PRIVATE-TOKEN: $token" -H "Content-Type: application/json" \
		--data-binary "@$dir/commit-$i.json" "$base/projects/$pid/repository/commits"
done | sort -n | head -n 1)
post="$post $(awk -v a="$t0" -v b="$(cpu_ticks)" -v n="$tries" -v hz="$hz" 'BEGIN {printf "%.2f", (b - a) / n / hz}')"
echo
echo "| write of $write_mb MiB, base64 ($(stat -c %s "$dir/put-0.form") bytes of form) | time | worker peak RSS |"
echo "|---|---|---|"
echo "| PUT files/:path (form, encoding=base64) | $(fmt "$put") | $put_peak MiB |"
echo "| POST repository/commits (JSON, one action) | $(fmt "$post") | $(peak_mb) MiB |"
