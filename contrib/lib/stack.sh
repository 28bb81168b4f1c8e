# Shared by contrib/dev and tests/stack: start and stop a local collabd stack
# (PostgreSQL cluster, collabd master + workers, nginx) whose state lives in one
# directory. Source it, then call stack_start DIR PORT or stack_stop DIR.

PACKAGES="build-essential autoconf automake libtool pkg-config libfcgi-dev libjson-c-dev \
libpq-dev libgit2-dev check libyaml-dev libssl-dev libcurl4-openssl-dev libcrypt-dev \
postgresql postgresql-common nginx fcgiwrap git bzip2 unzip wrk python3-gitlab python3-requests curl \
openssh-server openssh-client libzip-dev zip tzdata libgpgme-dev gnupg libarchive-dev"
# tests/topology: hosts as network namespaces
PACKAGES="$PACKAGES iproute2"

log() { printf '%s\n' "collabd: $*" >&2; }

stack_src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The data sets of GET /templates/... (contrib/templates), shared by every stack of
# this checkout: installed once, before stacks start.
STACK_TEMPLATES=${STACK_TEMPLATES:-$stack_src/var/templates}
ensure_templates() { "$stack_src/contrib/templates" "$STACK_TEMPLATES"; }

ensure_packages() {
	local missing="" p
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		log "missing packages:$missing (run as root to install them)"; return 1
	fi
	log "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq </dev/null >/dev/null || return 1
	apt-get install -y -qq --no-install-recommends $missing </dev/null >/dev/null || return 1
}

pg_bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

free_port() {
	# a port nobody listens on, below the kernel's ephemeral range (32768-60999) so that
	# no client connection holds it either; from PORT_RANGE ("FIRST COUNT") when it is
	# set: stacks started at the same time (the lanes of tests/api/run) each take ports
	# from a range of their own, so that two never pick the same one before it is bound
	local p first=10000 count=22000
	[ -n "${PORT_RANGE:-}" ] && read -r first count <<<"$PORT_RANGE"
	for _ in $(seq 1 200); do
		p=$(( first + RANDOM % count ))
		if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then echo "$p"; return 0; fi
	done
	return 1
}

# as_pg CMD...: run a PostgreSQL server binary as the postgres user when we are root
as_pg() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# stack_pg_start DIR: a private cluster in DIR/pg, reused when it exists.
stack_pg_start() {
	local dir=$1 bin; bin=$(pg_bindir)
	[ -n "$bin" ] || { log "PostgreSQL server binaries not found"; return 1; }
	mkdir -p "$dir"
	if [ "$(id -u)" = 0 ] && [ ! -e "$dir/pg" ] && ! runuser -u postgres -- test -x "$dir"; then
		# a checkout the postgres user cannot reach (under /root, say): the cluster lives
		# in postgres's home, DIR/pg a link to it
		local home; home=$(getent passwd postgres | cut -d: -f6)
		local there; there=$home/collabd-$(printf '%s' "$dir" | sha256sum | cut -c1-12)
		mkdir -p "$there" && chown postgres:postgres "$there" && ln -s "$there" "$dir/pg" || return 1
	fi
	mkdir -p "$dir/pg"
	local pg; pg=$(readlink -f "$dir/pg")
	[ "$(id -u)" = 0 ] && chown postgres:postgres "$pg"
	if [ ! -f "$pg/data/PG_VERSION" ]; then
		# --no-sync: the server runs with fsync=off (below), its files are as safe as
		# initdb's; syncing them costs seconds, to every lane of tests/api/run
		as_pg "$bin/initdb" --no-sync -D "$pg/data" -U postgres -A trust -E UTF8 --no-locale >"$pg/initdb.log" 2>&1 \
			|| { cat "$pg/initdb.log" >&2; return 1; }
	fi
	local port; port=$(cat "$pg/port" 2>/dev/null || free_port)
	mkdir -p "$pg/run"; [ "$(id -u)" = 0 ] && chown postgres:postgres "$pg/run"
	if ! as_pg "$bin/pg_ctl" -D "$pg/data" status >/dev/null 2>&1; then
		local try
		for try in 1 2 3; do
			if as_pg "$bin/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w -t 60 \
				-o "-p $port -k $pg/run -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null; then
				break
			fi
			[ $try = 3 ] && { tail -20 "$pg/server.log" >&2; return 1; }
			port=$(free_port)   # the port was taken meanwhile: another one
		done
	fi
	echo "$port" > "$pg/port"
	# the server's Unix socket, as a database on the same machine is reached (the default
	# database_url, systemd/collabd.conf.example): loopback TCP costs each round trip
	# more in the kernel; TCP when the socket's path is too long for one
	local url="host=127.0.0.1 port=$port user=postgres dbname=collabd"
	[ -S "$pg/run/.s.PGSQL.$port" ] && [ ${#pg} -lt 80 ] && url="host=$pg/run port=$port user=postgres dbname=collabd"
	if ! psql "host=127.0.0.1 port=$port user=postgres dbname=postgres" -tAc "SELECT 1 FROM pg_database WHERE datname='collabd'" | grep -q 1; then
		psql "host=127.0.0.1 port=$port user=postgres dbname=postgres" -qc "CREATE DATABASE collabd" >/dev/null || return 1
	fi
	echo "$url"
}

stack_pg_stop() {
	local dir=$1 bin pg; bin=$(pg_bindir); pg=$(readlink -f "$dir/pg")
	[ -f "$pg/data/PG_VERSION" ] || return 0
	as_pg "$bin/pg_ctl" -D "$pg/data" -m fast -w stop >/dev/null 2>&1 || true
}

# stack_nginx_git_locations DIR UPSTREAM: the server-level locations of git smart HTTP
# as nginx/collabd.conf serves it, asking the collabd upstream UPSTREAM (for
# stack_nginx_conf and the benchmark's nginx).
stack_nginx_git_locations() {
	local dir=$1 upstream=$2
	cat <<CONF
        # Git smart HTTP as nginx/collabd.conf serves it: collabd answers the access
        # question (and where the repository is), git-http-backend under fcgiwrap
        # (DIR/fcgiwrap.sock, stack_fcgiwrap_start) does the rest; the hooks are those
        # collabd serve writes under the storage path.
        location ~ "^/(?<collabd_git_path>.+?)(?<collabd_git_op>/info/refs|/git-upload-pack|/git-receive-pack)\$" {
            set \$collabd_git_unavailable "";
            auth_request /_internal/git-auth;
            auth_request_set \$collabd_git_user \$upstream_http_x_collabd_user;
            auth_request_set \$collabd_git_repo \$upstream_http_x_collabd_repo;
            auth_request_set \$collabd_git_root \$upstream_http_x_collabd_root;
            auth_request_set \$collabd_git_project \$upstream_http_x_collabd_project;
            auth_request_set \$collabd_git_status \$upstream_http_x_collabd_status;
            error_page 403 = @collabd_git_403;
            client_max_body_size 512m;
            fastcgi_pass unix:$dir/fcgiwrap.sock;
            fastcgi_request_buffering off;
            fastcgi_buffering off;
            fastcgi_read_timeout 600s;
            fastcgi_param SCRIPT_FILENAME /usr/lib/git-core/git-http-backend;
            fastcgi_param GIT_PROJECT_ROOT \$collabd_git_root;
            fastcgi_param GIT_HTTP_EXPORT_ALL "";
            fastcgi_param PATH_INFO \$collabd_git_repo\$collabd_git_op;
            fastcgi_param REMOTE_USER \$collabd_git_user;
            fastcgi_param GL_ID \$collabd_git_user;
            fastcgi_param GL_PROJECT \$collabd_git_project;
            fastcgi_param GIT_CONFIG_COUNT 1;
            fastcgi_param GIT_CONFIG_KEY_0 core.hooksPath;
            fastcgi_param GIT_CONFIG_VALUE_0 $dir/storage/hooks;
            fastcgi_param REQUEST_METHOD \$request_method;
            fastcgi_param QUERY_STRING \$query_string;
            fastcgi_param CONTENT_TYPE \$content_type;
            fastcgi_param CONTENT_LENGTH \$content_length;
            fastcgi_param SERVER_PROTOCOL \$server_protocol;
            fastcgi_param GATEWAY_INTERFACE CGI/1.1;
            fastcgi_param REMOTE_ADDR \$remote_addr;
            fastcgi_param HTTP_PROXY "";
        }
        location = /_internal/git-auth {
            internal;
            fastcgi_pass $upstream;
            fastcgi_pass_request_body off;
            fastcgi_param REQUEST_METHOD GET;
            fastcgi_param REQUEST_URI /_internal/git-auth;
            fastcgi_param QUERY_STRING "";
            fastcgi_param CONTENT_TYPE "";
            fastcgi_param CONTENT_LENGTH "";
            fastcgi_param REQUEST_ID \$request_id;
            fastcgi_param REMOTE_ADDR \$remote_addr;
            fastcgi_param COLLABD_GIT_AUTH 1;
            fastcgi_param COLLABD_GIT_METHOD \$request_method;
            fastcgi_param COLLABD_GIT_URI \$request_uri;
            fastcgi_param HTTP_PROXY "";
            fastcgi_intercept_errors on;
            error_page 502 503 504 = @collabd_git_auth_unavailable;
        }
        location @collabd_git_auth_unavailable {
            set \$collabd_git_unavailable 1;
            return 403;
        }
        location @collabd_git_403 {
            types { }
            default_type text/plain;
            if (\$collabd_git_unavailable) {
                add_header Retry-After 5 always;
                return 503 "The service is unavailable; try again later.";
            }
            if (\$collabd_git_status = 404) {
                return 404 "The project you were looking for could not be found.";
            }
            return 403 "You are not allowed to do this with this project.";
        }
CONF
}

# stack_nginx_conf DIR PORT SOCKETS...: a config serving /api/ and /oauth/ from collabd
# (an upstream over every socket; HOST:PORT for an instance listening on TCP). Further http-level configuration may be put in
# DIR/nginx/conf.d/*.conf; DIR/nginx/fastcgi_params.conf holds the FastCGI parameters
# without the upstream (fastcgi.conf is the upstream and those parameters).
stack_nginx_conf() {
	local dir=$1 port=$2; shift 2
	local servers="" s
	for s in "$@"; do
		case $s in /*) s=unix:$s;; esac
		servers="$servers        server $s max_fails=0;
"
	done
	mkdir -p "$dir/nginx/tmp" "$dir/nginx/conf.d"
	# nginx's workers reach the sockets and files under DIR: as nobody when nobody can
	# (the test stacks), else as root (a checkout under /root, run by ./contrib/dev run)
	local user=""
	[ "$(id -u)" = 0 ] && ! runuser -u nobody -- test -x "$dir" 2>/dev/null && user="user root;"
	cat > "$dir/nginx/nginx.conf" <<CONF
$user
worker_processes 2;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
daemon on;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $dir/nginx/tmp/body;
    fastcgi_temp_path $dir/nginx/tmp/fastcgi;
    proxy_temp_path $dir/nginx/tmp/proxy;
    uwsgi_temp_path $dir/nginx/tmp/uwsgi;
    scgi_temp_path $dir/nginx/tmp/scgi;
    client_max_body_size 10m;
    # As nginx/collabd.conf and collabd-fastcgi.conf: a request line of at most 8k (414
    # beyond), and room for the Link header such a query produces. At http level, so
    # that the servers of conf.d have it too.
    large_client_header_buffers 4 8k;
    fastcgi_buffer_size 128k;
    fastcgi_buffers 16 16k;
    fastcgi_busy_buffers_size 128k;
    upstream collabd {
$servers    }
    server {
        listen 127.0.0.1:$port;
        error_page 414 /_internal/414;
        # ^~: no regex location (git's below) takes an API path such as
        # /api/v4/projects/1/repository/files/x%2Finfo%2Frefs
        location ^~ /api/ {
            include $dir/nginx/fastcgi.conf;
            # A job's artifacts upload: a body up to collabd's max_artifacts_size (100m),
            # buffered by nginx first (request buffering on), so that no worker waits
            # on a slow upload.
            location ~ ^/api/v4/jobs/[0-9]+/artifacts\$ {
                client_max_body_size 100m;
                fastcgi_request_buffering on;
                include $dir/nginx/fastcgi.conf;
            }
            # A project import's archive (POST /projects/import): up to a fixed ceiling;
            # collabd refuses above its max_import_size setting (413).
            location = /api/v4/projects/import {
                client_max_body_size 1g;
                fastcgi_request_buffering on;
                include $dir/nginx/fastcgi.conf;
            }
        }
        # A project's uploaded files as nginx/collabd.conf serves them: collabd checks
        # access and answers X-Accel-Redirect: /_internal/uploads/... (before git's
        # location: a file may be named git-upload-pack)
        location ~ "^/.+/uploads/[0-9a-f]{32}/[^/]+\$" {
            include $dir/nginx/fastcgi.conf;
        }
        location ^~ /_internal/uploads/ {
            internal;
            alias $dir/storage/uploads/;
            default_type application/octet-stream;
            add_header X-Content-Type-Options nosniff always;
            add_header Content-Security-Policy "default-src 'none'; sandbox" always;
        }
        # Health checks and metrics (collabd answers only monitoring_whitelist)
        location ^~ /-/ {
            include $dir/nginx/fastcgi.conf;
        }
$(stack_nginx_git_locations "$dir" collabd)
        location = /oauth/token {
            include $dir/nginx/fastcgi.conf;
        }
        # Uploads as nginx/collabd.conf sends them: images by extension, anything else
        # as a download, never sniffed.
        location ^~ /uploads/ {
            alias $dir/storage/uploads/;
            types {
                image/png png;
                image/jpeg jpg jpeg;
                image/gif gif;
                image/bmp bmp;
                image/tiff tif tiff;
                image/x-icon ico;
            }
            default_type application/octet-stream;
            add_header X-Content-Type-Options nosniff always;
            # only avatars are public; a project's files are the location above's
            location ~ ^/uploads/(?!-/system/) {
                return 404;
            }
        }
        # Archives and large raw files as nginx/collabd.conf sends them: collabd writes
        # them once to the download cache and answers X-Accel-Redirect: /_internal/cache/...
        location ^~ /_internal/cache/ {
            internal;
            alias $dir/storage/cache/;
            default_type application/octet-stream;
            add_header X-Content-Type-Options nosniff always;
        }
        # Job traces and artifacts as nginx/collabd.conf sends them: collabd checks
        # access and answers X-Accel-Redirect: /_internal/ci/...
        location ^~ /_internal/ci/ {
            internal;
            alias $dir/storage/ci/;
            default_type application/octet-stream;
            add_header X-Content-Type-Options nosniff always;
        }
        location = /_internal/414 {
            internal;
            types { }
            default_type application/json;
            return 414 '{"message":"414 Request-URI Too Large"}';
        }
        location / { return 404; }
    }
    include $dir/nginx/conf.d/*.conf;
}
CONF
	cat > "$dir/nginx/fastcgi.conf" <<CONF
fastcgi_pass collabd;
fastcgi_next_upstream error timeout;
include $dir/nginx/fastcgi_params.conf;
CONF
	cat > "$dir/nginx/fastcgi_params.conf" <<'CONF'
fastcgi_param REQUEST_METHOD $request_method;
fastcgi_param REQUEST_URI $request_uri;
fastcgi_param QUERY_STRING $query_string;
fastcgi_param CONTENT_TYPE $content_type;
fastcgi_param CONTENT_LENGTH $content_length;
fastcgi_param REMOTE_ADDR $remote_addr;
fastcgi_param SERVER_NAME $server_name;
fastcgi_param SERVER_PORT $server_port;
fastcgi_param SERVER_PROTOCOL $server_protocol;
fastcgi_param REQUEST_ID $request_id;
CONF
}

# stack_fcgiwrap_start DIR: fcgiwrap on DIR/fcgiwrap.sock for the git location, in the
# background; its pid in DIR/fcgiwrap.pid (stack_fcgiwrap_stop).
stack_fcgiwrap_start() {
	local dir=$1
	rm -f "$dir/fcgiwrap.sock"
	# in a subshell: not a job of the caller, whose bare `wait` must not wait for it; in a
	# process group of its own, which stack_fcgiwrap_stop ends whole
	( setsid /usr/sbin/fcgiwrap -c 4 -s "unix:$dir/fcgiwrap.sock" </dev/null >>"$dir/fcgiwrap.log" 2>&1 &
	  echo $! > "$dir/fcgiwrap.pid" )
	# nginx's workers (another user) connect to it
	wait_for_socket "$dir/fcgiwrap.sock" && chmod 666 "$dir/fcgiwrap.sock"
}

stack_fcgiwrap_stop() {
	local dir=$1
	local pid
	pid=$(cat "$dir/fcgiwrap.pid" 2>/dev/null) || return 0
	# the parent and its children (-c 4) at once, as a group: children killed first were
	# replaced by the parent before it went, and the new ones outlived it
	kill -TERM -- "-$pid" 2>/dev/null || { pkill -TERM -P "$pid"; kill -TERM "$pid"; } 2>/dev/null
	rm -f "$dir/fcgiwrap.pid"
}

stack_nginx_start() {
	local dir=$1
	nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/nginx/error.log" -t -q || return 1
	nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/nginx/error.log"
}

stack_nginx_stop() {
	local dir=$1
	[ -f "$dir/nginx/nginx.pid" ] && nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/nginx/error.log" -s quit 2>/dev/null
	local i; for i in $(seq 1 50); do [ -f "$dir/nginx/nginx.pid" ] || break; sleep 0.1; done
}

# stack_collabd_conf DIR INSTANCE DBURL PORT: writes DIR/collabd-INSTANCE.conf
stack_collabd_conf() {
	local dir=$1 n=$2 url=$3 port=$4
	# a second repository storage (suite_storages); projects go to "default" unless
	# the application setting or an admin names it
	mkdir -p "$dir/storage" "$dir/storage2"
	cat > "$dir/collabd-$n.conf" <<CONF
listen = $dir/collabd-$n.sock
socket_mode = 0666
database_url = $url
external_url = http://127.0.0.1:$port
key_file = $dir/instance.key
storage_path = $dir/storage
repository_storages = default:$dir/storage, second:$dir/storage2
templates_path = $STACK_TEMPLATES
ssh_host = 127.0.0.1
log_level = ${COLLABD_LOG_LEVEL:-info}
CONF
}

# wait_for_socket PATH: until the FastCGI socket exists
wait_for_socket() {
	local i; for i in $(seq 1 100); do [ -S "$1" ] && return 0; sleep 0.1; done
	return 1
}

# sshd_safe_path PATH: whether sshd accepts PATH as an AuthorizedKeysCommand: it and
# every directory above it owned by root and writable by nobody else.
sshd_safe_path() {
	local p; p=$(readlink -f "$1") || return 1
	while :; do
		set -- $(stat -c '%u %a' "$p") || return 1
		[ "$1" = 0 ] && [ $(( 8#$2 & 8#022 )) = 0 ] || return 1
		[ "$p" = / ] && return 0
		p=$(dirname "$p")
	done
}

# stack_sshd_start DIR COLLABD CONFIG: a private sshd for git over SSH on a free loopback
# port, as contrib/sshd/collabd.conf deploys it: keys from `COLLABD -c CONFIG
# authorized-keys`, every session the forced command `collabd shell key-N`. Its config,
# host key, log and pid under DIR/sshd; prints the port. Logins as root (the tests run
# as root) are allowed only with a forced command. sshd runs an AuthorizedKeysCommand
# only from a root-owned path that nobody else may write (nor any directory above it):
# when COLLABD's is not one (a build under /tmp, or not root's), a wrapper in a fresh
# directory under /run runs it (stack_sshd_stop removes it).
stack_sshd_start() {
	local dir=$1 bin=$2 conf=$3 port try keycmd
	mkdir -p "$dir/sshd"
	ssh-keygen -q -t ed25519 -N '' -C collabd-test -f "$dir/sshd/host_ed25519_key" </dev/null || return 1
	bin=$(readlink -f "$bin") conf=$(readlink -f "$conf")
	if sshd_safe_path "$bin"; then
		keycmd="$bin -c $conf authorized-keys"
	else
		local wrap; wrap=$(mktemp -d /run/collabd-sshd.XXXXXX) || return 1
		chmod 755 "$wrap"
		echo "$wrap" > "$dir/sshd/wrapper_dir"
		printf '#!/bin/sh\nexec %q -c %q authorized-keys "$@"\n' "$bin" "$conf" > "$wrap/authorized-keys"
		chmod 755 "$wrap/authorized-keys"
		keycmd="$wrap/authorized-keys"
	fi
	# sshd's privilege separation directory (made by the package's service otherwise)
	[ "$(id -u)" = 0 ] && mkdir -p -m 755 /run/sshd
	for try in 1 2 3; do
		port=$(free_port) || return 1
		cat > "$dir/sshd/sshd_config" <<CONF
ListenAddress 127.0.0.1:$port
HostKey $dir/sshd/host_ed25519_key
PidFile $dir/sshd/sshd.pid
AuthorizedKeysFile none
AuthorizedKeysCommand $keycmd %t %k
AuthorizedKeysCommandUser $(id -un)
PermitRootLogin forced-commands-only
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitTTY no
AllowTcpForwarding no
AllowAgentForwarding no
X11Forwarding no
PermitUserRC no
PrintMotd no
AcceptEnv GIT_PROTOCOL
# The forced command runs through the login user's shell; Debian's bash sources
# ~/.bashrc for sshd's commands unless it is nested: root's must not slow the tests.
SetEnv SHLVL=1
MaxStartups 100:30:200
LogLevel VERBOSE
CONF
		rm -f "$dir/sshd/sshd.pid"
		/usr/sbin/sshd -f "$dir/sshd/sshd_config" -E "$dir/sshd/sshd.log" || return 1
		local i; for i in $(seq 1 50); do [ -s "$dir/sshd/sshd.pid" ] && break; sleep 0.1; done
		if [ -s "$dir/sshd/sshd.pid" ] && kill -0 "$(cat "$dir/sshd/sshd.pid")" 2>/dev/null; then
			echo "$port" > "$dir/sshd/port"
			echo "$port"
			return 0
		fi
	done   # the port was taken meanwhile: another one
	tail -n 20 "$dir/sshd/sshd.log" >&2
	return 1
}

stack_sshd_stop() {
	local dir=$1
	[ -s "$dir/sshd/sshd.pid" ] && kill -TERM "$(cat "$dir/sshd/sshd.pid")" 2>/dev/null
	rm -f "$dir/sshd/sshd.pid"
	if [ -s "$dir/sshd/wrapper_dir" ]; then
		local w; w=$(cat "$dir/sshd/wrapper_dir")
		case $w in /run/collabd-sshd.*) rm -f "$w/authorized-keys"; rmdir "$w";; esac
		rm -f "$dir/sshd/wrapper_dir"
	fi
}
