#!/usr/bin/env python3
"""fit_ratings_test.py SOURCE_ROOT RATING_DATAGEN — scripts/fit_computer_ratings.py
(docs/ratings.md, "The computer levels") on match files made up here: games drawn
from the update's own Plackett-Luce model with known strengths (easy 25, normal
30, hard 34, some ties) must give back easy at 25 exactly and the others within
their uncertainty, every game and level present; the written file must be
accepted by the build's generator (src/server/rating_datagen.c); the same input
gives the same file; a match with another agent, or without ranks, is refused
with a message and writes nothing.
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

root, datagen = sys.argv[1], sys.argv[2]
script = os.path.join(root, "scripts", "fit_computer_ratings.py")
BETA = 25.0 / 6.0
TRUE = {"easy": 25.0, "normal": 30.0, "hard": 34.0}
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL", msg)


def match_file(path, game, count, rng):
    records = []
    for g in range(count):
        seats = ["easy", "normal", "hard"]
        rng.shuffle(seats)
        c = BETA * math.sqrt(3)
        order, left = [], list(range(3))
        while left:  # Plackett-Luce: pick the next best in proportion to exp(mu / c)
            w = [math.exp(TRUE[seats[i]] / c) for i in left]
            x, k = rng.random() * sum(w), 0
            while x > w[k]:
                x -= w[k]
                k += 1
            order.append(left.pop(k))
        ranks = [0] * 3
        for place, seat in enumerate(order):
            ranks[seat] = place + 1
        if g % 10 == 0:  # now and then the last two share their place
            ranks[order[2]] = ranks[order[1]]
        records.append({"players": [{"name": s, "kind": "ismcts"} for s in seats],
                        "result": {"over": True, "ranks": ranks}})
    with open(path, "w") as f:
        json.dump({"format": "tabula-match", "game": game, "records": records}, f)


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    rng = random.Random(7)
    files = []
    for game in ("clans", "arkadia", "khronos"):
        files.append(os.path.join(tmp, game + ".json"))
        match_file(files[-1], game, 600, rng)
    out = os.path.join(tmp, "computer_ratings.txt")
    r = run("--from", *files, "--out", out)
    check(r.returncode == 0, f"the fit runs: {r.stderr}")
    fitted = {}
    for line in open(out):
        w = line.split()
        if w and w[0] == "level":
            fitted[(w[1], w[2])] = (float(w[3]), float(w[4]), int(w[5]))
    for game in ("clans", "arkadia", "khronos"):
        for level, mu in TRUE.items():
            got = fitted.get((game, level))
            check(got is not None, f"{game} {level} in the file")
            if not got:
                continue
            check(got[2] == 600, f"{game} {level}: the games counted ({got[2]})")
            check(0 < got[1] < 3, f"{game} {level}: a sigma from 600 games ({got[1]})")
            if level == "easy":
                check(got[0] == 25.0, f"{game}: easy held at 25 ({got[0]})")
            else:
                check(abs(got[0] - mu) < 3 * got[1] + 0.5,
                      f"{game} {level}: {got[0]} ± {got[1]} should find {mu}")
    c_file = os.path.join(tmp, "computer_ratings.c")
    g = subprocess.run([datagen, out, c_file], capture_output=True, text=True)
    check(g.returncode == 0 and os.path.getsize(c_file) > 0, f"the generator takes it: {g.stderr}")
    first = open(out).read()
    run("--from", *files, "--out", out)
    check(open(out).read() == first, "the same input gives the same file")
    bad = os.path.join(tmp, "bad.json")
    d = json.load(open(files[0]))
    d["records"][3]["players"][0]["name"] = "greedy"
    json.dump(d, open(bad, "w"))
    nothing = os.path.join(tmp, "nothing.txt")
    r = run("--from", bad, "--out", nothing)
    check(r.returncode != 0 and "greedy" not in r.stdout and "easy, normal, hard" in r.stderr,
          f"another agent refused in words: {r.returncode} {r.stderr.strip()}")
    check(not os.path.exists(nothing), "and nothing written")
    del d["records"][3]["result"]["ranks"]
    d["records"][3]["players"][0]["name"] = "easy"
    json.dump(d, open(bad, "w"))
    r = run("--from", bad, "--out", nothing)
    check(r.returncode != 0 and "without ranks" in r.stderr, f"a game without ranks refused: {r.stderr.strip()}")

print(f"{'FAIL' if failures else 'ok'}: fit_computer_ratings.py ({len(failures)} failures)")
sys.exit(1 if failures else 0)
