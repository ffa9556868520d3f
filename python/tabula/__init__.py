"""tabula — Clans, Arkadia and Khronos for Python (docs/python.md).

A thin layer over the C library: ``new_game`` deals a ``Game`` (every method
runs in C), ``VectorGames`` holds and steps many games in C, ``spiel`` offers an
OpenSpiel-shaped state API and ``aec`` a PettingZoo-shaped environment, both
written here with no dependency on either project.  ``read_board`` reads an
owner's board file (Khronos, Arkadia; docs/data-format.md) for any of them.
Errors from the engine (illegal move, bad JSON, unknown game, a bad board
file) raise ``tabula.Error``, a ValueError.
"""
import json as _json
import os as _os

from ._tabula import Board, Error, Game, VectorGames, games, num_actions, observation_size
from ._tabula import load as _load
from ._tabula import new_game as _new_game
from ._tabula import read_board as _read_board
from ._tabula import version as __version__
from . import datasets  # tabula.datasets.load(DIR): tabula selfplay's data (docs/research.md)

__all__ = ["Board", "Error", "Game", "VectorGames", "datasets", "games", "load", "new_game", "num_actions",
           "observation_size", "observation_shape", "read_board", "__version__"]


def read_board(game, path):
    """Reads a board file of ``game`` (docs/data-format.md) into a ``Board``.

    The board is named after the file, without its folder and ``.txt``
    (``boards/castle-hill.txt`` is ``castle-hill``), as ``tabula play --board``
    names it; states and records name it and its content hash.  The file is
    read by the library's one capped reader, as the command line and the
    server read theirs: a folder, a device, a FIFO or a file over 64 MiB is
    refused with ``tabula.Error`` before it is read (a FIFO is never waited
    on), as is a bad file, naming the line and what is wrong; a missing one
    raises ``FileNotFoundError``.
    """
    return _read_board(game, _os.fspath(path))


def _board(game, board):
    """A ``board`` argument as a Board: None (the built-in board), a Board, or a file's path."""
    if board is None or isinstance(board, Board):
        return board
    if isinstance(board, (str, bytes, _os.PathLike)):
        return read_board(game, board)
    raise TypeError("board must be a tabula.Board or the path of a board file")


def new_game(game, players=0, seed=0, board=None, **options):
    """Deals a game: ``new_game("clans", players=4, seed=1, variant=...)``.

    ``players=0`` means the game's usual count; options are the game's own
    KEY=VALUE options (docs/rules-GAME.md), given as keywords; ``board`` is a
    ``Board`` (``read_board``) or a board file's path, None for the built-in one.
    """
    return _new_game(game, players, seed, options or None, _board(game, board))


def load(text, board=None):
    """A game from the JSON text of ``Game.state()``; a state on a loaded board
    needs that ``board`` (a Board or its file's path; the name and hash must match)."""
    if board is not None and not isinstance(board, Board):
        try:
            game = _json.loads(text).get("game")
        except (ValueError, AttributeError):
            game = None
        if not isinstance(game, str):
            raise Error("bad state: not the JSON text of a game's state")
        board = _board(game, board)
    try:
        return _load(text, board)
    except Error as e:
        if board is None and "not installed here" in str(e):
            raise Error(f"{e}: give load() that board, board=tabula.read_board(GAME, PATH)") from None
        raise


def observation_shape(game, players=0):
    """The shape of ``Game.observation(seat)`` for this game and player count."""
    size = observation_size(game, players)
    if size == 0:
        raise NotImplementedError(f"{game} has no observation encoder yet")
    return (size,)
