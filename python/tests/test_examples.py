"""The two programs of docs/python.md (examples/python/) run and print what
the document says, and the document quotes them exactly."""
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "python.md").read_text()


def run(name):
    path = ROOT / "examples" / "python" / name
    assert path.read_text().strip() in DOC, f"docs/python.md does not quote {name}"
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=dict(os.environ), timeout=300, check=True)
    return out.stdout


def test_random_clans_win_rates():
    out = run("random_clans.py")
    rates = [float(x) for x in re.findall(r"seat \d: (\d\.\d+)", out)]
    assert len(rates) == 4 and abs(sum(rates) - 1.0) < 0.01
    assert all(0.2 < r < 0.3 for r in rates)


def test_ismcts_beats_the_python_policy():
    out = run("ismcts_vs_policy.py")
    m = re.search(r"ismcts (\d+\.\d) - python policy (\d+\.\d) in 10 games", out)
    assert m and float(m.group(1)) + float(m.group(2)) == 10.0
    assert float(m.group(1)) >= 6.0
