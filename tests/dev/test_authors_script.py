"""`dpb bench --authors-script PATH` times cz22's public script with its own classes and round
loop (issue 23). The script is not part of the project, so these tests use a stand-in file with
the same names that records how it was called. The script draws from NumPy's global (legacy)
stream, so the tests use it too."""
# ruff: noqa: NPY002

import json

import numpy as np
import pytest

from dpbandits.cli import main
from dpbandits.dev.authors_script import SCRIPT_CLASSES, SCRIPT_NAMES, load_script, time_script
from dpbandits.envs import script_instances

STAND_IN = """
import json, pathlib
import numpy as np

CALLS = pathlib.Path(__file__).with_suffix(".calls")

if __name__ == "__main__":
    raise SystemExit("the main block must not run")


class LinBandit:
    def __init__(self, X, theta, epsilon, delta, BatchSize, noise="normal", sigma=0.5, seed=None):
        self.X, self.theta, self.seed = X, theta, seed
        self.args = [epsilon, delta, BatchSize, noise, sigma]


def evaluate_one(Alg, params, env, n, period_size):
    np.random.normal(size=3)  # privacy noise from the global stream, as the script draws it
    with CALLS.open("a") as fh:
        fh.write(json.dumps({"alg": Alg.__name__, "n": n, "seed": env.seed, "d": d,
                             "X0": env.X[0].tolist(), "args": env.args}) + "\\n")
    return np.zeros(n), None


class LinUCB: pass
class JDPLinUCB: pass
class SDPLinUCBPAmp: pass
class SDPLinUCBPVec: pass
class LDPLinUCB: pass
"""


@pytest.fixture
def stand_in(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(STAND_IN)
    return path


def test_every_algorithm_runs_on_the_engines_instances_with_the_scripts_loop(stand_in):
    np.random.seed(7)
    before = np.random.random()
    np.random.seed(7)
    costs = time_script(stand_in, trials=3, T=50, d=4, K=12, epsilon=1.0, delta=0.1, B=20)
    assert np.random.random() == before  # the global stream is left as it was
    assert list(costs) == list(SCRIPT_CLASSES) and all(c > 0 for c in costs.values())
    calls = [json.loads(line) for line in stand_in.with_suffix(".calls").read_text().splitlines()]
    assert [c["alg"] for c in calls] == [n for n in SCRIPT_CLASSES.values() for _ in range(3)]
    inst = script_instances(3, 12, 4)
    for c in calls:
        assert c["n"] == 50 and c["d"] == 4
        assert c["X0"] == inst.X[c["seed"]][0].tolist()  # instance i with reward seed i
        assert c["args"] == [1.0, 0.1, 20, "bernoulli", 0]


def test_a_file_that_is_not_the_script_is_refused_by_name(tmp_path, stand_in):
    with pytest.raises(FileNotFoundError, match="no file"):
        load_script(tmp_path / "missing.py")
    other = tmp_path / "other.py"
    other.write_text(STAND_IN.replace("class SDPLinUCBPVec: pass", ""))
    with pytest.raises(ValueError, match="no SDPLinUCBPVec") as err:
        load_script(other)
    assert all(name in str(err.value) for name in SCRIPT_NAMES)
    assert load_script(stand_in).SDPLinUCBPVec.__name__ == "SDPLinUCBPVec"


def test_the_bench_refuses_a_wrong_path_before_timing_anything(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--authors-script", str(tmp_path / "missing.py")])
    assert exit_.value.code == 2
    assert "--authors-script: no file" in capsys.readouterr().err


def test_the_bench_refuses_the_script_with_another_papers_workload(stand_in, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--only", "olucb", "--authors-script", str(stand_in)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "leaves out; use --only cz22" in err
