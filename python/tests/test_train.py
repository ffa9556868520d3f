"""examples/python/train.py end to end, tiny (docs/python.md, "Training"):
self-play data from `tabula selfplay` loads, one short epoch lowers the loss
on the data set, the network file is written in Tabula's format (which `tabula match` then
reads for ismcts:...:net=FILE), and the trained network only ever plays
legal actions in its matches."""
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABULA = os.environ.get("TABULA", "build/tabula")


def test_train_loop_end_to_end(tmp_path):
    data = tmp_path / "data"
    subprocess.run([TABULA, "selfplay", "clans", "--players", "2", "--games", "8",
                    "--agent", "ismcts:iterations=100", "--quiet", "--out", str(data)],
                   check=True, capture_output=True, timeout=300)
    net = tmp_path / "net.bin"
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "train.py"),
                          "--data", str(data), "--out", str(net), "--epochs", "1",
                          "--hidden", "64", "--batch", "32", "--lr", "0.003", "--games", "4"],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert re.search(r"clans, 2 players: \d+ decisions from 8 games", text)
    before = re.search(r"before training: policy loss ([\d.]+), value loss ([\d.]+)", text)
    after = re.search(r"epoch 1: policy loss ([\d.]+), value loss ([\d.]+)", text)
    assert before and after, text
    assert float(after.group(1)) + float(after.group(2)) < \
        float(before.group(1)) + float(before.group(2)), text
    head = net.read_text().splitlines()[:3]
    assert head == ["tabula-net 1", "game clans players 2 observation 527 actions 3660",
                    "hidden 1 64"]
    matches = re.findall(r"network vs (random|greedy): [\d.]+/4 = .*illegal actions tried: (\d+)",
                         text)
    assert [m[0] for m in matches] == ["random", "greedy"], text
    assert all(m[1] == "0" for m in matches)
    # the search reads the network: a short match of ismcts with it
    r = subprocess.run([TABULA, "match", "--game", "clans", "--games", "2", "--agents",
                        f"ismcts:iterations=30:net={net},greedy"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^ismcts:iterations=30:net=\S+ +2 ", r.stdout, re.M), r.stdout
