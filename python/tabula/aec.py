"""A PettingZoo-shaped agent-environment-cycle environment (written here; no
PettingZoo needed).

``env = TabulaEnv("clans", players=4, seed=0)``; ``env.reset()``; then loop
``for agent in env.agent_iter(): obs, reward, termination, truncation, info =
env.last(); env.step(None if termination else policy(obs))``.
``observe(agent)`` returns ``{"observation": float32 array or None,
"action_mask": int8 array}``.  Rewards are the game's returns, given at the
end.  Invariants: ``agent_selection`` is the seat to move while the game goes
on; once it ends, each agent is stepped once with None and then removed, as in
PettingZoo's AEC API.
"""
import numpy as np

from . import _tabula
from . import _board


class TabulaEnv:
    metadata = {"name": "tabula_v0", "is_parallelizable": False}

    def __init__(self, game="clans", players=0, seed=0, board=None, **options):
        self.game_name = game
        self.options = dict(options)
        self.board = _board(game, board)  # a tabula.Board, a board file's path, or None
        self._seed = seed
        probe = _tabula.new_game(game, players, seed, self.options or None, self.board)
        self.players = probe.players
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.num_actions = _tabula.num_actions(game, self.players)
        self.game = None
        self.agents = []

    def action_space_size(self, agent=None):
        return self.num_actions

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._seed = seed
        self.game = _tabula.new_game(self.game_name, self.players, self._seed, self.options or None,
                                     self.board)
        self._seed += 1
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_move()]

    def _seat(self, agent):
        return self.possible_agents.index(agent)

    def observe(self, agent):
        seat = self._seat(agent)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if not self.game.is_over() and self.game.to_move() == seat:
            mask[self.game.legal_actions()] = 1
        try:
            obs = self.game.observation(seat)
        except NotImplementedError:
            obs = None
        return {"observation": obs, "action_mask": mask}

    def last(self, observe=True):
        a = self.agent_selection
        return (self.observe(a) if observe else None, self._cumulative_rewards[a],
                self.terminations[a], self.truncations[a], self.infos[a])

    def agent_iter(self, max_iter=2 ** 63):
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise _tabula.Error("the game is over: step a finished agent with None")
            self.agents.remove(agent)
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.apply_action(int(action))
        if self.game.is_over():
            for a, r in zip(self.possible_agents, self.game.returns()):
                self.rewards[a] = r
                self._cumulative_rewards[a] += r
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[self.game.to_move()]

    def render(self):
        return self.game.text()

    def close(self):
        pass
