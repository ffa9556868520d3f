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
    for packed in (False, True):  # checked against the masks when they are fresh
        v.action_masks(packed=packed)
        with pytest.raises(tabula.Error, match="game 2"):
            v.step(acts)
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


@pytest.mark.parametrize("name", ["clans", "arkadia"])
def test_info_keeps_each_ended_games_final_observation_and_returns(name):
    v = tabula.VectorGames(name, n=8, players=2, seed=3)
    games = [v.game(i) for i in range(8)]
    ended = 0
    while ended < 10:
        acts = v.random_actions()
        movers = [g.to_move() for g in games]
        obs, rewards, dones, info = v.step(acts, info=True)
        assert set(info) == {"final_obs", "_final_obs", "final_returns", "final_seat"}
        assert np.array_equal(info["_final_obs"], dones)
        assert np.array_equal(info["final_returns"], rewards)
        for i in range(8):
            games[i].apply_action(int(acts[i]))
            if dones[i]:
                ended += 1
                assert info["final_seat"][i] == movers[i]
                assert np.array_equal(info["final_obs"][i], games[i].observation(movers[i]))
                assert info["final_returns"][i].tolist() == pytest.approx(games[i].returns())
                games[i] = v.game(i)  # dealt afresh in the same step (autoreset)
                assert games[i].decisions == 0 and not games[i].is_over()
                assert np.array_equal(obs[i], games[i].observation(games[i].to_move()))
            else:
                assert info["final_seat"][i] == -1 and not info["final_obs"][i].any()


def test_without_autoreset_ended_games_wait_for_reset():
    v = tabula.VectorGames("clans", n=6, players=2, seed=4, autoreset=False)
    assert v.autoreset is False and tabula.VectorGames("clans", n=1).autoreset is True
    ended_at, finals = {}, {}
    for step in range(2000):
        acts = v.random_actions()
        over = v.is_over()
        assert np.array_equal(acts < 0, over)  # no action for a game that is over
        acts[over] = 12345  # ignored: a game over takes any action and stays as it is
        movers = [v.game(i).to_move() for i in range(6)]
        obs, rewards, dones = v.step(acts)
        for i in np.flatnonzero(dones):
            assert i not in ended_at  # a game ends once: done and rewards only then
            ended_at[i] = step
            finals[i] = (v.game(i).state(), movers[i])
            assert rewards[i].sum() == pytest.approx(1.0)
        for i in ended_at:
            if ended_at[i] < step:
                assert not dones[i] and not rewards[i].any()
            state, seat = finals[i]
            assert v.game(i).state() == state and v.game(i).is_over()
            assert np.array_equal(obs[i], v.game(i).observation(seat))  # seen by who ended it
        if len(ended_at) == 6:
            break
    assert len(ended_at) == 6 and v.is_over().all()
    assert not v.action_masks().any()
    with pytest.raises(IndexError):
        v.reset([0, 6])
    assert v.is_over().all()  # a bad index deals nothing
    obs = v.reset([1, 3])
    assert v.is_over().tolist() == [True, False, True, False, True, True]
    assert v.game(1).decisions == 0 and np.array_equal(obs[1], v.game(1).observation(v.game(1).to_move()))
    v.reset(np.array([True, False, False, False, False, True]), observe=False)
    assert v.is_over().tolist() == [False, False, True, False, True, False]
    assert v.reset() is not None and not v.is_over().any()
    seeds = {v.game(i).state() for i in range(6)}
    assert len(seeds) == 6  # each game dealt with its own seed


@pytest.mark.parametrize("name", ["clans", "arkadia", "khronos"])
def test_kept_observations_and_masks_match_each_game(name):
    """observations/action_masks rewritten in place (copy=False), packed masks
    and index lists give exactly what each game's own calls give, step after
    step (new deals included); copies stay as they were."""
    v = tabula.VectorGames(name, n=6, players=3, seed=11)
    first = v.observations()
    first_mask = v.action_masks()
    view = v.observations(copy=False)
    mask_view = v.action_masks(copy=False)
    assert not view.flags.writeable and not mask_view.flags.writeable
    for step in range(150):
        obs, _, dones = v.step(v.random_actions(), copy=False)
        assert obs.base is view.base or np.shares_memory(obs, view)
        masks = v.action_masks(copy=False)
        packed = v.action_masks(packed=True)
        acts, offsets = v.legal_actions()
        assert packed.shape == (6, (v.num_actions + 7) // 8) and packed.dtype == np.uint8
        assert np.array_equal(np.unpackbits(packed, axis=1, bitorder="little")[:, :v.num_actions], masks)
        for i in range(6):
            g = v.game(i)
            assert np.array_equal(view[i], g.observation(g.to_move()))  # the view follows
            assert acts[offsets[i]:offsets[i + 1]].tolist() == g.legal_actions().tolist()
            assert sorted(np.flatnonzero(mask_view[i])) == sorted(g.legal_actions())
    v0 = tabula.VectorGames(name, n=6, players=3, seed=11)
    assert np.array_equal(first, v0.observations()) and np.array_equal(first_mask, v0.action_masks())
    assert first.flags.writeable  # a copy: the caller's own
