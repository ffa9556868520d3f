"""Train a policy-value network on `tabula selfplay` data and play it.

    tabula selfplay clans --players 2 --agent ismcts:normal --games 2000 --out data/
    python3 examples/python/train.py --data data/ --out clans-net.bin

Reads every shard of the folder (tabula.datasets), trains a small MLP with
PyTorch on the CPU (observation -> hidden layers -> a policy over the game's
actions and a value): cross-entropy of the policy against the search's
visit shares (illegal actions masked out), squared error of the value
against the mover's return.  Saves the weights in Tabula's network file
format (docs/research.md, "Network files": text that `tabula match` and
`tabula selfplay` read as ismcts:...:net=FILE), then plays the network (the
legal action its policy likes best) against `random` and `greedy` through
the tabula package, seats alternating, and prints win rates with 95%
Wilson intervals.  It prints the loss on the whole data set before
training and after each epoch, and counts any illegal action it tried
(the game refuses one; the count must be 0).
"""
import argparse
import math
import sys
import time

import numpy as np
import torch
from torch import nn

import tabula

class Net(nn.Module):
    def __init__(self, obs_size, num_actions, hidden):
        super().__init__()
        layers, width = [], obs_size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, num_actions)
        self.value = nn.Linear(width, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.policy(h), torch.sigmoid(self.value(h)).squeeze(-1)


def save(net, path, game, players, obs_size, num_actions):
    """Tabula's network file (text; docs/research.md, "Network files"):
    a header, then each layer's weights (a row per output) and biases."""
    hidden = [m for m in net.trunk if isinstance(m, nn.Linear)]
    with open(path, "w") as f:
        f.write("tabula-net 1\n")
        f.write(f"game {game} players {players} observation {obs_size} actions {num_actions}\n")
        f.write("hidden " + " ".join(str(x) for x in [len(hidden)] +
                                     [m.out_features for m in hidden]) + "\n")
        for lin in hidden + [net.policy, net.value]:
            w = lin.weight.detach().numpy().astype(np.float32)
            np.savetxt(f, w, fmt="%.9g")
            np.savetxt(f, lin.bias.detach().numpy().astype(np.float32)[None, :], fmt="%.9g")


def tensors(data):
    mask, target = tabula.datasets.legal_mask(data)
    seat = np.asarray(data["seat"]).astype(np.int64)
    value = np.asarray(data["returns"])[np.arange(len(seat)), seat]
    return (torch.from_numpy(np.array(data["observation"], dtype=np.float32)),  # a copy
            torch.from_numpy(mask), torch.from_numpy(target),
            torch.from_numpy(value.astype(np.float32)))


def losses(net, obs, mask, target, value):
    logits, v = net(obs)
    logits = logits.masked_fill(~mask, -1e9)
    policy_loss = -(target * torch.log_softmax(logits, dim=-1)).sum(-1).mean()
    value_loss = ((v - value) ** 2).mean()
    return policy_loss, value_loss


def whole_loss(net, obs, mask, target, value):
    with torch.no_grad():
        p, v = losses(net, obs, mask, target, value)
    return float(p), float(v)


def wilson(wins, n, z=1.959964):
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def net_move(net, game, seat):
    legal = game.legal_actions()
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(game.observation(seat)).unsqueeze(0))
    scores = logits[0].numpy()[legal]
    return int(legal[int(np.argmax(scores))])


def play(net, game_name, players, opponent, games, seed):
    """The network in one seat (rotating), `opponent` in the others."""
    wins, illegal = 0.0, 0
    for g in range(games):
        game = tabula.new_game(game_name, players=players, seed=seed + g // players)
        mine = g % players
        while not game.is_over():
            seat = game.to_move()
            if seat == mine:
                action = net_move(net, game, seat)
                try:
                    game.apply_action(action)
                except tabula.Error:
                    illegal += 1
                    game.play(game.genmove("random"))
            else:
                game.play(game.genmove(opponent))  # seeded by the game: runs repeat
        wins += game.returns()[mine]
    return wins, illegal


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="the folder tabula selfplay wrote")
    ap.add_argument("--out", default="tabula-net.bin", help="the network file to write")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--hidden", default="256,256", help="hidden layer sizes, e.g. 256,256")
    ap.add_argument("--max-batches", type=int, default=0,
                    help="stop each epoch after this many batches (0: the whole data set)")
    ap.add_argument("--games", type=int, default=200,
                    help="games against each of random and greedy (0: no match)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    data = tabula.datasets.load(args.data)
    meta = data["meta"]
    game_name, players = meta["game"], meta["players"]
    obs, mask, target, value = tensors(data)
    hidden = [int(h) for h in args.hidden.split(",") if h]
    net = Net(obs.shape[1], meta["num_actions"], hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    print(f"{game_name}, {players} players: {len(obs)} decisions from {len(data['games'])} games "
          f"({meta['agent']}), observation {obs.shape[1]}, {meta['num_actions']} actions, "
          f"hidden {hidden}")
    p0, v0 = whole_loss(net, obs, mask, target, value)
    print(f"before training: policy loss {p0:.4f}, value loss {v0:.4f}")
    start = time.time()
    gen = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        order = torch.randperm(len(obs), generator=gen)
        for b, i in enumerate(range(0, len(obs), args.batch)):
            if args.max_batches and b >= args.max_batches:
                break
            idx = order[i:i + args.batch]
            p, v = losses(net, obs[idx], mask[idx], target[idx], value[idx])
            opt.zero_grad()
            (p + v).backward()
            opt.step()
        p1, v1 = whole_loss(net, obs, mask, target, value)
        print(f"epoch {epoch + 1}: policy loss {p1:.4f}, value loss {v1:.4f} "
              f"({time.time() - start:.1f} s)")
    print(f"trained in {time.time() - start:.1f} s")
    net.eval()
    save(net, args.out, game_name, players, obs.shape[1], meta["num_actions"])
    print(f"network written to {args.out}")
    if args.games:
        for opponent in ("random", "greedy"):
            wins, illegal = play(net, game_name, players, opponent, args.games, args.seed)
            lo, hi = wilson(wins, args.games)
            print(f"network vs {opponent}: {wins:.1f}/{args.games} = {100 * wins / args.games:.1f}% "
                  f"[{100 * lo:.1f}%, {100 * hi:.1f}%], illegal actions tried: {illegal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
