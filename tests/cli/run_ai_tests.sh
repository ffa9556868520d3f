#!/usr/bin/env bash
# run_ai_tests.sh TABULA — the computer opponent on the command line:
# `tabula match` as a user meets it (help, one-line errors with exit 2 on
# wrong usage, a small match's summary with win rates, intervals, Elo and
# head to head, the JSON of --out with a record per game that replays, the
# same results with one thread or two, no progress bar off a terminal), AI
# seats and the `hint` command of `tabula play`, and `bench --agent`.
set -u
tabula=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

out=$("$tabula" match --help 2>&1); rc=$?
check "help exits 0" test $rc -eq 0
check "help mentions usage" grep -q "usage: tabula match" <<<"$out"
check "tabula --help lists match" bash -c "'$tabula' --help | grep -q '^  match'"

usage_case() {
  local name=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; local rc=$?
  check "$name exits 2" test $rc -eq 2
  check "$name says one line" test "$(wc -l <"$tmp/err")" -eq 1
  check "$name prints nothing on stdout" test ! -s "$tmp/out"
}
m=("$tabula" match)
usage_case "no game" "${m[@]}" --agents greedy,random --games 2
usage_case "unknown game" "${m[@]}" --game chess --agents greedy,random --games 2
usage_case "no agents" "${m[@]}" --game clans --games 2
usage_case "no games" "${m[@]}" --game clans --agents greedy,random
usage_case "zero games" "${m[@]}" --game clans --agents greedy,random --games 0
usage_case "unknown agent" "${m[@]}" --game clans --agents greedy,oracle --games 2
usage_case "bad budget key" "${m[@]}" --game clans --agents ismcts:depth=3,random --games 2
usage_case "bad budget value" "${m[@]}" --game clans --agents ismcts:iterations=x,random --games 2
usage_case "level of another agent" "${m[@]}" --game clans --agents greedy:hard,random --games 2
usage_case "bad infer value" "${m[@]}" --game clans --agents ismcts:infer=maybe,random --games 2
usage_case "players disagree" "${m[@]}" --game clans --players 3 --agents greedy,random --games 2
usage_case "too few players" "${m[@]}" --game clans --agents greedy --games 2
usage_case "too many agents" "${m[@]}" --game clans --agents a,b,c,d,e,f --games 2
usage_case "bad threads" "${m[@]}" --game clans --agents greedy,random --games 2 --threads 0
usage_case "bad seed" "${m[@]}" --game clans --agents greedy,random --games 2 --seed x
usage_case "bad option" "${m[@]}" --game clans --agents greedy,random --games 2 colour=red
usage_case "unknown flag" "${m[@]}" --game clans --agents greedy,random --games 2 --fast
usage_case "missing value" "${m[@]}" --game clans --agents

# a small match: the summary names every agent with its numbers
"$tabula" match --game clans --agents greedy,random,ismcts:iterations=100 --games 6 --seed 3 \
  --out "$tmp/m1.json" >"$tmp/m1.out" 2>"$tmp/m1.err"; rc=$?
check "a match exits 0" test $rc -eq 0
check "summary header" grep -q "^Clans, 3 players, 6 games from seed 3, seats rotated" "$tmp/m1.out"
for a in greedy random ismcts:iterations=100; do
  check "summary lists $a" grep -Eq "^$a +6 +[0-9.]+ +[0-9.]+% +\[[0-9.]+%, [0-9.]+%\]" "$tmp/m1.out"
done
check "summary has an Elo table" grep -q "^Elo (Bradley-Terry" "$tmp/m1.out"
check "the first agent anchors the Elo table" grep -Eq "^  greedy +\+0$" "$tmp/m1.out"
check "summary has head to head" grep -q "greedy vs random: .* Elo " "$tmp/m1.out"
check "wins add up to the games" bash -c "awk '/ +6 +[0-9.]+ +[0-9.]+%/ {w += \$3} END {exit !(w > 5.99 && w < 6.01)}' '$tmp/m1.out'"
check "no progress bar off a terminal" bash -c "! grep -q ETA '$tmp/m1.err'"
check "--out is JSON of a match" grep -q '^{"format":"tabula-match","version":1,"game":"clans","players":3,"games":6' "$tmp/m1.json"
check "--out has one record per game" test "$(grep -o '"format":"tabula-record"' "$tmp/m1.json" | wc -l)" -eq 6
check "--out has the summary" grep -q '"summary":{"agents":\[{"agent":"greedy","seats":6' "$tmp/m1.json"
# the first record, cut out by counting braces, replays to the end
awk 'BEGIN { RS = "\001" } {
  i = index($0, "\"records\":[") + 11; d = 0
  for (j = i; j <= length($0); j++) { c = substr($0, j, 1)
    if (c == "{") d++
    if (c == "}" && --d == 0) { print substr($0, i, j - i + 1); exit } } }' "$tmp/m1.json" >"$tmp/rec.json"
"$tabula" replay "$tmp/rec.json" --to 1000 >"$tmp/rec.out" 2>&1
check "a record of the match replays to its result" grep -qE "^Result: [^ ]+ [0-9]+, [^ ]+ [0-9]+" "$tmp/rec.out"
check "the record names the agents" grep -q '"name":"ismcts:iterations=100"' "$tmp/rec.json"

# the same match on two threads gives the same games and summary
"$tabula" match --game clans --agents greedy,random,ismcts:iterations=100 --games 6 --seed 3 \
  --threads 2 --out "$tmp/m2.json" >"$tmp/m2.out" 2>&1
strip() { sed -E 's/"(started|finished)":"[^"]*"//g; s/"seconds_per_decision":[^,}]*//g; s/"threads":[0-9]+//' "$1"; }
check "two threads play the same games" test "$(strip "$tmp/m1.json")" = "$(strip "$tmp/m2.json")"
check "two threads report the same table" test \
  "$(grep -v 'seats rotated' "$tmp/m1.out" | awk '{$NF=""; print}' | grep -v json)" = \
  "$(grep -v 'seats rotated' "$tmp/m2.out" | awk '{$NF=""; print}' | grep -v json)"

# another seed deals other games
"$tabula" match --game clans --agents greedy,random,ismcts:iterations=100 --games 6 --seed 4 \
  --out "$tmp/m3.json" >/dev/null 2>&1
check "another seed, other games" test "$(strip "$tmp/m1.json")" != "$(strip "$tmp/m3.json")"

# levels and pooled agents: one ismcts against three greedy
"$tabula" match --game clans --agents ismcts:easy,greedy,greedy,greedy --games 4 >"$tmp/m4.out" 2>&1
check "pooled agents are counted per seat" grep -Eq "^greedy +12 " "$tmp/m4.out"
check "a level is an agent" grep -Eq "^ismcts:easy +4 " "$tmp/m4.out"

# --shard K/N and merge: split into any number of shards (1 to one per
# game, one shard on two threads), the merged table and records are the
# whole run's (ms/decision aside); merge refuses what is not one match
sm=(--game clans --agents greedy,random,ismcts:iterations=100 --games 7 --seed 3)
"$tabula" match "${sm[@]}" --out "$tmp/w.json" >"$tmp/w.out" 2>&1
table() { grep -v -e 'seats rotated' -e json "$1" | awk '{ if ($0 ~ /ms\/decision|[0-9]%  /) $NF=""; print }'; }
strip2() { strip "$1" | sed -E 's/"shards":[0-9]+,//'; }
for n in 1 2 3 7; do
  files=()
  for ((k = n - 1; k >= 0; k--)); do
    threads=1; [ $n -eq 2 ] && threads=2
    "$tabula" match "${sm[@]}" --shard $k/$n --threads $threads --out "$tmp/s$n-$k.json" \
      >"$tmp/s.out" 2>&1 || bad "shard $k/$n exits 0"
    files+=("$tmp/s$n-$k.json")
  done
  "$tabula" match merge "${files[@]}" --out "$tmp/merged$n.json" >"$tmp/merged$n.out" 2>&1; rc=$?
  check "merge of $n shards exits 0" test $rc -eq 0
  check "merge of $n shards names them" grep -q "seats rotated; merged from $n shard" "$tmp/merged$n.out"
  check "merge of $n shards prints the whole run's table" test "$(table "$tmp/w.out")" = "$(table "$tmp/merged$n.out")"
  check "merge of $n shards writes the whole run's records" test "$(strip2 "$tmp/w.json")" = "$(strip2 "$tmp/merged$n.json")"
done
check "a shard says what it played" grep -q "^Shard 0/7: 1 of the 7 games played" "$tmp/s.out"
check "a shard holds only its games (1 and 4)" test "$(grep -o 'tabula-record' "$tmp/s3-1.json" | wc -l)" -eq 2
usage_case "shard without --out" "${m[@]}" "${sm[@]}" --shard 0/2
usage_case "shard K not below N" "${m[@]}" "${sm[@]}" --shard 2/2 --out "$tmp/x.json"
usage_case "shard malformed" "${m[@]}" "${sm[@]}" --shard 1 --out "$tmp/x.json"
usage_case "more shards than games" "${m[@]}" "${sm[@]}" --shard 0/8 --out "$tmp/x.json"
usage_case "merge of nothing" "${m[@]}" merge
merge_refused() {
  local name=$1 words=$2; shift 2
  "$tabula" match merge "$@" >"$tmp/mr.out" 2>"$tmp/mr.err"; local rc=$?
  check "merge refuses $name (exit 1)" test $rc -eq 1
  check "merge refuses $name: says why" grep -q -- "$words" "$tmp/mr.err"
  check "merge refuses $name: prints no table" test ! -s "$tmp/mr.out"
}
merge_refused "a missing shard" "split into 3 shards but 2 are given; missing: 1" "$tmp/s3-0.json" "$tmp/s3-2.json"
merge_refused "a shard given twice" "shard 2/3 is given twice" "$tmp/s3-0.json" "$tmp/s3-2.json" "$tmp/s3-2.json"
head -c 1500 "$tmp/s3-1.json" >"$tmp/cut.json"
merge_refused "a truncated file" "cut.json is truncated or not JSON" "$tmp/s3-0.json" "$tmp/cut.json" "$tmp/s3-2.json"
"$tabula" match "${sm[@]/3/4}" --shard 1/3 --out "$tmp/other.json" >/dev/null 2>&1
merge_refused "another seed" "different matches: the seed differs" "$tmp/s3-0.json" "$tmp/other.json" "$tmp/s3-2.json"
"$tabula" match --game clans --agents greedy,greedy,ismcts:iterations=100 --games 7 --seed 3 --shard 1/3 --out "$tmp/other.json" >/dev/null 2>&1
merge_refused "other agents" "different matches: the agents differ" "$tmp/s3-0.json" "$tmp/other.json" "$tmp/s3-2.json"
am=(--game arkadia --agents random,random --games 2 --seed 5)
"$tabula" match "${am[@]}" --shard 0/2 --out "$tmp/a0.json" >/dev/null 2>&1
"$tabula" match "${am[@]}" --shard 1/2 --out "$tmp/a1.json" mirror=on >/dev/null 2>&1
merge_refused "other game options" "different matches: the game options differ" "$tmp/a0.json" "$tmp/a1.json"
"$tabula" match "${sm[@]}" --shard 1/2 --out "$tmp/other.json" >/dev/null 2>&1
merge_refused "another split" "was split two ways" "$tmp/s3-0.json" "$tmp/other.json" "$tmp/s3-2.json"
merge_refused "a match file" "not a shard file" "$tmp/w.json"

# an unwritable --out is an error (exit 1), after the summary
"$tabula" match --game clans --agents greedy,random --games 2 --out /nonexistent/dir/x.json \
  >"$tmp/m5.out" 2>"$tmp/m5.err"; rc=$?
check "unwritable --out exits 1" test $rc -eq 1
check "unwritable --out says why" grep -q "cannot write" "$tmp/m5.err"

# play: AI seats at every level, and hints for the person
"$tabula" play clans --seats ismcts:easy,greedy,normal --seed 5 --record "$tmp/p.json" \
  </dev/null >"$tmp/p.out" 2>&1
check "agents' levels play a game to the end" grep -q "Game over." "$tmp/p.out"
check "the record names the levels" grep -q '"name":"ismcts:easy"' "$tmp/p.json"
printf 'hint\nquit\n' | "$tabula" play clans --seats human,random --seed 9 --record "$tmp/h.json" \
  >"$tmp/h.out" 2>&1
check "hint names the search" grep -q "^> Best decisions for you (ismcts, [0-9]* iterations" "$tmp/h.out"
check "hint shows five decisions with win rates" \
  test "$(grep -Ec '^  [1-5]\. [0-9]+-[0-9]+ +[0-9]+%  \([0-9]+ visits\)$' "$tmp/h.out")" -eq 5
check "help mentions hint" bash -c "'$tabula' play --help | grep -q '  hint '"

# colour inference: a match with infer=on replays exactly; the deduction aid
"$tabula" match --game clans --agents ismcts:iterations=200:infer=on,ismcts:iterations=200 --games 4 \
  --seed 2 --quiet >"$tmp/i1.out" 2>&1; rc=$?
"$tabula" match --game clans --agents ismcts:iterations=200:infer=on,ismcts:iterations=200 --games 4 \
  --seed 2 --quiet --threads 2 >"$tmp/i2.out" 2>&1
check "a match with infer=on exits 0" test $rc -eq 0
check "infer=on is its own agent in the summary" grep -q "^ismcts:iterations=200:infer=on " "$tmp/i1.out"
check "a match with infer=on replays exactly" \
  test "$(grep -v 'on [12] thread' "$tmp/i1.out" | grep -v ms/decision | sed 's/  *[0-9.]*$//')" = \
       "$(grep -v 'on [12] thread' "$tmp/i2.out" | grep -v ms/decision | sed 's/  *[0-9.]*$//')"
{ for i in $(seq 1 12); do echo 1; done; echo deduce; echo quit; } | \
  "$tabula" play clans --seats human,greedy,greedy --seed 3 --record "$tmp/d.json" >"$tmp/d.out" 2>&1
check "deduce gives the person's own colour" grep -q "^> Deduction from how everyone has played so far (a guess, not a certainty; you are [a-z]*):" "$tmp/d.out"
check "deduce gives a line for each other seat" \
  test "$(grep -Ec '^  ([a-z]+ is probably seat [23] \(greedy\): (over )?[0-9]+%|seat [23] \(greedy\): no clear sign yet)' "$tmp/d.out")" -eq 2
check "no deduction unless asked" bash -c "! grep -q 'is probably seat\\|no clear sign' '$tmp/p.out'"
printf 'deduce\nquit\n' | "$tabula" play khronos --seats human,random --seed 1 --record "$tmp/k.json" >"$tmp/k.out" 2>&1
check "deduce in a game without secret roles says so" grep -q "Nothing to deduce" "$tmp/k.out"
check "help mentions deduce" bash -c "'$tabula' play --help | grep -q '  deduce '"

# bench --agent: iterations per second with one thread and with two
"$tabula" bench --agent ismcts clans --seconds 0.3 --iterations 500 --json >"$tmp/b1.json"
"$tabula" bench --agent ismcts clans --seconds 0.3 --iterations 500 --threads 2 --json >"$tmp/b2.json"
check "bench --agent reports iterations/s" grep -Eq '"iterations_per_s":[1-9][0-9]*' "$tmp/b1.json"
check "bench --agent reports its threads" grep -q '"threads":2' "$tmp/b2.json"
# --decisions: exactly that many positions, the same ones whatever the threads
"$tabula" bench --agent ismcts khronos --decisions 3 --iterations 200 --json >"$tmp/b3.json"
"$tabula" bench --agent ismcts khronos --decisions 3 --iterations 200 --threads 2 --json >"$tmp/b4.json"
check "bench --decisions searches that many positions" grep -q '"decisions":3,"iterations":600,' "$tmp/b3.json"
check "bench --decisions with two threads: the same work" grep -q '"threads":2,"decisions":3,"iterations":600,' "$tmp/b4.json"
usage_case "bench --decisions without --agent" "$tabula" bench clans --decisions 3
usage_case "bench --decisions 0" "$tabula" bench --agent ismcts clans --decisions 0
# --threads 1,2: each position searched with each count in turn, each reported
"$tabula" bench --agent ismcts khronos --decisions 3 --iterations 200 --threads 1,2 --json >"$tmp/b5.json"
check "bench --threads 1,2 reports both counts" test "$(grep -c '"decisions":3,"iterations":600,' "$tmp/b5.json")" -eq 2
check "bench --threads 1,2: one thread first, as the measure of the others" \
  bash -c "head -1 '$tmp/b5.json' | grep -q '\"threads\":1,.*\"times_first\":1.000}' && tail -1 '$tmp/b5.json' | grep -Eq '\"threads\":2,.*\"times_first\":[0-9.]+}'"
"$tabula" bench --agent ismcts clans --decisions 3 --iterations 100 --threads 1,2 >"$tmp/b6.txt"
check "bench --threads 1,2 says how many times one thread" grep -Eq 'threads 2: .*\([0-9.]+ times 1 thread\)$' "$tmp/b6.txt"
# --ms: a time budget per decision instead of iterations
"$tabula" bench --agent ismcts clans --decisions 4 --ms 20 --json >"$tmp/b7.json"
check "bench --ms: about that long per decision" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d['decisions']==4 and 0.07<=d['seconds']<=0.5 and d['iterations']>0))" "$tmp/b7.json"
usage_case "bench --threads 1,,2" "$tabula" bench --agent ismcts clans --threads 1,,2 --decisions 1
usage_case "bench --threads 0" "$tabula" bench --agent ismcts clans --threads 0 --decisions 1
usage_case "bench --threads of five counts" "$tabula" bench --agent ismcts clans --threads 1,2,3,4,5 --decisions 1
usage_case "bench --threads without --agent" "$tabula" bench clans --threads 2
usage_case "bench --ms with --iterations" "$tabula" bench --agent ismcts clans --ms 20 --iterations 100
usage_case "bench --ms without --agent" "$tabula" bench clans --ms 20

# review: a saved game reviewed decision by decision
check "tabula --help lists review" bash -c "'$tabula' --help | grep -q '^  review'"
out=$("$tabula" review --help 2>&1); rc=$?
check "review help exits 0" test $rc -eq 0
check "review help mentions usage" grep -q "usage: tabula review" <<<"$out"
"$tabula" play clans --seats random,greedy --seed 21 --record "$tmp/rv.json" </dev/null >/dev/null 2>&1
check "a game to review was saved" test -s "$tmp/rv.json"
r=("$tabula" review "$tmp/rv.json")
usage_case "review without file" "$tabula" review
usage_case "review seat 0" "${r[@]}" --seat 0
usage_case "review seat not a number" "${r[@]}" --seat x
usage_case "review seat past the players" "${r[@]}" --seat 3
usage_case "review zero iterations" "${r[@]}" --iterations 0
usage_case "review bad threads" "${r[@]}" --threads 0
usage_case "review unknown flag" "${r[@]}" --fast
review_error() {
  local name=$1 file=$2 want=$3
  "$tabula" review "$file" --iterations 10 >"$tmp/out" 2>"$tmp/err" </dev/null; local rc=$?
  check "$name exits 1" test $rc -eq 1
  check "$name says why" grep -q "$want" "$tmp/err"
  check "$name prints nothing on stdout" test ! -s "$tmp/out"
}
review_error "review of a missing file" "$tmp/none.json" "tabula review: .*none.json"
printf '{"format": "tabula-record", "game": "clans"' >"$tmp/cut.json"
review_error "review of cut JSON" "$tmp/cut.json" "tabula review: "
python3 - "$tmp/rv.json" "$tmp/illegal.json" "$tmp/sealed.json" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
bad = dict(rec); bad["moves"] = rec["moves"][:3] + ["99-98"] + rec["moves"][4:]
json.dump(bad, open(sys.argv[2], "w"))
sealed = dict(rec); del sealed["seed"]; sealed["sealed"] = True
json.dump(sealed, open(sys.argv[3], "w"))
PY
review_error "review of a record that does not replay" "$tmp/illegal.json" "99-98"
review_error "review of a sealed record" "$tmp/sealed.json" "sealed"
"${r[@]}" --seat 1 --iterations 300 >"$tmp/rv.out" 2>"$tmp/rv.err"; rc=$?
check "review exits 0" test $rc -eq 0
check "review names the game and players" grep -q "^Clans, 2 players: seat 1 random, seat 2 greedy" "$tmp/rv.out"
check "review says whose decisions" grep -q "^Review of random's decisions (300 iterations" "$tmp/rv.out"
check "review table rows name the player" grep -Eq "^ +[0-9]+  random +[0-9]+-[0-9]+ +[0-9.]+% +[0-9.]+%" "$tmp/rv.out"
check "review lists only seat 1" bash -c "! grep -Eq '^ +[0-9]+  greedy ' '$tmp/rv.out'"
check "review sums up mistakes" grep -Eq "^Seat 1 random: [0-9]+ mistakes?, [0-9]+ blunders?; result" "$tmp/rv.out"
check "no review progress bar off a terminal" test ! -s "$tmp/rv.err"
"${r[@]}" --json --iterations 200 --seed 5 >"$tmp/all1.jsonl" 2>/dev/null
"${r[@]}" --json --iterations 200 --seed 5 >"$tmp/all2.jsonl" 2>/dev/null
check "review is the same for the same seed" cmp -s "$tmp/all1.jsonl" "$tmp/all2.jsonl"
"${r[@]}" --json --iterations 200 --seed 5 --threads 2 >"$tmp/t1.jsonl" 2>/dev/null
"${r[@]}" --json --iterations 200 --seed 5 --threads 2 >"$tmp/t2.jsonl" 2>/dev/null
check "review with two threads is the same for the same seed" cmp -s "$tmp/t1.jsonl" "$tmp/t2.jsonl"
"${r[@]}" --json --iterations 200 --seed 5 --seat 2 >"$tmp/s2.jsonl" 2>/dev/null
check "review --json is consistent" python3 - "$tmp/rv.json" "$tmp/all1.jsonl" "$tmp/s2.jsonl" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
every = [json.loads(l) for l in open(sys.argv[2])]
seat2 = [json.loads(l) for l in open(sys.argv[3])]
assert len(every) == len(rec["moves"]), (len(every), len(rec["moves"]))
for i, e in enumerate(every):
    assert e["index"] == i and e["played"] == rec["moves"][i], e
    assert e["player"] == rec["players"][e["seat"]]["name"]
    assert len(e["win_rates"]) == 2 and all(0 <= w <= 1 for w in e["win_rates"])
    assert abs(e["before"] - e["win_rates"][e["seat"]]) < 1e-9
    assert abs(e["loss"] - max(0.0, e["best_value"] - e["after"])) < 2e-4, e
    want = "blunder" if e["loss"] > 0.2 else "mistake" if e["loss"] > 0.1 else None
    assert e["mark"] == want or abs(e["loss"] - 0.1) < 2e-4 or abs(e["loss"] - 0.2) < 2e-4, e
assert seat2 and all(e["seat"] == 1 for e in seat2)
assert seat2 == [e for e in every if e["seat"] == 1]
PY

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
