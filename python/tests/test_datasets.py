"""`tabula selfplay` and tabula.datasets (docs/research.md): the data is the
games' truth (observations and legal actions replayed through the package,
returns, a policy that sums to 1 over legal actions), a split into shards
writes the very decisions of the whole run, an interrupted run leaves no
file, and a damaged or foreign file is refused with its name."""
import os
import signal
import subprocess
import time

import numpy as np
import pytest

import tabula

TABULA = os.environ.get("TABULA", "build/tabula")


def selfplay(out, *args, check=True):
    return subprocess.run([TABULA, "selfplay", "clans", "--out", str(out), *args],
                          capture_output=True, text=True, timeout=300, check=check)


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    selfplay(out, "--games", "6", "--seed", "5", "--agent", "ismcts:iterations=60")
    return out


def by_game(d):
    return np.lexsort((np.asarray(d["decision"]), np.asarray(d["game"])))


def test_the_data_is_the_games(whole):
    d = tabula.datasets.load(whole)
    meta = d["meta"]
    assert meta["game"] == "clans" and meta["players"] == 2 and meta["games"] == 6
    assert sorted(np.asarray(d["games"]).tolist()) == list(range(6))
    offsets = np.asarray(d["legal_offsets"])
    for i in range(len(d["seat"])):
        g, k = int(d["game"][i]), int(d["decision"][i])
        if k == 0:
            game = tabula.new_game("clans", players=2, seed=5 + g)
        assert game.to_move() == d["seat"][i]
        legal = np.asarray(d["legal"][offsets[i]:offsets[i + 1]])
        assert legal.tolist() == game.legal_actions().tolist()
        np.testing.assert_array_equal(d["observation"][i], game.observation(int(d["seat"][i])))
        policy = np.asarray(d["policy"][offsets[i]:offsets[i + 1]])
        assert abs(float(policy.sum()) - 1.0) < 1e-5 and (policy >= 0).all()
        assert int(d["action"][i]) in legal.tolist()
        game.apply_action(int(d["action"][i]))
        if i + 1 == len(d["seat"]) or int(d["game"][i + 1]) != g:
            assert game.is_over()
            np.testing.assert_allclose(d["returns"][i], game.returns())
    # the search's visits, not a one-hot choice: most decisions spread them
    spread = sum(1 for i in range(len(d["seat"]))
                 if (np.asarray(d["policy"][offsets[i]:offsets[i + 1]]) > 0).sum() > 1)
    assert spread > len(d["seat"]) // 2


def test_shards_write_the_whole_runs_decisions(whole, tmp_path):
    for k in range(4):
        selfplay(tmp_path, "--games", "6", "--seed", "5", "--agent", "ismcts:iterations=60",
                 "--shard", f"{k}/4")
    a, b = tabula.datasets.load(whole), tabula.datasets.load(tmp_path)
    assert b["meta"]["shards_found"] == [0, 1, 2, 3]
    ia, ib = by_game(a), by_game(b)
    for key in ("seat", "game", "decision", "observation", "action", "returns"):
        np.testing.assert_array_equal(np.asarray(a[key])[ia], np.asarray(b[key])[ib])
    ma, ta = tabula.datasets.legal_mask(a)
    mb, tb = tabula.datasets.legal_mask(b)
    np.testing.assert_array_equal(ma[ia], mb[ib])
    np.testing.assert_array_equal(ta[ia], tb[ib])


def test_agents_without_visits_give_the_choice(tmp_path):
    selfplay(tmp_path, "--games", "2", "--agent", "greedy")
    d = tabula.datasets.load(tmp_path)
    mask, target = tabula.datasets.legal_mask(d)
    assert (target.max(axis=1) == 1.0).all()
    assert (target.argmax(axis=1) == np.asarray(d["action"])).all()
    assert mask[np.arange(len(mask)), np.asarray(d["action"])].all()


def test_an_interrupted_run_leaves_no_file(tmp_path):
    p = subprocess.Popen([TABULA, "selfplay", "clans", "--out", str(tmp_path), "--games", "5000",
                          "--agent", "ismcts:iterations=200"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert "interrupted" in err
    assert os.listdir(tmp_path) == []
    with pytest.raises(ValueError, match="no selfplay"):
        tabula.datasets.load(tmp_path)


def test_a_damaged_or_foreign_file_is_refused(whole, tmp_path):
    data = (whole / "selfplay-0-of-1.npz").read_bytes()
    (tmp_path / "selfplay-0-of-1.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="selfplay-0-of-1.npz is not a complete"):
        tabula.datasets.load(tmp_path)
    other = tmp_path / "other"
    selfplay(other, "--games", "2", "--seed", "5", "--shard", "0/2", "--agent", "random")
    selfplay(other, "--games", "2", "--seed", "6", "--shard", "1/2", "--agent", "random")
    with pytest.raises(ValueError, match="another run.*seed"):
        tabula.datasets.load(other)


def test_usage_errors_are_one_line(tmp_path):
    for args in (["--games", "0"], ["--shard", "2/2"], ["--agent", "oracle"], ["--players", "9"]):
        r = selfplay(tmp_path, *args, check=False)
        assert r.returncode == 2 and r.stdout == ""
        assert len(r.stderr.strip().splitlines()) == 1
    r = subprocess.run([TABULA, "selfplay", "clans"], capture_output=True, text=True)
    assert r.returncode == 2 and "--out" in r.stderr
