"""The Rényi bound of a shuffle part (privacy/rdp_screen.py): its conversions by hand, an upper
bound of every part's certificate with the pruning's slack, and a certificate over every part
that it prunes without changing the value (the planted case: a bound that is too low does)."""

import math

import pytest

from dpbandits.privacy import every_part as ep
from dpbandits.privacy import rdp_screen

# B = 1, alpha = 0.8 (dpdpe's Figure 2), the paper's eps_hat, no noise scaling, 25 phases
_REST = (1.0, 0.8, None, 1.0, 25)


def test_the_bound_by_hand_for_one_trial():
    # N = 1, p = 1/2, k = 1, s = 1: P = (1/2, 1/2) on {0, 1}, Q on {1, 2}; the overlap {1} keeps
    # m = 1/2 out, so delta' = 0.6 - 0.5 = 0.1, P'' is the point mass at 1 and D_a = ln 2 for
    # every order. Canonne-Kamath-Steinke at a = 12: ln 2 + ln(11/12) - (ln 0.1 + ln 12) / 11
    # = 0.693147 - 0.087011 - 0.016575 = 0.589561, below Mironov's ln 2 + ln 10 / 63 (a = 64)
    # and every other order's; the other direction is the same
    hand = math.log(2) + math.log(11 / 12) - (math.log(0.1) + math.log(12)) / 11
    assert hand == pytest.approx(0.589561, abs=1e-6)
    assert rdp_screen.rdp_epsilon((1, 0.5, 1, 1), 0.6) == pytest.approx(hand, abs=1e-9)
    # the mass off the overlap alone exceeds delta: no bound; no shift: epsilon 0
    assert rdp_screen.rdp_epsilon((1, 0.5, 1, 1), 0.5) == math.inf
    assert rdp_screen.rdp_epsilon((10, 0.5, 0, 3), 0.1) == 0.0


def test_the_pruning_bound_is_above_every_parts_certificate():
    for eps, d in ((100.0, 5), (300.0, 2)):
        views = list(ep.protocols(eps, 0.1, d, *_REST))[::7]
        for view in views:
            bound = ep._pruning_bound(rdp_screen.rdp_epsilon(view, 0.1), view)
            assert bound >= ep.certificate(view, 0.1), view


@pytest.mark.parametrize("eps,d", [(100.0, 5), (300.0, 2)])
def test_the_pruned_certificate_is_the_screened_one(eps, d, monkeypatch):
    key = (eps, 0.1, d, *_REST)
    screened = ep.worst(*key, 0.1)[0]
    assert screened > 0
    assert ep.worst(*key, 0.1, parts=False)[0] == screened
    # planted: a bound that prunes every part after the first misses the largest
    monkeypatch.setattr(rdp_screen, "rdp_epsilon", lambda view, delta: 0.0)
    assert ep.worst(*key, 0.1, parts=False)[0] < screened
