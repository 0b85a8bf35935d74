#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for tests and CI, on a free loopback port, run as a non-root user.
#   scripts/postgres.sh start DIR   installs PostgreSQL from Debian's packages when missing (as root),
#                                   creates a cluster in DIR with role sgm (password sgm) and database
#                                   sgm, starts it, and prints  url=jdbc:postgresql://127.0.0.1:PORT/sgm
#   scripts/postgres.sh stop DIR    stops it and removes DIR.
#   scripts/postgres.sh down DIR     stops the server and keeps its data;  up DIR  starts it again
#                                   (for tests of a database that goes away and comes back).
set -euo pipefail
command=${1:?start or stop}
dir=${2:?a directory for the cluster}

find_bin() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$found" ] && command -v pg_config >/dev/null 2>&1; then
    found=$(pg_config --bindir)
  fi
  echo "$found"
}

# The server refuses to run as root: run its commands as the postgres user the package creates.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "$command" in
  start)
    bin=$(find_bin)
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
      if [ "$(id -u)" != 0 ]; then
        echo "PostgreSQL is not installed (no initdb found); install the postgresql package" >&2
        exit 3
      fi
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
      bin=$(find_bin)
    fi
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner bash -c "echo sgm > '$dir/pw'"
    as_owner "$bin/initdb" -D "$dir/data" -U sgm --pwfile="$dir/pw" --auth-local=trust \
      --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    # fsync stays on: durability tests measure the real thing. Sockets go in the cluster's folder.
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300" start >&2 \
      || { cat "$dir/server.log" >&2; exit 1; }
    as_owner "$bin/createdb" -h "$dir" -p "$port" -U sgm sgm
    echo "$port" > "$dir/port"
    echo "url=jdbc:postgresql://127.0.0.1:$port/sgm"
    echo "user=sgm"
    echo "password=sgm"
    echo "bin=$bin"
    ;;
  stop)
    bin=$(find_bin)
    if [ -d "$dir/data" ]; then
      as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    fi
    rm -rf "$dir"
    ;;
  down)
    as_owner "$(find_bin)/pg_ctl" -D "$dir/data" -m immediate -w stop >&2
    ;;
  up)
    port=$(cat "$dir/port")
    as_owner "$(find_bin)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300" start >&2
    ;;
  *)
    echo "usage: $0 start|stop|down|up DIR" >&2
    exit 2
    ;;
esac
