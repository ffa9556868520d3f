"""tabula — Clans, Arkadia and Khronos for Python (docs/python.md).

A thin layer over the C library: ``new_game`` deals a ``Game`` (every method
runs in C), ``VectorGames`` holds and steps many games in C, ``spiel`` offers an
OpenSpiel-shaped state API and ``aec`` a PettingZoo-shaped environment, both
written here with no dependency on either project.  Errors from the engine
(illegal move, bad JSON, unknown game) raise ``tabula.Error``, a ValueError.
"""
from ._tabula import Error, Game, VectorGames, games, load, num_actions, observation_size
from ._tabula import new_game as _new_game
from ._tabula import version as __version__

__all__ = ["Error", "Game", "VectorGames", "games", "load", "new_game", "num_actions",
           "observation_size", "observation_shape", "__version__"]


def new_game(game, players=0, seed=0, **options):
    """Deals a game: ``new_game("clans", players=4, seed=1, variant=...)``.

    ``players=0`` means the game's usual count; options are the game's own
    KEY=VALUE options (docs/rules-GAME.md), given as keywords.
    """
    return _new_game(game, players, seed, options or None)


def observation_shape(game, players=0):
    """The shape of ``Game.observation(seat)`` for this game and player count."""
    size = observation_size(game, players)
    if size == 0:
        raise NotImplementedError(f"{game} has no observation encoder yet")
    return (size,)
