"""Tests of boards read at run time (docs/python.md, "Boards"): tabula.read_board,
the board= argument of new_game, load, VectorGames, spiel and aec; states
that name their board and hash; the errors of a bad, missing or foreign file."""
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

import tabula
from tabula import aec, spiel

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
SMALL = DATA / "khronos-small.txt"  # a Khronos board smaller than the built-in one
MOVED = DATA / "arkadia_moved.txt"  # an Arkadia board with its tent camps moved


def play_out(g, seed):
    rng = random.Random(seed)
    while not g.is_over():
        g.play(rng.choice(g.legal()))
    return g


def ecus(g):
    """Every seat's Ecus (Khronos): the small board starts them with 3, the built-in one with 4."""
    return json.loads(g.state())["ecus"][:g.players]


def test_read_board_names_it_after_the_file():
    b = tabula.read_board("khronos", SMALL)
    assert (b.game, b.name) == ("khronos", "khronos-small")
    assert re.fullmatch(r"[0-9a-f]{16}", b.hash)
    assert "khronos-small" in repr(b)
    assert tabula.read_board("khronos", str(SMALL)).hash == b.hash  # a path as str or Path


def test_a_game_on_a_board_plays_on_it_and_names_it():
    b = tabula.read_board("khronos", SMALL)
    g = tabula.new_game("khronos", players=2, seed=3, board=b)
    builtin = tabula.new_game("khronos", players=2, seed=3)
    assert g.board is b and builtin.board is None
    state = json.loads(g.state())
    assert state["data"] == {"name": "khronos-small", "hash": b.hash}
    assert ecus(g) == [3, 3] and ecus(builtin) == [4, 4]
    # a path works as the board too, the same board
    assert tabula.new_game("khronos", players=2, seed=3, board=SMALL).state() == g.state()
    # the action and observation sizes do not depend on the board: every decision of a game on
    # it has its index in the one action space, and back
    rng = random.Random(5)
    while not g.is_over():
        actions = g.legal_actions()
        assert all(0 <= a < tabula.num_actions("khronos", 2) for a in actions)
        assert [g.action_to_string(a) for a in actions] == g.legal()
        g.apply_action(int(rng.choice(actions)))
    assert g.board is b
    assert len(g.observation(0)) == tabula.observation_size("khronos", 2)


def test_clone_and_load_keep_the_board():
    b = tabula.read_board("khronos", SMALL)
    g = tabula.new_game("khronos", players=3, seed=8, board=b)
    for _ in range(10):
        g.play(g.legal()[0])
    c = g.clone()
    assert c.board is b and c.state() == g.state()
    h = tabula.load(g.state(), board=b)
    assert h.board is b and h.state() == g.state()
    assert tabula.load(g.state(), board=SMALL).state() == g.state()
    # without its board the state is refused, saying which board it needs
    with pytest.raises(tabula.Error, match="khronos-small.*board="):
        tabula.load(g.state())
    # a state of the built-in board loads whatever board is given
    builtin = tabula.new_game("khronos", players=2, seed=1)
    assert tabula.load(builtin.state(), board=b).board is None
    # Game.load replaces the state, on the game's board
    c.load(builtin.state())
    assert c.state() == builtin.state()
    c.load(g.state())
    assert c.state() == g.state()


def test_a_changed_board_is_another_board(tmp_path):
    text = SMALL.read_text()
    changed = text.replace("\necus 3", "\necus 9")
    assert changed != text
    other = tmp_path / "khronos-small.txt"  # the same name, other content
    other.write_text(changed)
    b, c = tabula.read_board("khronos", SMALL), tabula.read_board("khronos", other)
    assert b.name == c.name and b.hash != c.hash
    g = tabula.new_game("khronos", players=2, seed=1, board=c)
    assert json.loads(g.state())["ecus"][:2] == [9, 9]
    with pytest.raises(tabula.Error, match="khronos-small"):
        tabula.load(g.state(), board=b)


def test_vector_games_on_a_board():
    b = tabula.read_board("khronos", SMALL)
    v = tabula.VectorGames("khronos", 8, 2, 1, None, b)
    assert v.game(0).board is b
    assert ecus(v.game(3)) == [3, 3]
    for _ in range(50):
        v.step_random()
    assert v.action_masks().shape == (8, tabula.num_actions("khronos", 2))
    # games that ended were dealt again on the same board
    assert all(v.game(i).board is b and json.loads(v.game(i).state())["data"]["hash"] == b.hash for i in range(8))
    with pytest.raises(TypeError, match="tabula.Board"):
        tabula.VectorGames("khronos", 8, 2, 1, None, str(SMALL))


def test_spiel_and_aec_on_a_board():
    b = tabula.read_board("khronos", SMALL)
    game = spiel.load_game("khronos", players=2, board=SMALL)
    state = game.new_initial_state()
    assert state.game.board.hash == b.hash
    rng = random.Random(1)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.game.board is not None and state.game.is_over()
    env = aec.TabulaEnv("khronos", players=2, seed=2, board=b)
    env.reset()
    assert env.game.board is b
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"].shape == (tabula.num_actions("khronos", 2),) and np.any(obs["action_mask"])


def test_arkadia_board():
    b = tabula.read_board("arkadia", MOVED)
    g = tabula.new_game("arkadia", players=2, seed=4, board=b)
    assert json.loads(g.state())["data"]["name"] == "arkadia_moved"
    assert g.legal() != tabula.new_game("arkadia", players=2, seed=4).legal()  # the castle lot's places
    play_out(g, 2)


def test_bad_boards_are_refused_with_the_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text(SMALL.read_text().replace("\necus 3", "\necus 3\nfoo bar"))
    with pytest.raises(tabula.Error, match=r"bad\.txt:\d+: unknown line 'foo'"):
        tabula.read_board("khronos", bad)
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"size \xff\xfe")
    with pytest.raises(tabula.Error, match="not a text file"):
        tabula.read_board("khronos", binary)
    with pytest.raises(FileNotFoundError):
        tabula.read_board("khronos", tmp_path / "missing.txt")
    named = tmp_path / "default.txt"
    named.write_text(SMALL.read_text())
    with pytest.raises(tabula.Error, match="built-in"):
        tabula.read_board("khronos", named)
    with pytest.raises(tabula.Error, match="no boards"):
        tabula.read_board("clans", SMALL)
    with pytest.raises(tabula.Error, match="Khronos board, not one of Arkadia"):
        tabula.new_game("arkadia", board=tabula.read_board("khronos", SMALL))
    with pytest.raises(TypeError, match="board"):
        tabula.new_game("khronos", board=42)


# Each read of a file that is no board runs in a child process with 1 GiB of
# address space and 20 seconds: a reader that reads /dev/zero to its end or
# waits on a FIFO fails the test there instead of taking the machine down.
_READ_IN_CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
import tabula
try:
    if sys.argv[1] == "read":
        tabula.read_board("khronos", sys.argv[2])
    else:
        tabula.new_game("khronos", players=2, board=sys.argv[2])
    print("read")
except tabula.Error as e:
    print("Error:", e)
"""


def read_in_child(how, path):
    import os
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", _READ_IN_CHILD, how, str(path)], env=os.environ,
                         capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_devices_fifos_folders_and_files_over_64_mib_are_refused(tmp_path):
    import os
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)  # nothing ever writes to it: a reader that waits on it hangs
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate((64 << 20) + 1)  # sparse: no block written
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    for how in ("read", "new_game"):
        assert read_in_child(how, "/dev/zero") == "Error: /dev/zero is a device, not a file: " \
            "give the path of a board, record or state file"
        assert read_in_child(how, fifo) == f"Error: {fifo} is a pipe (FIFO), not a file: " \
            "give the path of a board, record or state file"
        assert read_in_child(how, big) == f"Error: {big} is larger than 64 MiB, more than any " \
            "board, record or state"
    with pytest.raises(tabula.Error, match="is a folder, not a file"):
        tabula.read_board("khronos", folder)
    with pytest.raises(tabula.Error, match=r"not a text file \(byte 6 is a NUL\)"):
        nul = tmp_path / "nul.txt"
        nul.write_bytes(b"size 3\0")
        tabula.read_board("khronos", nul)
