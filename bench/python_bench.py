#!/usr/bin/env python3
"""python_bench.py — the Python rows of bench/RESULTS.md: random decisions per
second through the tabula package, (1) one Game at a time (legal_actions, a
choice in Python, apply_action) and the same loop through tabula.spiel, (2)
VectorGames.step with actions drawn in C (random_actions: the checked path an
agent's actions take), and (3) VectorGames.step_random (drawn and applied in
C), for n = 1, 64 and 1024; then (--learning) batched play at n = 1024 with
observations and masks every step, as a learning loop has them: new arrays
(observations(), action_masks()), the arrays kept in place (copy=False), and
packed masks.

    PYTHONPATH=build-bench/python python3 bench/python_bench.py [--seconds S] [--learning] [GAME ...]

Prints Markdown tables.  Counts decisions (one per game per step) per second
of the process's CPU time (steady on a shared machine; the process runs one
thread), to compare with `tabula bench --json`'s decisions per cpu_seconds.
"""
import argparse
import random
import time

import tabula


def timed(fn, seconds):
    """Runs fn() (which returns decisions made) until `seconds` pass."""
    done, start = 0, time.process_time()
    while True:
        done += fn()
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return done / elapsed


def single(name, players, seconds):
    rng = random.Random(1)
    state = {"g": tabula.new_game(name, players=players, seed=0), "seed": 0}

    def run():
        g = state["g"]
        n = 0
        for _ in range(1000):
            if g.is_over():
                state["seed"] += 1
                g = state["g"] = tabula.new_game(name, players=players, seed=state["seed"])
            acts = g.legal_actions()
            g.apply_action(int(acts[rng.randrange(len(acts))]))
            n += 1
        return n
    return timed(run, seconds)


def spiel_loop(name, players, seconds):
    """The single-Game loop through tabula.spiel (OpenSpiel's names)."""
    from tabula import spiel
    rng = random.Random(1)
    game = spiel.load_game(name, players=players)
    state = {"s": game.new_initial_state()}

    def run():
        s = state["s"]
        n = 0
        for _ in range(1000):
            if s.is_terminal():
                s = state["s"] = game.new_initial_state()
            acts = s.legal_actions()
            s.apply_action(acts[rng.randrange(len(acts))])
            n += 1
        return n
    return timed(run, seconds)


def learning(name, players, seconds, mode):
    """n = 1024 games stepped with actions drawn in C, with observations and
    masks every step: "copies" (observations(), action_masks(): new arrays),
    "kept" (step(copy=False) and action_masks(copy=False): rewritten in
    place) or "packed" (the same with packed=True masks)."""
    n = 1024
    v = tabula.VectorGames(name, n=n, players=players, seed=0)

    def run():
        acts = v.random_actions()
        if mode == "copies":
            v.step(acts, observe=False)
            v.observations()
            v.action_masks()
        else:
            v.step(acts, copy=False)
            v.action_masks(copy=False, packed=mode == "packed")
        return n
    return timed(run, seconds)


def overhead_ns(name, players):
    """ns per legal_actions + apply_action (+ undo) on one position from Python,
    the same work done in C alone (so the difference is the Python layer's
    overhead), and ns per call of a method that does no work (to_move)."""
    g = tabula.new_game(name, players=players, seed=3)
    for _ in range(5):
        g.apply_action(int(g.legal_actions()[0]))
    a = int(g.legal_actions()[0])
    reps = 200000
    start = time.process_time()
    for _ in range(reps):
        g.legal_actions()
        g.apply_action(a)
        g.undo()
    pair = (time.process_time() - start) / reps * 1e9
    start = time.process_time()
    for _ in range(reps):
        g.to_move()
    call = (time.process_time() - start) / reps * 1e9
    return pair, g._c_pair_ns(a, reps), call


def vector(name, players, n, seconds, fast):
    v = tabula.VectorGames(name, n=n, players=players, seed=0)
    if fast:
        def run():
            v.step_random(observe=False)
            return n
    else:
        def run():
            v.step(v.random_actions(), observe=False)
            return n
    return timed(run, seconds)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--learning", action="store_true",
                    help="only the table of batched play with observations and masks")
    ap.add_argument("games", nargs="*", default=["clans", "arkadia", "khronos"])
    args = ap.parse_args()
    if not args.learning:
        print("| game | single Game | spiel | pair ns | same in C | overhead ns | call ns | step n=1 | step n=64 "
              "| step n=1024 | step_random n=1 | n=64 | n=1024 |")
        print("| --- " * 13 + "|")
        for name in args.games:
            pair, c_pair, call = overhead_ns(name, args.players)
            row = [name, f"{single(name, args.players, args.seconds):,.0f}",
                   f"{spiel_loop(name, args.players, args.seconds):,.0f}", f"{pair:,.0f}",
                   f"{c_pair:,.0f}", f"{pair - c_pair:,.0f}", f"{call:,.0f}"]
            for fast in (False, True):
                for n in (1, 64, 1024):
                    row.append(f"{vector(name, args.players, n, args.seconds, fast):,.0f}")
            print("| " + " | ".join(row) + " |", flush=True)
        print()
    print("| game | n=1024, new arrays | kept in place (copy=False) | kept, packed masks |")
    print("| --- " * 4 + "|")
    for name in args.games:
        row = [name] + [f"{learning(name, args.players, args.seconds, m):,.0f}"
                        for m in ("copies", "kept", "packed")]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
