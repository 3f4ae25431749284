"""DP-DPE's shuffle certificate over every phase and support size (privacy/every_part.py): the
screen bounds each part, the screened maximum is the largest part's certificate, and a grid of
phases and sizes misses the largest part (the planted case the certificate exists for)."""

import math

import pytest

from dpbandits.g_optimal import support_cap
from dpbandits.privacy import every_part as ep

# B = 1, alpha = 0.8 (dpdpe's Figure 2), the paper's eps_hat, no noise scaling, 25 phases
_REST = (1.0, 0.8, None, 1.0, 25)


def test_the_phases_that_report_end_by_the_horizon():
    # phase l plays at least h1 2^(l-1) rounds: 2 (2^18 - 1) = 524 286 <= 10^6 < 2 (2^19 - 1)
    assert ep.released_phases(10**6, 2.0) == 18
    assert ep.released_phases(524_286, 2.0) == 18 and ep.released_phases(524_285, 2.0) == 17
    assert ep.released_phases(10**4, 2.0) == 12 and ep.released_phases(1, 2.0) == 1


def test_every_phase_and_every_support_size_is_a_part():
    for d in (2, 5, 20):
        cap = int(math.floor(support_cap(d)))
        labels = ep.labels(d, 25)
        assert len(labels) == 25 * cap
        assert {x.split(",")[1] for x in labels} == {f"s={s}" for s in range(1, cap + 1)}
        views = ep.protocols(300.0, 0.1, d, *_REST)
        assert set(views.values()) <= set(labels)


def test_the_screen_is_an_upper_bound_of_each_parts_certificate():
    views = list(ep.protocols(300.0, 0.1, 2, *_REST))[::15]
    for view in views:
        assert ep.screen(view, 0.1) >= ep.certificate(view, 0.1) - 1e-12


def test_a_grid_of_phases_and_sizes_misses_the_largest_part():
    """d = 5, delta 0.1, internal epsilon 100: the largest part (phase 7, 24 support actions) is
    off the grid of phases (1, 2, 4, 8, 12, 16, 20, 25) and sizes (1, 2, 4, 8, 16, 25) that the
    accountant used before, whose maximum is 0.40 of it."""
    key = (100.0, 0.1, 5, *_REST)
    value, parts = ep.worst(*key, 0.1)
    top = next(iter(parts))
    assert top == "l=7,s=24" and value == parts[top] == pytest.approx(0.01663, rel=1e-3)
    grid = max(
        ep.part_epsilon(key, f"l={l},s={s}", 0.1)
        for l in (1, 2, 4, 8, 12, 16, 20, 25)
        for s in (1, 2, 4, 8, 16, 25)
    )
    assert grid == pytest.approx(0.006645, rel=1e-3) and grid < 0.5 * value
    # the meeting case: at epsilon 10 every part is within delta in total variation
    assert ep.worst(10.0, 0.1, 5, *_REST, 0.1)[0] == 0.0


@pytest.mark.e2e
@pytest.mark.parametrize("eps", [100.0, 300.0, 600.0])
def test_the_screened_maximum_is_the_largest_certificate_of_every_part(eps):
    # every part certified on the fine grid (about 4 s at d = 2): the same maximum
    views = ep.protocols(eps, 0.1, 2, *_REST)
    brute = max(ep.certificate(view, 0.1) for view in views)
    assert ep.worst(eps, 0.1, 2, *_REST, 0.1)[0] == brute > 0.0
