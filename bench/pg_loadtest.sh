#!/usr/bin/env bash
# pg_loadtest.sh TABULA [GAMES_PER_SERVER] [RATE] [SECONDS] — the load test
# through PostgreSQL with two server processes on one database: starts a
# throwaway PostgreSQL cluster (fsync on, as in production) on a free
# loopback port in a temporary folder, two `tabula serve --db postgresql://…`
# on it, and one `tabula loadtest --url` against each at the same time; prints
# both JSON reports and their sum.  Everything runs on 127.0.0.1 and is
# stopped and deleted at the end, also on failure or Ctrl-C.
set -euo pipefail
tabula=$(realpath "${1:?usage: pg_loadtest.sh TABULA [GAMES_PER_SERVER] [RATE] [SECONDS]}")
games=${2:-500} rate=${3:-2} seconds=${4:-20}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "pg_loadtest: PostgreSQL is not installed (scripts/packages.txt)" >&2; exit 1; }
dir=$(mktemp -d /tmp/tabula-pgload-XXXXXX)
as_pg=()
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; as_pg=(runuser -u postgres --); fi
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "${as_pg[@]}" "$bin/pg_ctl" stop -D "$dir/data" -m fast -w >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM
KEEP_LOGS=${KEEP_LOGS:-}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
"${as_pg[@]}" "$bin/initdb" -D "$dir/data" -U tabula -A trust -E UTF8 --no-locale >/dev/null
"${as_pg[@]}" "$bin/pg_ctl" start -D "$dir/data" -w -t 30 -l "$dir/log" \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200" >/dev/null
"${as_pg[@]}" "$bin/psql" -h 127.0.0.1 -p "$port" -U tabula -d postgres -qc 'CREATE DATABASE load' >/dev/null
url="postgresql://tabula@127.0.0.1:$port/load"
for i in 1 2; do
  "$tabula" serve --host 127.0.0.1 --port 0 --db "$url" --ai-delay-ms 0 --max-per-address 0 --quiet \
    >"$dir/serve$i.out" 2>"$dir/serve$i.err" &
  pids+=($!)
done
for i in 1 2; do
  for _ in $(seq 100); do grep -q 'serving at' "$dir/serve$i.out" && break; sleep 0.1; done
  grep -q 'serving at' "$dir/serve$i.out" || { cat "$dir/serve$i.err" >&2; exit 1; }
done
echo "# PostgreSQL $(basename "$(dirname "$bin")") on 127.0.0.1:$port (fsync on); two servers; $games games each at $rate/s for $seconds s"
for i in 1 2; do
  u=$(grep -o 'http://127.0.0.1:[0-9]*/' "$dir/serve$i.out" | head -1)
  "$tabula" loadtest --url "$u" --games "$games" --rate "$rate" --seconds "$seconds" --json --quiet \
    >"$dir/load$i.json" &
  pids+=($!)
done
wait "${pids[2]}" "${pids[3]}" || true
for i in 1 2; do echo "server $i: $(cat "$dir/load$i.json")"; done
python3 - "$dir/load1.json" "$dir/load2.json" <<'EOF'
import json, sys
r = [json.load(open(p)) for p in sys.argv[1:]]
print("together: %.0f decisions/s, p99 %.1f / %.1f ms, max %.1f ms, errors %d" % (
    sum(x["moves_per_s"] for x in r), r[0]["p99_ms"], r[1]["p99_ms"],
    max(x["max_ms"] for x in r), sum(x["errors"] for x in r)))
EOF
