#!/usr/bin/env bash
# run_transcripts.sh TABULA DIR — feeds every DIR/*.in to `tabula engine` and
# compares the output with DIR/*.out byte for byte.  With UPDATE=1 it writes
# the .out files instead (review the diff before committing them).
set -u
tabula=$1 dir=$2
passed=0 failed=0
for in in "$dir"/*.in; do
  out=${in%.in}.out
  got=$("$tabula" engine < "$in"; echo "exit=$?")
  if [ "${UPDATE:-0}" = 1 ]; then
    printf '%s\n' "$got" > "$out"
  fi
  if [ -f "$out" ] && [ "$got" = "$(cat "$out")" ]; then
    passed=$((passed + 1)); echo "ok   $(basename "$in")"
  else
    failed=$((failed + 1)); echo "FAIL $(basename "$in")"
    diff <(printf '%s\n' "$got") "$out" | head -20
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
