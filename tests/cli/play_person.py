#!/usr/bin/env python3
"""play_person.py TABULA RECORD — plays a whole game of Clans as a person would:
reads each prompt of `tabula play`, tries a typo, help and undo on the way, asks
for the legal decisions and plays the first one, until the game ends.  Prints
one line per check and exits non-zero if any fails."""
import os
import select
import subprocess
import sys

tabula, record = sys.argv[1], sys.argv[2]
proc = subprocess.Popen([tabula, "play", "clans", "--players", "2", "--seats", "human,random",
                         "--seed", "9", "--record", record],
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


checks = {}
text, alive = until_prompt()
checks["the board shows the secret colour"] = "secret colour" in text
send("12x17")
text, alive = until_prompt()
checks["a typo gets a clear message"] = "is not a Clans move" in text
send("help")
text, alive = until_prompt()
checks["help lists undo and legal"] = "undo" in text and "legal" in text
send("undo")
text, alive = until_prompt()
checks["undo with nothing to undo says so"] = "nothing of yours to undo" in text
send("legal 1-")
text, alive = until_prompt()
first = text.splitlines()[0].split()
checks["legal PREFIX filters"] = bool(first) and all(m.startswith("1-") for m in first)
send("legal 99-")
text, alive = until_prompt()
checks["legal PREFIX says when nothing matches"] = "No legal decision starts with '99-'" in text
decisions = 0
undone = False
while alive:
    send("legal")
    text, alive = until_prompt()
    if not alive:
        break
    moves = text.splitlines()[0].split()
    move = " ".join(moves[:2]) if moves[0] == "village" else moves[0]
    send(move)
    decisions += 1
    text, alive = until_prompt()
    if decisions == 3 and not undone and alive:
        # undo returns to the position before this decision: same choices
        send("undo")
        text, alive = until_prompt()
        send("legal")
        text, alive = until_prompt()
        checks["undo takes back the person's decision"] = text.splitlines()[0].split() == moves
        undone = True
final = text
proc.wait(timeout=20)
checks["the game reaches the end"] = "Game over." in final
checks["the record is saved"] = "Record saved to" in final and os.path.getsize(record) > 0
checks["the game took many decisions"] = decisions >= 10
checks["the program exits 0"] = proc.returncode == 0
failed = 0
for name, ok in checks.items():
    print(("ok   " if ok else "FAIL ") + name)
    failed += not ok
sys.exit(1 if failed else 0)
