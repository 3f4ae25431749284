"""Cell settings as one rule parameter per setting (dpbandits.settings_params)."""

import math

import pytest

from dpbandits.settings_params import flatten, unflatten


def _cells():
    return [
        {"epsilon": 1.0, "d": 5, "options": {"vec_scale": 10}, "instances": "script"},
        None,
        {"epsilon": math.inf, "d": 20, "options": {}, "instances": [1, 2]},
    ]


def test_the_job_gets_its_cells_back_in_order():
    params = flatten("cell", _cells(), ["a", "b", "c"])
    assert unflatten(list(params.items()), "cell") == _cells()
    # other parameters of the rule and other families are ignored
    extra = [("code", "abc"), ("source0__epsilon", "a: epsilon = 2.0"), *params.items()]
    assert unflatten(extra, "cell") == _cells()


def test_a_changed_setting_changes_exactly_one_parameter_that_names_it():
    """Snakemake's rerun reason lists the parameter values that differ: one edited epsilon
    differs in one value, which names the cell, the key and both values."""
    before = set(flatten("cell", _cells(), ["a", "b", "c"]).values())
    edited = _cells()
    edited[0] = {**edited[0], "epsilon": 2.0}
    after = set(flatten("cell", edited, ["a", "b", "c"]).values())
    assert before - after == {"a: epsilon = 1.0"}
    assert after - before == {"a: epsilon = 2.0"}


def test_values_holding_the_separators_read_back_and_labels_cannot_hold_them():
    params = flatten("cell", [{"x": "a: x = z"}], ["cz22/fig1a/r1/LinUCB"])
    assert unflatten(list(params.items()), "cell") == [{"x": "a: x = z"}]
    with pytest.raises(ValueError, match="cannot contain"):
        flatten("cell", [{"x": 1}], ["odd: label"])
