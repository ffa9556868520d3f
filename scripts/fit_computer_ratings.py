#!/usr/bin/env python3
"""fit_computer_ratings.py — fits the computer levels' ratings (easy, normal,
hard per game) on the players' scale from `tabula match` results, and writes
data/computer_ratings.txt (docs/ratings.md, "The computer levels").

    scripts/fit_computer_ratings.py --play build/tabula [--games clans=60,...]
    scripts/fit_computer_ratings.py --from clans.json arkadia.json khronos.json

--play runs `nice tabula match --game G --agents easy,normal,hard --games K
--seed 1 --out DIR/G.json` for each game (three seats, rotated, so every deal
is played from every seat), then fits; --from reads such files instead.

The model is the one the rating update uses (src/server/rating.c): in a game
of n seats a level of strength mu performs mu + noise of spread beta, and the
order of the performances is Plackett-Luce with c = beta * sqrt(n) (a level's
own uncertainty is left out of c: it is what is being measured).  Ties share
their rank: every seat of a tie scores against the same set (Breslow).  The
fit is the maximum of the likelihood with easy's mu held at 25 (a new
player's mean: newcomers start out rated like the easy computer) and a weak
normal prior N(25, (25/3)^2) on the other levels (it only matters when a level
never loses or never wins, where the likelihood alone has no maximum).  A
level's sigma is its standard error: the square root of the diagonal of the
inverse Fisher information with easy held; easy's own with normal held
instead (how well easy is placed against the others).

Python standard library only; the output is deterministic for given input.
"""
import argparse
import datetime
import json
import math
import os
import subprocess
import sys

MU0 = 25.0
SIGMA0 = 25.0 / 3.0
BETA = 25.0 / 6.0
LEVELS = ["easy", "normal", "hard"]


def read_games(path):
    """(game name, [(levels by seat, ranks by seat)]) from a match --out file."""
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if not isinstance(d, dict) or "records" not in d or "game" not in d:
        sys.exit(f"{path}: not a 'tabula match --out' file")
    out = []
    for r in d["records"]:
        names = [p["name"] for p in r["players"]]
        ranks = r.get("result", {}).get("ranks")
        if not ranks or len(ranks) != len(names) or any(n not in LEVELS for n in names):
            sys.exit(f"{path}: a game without ranks, or with an agent other than "
                     f"{', '.join(LEVELS)}")
        out.append(([LEVELS.index(n) for n in names], ranks))
    return d["game"], out


def solve(a, b):
    """x with a x = b (Gauss-Jordan with partial pivoting; a small and regular)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for k in range(col, n + 1):
                    m[r][k] -= f * m[col][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def inverse_diag(a):
    n = len(a)
    return [solve(a, [1.0 if j == i else 0.0 for j in range(n)])[i] for i in range(n)]


def derivatives(mu, games):
    """Gradient and Hessian of the log-likelihood in the levels' mus."""
    k = len(mu)
    g = [0.0] * k
    h = [[0.0] * k for _ in range(k)]
    for levels, ranks in games:
        n = len(levels)
        c = BETA * math.sqrt(n)
        for q in range(n):
            pool = [s for s in range(n) if ranks[s] >= ranks[q]]
            top = max(mu[levels[s]] for s in pool)
            w = {}
            for s in pool:
                w[levels[s]] = w.get(levels[s], 0.0) + math.exp((mu[levels[s]] - top) / c)
            total = sum(w.values())
            p = {lv: x / total for lv, x in w.items()}
            g[levels[q]] += 1.0 / c
            for a, pa in p.items():
                g[a] -= pa / c
                for b, pb in p.items():
                    h[a][b] -= ((pa if a == b else 0.0) - pa * pb) / (c * c)
    return g, h


def fit(games):
    mu = [MU0] * len(LEVELS)
    free = [1, 2]  # easy (0) is held
    for _ in range(100):
        g, h = derivatives(mu, games)
        gf = [g[i] - (mu[i] - MU0) / SIGMA0 ** 2 for i in free]
        hf = [[h[i][j] - (1.0 / SIGMA0 ** 2 if i == j else 0.0) for j in free] for i in free]
        step = solve([[-x for x in row] for row in hf], gf)
        for i, s in zip(free, step):
            mu[i] += max(-5.0, min(5.0, s))
        if max(abs(s) for s in step) < 1e-10:
            break
    _, h = derivatives(mu, games)
    info = [[-h[i][j] + (1.0 / SIGMA0 ** 2 if i == j and i != 0 else 0.0)
             for j in range(len(LEVELS))] for i in range(len(LEVELS))]
    sigma = [0.0] * len(LEVELS)
    for held in (0, 1):
        keep = [i for i in range(len(LEVELS)) if i != held]
        d = inverse_diag([[info[i][j] for j in keep] for i in keep])
        for i, v in zip(keep, d):
            if held == 0 or i == 0:
                sigma[i] = math.sqrt(v)
    return mu, sigma


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--play", metavar="TABULA", help="the built tabula binary: play the matches")
    ap.add_argument("--games", default="clans=60,arkadia=24,khronos=24",
                    help="games to play per title with --play (default %(default)s)")
    ap.add_argument("--dir", default="build/computer-ratings",
                    help="where --play writes its match files (default %(default)s)")
    ap.add_argument("--from", dest="files", nargs="*", default=[], metavar="MATCH.json")
    ap.add_argument("--out", default="data/computer_ratings.txt")
    args = ap.parse_args()
    files = list(args.files)
    command = "scripts/fit_computer_ratings.py " + " ".join(sys.argv[1:])
    if args.play:
        os.makedirs(args.dir, exist_ok=True)
        for item in args.games.split(","):
            game, _, count = item.partition("=")
            out = os.path.join(args.dir, game + ".json")
            subprocess.run(["nice", args.play, "match", "--game", game, "--agents",
                            ",".join(LEVELS), "--games", count, "--seed", "1", "--quiet",
                            "--out", out], check=True, stdout=subprocess.DEVNULL)
            files.append(out)
    if not files:
        ap.error("give --play TABULA or --from MATCH.json ...")
    per_game = {}
    for path in files:
        game, games = read_games(path)
        per_game.setdefault(game, []).extend(games)
    lines = [
        "# computer_ratings.txt — the computer levels' ratings on the players' scale",
        "# (docs/ratings.md): one line per game and level,",
        "#   level GAME LEVEL MU SIGMA GAMES",
        "# MU and SIGMA as a player's rating (a new player starts at 25 and 25/3);",
        "# GAMES the match games the fit read.  Easy's MU is held at 25.",
        "# Compiled into the server (src/server/rating_datagen.c); in a rated game a",
        "# computer seat keeps these values: people's games never move them.",
        f"# Fitted {datetime.date.today().isoformat()} by: {command}",
    ]
    for game in sorted(per_game):
        games = per_game[game]
        mu, sigma = fit(games)
        lines.append(f"# {game}: {len(games)} games of "
                     f"{'/'.join(str(n) for n in sorted({len(lv) for lv, _ in games}))} seats")
        for i, level in enumerate(LEVELS):
            lines.append(f"level {game} {level} {mu[i]:.3f} {sigma[i]:.3f} {len(games)}")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
