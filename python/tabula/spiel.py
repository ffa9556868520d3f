"""An OpenSpiel-shaped interface over tabula (written here; no OpenSpiel needed).

``load_game("clans", players=4)`` gives a game object with
``new_initial_state()``, ``num_distinct_actions()``, ``num_players()`` and
``observation_tensor_shape()``; its states offer ``legal_actions()``,
``apply_action(a)``, ``is_terminal()``, ``current_player()``, ``returns()``,
``clone()``, ``observation_tensor(player)`` and ``action_to_string(player, a)``.
Chance is handled inside the engine (every deal and draw comes from the
state's seeded generator), so ``is_chance_node()`` is always False.
Invariant: a state wraps one tabula Game and never shares it.  The hot
methods (legal_actions, apply_action, current_player, is_terminal) are one
call into C each: no per-action conversion in Python.
"""
from . import _tabula
from . import _board

TERMINAL = -4  # OpenSpiel's kTerminalPlayerId


class TabulaGame:
    """A game and player count, from which states are dealt."""

    def __init__(self, name, players=0, seed=0, board=None, **options):
        self.name = name
        self.options = dict(options)
        self.board = _board(name, board)
        probe = _tabula.new_game(name, players, seed, self.options or None, self.board)
        self.players = probe.players
        self._seed = seed
        self._num_actions = _tabula.num_actions(name, self.players)

    def num_players(self):
        return self.players

    def num_distinct_actions(self):
        return self._num_actions

    def observation_tensor_shape(self):
        return [_tabula.observation_size(self.name, self.players)]

    def new_initial_state(self, seed=None):
        """A fresh deal; without a seed, each call deals the next seed."""
        if seed is None:
            seed, self._seed = self._seed, self._seed + 1
        return TabulaState(self, _tabula.new_game(self.name, self.players, seed,
                                                  self.options or None, self.board))

    def __repr__(self):
        return f"TabulaGame({self.name!r}, players={self.players})"


class TabulaState:
    """One position; the OpenSpiel State methods over a tabula Game."""

    __slots__ = ("_game", "_g")

    def __init__(self, game, g):
        self._game = game
        self._g = g

    def get_game(self):
        return self._game

    def current_player(self):
        p = self._g.to_move()
        return TERMINAL if p < 0 else p

    def is_terminal(self):
        return self._g.is_over()

    def is_chance_node(self):
        return False

    def legal_actions(self, player=None):
        if player is not None and player != self._g.to_move():
            return []
        return self._g.legal_actions_list()  # built in C as a list: no per-item conversion

    def legal_actions_mask(self, player=None):
        mask = [0] * self._game._num_actions
        for a in self.legal_actions(player):
            mask[a] = 1
        return mask

    def apply_action(self, action):
        self._g.apply_action(action)  # a Python or NumPy integer, checked in C

    def undo_action(self, player, action):
        self._g.undo()

    def returns(self):
        return self._g.returns()

    def rewards(self):
        return self._g.returns() if self._g.is_over() else [0.0] * self._g.players

    def clone(self):
        return TabulaState(self._game, self._g.clone())

    def observation_tensor(self, player=None):
        return self._g.observation(self._g.to_move() if player is None else player)

    def action_to_string(self, player, action=None):
        if action is None:  # OpenSpiel also allows action_to_string(action)
            player, action = None, player
        return self._g.action_to_string(int(action))

    def string_to_action(self, text):
        return self._g.string_to_action(text)

    def information_state_string(self, player):
        return self._g.view_json(player)

    def resample_from_infostate(self, player, rng):
        clone = self._g.clone()
        clone.resample(player, rng)
        return TabulaState(self._game, clone)

    @property
    def game(self):
        """The underlying tabula Game."""
        return self._g

    def __str__(self):
        return self._g.text()


def load_game(name, players=0, seed=0, board=None, **options):
    """The OpenSpiel-style entry point: ``load_game("clans", players=4)``;
    ``board``: a ``tabula.Board`` or a board file's path (None: the built-in one)."""
    return TabulaGame(name, players, seed, board, **options)
