"""The ISMCTS agent (seat 0) against a Python policy (seat 1) in 2-player Clans:
the policy plays the legal move that leaves the fewest legal moves."""
import tabula


def policy(game):
    def replies(move):
        child = game.clone()
        child.play(move)
        return len(child.legal())
    return min(game.legal(), key=replies)


score = [0.0, 0.0]
for seed in range(10):
    game = tabula.new_game("clans", players=2, seed=seed)
    while not game.is_over():
        if game.to_move() == 0:
            move = game.genmove("ismcts", iterations=2000)   # the search; GIL released
        else:
            move = policy(game)
        game.play(move)
    score = [s + r for s, r in zip(score, game.returns())]
print(f"ismcts {score[0]:.1f} - python policy {score[1]:.1f} in 10 games")
