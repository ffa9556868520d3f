#!/usr/bin/env bash
# run_loadtest.sh TABULA — `tabula loadtest` as a user meets it: a short run
# against a server it spawns gives valid JSON with decisions made and no
# error, and leaves no server and no temporary directory behind; a run
# against a running server (--url) finds its process; wrong usage (an
# unknown flag, a missing value, a host that is not loopback) is one line
# on stderr and exit status 2, before any connection is made; Ctrl-C ends a
# run early with its report and exit status 130.  Faults (issue 32): 100
# games while the spawned server is killed with SIGKILL 5 times and started
# again lose no acknowledged decision (--chaos-kills, read back with
# --verify), the seats reconnect and play on, and no server process is left.
set -u
tabula=$1
tmp=$(mktemp -d)
export TMPDIR=$tmp   # where --spawn makes its temporary directory
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

# the JSON has the documented fields; FIELD OP VALUE checks, in python
json_check() { # FILE EXPRESSION (j is the object)
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

out=$("$tabula" loadtest --help 2>&1); rc=$?
check "help exits 0" test $rc -eq 0
check "help mentions usage" grep -q "usage: tabula loadtest" <<<"$out"

# a real run: 20 games flat out for 3 s on a spawned server
"$tabula" loadtest --spawn --games 20 --rate 0 --seconds 3 --json >"$tmp/run.json" 2>"$tmp/run.err"
rc=$?
check "spawned run exits 0" test $rc -eq 0
check "spawned run prints JSON" json_check "$tmp/run.json" 'isinstance(j, dict)'
for f in games moves_per_s p50_ms p95_ms p99_ms max_ms errors server_cpu_s server_rss_mb; do
  check "JSON has $f" json_check "$tmp/run.json" "'$f' in j"
done
check "20 games" json_check "$tmp/run.json" 'j["games"] == 20'
check "moves_per_s > 0" json_check "$tmp/run.json" 'j["moves_per_s"] > 0'
check "errors == 0" json_check "$tmp/run.json" 'j["errors"] == 0'
check "percentiles in order" json_check "$tmp/run.json" '0 < j["p50_ms"] <= j["p95_ms"] <= j["p99_ms"] <= j["max_ms"]'
check "server CPU and RSS measured" json_check "$tmp/run.json" 'j["server_cpu_s"] > 0 and j["server_rss_mb"] > 0'
check "the spawned server exited cleanly" json_check "$tmp/run.json" 'j["server_exit"] == 0'
check "progress lines on stderr" grep -q "^loadtest run" "$tmp/run.err"
check "no temporary directory left" test -z "$(ls "$tmp" | grep tabula-loadtest)"
pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["server_pid"])' "$tmp/run.json")
check "no server left" bash -c "! kill -0 $pid 2>/dev/null"

# against a running server: its process is found through its port
"$tabula" serve --port 0 --db "$tmp/url.db" --ai-delay-ms 0 --quiet >"$tmp/serve.out" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "serving at" "$tmp/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$tmp/serve.out")
"$tabula" loadtest --url "$url" --games 5 --rate 5 --seconds 1 --game arkadia --json --quiet >"$tmp/url.json"
check "--url run exits 0" test $? -eq 0
check "--url run plays" json_check "$tmp/url.json" 'j["moves"] > 0 and j["errors"] == 0'
check "--url run finds the server's pid" json_check "$tmp/url.json" "j['server_pid'] == $server"
check "--url run verifies" json_check "$tmp/url.json" 'j["verify"] is False and j["lost"] is None'
"$tabula" loadtest --url "$url" --games 5 --rate 5 --seconds 1 --verify --json --quiet >"$tmp/verify.json"
check "--verify run exits 0" test $? -eq 0
check "--verify reads every acknowledged decision back" json_check "$tmp/verify.json" \
  'j["verify"] and j["acked"] > 0 and j["verified"] == j["acked"] and j["lost"] == 0'
kill "$server"; wait "$server" 2>/dev/null; server=

# kill -9 under load: 100 games, 5 kills, every acknowledged decision still there
"$tabula" loadtest --spawn --games 100 --rate 2 --seconds 10 --chaos-kills 5 --json --quiet \
  >"$tmp/chaos.json" 2>"$tmp/chaos.err"
rc=$?
check "chaos run exits 0" test $rc -eq 0
[ $rc -eq 0 ] || cat "$tmp/chaos.err"
check "chaos run: 5 kills" json_check "$tmp/chaos.json" 'j["kills"] == 5'
check "chaos run: nothing lost" json_check "$tmp/chaos.json" \
  'j["lost"] == 0 and j["verified"] == j["acked"] > 500'
check "chaos run: no error" json_check "$tmp/chaos.json" 'j["errors"] == 0 and j["error_codes"] == {}'
check "chaos run: games came back and played on" json_check "$tmp/chaos.json" \
  'j["reconnects"] >= 100 and j["unplayable_games"] >= 100 and 0 < j["unplayable_p50_ms"] <= j["unplayable_max_ms"] < 10000 and j["moves"] > 500'
check "chaos run leaves no server" bash -c "! pgrep -f -- '$tmp/[t]abula-loadtest' >/dev/null"
check "chaos run leaves no temporary directory" test -z "$(ls "$tmp" | grep tabula-loadtest)"

# Ctrl-C: the window ends at once, the report is printed, nothing is left behind
"$tabula" loadtest --spawn --games 5 --rate 2 --seconds 60 --json --quiet >"$tmp/int.json" 2>"$tmp/int.err" &
lt=$!
sleep 3
kill -INT $lt
wait $lt; rc=$?
check "interrupted run exits 130" test $rc -eq 130
check "interrupted run still reports" json_check "$tmp/int.json" 'j["errors"] == 0 and j["seconds"] < 10'
check "interrupted run leaves no temporary directory" test -z "$(ls "$tmp" | grep tabula-loadtest)"
pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["server_pid"])' "$tmp/int.json" 2>/dev/null)
check "interrupted run leaves no server" bash -c "[ -n '$pid' ] && ! kill -0 '$pid' 2>/dev/null"

# wrong usage: exit 2, one line on stderr, nothing contacted
usage_case() {
  local name=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; local rc=$?
  check "$name exits 2" test $rc -eq 2
  check "$name says one line" test "$(wc -l <"$tmp/err")" -eq 1
}
usage_case "unknown flag" "$tabula" loadtest --frobnicate
usage_case "missing value" "$tabula" loadtest --games
usage_case "bad games" "$tabula" loadtest --games 0
usage_case "bad rate" "$tabula" loadtest --rate fast
usage_case "unknown game" "$tabula" loadtest --game chess
usage_case "non-loopback URL" "$tabula" loadtest --url http://10.1.2.3:8080/
usage_case "host name URL" "$tabula" loadtest --url http://example.com/
usage_case "IPv6 non-loopback URL" "$tabula" loadtest --url 'http://[2001:db8::1]:80/'
usage_case "https URL" "$tabula" loadtest --url https://127.0.0.1:8080/
usage_case "--url and --spawn" "$tabula" loadtest --url http://127.0.0.1:8080/ --spawn
usage_case "--chaos-kills with --url" "$tabula" loadtest --url http://127.0.0.1:8080/ --chaos-kills 2
usage_case "bad --chaos-kills" "$tabula" loadtest --chaos-kills many
usage_case "--servers without PostgreSQL" "$tabula" loadtest --spawn --servers 2
usage_case "bad --servers" "$tabula" loadtest --servers 9
usage_case "non-loopback database" "$tabula" loadtest --spawn --db postgresql://u@10.0.0.1/db
check "refusal names the rule" grep -q "loopback" "$tmp/err"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
