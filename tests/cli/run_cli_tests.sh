#!/usr/bin/env bash
# run_cli_tests.sh TABULA DIR — the command line as a user meets it: help on
# every command, one-line errors with exit 2 on wrong usage, a whole game of
# Clans typed by a "person" (play_person.py reads the prompts), a game between
# agents, the saved record replayed, and no colour codes when not on a terminal.
set -u
tabula=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

# --help everywhere, exit 0
for cmd in "" play engine replay bench; do
  out=$("$tabula" $cmd --help 2>&1); rc=$?
  check "help ${cmd:-tabula}" test $rc -eq 0 -a -n "$out"
  check "help ${cmd:-tabula} mentions usage" grep -q "usage" <<<"$out"
done

# wrong usage: exit 2 and exactly one line on stderr
usage_case() {
  local name=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; local rc=$?
  check "$name exits 2" test $rc -eq 2
  check "$name says one line" test "$(wc -l <"$tmp/err")" -eq 1
}
usage_case "unknown command" "$tabula" frobnicate
usage_case "play without game" "$tabula" play
usage_case "play unknown game" "$tabula" play chess
usage_case "play bad players" "$tabula" play clans --players 7
usage_case "play bad seat" "$tabula" play clans --seats human,oracle
usage_case "play bad option" "$tabula" play clans colour=red
usage_case "play seats/players mismatch" "$tabula" play clans --players 3 --seats human,random
usage_case "play bad seed" "$tabula" play clans --seed minus
usage_case "replay without file" "$tabula" replay
usage_case "bench bad seconds" "$tabula" bench --seconds x
usage_case "bench unknown game" "$tabula" bench go
usage_case "serve bad pause between a computer's decisions" "$tabula" serve --ai-step-ms 60001
usage_case "engine extra argument" "$tabula" engine now

# a game between agents plays through and saves its record
"$tabula" play clans --seats random,random,random --seed 12 --record "$tmp/ai.json" </dev/null >"$tmp/ai.out" 2>&1
check "agents' game ends" grep -q "Game over." "$tmp/ai.out"
check "agents' game saves the record" test -s "$tmp/ai.json"
check "no colour codes off a terminal" bash -c "! grep -q $'\033' '$tmp/ai.out'"
"$tabula" replay "$tmp/ai.json" --to 5 >"$tmp/r5.out" 2>&1
check "replay --to 5" grep -q "Decision 5 of" "$tmp/r5.out"
printf 'n\nn\nb\n3\ne\nzz\nq\n' | "$tabula" replay "$tmp/ai.json" >"$tmp/rs.out" 2>&1
check "replay steps" grep -q "Decision 3 of" "$tmp/rs.out"
check "replay reaches the end" grep -q "Result:" "$tmp/rs.out"
check "replay explains a bad command" grep -q "'zz' is not a replay command" "$tmp/rs.out"
check "replay says the move in words once, under the board's notation" bash -c "[ \$(grep -c 'Last move:' '$tmp/r5.out') -eq 1 ] && grep -qE 'Decision 5 of [0-9]+: .+ moves [0-9]+ huts? from the [a-z]+ at [0-9]+ to the [a-z]+ at [0-9]+' '$tmp/r5.out'"
check "the terminal game says each decision in words" grep -qE '^Seat [0-9] moves [0-9]+ huts? from the [a-z]+ at [0-9]+' "$tmp/ai.out"
check "replay names the seats from 1" grep -q "seat 1 .*seat 2 .*seat 3 " "$tmp/r5.out"
# a server record with a take-back against the computer (docs/records.md): replayed as it
# stands, the take-back said once
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); r['takebacks']=[{'seat':0,'after':2,'moves':['1-2','3-4'],'seats':[0,1],'revealed':True,'at':'2026-11-21T18:00:00Z'}]; json.dump(r,open(sys.argv[2],'w'))" "$tmp/ai.json" "$tmp/tb.json"
"$tabula" replay "$tmp/tb.json" --to 5 >"$tmp/tb.out" 2>&1
check "replay of a record with a take-back" grep -q "Decision 5 of" "$tmp/tb.out"
check "replay says the take-back" grep -q "went back to decision 2, 2 decisions undone (something hidden had been shown" "$tmp/tb.out"
"$tabula" replay "$tmp/ai.json" --to 5 --seat 1 >"$tmp/rseat.out" 2>&1
check "replay --seat 1 shows the first seat's view" grep -q "you are seat 1" "$tmp/rseat.out"
"$tabula" replay "$tmp/ai.json" --seat 0 >/dev/null 2>"$tmp/rseat0.err"; rc=$?
check "replay --seat 0 is refused (seats count from 1)" bash -c "[ $rc -eq 2 ] && grep -q 'from 1' '$tmp/rseat0.err'"
echo '{"format":"tabula-record","version":1,"game":"clans","players":[{"name":"a","kind":"h"},{"name":"b","kind":"h"}],"seed":"1","moves":["1-60"]}' >"$tmp/badrec.json"
"$tabula" replay "$tmp/badrec.json" >"$tmp/bad.out" 2>&1; rc=$?
check "replay refuses a record that does not replay" test $rc -eq 1
check "replay names the bad decision" grep -q "decision 1 '1-60'" "$tmp/bad.out"
echo 'not json' >"$tmp/garbage.json"
"$tabula" replay "$tmp/garbage.json" >/dev/null 2>"$tmp/garbage.err"; rc=$?
check "replay refuses garbage" test $rc -eq 1 -a -s "$tmp/garbage.err"

# every game: a person plays a whole game through the prompts (typo, help,
# undo on the way), and a game between agents plays through and replays
games=$(printf 'list_games\n' | "$tabula" engine | sed -n 's/^= //p')
for game in $games; do
  python3 "$(dirname "$0")/play_person.py" "$tabula" "$game" 2 "$tmp/human-$game.json" | sed 's/^/  /'
  check "$game: a person plays a whole game" test "${PIPESTATUS[0]}" -eq 0
  "$tabula" replay "$tmp/human-$game.json" --to 0 >/dev/null 2>&1
  check "$game: the person's record replays" test $? -eq 0
  check "$game: the record names the human" grep -q '"kind":"human"' "$tmp/human-$game.json"
  "$tabula" play "$game" --seats random,random,random --seed 5 --record "$tmp/ai-$game.json" </dev/null >"$tmp/ai-$game.out" 2>&1
  check "$game: an agents' game ends" grep -q "Game over." "$tmp/ai-$game.out"
  check "$game: the result says where each seat's points come from" \
    grep -Eq '^       [A-Z].* +-?[0-9]+$' "$tmp/ai-$game.out"
  printf 'e\nq\n' | "$tabula" replay "$tmp/ai-$game.json" >"$tmp/replay-$game.out" 2>&1
  check "$game: its record replays to the result" grep -q "Result:" "$tmp/replay-$game.out"
done

# Arkadia: the other players' gold can be hidden (issue 3: "the UIs offer to
# hide opponents' totals"), by the switch or the `totals` command
"$tabula" play arkadia --seats human,random --seed 2 --hide-totals --record "$tmp/hide.json" </dev/null >"$tmp/hide.out" 2>&1
check "arkadia --hide-totals hides the other seat's gold" grep -q "gold   ?" "$tmp/hide.out"
check "arkadia --hide-totals keeps your own gold" grep -q "(you)  gold   0" "$tmp/hide.out"
printf 'totals\nquit\n' | "$tabula" play arkadia --seats human,random --seed 2 --record "$tmp/hide2.json" >"$tmp/hide2.out" 2>&1
check "arkadia totals command hides them" grep -q "totals are now hidden" "$tmp/hide2.out"
check "arkadia totals shown by default" bash -c "grep -m1 -A1 '(you)  gold' '$tmp/hide2.out' | grep -q 'gold   0'"

# input ending mid-game saves the record and exits cleanly
printf 'help\nlegal\n' | "$tabula" play clans --seats human,random --seed 4 --record "$tmp/cut.json" >"$tmp/cut.out" 2>&1; rc=$?
check "input ending mid-game exits 0" test $rc -eq 0
check "input ending mid-game saves" test -s "$tmp/cut.json"
check "help lists commands" grep -q "undo" "$tmp/cut.out"

# the benchmark's JSON has the documented fields
"$tabula" bench clans --seconds 0.2 --json >"$tmp/bench.json"
for f in games_per_s decisions_per_s ns_per_decision clone_ns; do
  check "bench --json has $f" grep -q "\"$f\":" "$tmp/bench.json"
done

# Board files (docs/data-format.md): play on one, replay only with it, a bad
# file refused naming its line, the engine's --data-dir
small=$2/../data/khronos-small.txt
mkdir -p "$tmp/boards/khronos"
cp "$small" "$tmp/boards/khronos/small.txt"
"$tabula" play khronos --board "$tmp/boards/khronos/small.txt" --seats random,random --seed 4 \
  --record "$tmp/kb.json" </dev/null >"$tmp/kb.out" 2>&1; rc=$?
check "play --board FILE plays a game" bash -c "[ $rc -eq 0 ] && grep -q \"on the board 'small'\" '$tmp/kb.out'"
check "the record names the board" grep -q '"data":{"name":"small","hash":"[0-9a-f]\{16\}"}' "$tmp/kb.json"
"$tabula" replay "$tmp/kb.json" --to 3 >/dev/null 2>"$tmp/kb.err"; rc=$?
check "replay without the board is refused, saying which" bash -c "[ $rc -eq 1 ] && grep -q \"board 'small', which is not installed\" '$tmp/kb.err'"
check "replay --board FILE" bash -c "'$tabula' replay '$tmp/kb.json' --to 3 --board '$tmp/boards/khronos/small.txt' | grep -q 'Decision 3 of'"
check "replay --data-dir DIR" bash -c "'$tabula' replay '$tmp/kb.json' --to 3 --data-dir '$tmp/boards' | grep -q 'Decision 3 of'"
sed 's/^hand 4$/hand 5/' "$small" > "$tmp/changed.txt"
mkdir -p "$tmp/changed/khronos"; cp "$tmp/changed.txt" "$tmp/changed/khronos/small.txt"
"$tabula" replay "$tmp/kb.json" --data-dir "$tmp/changed" >/dev/null 2>"$tmp/kc.err"; rc=$?
check "replay on a changed board is refused" bash -c "[ $rc -eq 1 ] && grep -q 'different version' '$tmp/kc.err'"
sed 's/^row 3 \(.*\)$/row 3 ....~~..mq/' "$small" > "$tmp/bad.txt"
usage_case "play --board with a bad file" "$tabula" play khronos --board "$tmp/bad.txt"
check "the bad file's line is named" grep -q "bad.txt:8: row 3: unknown terrain letter 'q'" "$tmp/err"
usage_case "play clans --board" "$tabula" play clans --board "$small"
cp "$tmp/bad.txt" "$tmp/boards/khronos/bad.txt"
"$tabula" engine --data-dir "$tmp/boards" </dev/null >/dev/null 2>"$tmp/eb.err"; rc=$?
check "engine --data-dir with a bad file does not start" bash -c "[ $rc -eq 1 ] && grep -q 'khronos/bad.txt:8:' '$tmp/eb.err'"
rm "$tmp/boards/khronos/bad.txt"
check "engine --data-dir offers the boards by name" bash -c "printf 'list_boards khronos\nnew khronos board=small players=2\n' | '$tabula' engine --data-dir '$tmp/boards' | grep -q '^small [0-9a-f]'"
# Tournaments and benchmarks on a board file
"$tabula" match --game khronos --agents random,random --games 2 --board "$tmp/boards/khronos/small.txt" \
  --quiet --out "$tmp/mb.json" </dev/null >"$tmp/mb.out" 2>&1; rc=$?
check "match --board FILE plays on it" bash -c "[ $rc -eq 0 ] && grep -q \"on the board 'small'\" '$tmp/mb.out'"
check "match --board: the summary and every record name the board" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['data']['name'] == 'small' and len(d['records']) == 2
assert all(r['data']['name'] == 'small' for r in d['records'])
json.dump(d['records'][0], open(sys.argv[2], 'w'))" "$tmp/mb.json" "$tmp/mb0.json"
check "a match's record replays with the board" bash -c "'$tabula' replay '$tmp/mb0.json' --to 2 --board '$tmp/boards/khronos/small.txt' | grep -q 'Decision 2 of'"
usage_case "match clans --board" "$tabula" match --game clans --agents random,random --games 1 --board "$small"
check "bench --board FILE measures on it" bash -c "'$tabula' bench khronos --board '$small' --seconds 0.2 --json | grep -q '\"ns_per_decision\":'"
check "bench --agent --board FILE" bash -c "'$tabula' bench --agent random khronos --board '$small' --decisions 2 | grep -q \"on the board 'khronos-small'\""
usage_case "bench --board without one game" "$tabula" bench --board "$small"
usage_case "bench --board with a bad file" "$tabula" bench khronos --board "$tmp/bad.txt"

# The same for an Arkadia board (tests/data/arkadia_moved.txt: other tents, a 4 x 4 lot)
moved=$2/../data/arkadia_moved.txt
mkdir -p "$tmp/boards/arkadia"
cp "$moved" "$tmp/boards/arkadia/moved.txt"
"$tabula" play arkadia --board "$tmp/boards/arkadia/moved.txt" --seats random,random --seed 5 \
  --record "$tmp/ab.json" </dev/null >"$tmp/ab.out" 2>&1; rc=$?
check "arkadia: play --board FILE plays a game" bash -c "[ $rc -eq 0 ] && grep -q \"on the board 'moved'\" '$tmp/ab.out'"
check "arkadia: the record names the board" grep -q '"data":{"name":"moved","hash":"[0-9a-f]\{16\}"}' "$tmp/ab.json"
"$tabula" replay "$tmp/ab.json" --to 3 >/dev/null 2>"$tmp/ab.err"; rc=$?
check "arkadia: replay without the board is refused" bash -c "[ $rc -eq 1 ] && grep -q \"board 'moved', which is not installed\" '$tmp/ab.err'"
check "arkadia: replay --board FILE" bash -c "'$tabula' replay '$tmp/ab.json' --to 3 --board '$tmp/boards/arkadia/moved.txt' | grep -q 'Decision 3 of'"
sed 's/^tents a1 f1 /tents a1 a1 /' "$moved" > "$tmp/abad.txt"
usage_case "arkadia: play --board with a bad file" "$tabula" play arkadia --board "$tmp/abad.txt"
check "arkadia: the bad file's line is named" grep -q "abad.txt:15: the tent on a1 is given twice" "$tmp/err"
check "arkadia: engine --data-dir plays on the board by name" bash -c "printf 'list_boards arkadia\nnew arkadia board=moved players=2\nlegal\n' | '$tabula' engine --data-dir '$tmp/boards' | grep -q '^lot k4'"
check "arkadia: the built-in board has no such lot place" bash -c "! printf 'new arkadia players=2\nlegal\n' | '$tabula' engine | grep -q '^lot k4'"

# Files that are no board, record or state (tabula.h, tb_file_read): a device, a FIFO nobody
# writes to, a folder and a sparse file over 64 MiB are refused at once in one line, never
# read (each run under `timeout 10`: a reader that waits on the FIFO or reads /dev/zero to
# its end fails here)
mkfifo "$tmp/fifo.txt"
truncate -s $(((64 << 20) + 1)) "$tmp/big.txt"
mkdir "$tmp/folder.txt"
for f in /dev/zero "$tmp/fifo.txt" "$tmp/big.txt" "$tmp/folder.txt"; do
  case $f in
    /dev/zero) why="is a device, not a file" ;;
    *fifo.txt) why="is a pipe (FIFO), not a file" ;;
    *big.txt) why="is larger than 64 MiB" ;;
    *) why="is a folder, not a file" ;;
  esac
  usage_case "play --board ${f##*/}" timeout 10 "$tabula" play khronos --board "$f"
  check "play --board ${f##*/} says why" grep -qF "$f $why" "$tmp/err"
  for cmd in replay review; do
    timeout 10 "$tabula" $cmd "$f" </dev/null >/dev/null 2>"$tmp/err"; rc=$?
    check "$cmd ${f##*/} is refused in one line" bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -qF '$f $why' '$tmp/err'"
  done
done
mkdir -p "$tmp/fifodir/khronos"; mkfifo "$tmp/fifodir/khronos/waits.txt"
timeout 10 "$tabula" serve --data-dir "$tmp/fifodir" --port 0 --db "$tmp/fifo.db" </dev/null >/dev/null 2>"$tmp/err"; rc=$?
check "serve --data-dir with a FIFO board does not start" bash -c "[ $rc -eq 1 ] && grep -qF 'waits.txt is a pipe (FIFO), not a file' '$tmp/err'"
timeout 10 "$tabula" engine --data-dir "$tmp/fifodir" </dev/null >/dev/null 2>"$tmp/err"; rc=$?
check "engine --data-dir with a FIFO board does not start" bash -c "[ $rc -eq 1 ] && grep -qF 'waits.txt is a pipe (FIFO)' '$tmp/err'"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
