#!/usr/bin/env bash
# Throwaway PostgreSQL and Redis servers on loopback for the store test suite.
#
#   scripts/services.sh start    install (Debian packages) when missing, start both servers on
#                                free ports of 127.0.0.1, print `export ...` lines
#   scripts/services.sh stop     stop both servers and delete their data
#   scripts/services.sh env      print the `export ...` lines of the running servers
#   scripts/services.sh status   exit 0 when both servers are running
#
# Data lives in $CHATFOLD_SERVICES_DIR (default: <repo>/.services, gitignored). `start` is
# idempotent: when the servers are already running it only prints their environment.
# Needs bash, coreutils, util-linux (flock, runuser) and, when the servers are missing, apt-get.
# PostgreSQL refuses to run as root, so as root it runs as the `postgres` system user.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${CHATFOLD_SERVICES_DIR:-$REPO/.services}"
ENV_FILE="$DIR/env"
PG_USER_NAME=chatfold
PG_DB=chatfold_test

log() { printf 'services: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# Run a command as the user that owns the PostgreSQL cluster.
as_pg() {
    if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_bindir() {
    local d
    d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
    return 1
}

redis_bin() { command -v redis-server 2>/dev/null || { [ -x /usr/bin/redis-server ] && echo /usr/bin/redis-server; }; }

ensure_packages() {
    local missing=()
    pg_bindir >/dev/null || missing+=(postgresql)
    redis_bin >/dev/null || missing+=(redis-server)
    [ "${#missing[@]}" = 0 ] && return 0
    is_root || die "missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root"
    command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
    log "installing ${missing[*]} (apt-get)"
    # Keep the packages' own system services from starting (the Docker convention): we only
    # want the binaries. Restore whatever was there before.
    local policy=/usr/sbin/policy-rc.d created_policy=0
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1
    fi
    local rc=0
    {
        apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                "${missing[@]}"
    } >"${TMPDIR:-/tmp}/chatfold-services-apt.log" 2>&1 || rc=$?
    [ "$created_policy" = 1 ] && rm -f "$policy"
    if [ "$rc" != 0 ]; then
        tail -n 20 "${TMPDIR:-/tmp}/chatfold-services-apt.log" >&2
        die "apt-get install ${missing[*]} failed"
    fi
    pg_bindir >/dev/null || die "postgresql installed but initdb not found"
    redis_bin >/dev/null || die "redis-server installed but not found"
}

ensure_pg_user() {
    is_root || return 0
    id postgres >/dev/null 2>&1 && return 0
    log "creating the postgres system user"
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin postgres
}

# Two distinct free TCP ports on 127.0.0.1 (both sockets held open while choosing).
free_ports() {
    if command -v python3 >/dev/null 2>&1; then
        python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
EOF
        return
    fi
    # No python3: random high ports nobody answers on.
    local ports=() port
    while [ "${#ports[@]}" -lt 2 ]; do
        port=$((20000 + RANDOM % 40000))
        [ "${#ports[@]}" = 1 ] && [ "${ports[0]}" = "$port" ] && continue
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
        ports+=("$port")
    done
    echo "${ports[*]}"
}

random_secret() { od -An -tx1 -N12 /dev/urandom | tr -d ' \n'; }

pg_running() {
    [ -f "$DIR/pgdata" ] || return 1
    local bindir data
    bindir="$(cat "$DIR/pgbin")" data="$(cat "$DIR/pgdata")"
    [ -d "$data" ] && as_pg "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1
}

redis_running() {
    [ -f "$DIR/redis/port" ] && [ -f "$DIR/redis/password" ] &&
        redis_ping "$(cat "$DIR/redis/port")" "$(cat "$DIR/redis/password")"
}

running() { [ -f "$ENV_FILE" ] && pg_running && redis_running; }

start_postgres() {
    local port="$1" password="$2" bindir data pwfile
    bindir="$(pg_bindir)"
    ensure_pg_user
    data="$DIR/pg"
    mkdir -p "$data"
    is_root && chown postgres: "$data"
    chmod 700 "$data"
    # The cluster user must reach the data directory, and the socket path must fit in 107 bytes;
    # otherwise fall back to a directory under /tmp (recorded in $DIR/pgdata, removed by stop).
    if ! as_pg test -w "$data" || [ "${#data}" -gt 80 ]; then
        rm -rf "$data"
        data="$(mktemp -d /tmp/chatfold-pg.XXXXXX)"
        is_root && chown postgres: "$data"
    fi
    echo "$bindir" >"$DIR/pgbin"
    echo "$data" >"$DIR/pgdata"
    pwfile="$(mktemp /tmp/chatfold-pgpw.XXXXXX)"
    echo "$password" >"$pwfile"
    is_root && chown postgres: "$pwfile"
    as_pg "$bindir/initdb" -D "$data" -U "$PG_USER_NAME" --pwfile="$pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --no-locale --no-sync \
        >"$DIR/initdb.log" 2>&1 || { rm -f "$pwfile"; cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    rm -f "$pwfile"
    # Durability is pointless for a throwaway test server: trade it for speed.
    cat >>"$data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$data'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
    # 9>&-: the servers must not inherit the lock of with_lock, or they would hold it forever.
    as_pg "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -w -t 30 start >/dev/null 2>&1 9>&- || {
        tail -n 20 "$data/server.log" >&2 || true
        die "postgres did not start"
    }
    as_pg "$bindir/createdb" -h "$data" -p "$port" -U "$PG_USER_NAME" "$PG_DB"
}

start_redis() {
    local port="$1" password="$2" bin
    bin="$(redis_bin)"
    mkdir -p "$DIR/redis"
    echo "$port" >"$DIR/redis/port"
    (umask 077 && echo "$password" >"$DIR/redis/password")
    "$bin" --bind 127.0.0.1 --port "$port" --protected-mode yes --requirepass "$password" \
        --daemonize yes --pidfile "$DIR/redis/redis.pid" --logfile "$DIR/redis/redis.log" \
        --dir "$DIR/redis" --save '' --appendonly no >/dev/null 9>&-
    local i
    for i in $(seq 1 100); do
        redis_ping "$port" "$password" && return 0
        sleep 0.05
    done
    tail -n 20 "$DIR/redis/redis.log" >&2 || true
    die "redis did not start"
}

redis_ping() {
    if command -v redis-cli >/dev/null 2>&1; then
        [ "$(redis-cli -h 127.0.0.1 -p "$1" --no-auth-warning -a "$2" ping 2>/dev/null)" = PONG ]
        return
    fi
    python3 - "$1" "$2" 2>/dev/null <<'EOF'
import socket, sys
port, password = int(sys.argv[1]), sys.argv[2]
with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
    s.sendall(f"AUTH {password}\r\nPING\r\n".encode())
    data = b""
    while b"PONG" not in data:
        chunk = s.recv(100)
        if not chunk:
            sys.exit(1)
        data += chunk
EOF
}

cmd_start() {
    if running; then
        cat "$ENV_FILE"
        return 0
    fi
    cmd_stop_quiet  # clear a half-started or crashed previous run
    ensure_packages
    mkdir -p "$DIR"
    chmod 755 "$DIR"
    started=0
    trap '[ "$started" = 1 ] || { log "start failed; cleaning up"; cmd_stop_quiet; }' EXIT
    local ports pg_port redis_port pg_password redis_password
    ports="$(free_ports)"
    pg_port="${ports% *}" redis_port="${ports#* }"
    pg_password="$(random_secret)" redis_password="$(random_secret)"
    start_postgres "$pg_port" "$pg_password"
    start_redis "$redis_port" "$redis_password"
    {
        echo "export CHATFOLD_TEST_POSTGRES_URL=postgresql://$PG_USER_NAME:$pg_password@127.0.0.1:$pg_port/$PG_DB"
        echo "export CHATFOLD_TEST_REDIS_URL=redis://:$redis_password@127.0.0.1:$redis_port/0"
    } >"$ENV_FILE.tmp"
    mv "$ENV_FILE.tmp" "$ENV_FILE"
    started=1
    cat "$ENV_FILE"
}

# A process that has exited, or a zombie not yet reaped by init, counts as gone.
alive() {
    local state
    state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)"
    [ -n "$state" ] && [ "$state" != Z ]
}

cmd_stop_quiet() {
    if [ -f "$DIR/pgdata" ]; then
        local bindir data
        bindir="$(cat "$DIR/pgbin" 2>/dev/null || pg_bindir || true)" data="$(cat "$DIR/pgdata")"
        if [ -d "$data" ] && [ -n "$bindir" ]; then
            as_pg "$bindir/pg_ctl" -D "$data" -m immediate -w -t 20 stop >/dev/null 2>&1 || true
        fi
        case "$data" in /tmp/chatfold-pg.*) rm -rf "$data" ;; esac
    fi
    if [ -f "$DIR/redis/redis.pid" ]; then
        local pid i
        pid="$(cat "$DIR/redis/redis.pid")"
        if kill "$pid" 2>/dev/null; then
            for i in $(seq 1 100); do
                alive "$pid" || break
                sleep 0.05
            done
            kill -9 "$pid" 2>/dev/null || true
        fi
    fi
    # Only what start created: $DIR may also hold other runs' directories (with-services.sh).
    rm -rf "$DIR/pg" "$DIR/redis" "$DIR/env" "$DIR/env.tmp" "$DIR/pgbin" "$DIR/pgdata" \
        "$DIR/initdb.log"
    rmdir "$DIR" 2>/dev/null || true
}

with_lock() {
    local lock
    lock="/tmp/chatfold-services-$(printf '%s' "$DIR" | cksum | cut -d' ' -f1).lock"
    exec 9>"$lock"
    flock -w 120 9 || die "another services.sh holds $lock"
    "$@"
}

case "${1:-}" in
    start) with_lock cmd_start ;;
    stop) with_lock cmd_stop_quiet ;;
    env)
        running || die "not running; use: scripts/services.sh start"
        cat "$ENV_FILE"
        ;;
    status) running ;;
    *)
        echo "usage: $0 start|stop|env|status" >&2
        exit 1
        ;;
esac
