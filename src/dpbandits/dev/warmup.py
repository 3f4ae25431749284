"""``dpb warmup`` (run by ``make install``): compile and cache every numba kernel of the package
with tiny runs, with the argument types the pipeline passes, so that a build compiles nothing
(tests/dev/test_warmup.py). A paper whose runs use kernels of their own compiles them in the
``warm_up`` hook of its package (:mod:`dpbandits.papers`), called here for every registered paper.
"""

from __future__ import annotations

import numpy as np

from dpbandits.audit.fits import bootstrap_means
from dpbandits.engine import checkpoint_rounds, simulate
from dpbandits.envs import make_instances, script_instances
from dpbandits.normals import MIN_COMPILED, standard_normal
from dpbandits.papers import papers
from dpbandits.policies import Quirks, Setting, make_policy
from dpbandits.privacy.accounting import Component, composed_epsilon, pmf_pair_epsilon
from dpbandits.privacy.every_count import from_arrays
from dpbandits.seeds import noise_generator

#: The LinUCB family's algorithms whose kernels :func:`warmup` compiles under the script's
#: quirks (the shuffle, local and joint privacy variants of the engine's LinUCB).
LINUCB_FAMILY = ("linucb", "jdp_standin", "sdp_amp", "sdp_vec", "ldp")


def _linucb_family(T: int, d: int, epsilon: float):
    setting = Setting(T=T, d=d, epsilon=epsilon, delta=0.1, B=20)
    return [
        make_policy(a, setting, "experiment", Quirks.from_fidelity("script")) for a in LINUCB_FAMILY
    ]


#: Cached kernels that only the tests call from Python (the batched Maler the learners' tests
#: drive; the pipeline's OnlineUCB runs Maler inside its compiled round loop): :func:`warmup`
#: leaves them to the tests (tests/dev/test_warmup.py checks that it compiles every other one).
TEST_ONLY_KERNELS = frozenset(
    {"dpbandits.learners.maler._predict_all", "dpbandits.learners.maler._update_all"}
)


def cached_kernels() -> dict:
    """Every ``njit(cache=True)`` function defined in a module of the package, by full name
    (what :func:`warmup` must compile; tests/dev/test_warmup.py)."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import dpbandits

    found = {}
    for info in pkgutil.walk_packages(dpbandits.__path__, "dpbandits."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == info.name:
                if type(obj._cache).__name__ != "NullCache":  # cache=True
                    found[f"{info.name}.{name}"] = obj
    return found


def warm_run(policy, instances, T: int) -> None:
    """One tiny run of ``policy`` on ``instances`` over ``T`` rounds (what compiles its kernels)."""
    simulate(
        policy,
        instances,
        [0],
        [noise_generator(0, "warmup", "p", policy.algorithm, 0)],
        checkpoint_rounds(T, 2),
    )


def warmup() -> None:
    """Compile (and cache) every numba kernel with a tiny run, with the argument types the
    pipeline passes: a build after ``make install`` compiles nothing (tests/dev/test_warmup.py: a
    kernel missed here would be compiled inside the build's jobs, on their time)."""
    inst = script_instances(1, 10, 3)
    setting = Setting(T=40, d=3, epsilon=1.0, delta=0.1)
    onlineucb = [
        make_policy("onlineucb", setting),
        make_policy("onlineucb", setting, radius_mode="oracle"),
        make_policy("onlineucb_doubling", setting),
        make_policy("combiner", setting),
    ]
    for policy in _linucb_family(40, 3, 1.0) + onlineucb:
        for instances in (inst, make_instances("fresh_sphere", 1, 10, 3, 2)):
            if instances.contextual and "fresh" not in policy.runs_on(policy.calibration):
                continue
            if instances.contextual and policy.opts.get("radius_mode") == "oracle":
                continue
            warm_run(policy, instances, 40)
    # the tree mechanism (LinUCB-JDP), DP-DPE's clients (the clipped reports' mean and the
    # shuffle protocol's counts), the arena's fresh-arm contestant (AdaC-OFUL under zCDP)
    T = 200
    small = Setting(T=T, d=3, epsilon=1.0, delta=0.1)
    warm_run(make_policy("jdp_tree", small, "experiment", Quirks.from_fidelity("script")), inst, T)
    # explore-then-commit, the rate audit's planted contestant (every rate sweep of a fixed arm set)
    warm_run(make_policy("etc", Setting(T=T, d=3), explore=50), inst, T)
    fixed = make_instances("fixed_sphere", 1, 10, 3, 2)
    for algorithm in ("ldp_dpe", "sdp_dpe"):
        policy = make_policy(algorithm, Setting(T=T, d=3, epsilon=1.0, delta=0.1, B=1, K=10))
        warm_run(policy, fixed, T)
    fresh = make_instances("fresh_sphere", 1, 10, 3, 2)
    warm_run(make_policy("adac_oful", small, "zcdp"), fresh, T)
    # the kernels only one paper's runs use (its package's warm_up hook)
    for paper in papers():
        hook = paper.hook("warm_up")
        if hook is not None:
            hook()
    # the rate audit's resampling, on a writable and on a read-only table (as read from parquet)
    frozen = np.ones((2, 2))
    frozen.flags.writeable = False
    for Y in (np.ones((2, 2)), frozen):
        bootstrap_means(Y, 2, np.random.default_rng(0))
    # the privacy audit's compiled epsilon search: a dense composed PLD, a pair of pmfs
    composed_epsilon([Component("laplace", 1.0, 1.0, 3)], 1e-5)
    pmf_pair_epsilon(np.array([0.5, 0.5]), np.array([0.4, 0.6]), 1e-5, 2)
    from_arrays([400], [0.5], [3], 0.1)  # DP-PE's shuffle certificate, a count's exact tails
    standard_normal(np.random.default_rng(0), MIN_COMPILED)  # the compiled normals
    print("numba kernels compiled and cached")
