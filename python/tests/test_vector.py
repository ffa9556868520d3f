"""Tests of tabula.VectorGames: masks match each game's legal actions, steps
apply exactly the given actions, finished games report returns and restart,
and a bad action raises before any game changes."""
import numpy as np
import pytest

import tabula


@pytest.mark.parametrize("name", ["clans", "arkadia", "khronos"])
def test_masks_match_the_games(name):
    v = tabula.VectorGames(name, n=8, seed=2)
    for _ in range(5):
        masks = v.action_masks()
        assert masks.shape == (8, tabula.num_actions(name, v.players)) and masks.dtype == bool
        for i in range(8):
            assert sorted(np.flatnonzero(masks[i])) == sorted(v.game(i).legal_actions())
        v.step(v.random_actions(), observe=False)


def test_step_plays_the_actions_and_games_restart():
    v = tabula.VectorGames("clans", n=16, players=3, seed=5)
    games = [v.game(i) for i in range(16)]
    finished = 0
    for _ in range(400):
        acts = v.random_actions()
        obs, rewards, dones = v.step(acts)
        assert obs.shape == (16, 527) and obs.dtype == np.float32
        assert rewards.shape == (16, 3) and dones.shape == (16,)
        for i in range(16):
            games[i].apply_action(int(acts[i]))
            assert dones[i] == games[i].is_over()
            if dones[i]:
                finished += 1
                assert rewards[i].tolist() == pytest.approx(games[i].returns())
                games[i] = v.game(i)
                assert games[i].decisions == 0
            else:
                assert not rewards[i].any()
                assert games[i].state() == v.game(i).state()
                assert np.array_equal(obs[i], games[i].observation(games[i].to_move()))
    assert finished > 0


def test_bad_actions_raise_and_change_nothing():
    v = tabula.VectorGames("clans", n=4, seed=1)
    before = [v.game(i).state() for i in range(4)]
    acts = v.random_actions()
    acts[2] = 0  # 1-1, never legal
    with pytest.raises(tabula.Error, match="game 2"):
        v.step(acts)
    with pytest.raises(tabula.Error, match="needs 4 actions"):
        v.step(acts[:3])
    assert [v.game(i).state() for i in range(4)] == before
    with pytest.raises(tabula.Error):
        tabula.VectorGames("chess")
    with pytest.raises(tabula.Error):
        tabula.VectorGames("clans", n=0)
    with pytest.raises(tabula.Error, match="already set up"):
        v.__init__("clans")
    bare = tabula.VectorGames.__new__(tabula.VectorGames)  # never set up: errors, no crash
    with pytest.raises(tabula.Error):
        bare.observations()
    assert bare.action_masks().shape == (0, 0)


def test_step_random_advances_every_game_by_one_decision():
    v = tabula.VectorGames("arkadia", n=6, players=2, seed=8)
    finished = 0
    for _ in range(700):
        before = [v.game(i).decisions for i in range(6)]
        obs, rewards, dones = v.step_random()
        assert obs is None
        for i in range(6):
            after = v.game(i).decisions
            assert after == (0 if dones[i] else before[i] + 1)
            finished += int(dones[i])
            assert bool(rewards[i].any()) == bool(dones[i])
    assert finished > 0
