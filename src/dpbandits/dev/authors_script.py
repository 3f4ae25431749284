"""The per-round cost of the authors' public experiment script of cz22 (cz22), timed here.

Issue 23 asks the bench to compare one Figure 1 panel of the engine with the script that drew
the published figure. The script is not part of the project (it is the authors' code, under
their terms): a user who has it passes its path, ``dpb bench --authors-script PATH`` (or
``make bench AUTHORS_SCRIPT=PATH``), and the bench runs the script's own classes on a reduced
workload, with the script's own round loop (``evaluate_one``: draw every arm's reward, choose,
update), on the same instances as the engine (:func:`dpbandits.envs.script_instances` draws
them as the script does).

Nothing of the script is copied here: the module loads the given file under another name (so
its ``__main__`` block does not run) and uses the names listed in :data:`SCRIPT_NAMES`.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from dpbandits.envs import script_instances

#: The script's class for each algorithm of the engine's Figure 1 panel (docs/papers/cz22.md).
SCRIPT_CLASSES = {
    "linucb": "LinUCB",
    "jdp_standin": "JDPLinUCB",
    "sdp_amp": "SDPLinUCBPAmp",
    "sdp_vec": "SDPLinUCBPVec",
    "ldp": "LDPLinUCB",
}

#: Every name the timing uses from the script: its environment, its round loop, the classes.
SCRIPT_NAMES = ("LinBandit", "evaluate_one", *SCRIPT_CLASSES.values())


def load_script(path: str | Path) -> ModuleType:
    """Import the authors' script from ``path`` without running its ``__main__`` block.

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    ValueError
        If the file lacks a name of :data:`SCRIPT_NAMES` (it is not the paper's script).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"--authors-script: no file {path}")
    spec = importlib.util.spec_from_file_location("cz22_authors_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    missing = [name for name in SCRIPT_NAMES if not hasattr(module, name)]
    if missing:
        raise ValueError(
            f"--authors-script {path}: no {', '.join(missing)}; expected the public experiment "
            f"script of 'Shuffle Private Linear Contextual Bandits' (ICML 2022), which defines "
            f"{', '.join(SCRIPT_NAMES)}"
        )
    return module


def time_script(
    path: str | Path,
    trials: int = 2,
    T: int = 2000,
    d: int = 5,
    K: int = 100,
    epsilon: float = 1.0,
    delta: float = 0.1,
    B: int = 20,
) -> dict[str, float]:
    """Microseconds per round per trial of each algorithm, run by the authors' script.

    Parameters
    ----------
    path : str or Path
        The script (:func:`load_script`).
    trials, T : int
        Instances and rounds per algorithm (the script's cost per round does not grow with T,
        so a reduced workload measures it).
    d, K, epsilon, delta, B : dimension, arms, privacy level and batch size of Figure 1 (R1).

    Returns
    -------
    dict
        Algorithm name (the keys of :data:`SCRIPT_CLASSES`) -> microseconds per round per trial,
        including the script's reward draws.
    """
    script = load_script(path)
    script.d = d  # the script's classes read the dimension from its module-level ``d``
    inst = script_instances(trials, K, d)
    # the script's privacy noise draws from NumPy's global (legacy) stream: seeded for the
    # timing, and left as it was found
    state = np.random.get_state()  # noqa: NPY002
    np.random.seed(0)  # noqa: NPY002
    try:
        costs = {}
        for algorithm, name in SCRIPT_CLASSES.items():
            start = time.perf_counter()
            for i in range(trials):
                env = script.LinBandit(
                    inst.X[i], inst.theta[i], epsilon, delta, B, noise="bernoulli", sigma=0, seed=i
                )
                script.evaluate_one(getattr(script, name), {}, env, T, 1)
            costs[algorithm] = 1e6 * (time.perf_counter() - start) / (trials * T)
    finally:
        np.random.set_state(state)  # noqa: NPY002
    return costs
