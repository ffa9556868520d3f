"""10,000 random 4-player Clans games through VectorGames; win rates by seat."""
import numpy as np

import tabula

games = tabula.VectorGames("clans", n=1024, players=4, seed=1)
wins, finished = np.zeros(4), 0
while finished < 10_000:
    # a policy would pick from games.action_masks(), an (n, 3660) bool array;
    # here C draws one uniformly random legal action per game
    actions = games.random_actions()
    _, rewards, dones = games.step(actions, observe=False)
    done = np.flatnonzero(dones)[: 10_000 - finished]  # count exactly 10,000
    wins += rewards[done].sum(axis=0)                  # a winner gets 1/winners
    finished += len(done)
for seat in range(4):
    print(f"seat {seat}: {wins[seat] / finished:.3f}")
