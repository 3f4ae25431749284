"""What the engines, the job sizes and the privacy audit ask a policy class (its dispatch): the
settings it runs on, the engine that simulates it, its release description and one trial's
working memory. No shared module branches on an algorithm's or calibration's name."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dpbandits.engine import simulate
from dpbandits.engine.run import SIMULATORS
from dpbandits.envs.linear import script_instances
from dpbandits.policies import POLICIES, Setting, make_policy, runs_on
from dpbandits.policies.linucb import LinUCB
from dpbandits.privacy.cell_releases import RELEASES, cell_release
from dpbandits.runtime.job_memory import BASE_MB, PHASED_BASE_MB, job_memory_mb

FIXED, FRESH, SPARSE = frozenset({"fixed"}), frozenset({"fresh"}), frozenset({"sparse"})
BOTH = frozenset({"fixed", "fresh"})

#: The settings each (algorithm, calibration) runs on, by hand from the engines' contracts.
RUNS_ON = {
    ("onlineucb", "experiment"): BOTH,
    ("onlineucb_doubling", "experiment"): BOTH,
    ("combiner", "experiment"): BOTH,
    ("adac_ucb", "zcdp"): FIXED,
    ("adac_gope", "zcdp"): FIXED,
    ("adac_oful", "zcdp"): FRESH,
    ("private_lasso", "paper"): SPARSE,
    ("np_th_lasso", "paper"): SPARSE,
    ("oracle_ols", "paper"): SPARSE,
    ("linucb", "op24"): FRESH,
    ("jdp_tree", "op24"): FRESH,
}
#: cz22's LinUCB-type algorithms, whose releases :func:`cz22_release` describes.
CZ22 = {
    "ldp",
    "batched_ldp",
    "sdp_amp",
    "sdp_amp_ru",
    "jdp_standin",
    "jdp_tree",
    "batched_jdp",
    "jdp_user",
    "sdp_vec",
    "sdp_vec_ru",
}


def _pairs():
    return [(a, c) for a, cls in POLICIES.items() for c in cls.calibrations]


@pytest.mark.parametrize("algorithm, calibration", _pairs())
def test_each_policy_states_the_settings_it_runs_on(algorithm, calibration):
    assert runs_on(algorithm, calibration) == RUNS_ON.get((algorithm, calibration), FIXED)


def test_the_op24_calibration_sends_linucb_to_paper_002s_engine():
    """The planted case: the same class, two calibrations, two engines. Under ``op24`` the
    fresh-arm engine refuses a fixed arm set; under ``experiment`` the fixed-arm engine runs."""
    inst = script_instances(1, 5, 3)
    rng = [np.random.default_rng(0)]
    for calibration, key in (("op24", "op24"), ("experiment", "gaussian")):
        policy = make_policy("linucb", Setting(T=20, d=3), calibration)
        assert policy.simulator() == key
    with pytest.raises(ValueError, match="fresh"):
        simulate(make_policy("linucb", Setting(T=20, d=3), "op24"), inst, [0], rng, [20])
    res = simulate(make_policy("linucb", Setting(T=20, d=3), "experiment"), inst, [0], rng, [20])
    assert res.metrics["regret_pseudo"].shape == (1, 1)


@pytest.mark.parametrize("algorithm, calibration", _pairs())
def test_every_simulator_key_is_an_engine(algorithm, calibration):
    """Either a key of :data:`SIMULATORS` or the policy's own engine (the fixed-arm kernels)."""
    cls = POLICIES[algorithm]
    key = cls.simulator.__get__(SimpleNamespace(engine=cls.engine, calibration=calibration))()
    assert key in SIMULATORS or key == cls.engine


@pytest.mark.parametrize("algorithm, calibration", _pairs())
def test_every_private_policy_names_a_release_description(algorithm, calibration):
    cls = POLICIES[algorithm]
    family = cls.release_family(SimpleNamespace(release=cls.release, calibration=calibration))
    if cls.private:
        assert family in RELEASES
    if calibration == "op24":
        assert family == "op24_tree"
    elif algorithm in CZ22:
        assert family == "cz22"
    else:
        assert family != "cz22"


def test_a_policy_without_a_release_description_is_refused_by_name():
    policy = make_policy("linucb", Setting(T=20, d=3), "experiment")
    assert policy.release_family() is None
    with pytest.raises(ValueError, match="cell_x: no release description for 'linucb'"):
        cell_release(SimpleNamespace(stem="cell_x"), policy)

    class Unknown(LinUCB):
        release = "nowhere"

    with pytest.raises(ValueError, match="no release description"):
        cell_release(SimpleNamespace(stem="cell_x"), Unknown(Setting(T=20, d=3)))


def test_each_engines_trial_memory_by_hand():
    """Phased elimination ``32 (K d + d^2 + K)``; PrivateLASSO ``8 T (d+1) + 8 * 4096 K (d+2)``;
    op24's algorithms ``8 T K (d+1) + 32 (K d + d^2 + K)``; the fixed-arm engines the
    reward table ``T K`` plus ``8 E (2 n_refresh + 1)`` (LinUCB, ``E = d + d(d+1)/2``)."""
    phased = make_policy("sdp_dpe", Setting(T=100, d=3, epsilon=1.0, delta=0.1, K=10))
    assert phased.trial_bytes(10) == 32 * 49 == 1568
    assert phased.base_mb == PHASED_BASE_MB
    lasso = make_policy("private_lasso", Setting(T=100, d=5, epsilon=1.0, delta=0.1, K=2), "paper")
    assert lasso.trial_bytes(2) == 4800 + 458752
    oful = make_policy("adac_oful", Setting(T=100, d=3, epsilon=1.0, delta=0.1), "zcdp")
    assert oful.trial_bytes(10) == 32000 + 1568
    linucb = make_policy("linucb", Setting(T=100, d=3), "experiment")
    assert linucb.trial_bytes(10) == 1000 + 8 * 9 * 201 == 15472
    assert linucb.base_mb == BASE_MB


def test_a_jobs_memory_uses_the_policys_base_and_tables():
    """``ceil(base + (2 min(n b, max(chunk, b)) + 2 M T 64 + 3 n C 24 8) / 2^20)``: with
    ``b = 2^20`` bytes, ``n = 10``, ``T = 2^14``, ``C = 1``, ``M = 2``: work 2 x 10 MiB, tables
    4 MiB, results 5760 bytes."""
    assert job_memory_mb(2**20, 10, 2**14, 1, 2, 100) == 100 + 20 + 4 + 1
    assert job_memory_mb(2**20, 10, 2**14, 1, 0, PHASED_BASE_MB) == PHASED_BASE_MB + 21
