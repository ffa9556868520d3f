#!/usr/bin/env python3
"""play_person.py TABULA GAME PLAYERS RECORD — plays a whole game as a person
would: reads each prompt of `tabula play` (seat 0 is the person, the others the
random agent), tries a typo, help and undo on the way, asks for the legal
decisions and plays the first one, until the game ends.  Prints one line per
check and exits non-zero if any fails."""
import os
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


def decisions(line):
    """The decisions of a `legal` line: comma-separated when any has a space."""
    return [d.strip() for d in line.split(",")] if "," in line else line.split()


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
prefix = decisions(text.splitlines()[0])[-1][:2]
send("legal " + prefix)
text, alive = until_prompt()
first = decisions(text.splitlines()[0])
checks["legal PREFIX filters"] = bool(first) and all(d.startswith(prefix) for d in first)
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
    moves = decisions(text.splitlines()[0])
    send(moves[0])
    made += 1
    text, alive = until_prompt()
    if made == 3 and not undone and alive:
        # undo returns to the position before this decision: same choices
        send("undo")
        text, alive = until_prompt()
        send("legal")
        text, alive = until_prompt()
        checks["undo takes back the person's decision"] = decisions(text.splitlines()[0]) == moves
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
