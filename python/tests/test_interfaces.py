"""Tests of the OpenSpiel-shaped (tabula.spiel) and PettingZoo-shaped
(tabula.aec) interfaces: whole games through each API end with the returns
the engine computes, and the masks and players agree with the engine."""
import random

import numpy as np
import pytest

import tabula
from tabula import aec, spiel


def test_spiel_plays_a_game():
    game = spiel.load_game("clans", players=3)
    assert game.num_players() == 3 and game.num_distinct_actions() == 3660
    assert game.observation_tensor_shape() == [527]
    state = game.new_initial_state(seed=4)
    rng = random.Random(0)
    while not state.is_terminal():
        assert not state.is_chance_node()
        p = state.current_player()
        legal = state.legal_actions()
        assert legal and state.legal_actions((p + 1) % 3) == []
        child = state.clone()
        a = rng.choice(legal)
        child.apply_action(a)
        assert state.game.decisions + 1 == child.game.decisions
        state.apply_action(a)
    assert state.current_player() == spiel.TERMINAL
    assert sum(state.returns()) == 1.0
    ref = tabula.new_game("clans", players=3, seed=4)
    assert state.action_to_string(0, 1) == ref.action_to_string(1)


def test_aec_cycle():
    env = aec.TabulaEnv("clans", players=4, seed=9)
    env.reset()
    assert env.agents == ["player_0", "player_1", "player_2", "player_3"]
    rng = np.random.default_rng(0)
    steps, totals = 0, {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            totals[agent] = reward
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert obs["observation"].shape == (527,)
        assert mask.sum() == len(env.game.legal())
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert env.agents == [] and steps > 20
    assert sorted(totals) == env.possible_agents and sum(totals.values()) == 1.0


def test_spiel_hot_methods_take_and_give_plain_ints():
    """spiel's legal_actions is the engine's list of actions as Python ints,
    built in C (Game.legal_actions_list); apply_action takes NumPy ints."""
    for name in ("clans", "arkadia", "khronos"):
        state = spiel.load_game(name, players=3).new_initial_state(seed=2)
        rng = np.random.default_rng(1)
        for _ in range(40):
            legal = state.legal_actions()
            assert type(legal) is list and all(type(a) is int for a in legal)
            assert legal == state.game.legal_actions().tolist() == state.game.legal_actions_list()
            mask = state.legal_actions_mask()
            assert len(mask) == tabula.num_actions(name, 3) and sum(mask) == len(legal)
            state.apply_action(rng.choice(np.array(legal)))  # a numpy.int64
    g = tabula.new_game("clans", seed=1)
    a = g.legal_actions()[0]
    g.apply_action(a)
    assert g.decisions == 1
    with pytest.raises(TypeError):
        g.apply_action(1.0)
