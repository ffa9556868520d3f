#!/usr/bin/env python3
"""play_person.py TABULA GAME PLAYERS RECORD — plays a whole game as a person
would: reads each prompt of `tabula play` (seat 0 is the person, the others the
random agent), tries a typo, help and undo on the way, asks for the legal
decisions (numbered) and plays the first one, by its text or by its number, until
the game ends.  Prints one line per
check and exits non-zero if any fails."""
import os
import re
import select
import subprocess
import sys

tabula, game, players, record = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
seats = ",".join(["human"] + ["random"] * (players - 1))
proc = subprocess.Popen([tabula, "play", game, "--seats", seats, "--seed", "9", "--record", record],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
buf = b""


def until_prompt():
    """Reads output until the '> ' prompt or the end; returns the text."""
    global buf
    while True:
        if buf.endswith(b"\n> ") or buf == b"> ":
            text, buf = buf, b""
            return text.decode(), True
        ready, _, _ = select.select([proc.stdout], [], [], 20)
        if not ready:
            raise SystemExit("FAIL no prompt within 20 s")
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            text, buf = buf, b""
            return text.decode(), False
        buf += chunk


def send(line):
    proc.stdin.write((line + "\n").encode())
    proc.stdin.flush()


CELL = re.compile(r"(\d+)\. (.+?)(?=\s{2,}\d+\. |\s*$)")


def numbered(text):
    """The (number, decision) cells of a `legal` listing: lines of 'N. TEXT'
    cells two or more spaces apart, up to the first line that is not one."""
    out = []
    for line in text.splitlines():
        if not re.match(r"\s*\d+\. ", line):
            if out:
                break
            continue
        out += [(int(n), d) for n, d in CELL.findall(line)]
    return out


def decisions(text):
    return [d for _, d in numbered(text)]


checks = {}
text, alive = until_prompt()
if game == "clans":
    checks["the board shows the secret colour"] = "secret colour" in text
send("12x17")
text, alive = until_prompt()
checks["a typo gets a clear message"] = "is not a" in text
send("help")
text, alive = until_prompt()
checks["help lists undo and legal"] = "undo" in text and "legal" in text
send("undo")
text, alive = until_prompt()
checks["undo with nothing to undo says so"] = "nothing of yours to undo" in text
send("legal")
text, alive = until_prompt()
listing = numbered(text)
checks["legal numbers every decision from 1"] = [n for n, _ in listing] == list(range(1, len(listing) + 1))
prefix = decisions(text)[-1][:2]
send("legal " + prefix)
text, alive = until_prompt()
first = numbered(text)
checks["legal PREFIX filters"] = bool(first) and all(d.startswith(prefix) for _, d in first)
checks["legal PREFIX keeps the numbers"] = all(listing[n - 1][1] == d for n, d in first)
if game == "clans":
    # 'legal 3' is territory 3, not 30-39
    send("legal 3")
    text, alive = until_prompt()
    threes = decisions(text)
    checks["legal 3 does not match 30-39"] = bool(threes) and all(d.startswith("3-") for d in threes)
send(str(len(listing) + 1))
text, alive = until_prompt()
checks["a number past the list says how many there are"] = f"numbered 1 to {len(listing)}" in text
send("legal 99-")
text, alive = until_prompt()
checks["legal PREFIX says when nothing matches"] = "No legal decision starts with '99-'" in text
made = 0
undone = False
while alive:
    send("legal")
    text, alive = until_prompt()
    if not alive:
        break
    moves = decisions(text)
    if made % 2:
        send("1")  # by number
    else:
        send(moves[0])
    made += 1
    text, alive = until_prompt()
    if made == 3 and not undone and alive:
        # undo returns to the position before this decision: same choices
        send("undo")
        text, alive = until_prompt()
        send("legal")
        text, alive = until_prompt()
        checks["undo takes back the person's decision"] = decisions(text) == moves
        undone = True
final = text
proc.wait(timeout=20)
checks["the game reaches the end"] = "Game over." in final
checks["the record is saved"] = "Record saved to" in final and os.path.getsize(record) > 0
checks["the game took many decisions"] = made >= 10
checks["the program exits 0"] = proc.returncode == 0
failed = 0
for name, ok in checks.items():
    print(("ok   " if ok else "FAIL ") + name)
    failed += not ok
sys.exit(1 if failed else 0)
