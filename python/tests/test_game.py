"""Tests of tabula.Game (docs/python.md): play, undo, clone, state round trip,
views, resampling, the action space, observations and the engine's errors."""
import json
import random

import numpy as np
import pytest

import tabula

GAMES = [name for name, *_ in tabula.games()]


def random_game(name, players, seed, steps=None):
    g = tabula.new_game(name, players=players, seed=seed)
    rng = random.Random(seed)
    n = 0
    while not g.is_over() and (steps is None or n < steps):
        g.play(rng.choice(g.legal()))
        n += 1
    return g


def test_games_and_sizes():
    assert GAMES == ["arkadia", "clans", "khronos"]
    assert tabula.num_actions("clans", 4) == 3660
    assert tabula.num_actions("arkadia", 4) == 12960
    assert tabula.num_actions("khronos", 4) == 17050
    assert tabula.observation_shape("clans", 2) == (527,)
    with pytest.raises(tabula.Error, match="players"):
        tabula.num_actions("clans", 9)


@pytest.mark.parametrize("name", GAMES)
def test_random_games_end_with_winners(name):
    for seed in range(3):
        g = random_game(name, 0, seed)
        assert g.is_over() and g.to_move() == -1 and g.legal() == []
        r = g.returns()
        assert len(r) == g.players and abs(sum(r) - 1.0) < 1e-9


@pytest.mark.parametrize("name", GAMES)
def test_actions_and_text_agree(name):
    g = random_game(name, 0, 5, steps=30)
    texts, actions = g.legal(), g.legal_actions()
    assert actions.dtype == np.int64 and len(actions) == len(texts)
    assert len(set(actions.tolist())) == len(actions)
    assert all(0 <= a < tabula.num_actions(name, g.players) for a in actions)
    for t, a in zip(texts, actions):
        assert g.action_to_string(int(a)) == t
        assert g.string_to_action(t) == a


def test_play_undo_clone_and_state_round_trip():
    g = tabula.new_game("clans", players=3, seed=11)
    before = g.state()
    g.play(g.legal()[0])
    g.apply_action(int(g.legal_actions()[-1]))
    c = g.clone()
    g.undo()
    g.undo()
    assert g.state() == before
    with pytest.raises(tabula.Error, match="nothing to undo"):
        g.undo()
    assert c.decisions == 2 and g.decisions == 0
    loaded = tabula.load(c.state())
    assert loaded.state() == c.state() and loaded.legal() == c.legal()
    g.load(c.state())  # in place: the history starts afresh
    assert g.state() == c.state() and repr(g) == "<tabula.Game clans players=3 decisions=2>"
    with pytest.raises(tabula.Error, match="nothing to undo"):
        g.undo()
    with pytest.raises(tabula.Error, match="bad state"):
        g.load('{"game":"clans","players":3}')
    assert g.state() == c.state()


def test_errors_are_exceptions_and_change_nothing():
    g = tabula.new_game("clans", players=2, seed=7)
    s = g.state()
    with pytest.raises(tabula.Error, match="illegal move: territories 12 and 17"):
        g.play("12-17")
    with pytest.raises(tabula.Error, match="illegal move"):
        g.apply_action(0)  # 1-1: never legal
    with pytest.raises(tabula.Error, match="illegal move"):
        g.apply_action(10 ** 6)
    with pytest.raises(TypeError):
        g.apply_action("1-2")
    assert g.state() == s
    with pytest.raises(tabula.Error, match="unknown game 'chess'"):
        tabula.new_game("chess")
    with pytest.raises(tabula.Error, match="bad state"):
        tabula.load('{"game":"clans"')
    with pytest.raises(tabula.Error):
        tabula.new_game("clans", colour="red")
    with pytest.raises(TypeError):
        tabula._tabula.new_game("clans", 2, 0, ["not", "a", "dict"])
    with pytest.raises(tabula.Error, match="unknown agent"):
        g.genmove("oracle")
    with pytest.raises(tabula.Error, match="no seat"):
        g.view(5)


def test_options_are_keywords():
    g = tabula.new_game("arkadia", players=2, seed=1, variant="first-game")
    assert json.loads(g.state())["options"]["variant"] == "first-game"


@pytest.mark.parametrize("name", GAMES)
def test_view_hides_and_resample_keeps_the_view(name):
    g = random_game(name, 0, 3, steps=12)
    for seat in range(g.players):
        view = g.view(seat)
        assert isinstance(view, dict) and view["seat"] == seat
        r = g.clone()
        r.resample(seat, random.Random(seat))
        assert r.view(seat) == view
        r2 = g.clone()
        r2.resample(seat, np.random.default_rng(seat))
        assert r2.view_json(seat) == g.view_json(seat)


SHAPES = {"clans": (527,), "arkadia": (3091,), "khronos": (26893,)}


@pytest.mark.parametrize("name", GAMES)
def test_observation_depends_only_on_the_view(name):
    rng = random.Random(1)
    for seed in range(6):
        g = random_game(name, 4, seed, steps=rng.randrange(1, 120))
        for seat in range(4):
            o = g.observation(seat)
            assert o.dtype == np.float32 and o.shape == SHAPES[name]
            assert tabula.observation_shape(name, 4) == SHAPES[name]
            for k in range(3):
                r = g.clone()
                r.resample(seat, seed * 10 + k)
                assert r.view(seat) == g.view(seat)
                assert np.array_equal(r.observation(seat), o)
        # the seats see different things (their own colour)
        assert not np.array_equal(g.observation(0), g.observation(1))
    with pytest.raises(tabula.Error, match="no seat"):
        g.observation(4)


def test_genmove_searches_and_does_not_play():
    g = tabula.new_game("clans", players=2, seed=7)
    m = g.genmove("ismcts", iterations=300, seed=1)
    assert m in g.legal() and g.decisions == 0
    assert g.genmove("ismcts", iterations=300, seed=1) == m  # deterministic
    assert g.genmove("random") in g.legal()


def test_genmove_infers_colours_from_the_history():
    # The engine's transcript tests/engine/infer_genmove.in plays the same
    # game: with and without inference the search chooses differently here,
    # and by default (two players) it infers.
    g = tabula.new_game("clans", players=2, seed=7)
    for k in range(1, 7):
        g.play(g.genmove("greedy", seed=k))
    off = g.genmove("ismcts", iterations=500, seed=3, infer=False)
    on = g.genmove("ismcts", iterations=500, seed=3, infer=True)
    assert (off, on) == ("14-22", "17-20")
    assert g.genmove("ismcts", iterations=500, seed=3) == on
    g.play(on)  # the history follows undo
    g.undo()
    assert g.genmove("ismcts", iterations=500, seed=3, infer=True) == on
    loaded = tabula.new_game("clans", players=2, seed=1)
    loaded.load(g.state())
    with pytest.raises(tabula.Error, match="history"):
        loaded.genmove("ismcts", iterations=100, infer=True)
    assert loaded.genmove("ismcts", iterations=500, seed=3) == off  # no history: dealt uniformly
    with pytest.raises(tabula.Error, match="secret role"):
        tabula.new_game("khronos", players=2, seed=1).genmove("ismcts", iterations=10, infer=True)


def test_search_releases_the_gil():
    import threading
    import time
    g = tabula.new_game("clans", players=4, seed=2)
    result = []
    t = threading.Thread(target=lambda: result.append(g.genmove("ismcts", iterations=60000)))
    ticks = 0
    t.start()
    time.sleep(0.05)  # the search has begun; holding the GIL it would block us here
    while t.is_alive():  # the main thread keeps running while the search does
        ticks += 1
    t.join()
    assert result[0] in g.legal()
    assert ticks > 1000
