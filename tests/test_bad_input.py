"""Bad input is refused before any job runs, with the key, the bad value and what is allowed.

Every case mutates one shipped file and loads it with the function the Snakefile calls while it
parses (``workflow/rules/common.smk``), so a refusal here is a refusal before the DAG exists; the
README's "What is validated" table lists the same cases. ``tests/workflow/test_pipeline.py``
checks the same path end to end through ``snakemake``.
"""

import copy

import pytest
import yaml

from dpbandits.arena.spec import load_arena
from dpbandits.claims import check_claim_targets, load_registry
from dpbandits.config import ConfigError, check_schema, load_experiment, load_yaml
from dpbandits.notebooks import check_parameters
from dpbandits.papers import select as select_papers
from dpbandits.papers.op24.plan import load_plan as load_op24_plan
from dpbandits.papers.plasso.plan import load_plan as load_plasso_plan

from .conftest import ROOT, SCHEMAS


def _config(mutate):
    data = load_yaml(ROOT / "config/config.yaml")
    mutate(data)
    select_papers(data)  # as the workflow does: the selection against the registry, then the schema
    check_schema(data, SCHEMAS / "config.schema.yaml", "config/config.yaml")


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _experiment(name, mutate, tmp_path):
    data = load_yaml(ROOT / f"config/experiments/{name}.yaml")
    mutate(data)
    config = load_yaml(ROOT / "config/config.yaml")
    load_experiment(
        _write(tmp_path, f"{name}.yaml", data), config, SCHEMAS / "experiment.schema.yaml"
    )


def _claims(name, mutate, tmp_path):
    data = load_yaml(ROOT / f"config/claims/{name}.yaml")
    mutate(data)
    path = _write(tmp_path, f"{name}_claims.yaml", data)
    registry = load_registry(path, SCHEMAS / "claims.schema.yaml")
    config = load_yaml(ROOT / "config/config.yaml")
    exp = load_experiment(
        ROOT / f"config/experiments/{name}.yaml", config, SCHEMAS / "experiment.schema.yaml"
    )
    check_claim_targets(registry["claims"], exp, path)


def _op24(mutate, tmp_path):
    data = load_yaml(ROOT / "config/experiments/op24.yaml")
    mutate(data)
    load_op24_plan(str(_write(tmp_path, "op24.yaml", data)), str(SCHEMAS / "op24.schema.yaml"))


def _plasso(mutate, tmp_path):
    data = load_yaml(ROOT / "config/experiments/plasso.yaml")
    mutate(data)
    load_plasso_plan(
        str(_write(tmp_path, "plasso.yaml", data)), str(SCHEMAS / "plasso.schema.yaml")
    )


def _set(path: str, value):
    """Mutation setting a dotted path (integers index lists)."""

    def mutate(data):
        keys = path.split(".")
        node = data
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = keys[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


def _dup_claim(data):
    data["claims"].append(copy.deepcopy(data["claims"][1]))


def _first_sweep_claim(data, key, value):
    claim = next(c for c in data["claims"] if "sweep" in c["audit"])
    claim["audit"][key] = value


def _first_panel_claim(data, value):
    claim = next(c for c in data["claims"] if "panels" in c["audit"])
    claim["audit"]["panels"] = [value]


def _first_pair_series(data):
    claim = next(c for c in data["claims"] if "pairs" in c["audit"] and "panels" in c["audit"])
    claim["audit"]["pairs"][0] = ["LinUCB-Nope", claim["audit"]["pairs"][0][1]]


def _first_metric(data):
    next(c for c in data["claims"] if "metric" in c["audit"])["audit"]["metric"] = "regret_nope"


def _dup_run(data):
    runs = data["tiers"]["core"]["runs"]
    runs.append(copy.deepcopy(runs[0]))


#: (what, file, loader call, substrings the message must contain: key, value, what is allowed)
CASES = [
    ("unknown scale", "config.yaml", lambda t: _config(_set("scale", "huge")),
     ["scale = 'huge'", "allowed: paper, quick"]),
    ("negative root seed", "config.yaml", lambda t: _config(_set("root_seed", -1)),
     ["root_seed = -1", "must be >= 0"]),
    # the reward streams are RandomState(offset + first_trial + i): the sum must stay a 32-bit
    # seed (it overflowed inside the job before)
    ("reward seed beyond 2^32", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("defaults.reward_seed_offset", 2**32 - 10), t),
     ["reward_seed_offset (4294967286)", "trials", "above 4294967295", "allowed"]),
    ("instance seed beyond 2^32", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("defaults.instance_seed", 2**32), t),
     ["instance_seed = 4294967296", "4294967295"]),
    ("wrong type", "config.yaml", lambda t: _config(_set("checkpoints", "many")),
     ["checkpoints = 'many'", "integer"]),
    ("warm worker not a boolean", "config.yaml", lambda t: _config(_set("warm_worker", "yes")),
     ["warm_worker = 'yes'", "boolean"]),
    # extreme privacy levels reached the calibration's arithmetic while parsing (a traceback)
    ("epsilon 1e-300", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("sweeps.rates.epsilon", [1e-300]), t),
     ["sweeps.rates.schedules", "epsilon 1e-300", "ZeroDivisionError", "allowed"]),
    ("epsilon 1e300", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("sweeps.rates.epsilon", [1e300]), t),
     ["epsilon 1e+300", "OverflowError", "allowed"]),
    # epsilon 1e-12 passed parsing and overflowed Generator.binomial in the job
    ("epsilon 1e-12: too many binomial bits", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("sweeps.rates.epsilon", [1e-12]), t),
     ["epsilon 1e-12", "binomial trials per entry and batch", "allowed: at most 2^62"]),
    # a view is a privacy check's; a local view needs the level the paper states for it
    ("view on a simulated sweep", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("sweeps.rates.view", "local"), t),
     ["sweeps.rates.view", "'local'", "privacy_checks.<id>.view"]),
    ("local view of an algorithm without a stated level", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("privacy_checks.corollaries.view", "local"), t),
     ["privacy_checks.corollaries.schedules.sdp_amp_ru_m13.algorithm", "'sdp_amp_ru'",
      "allowed with view local: sdp_amp, sdp_vec"]),
    ("auditor samples beyond memory", "config.yaml",
     lambda t: _config(_set("privacy.samples.core", 10**10)),
     ["privacy.samples.core = 10000000000", "2000000"]),
    ("negative tolerance", "config.yaml", lambda t: _config(_set("audit.tolerance", -0.1)),
     ["audit.tolerance = -0.1", "must be >= 0"]),
    ("unknown experiment", "config.yaml",
     lambda t: _config(_set("experiments", ["cz22", "cz23"])),
     ["config key experiments: 'cz23'", "allowed: cz22, olucb, dpdpe"]),
    ("empty experiment list", "config.yaml", lambda t: _config(_set("experiments", [])),
     ["experiments", "should be non-empty"]),
    ("unknown tier", "config.yaml", lambda t: _config(_set("tier", "giant")),
     ["tier = 'giant'", "allowed: core, full"]),
    ("auditor confidence out of range", "config.yaml",
     lambda t: _config(_set("privacy.alpha", 0.7)), ["privacy.alpha = 0.7", "must be < 0.5"]),
    ("too few auditor samples", "config.yaml",
     lambda t: _config(_set("privacy.samples.core", 10)),
     ["privacy.samples.core = 10", "must be >= 1000"]),
    ("unknown bound audit", "config.yaml", lambda t: _config(_set("bound_audits", ["op25"])),
     ["config key bound_audits: 'op25'", "allowed: op24, plasso"]),
    ("unknown algorithm", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("series.LinUCB-LDP.algorithm", "ldp2"), t),
     ["series.LinUCB-LDP.algorithm = 'ldp2'", "allowed: linucb, ldp"]),
    ("unknown calibration", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("configurations.r1.calibration", "magic"), t),
     ["configurations.r1.calibration = 'magic'", "allowed: experiment, theory"]),
    ("delta out of range", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("defaults.delta", 1.5), t),
     ["defaults.delta = 1.5", "must be < 1"]),
    ("negative epsilon", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("figures.cz22_fig1.panels.b.epsilon", -1), t),
     ["figures.cz22_fig1.panels.b.epsilon = -1", "must be > 0"]),
    ("empty sweep", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("sweeps.rates.T", []), t),
     ["sweeps.rates.T = []", "should be non-empty"]),
    ("unknown fidelity", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("configurations.r1.fidelity", "approx"), t),
     ["configurations.r1.fidelity = 'approx'", "allowed: script, corrected"]),
    ("unknown policy option", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("series.LinUCB-SDP-Vec.options", {"vec_scal": 1}), t),
     ["series.LinUCB-SDP-Vec.options.vec_scal: unknown key", "allowed: C, D"]),
    ("zero epsilon", "experiments/dpdpe.yaml",
     lambda t: _experiment("dpdpe", _set("figures.dpdpe_fig2b.panels.a.epsilon", 0), t),
     ["figures.dpdpe_fig2b.panels.a.epsilon = 0", "must be > 0"]),
    ("duplicate claim id", "claims/cz22.yaml", lambda t: _claims("cz22", _dup_claim, t),
     ["claims.", "duplicate id"]),
    ("claim refers to a missing sweep", "claims/cz22.yaml",
     lambda t: _claims("cz22", lambda d: _first_sweep_claim(d, "sweep", "ratez"), t),
     ["audit.sweep = 'ratez'", "allowed: rates"]),
    ("claim refers to a missing panel", "claims/cz22.yaml",
     lambda t: _claims("cz22", lambda d: _first_panel_claim(d, "cz22_fig9a"), t),
     ["audit.panels.0 = 'cz22_fig9a'", "allowed: cz22_fig1a"]),
    ("pair of a figure check names a missing series", "claims/cz22.yaml",
     lambda t: _claims("cz22", _first_pair_series, t),
     ["audit.pairs.0.0 = 'LinUCB-Nope'", "allowed: LinUCB, LinUCB-JDP"]),
    ("metric that no engine records", "claims/olucb.yaml",
     lambda t: _claims("olucb", _first_metric, t),
     ["audit.metric = 'regret_nope'", "allowed:", "theta_star_covered"]),
    ("claim refers to another experiment", "claims/olucb.yaml",
     lambda t: _claims("olucb", lambda d: _first_sweep_claim(d, "experiment", "cz22"), t),
     ["audit.experiment = 'cz22'", "allowed: olucb"]),
    ("unknown audit check", "claims/dpdpe.yaml",
     lambda t: _claims("dpdpe", lambda d: _first_sweep_claim(d, "check", "slopes"), t),
     ["check", "'slopes'"]),
    ("privacy value outside the grid", "experiments/op24.yaml",
     lambda t: _op24(_set("tiers.core.runs.0.privacy", [0.5]), t),
     ["privacy", "0.5", "grid"]),
    ("duplicate run id", "experiments/op24.yaml", lambda t: _op24(_dup_run, t),
     ["e1_I1", "duplicate"]),
    ("epsilon outside the grid", "experiments/plasso.yaml",
     lambda t: _plasso(_set("tiers.core.experiments.0.algorithms.private_lasso", [3.0]), t),
     ["private_lasso", "3", "grid"]),
    ("unknown instance family", "experiments/plasso.yaml",
     lambda t: _plasso(_set("tiers.core.experiments.0.families", ["F9"]), t),
     ["F9", "allowed"]),
    # plasso allocated T x d histories in the job: d = 1e8 asked for 381 GiB at run time
    ("plasso dimension beyond memory", "experiments/plasso.yaml",
     lambda t: _plasso(_set("tiers.core.experiments.0.config.d", 100_000_000), t),
     ["tiers.core.experiments.0.config", "d = 100000000", "MiB", "allowed: at most"]),
    ("plasso sparsity above the dimension", "experiments/plasso.yaml",
     lambda t: _plasso(_set("tiers.core.experiments.0.config.s0", 200), t),
     ["s0 = 200 is above d = 100", "allowed: 1 <= s0 <= d"]),
    # issue 20, class 4: NaN and infinity refused unless the schema says what infinity means
    ("NaN tolerance", "config.yaml", lambda t: _config(_set("audit.tolerance", float("nan"))),
     ["audit.tolerance = nan", "finite number"]),
    ("infinite sweep epsilon", "experiments/cz22.yaml",
     lambda t: _experiment("cz22", _set("figures.cz22_fig1.panels.b.epsilon", float("inf")), t),
     ["figures.cz22_fig1.panels.b.epsilon = inf", "finite number"]),
    ("NaN privacy value", "experiments/op24.yaml",
     lambda t: _op24(_set("grids.adac_ucb", [1.0, float("nan")]), t),
     ["grids.adac_ucb.1 = nan", "finite number"]),
    # class 6: values that do not parse or overflow
    ("claimed exponent with zero denominator", "claims/cz22.yaml",
     lambda t: _claims("cz22", _set("claims.0.T_exp", "1/0"), t),
     ["claims.0.T_exp = '1/0'", "matching"]),
    ("claimed exponent that overflows", "claims/cz22.yaml",
     lambda t: _claims("cz22", _set("claims.0.T_exp", "10" * 200), t),
     ["claims.0.T_exp = '1010", "matching"]),
    ("horizon grid out of range", "experiments/op24.yaml",
     lambda t: _op24(_set("horizons.log10_first", 300), t),
     ["horizons", "10^304", "allowed up to 10^8"]),
    # class 8: config may only reference files of the project, and never echoes others
    ("claims file outside the project", "experiments/op24.yaml",
     lambda t: _op24(_set("claims", "/etc/hostname"), t),
     ["claims = '/etc/hostname'", "config/claims/"]),
    ("claims file path escape", "experiments/plasso.yaml",
     lambda t: _plasso(_set("claims", "config/claims/../../../etc/passwd"), t),
     ["claims = 'config/claims/../../../etc/passwd'", "config/claims/"]),
    ("notebook parameter typo", "a rule's notebook parameters",
     lambda t: check_parameters(ROOT / "notebooks/plasso_audit.ipynb", {"run_filez": []}),
     ["run_filez", "not declared", "allowed:"]),
]  # fmt: skip


#: Raw YAML text that cannot be expressed as a mutated dict (issue 20, classes 5 and 6).
RAW_CASES = [
    ("repeated key", "defaults:\n  T: 100\n  delta: 0.1\n  T: 200\n",
     ["key 'T' appears twice", "lines 2 and 4"]),
    ("repeated series label", "series:\n  LinUCB:\n    algorithm: linucb\n"
     "  LinUCB:\n    algorithm: ldp\n", ["key 'LinUCB' appears twice", "lines 2 and 4"]),
    ("syntax error", "title: [unclosed\nT: 3\n", ["not valid YAML", "line 2"]),
    ("python tag", "x: !!python/object/apply:os.system ['true']\n", ["not valid YAML"]),
    # YAML 1.1 reads `yes`/`on`/`1.5` as a boolean or a number: jsonschema then failed with a
    # TypeError naming neither file nor key
    ("boolean key", "series:\n  yes:\n    algorithm: linucb\n",
     ["'yes' (line 2)", "bool", "quote it"]),
    ("number key", "defaults:\n  1.5: 3\n", ["'1.5' (line 2)", "float", "quote it"]),
    # the construct that silently drops a value: two merges bringing in one key (YAML keeps
    # one of the two, with no message)
    ("two merges, one key", "a: &a {T: 1}\nb: &b {T: 2}\nfig:\n  <<: [*a, *b]\n",
     ["key 'T' is brought in by two merges", "lines 1 and 2"]),
    ("two merge keys, one key", "a: &a {T: 1}\nb: &b {T: 2}\nfig:\n  <<: *a\n  <<: *b\n",
     ["key 'T' is brought in by two merges"]),
    # YAML 1.1 numbers that are not what their digits say (the value changes silently)
    ("leading zero", "defaults:\n  instance_seed: 010\n",
     ["'010' (line 2)", "octal integer (8)"]),
    ("base 60", "defaults:\n  T: 1:20\n", ["'1:20' (line 2)", "base-60"]),
    # a "billion laughs": nine levels of ten aliases expand to 10^9 values
    ("alias bomb", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)),
     ["expands to more than 1,000,000 values"]),
]  # fmt: skip


def test_a_file_that_is_not_utf8_is_refused_with_its_line(tmp_path):
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"title: ok\n# caf\xe9\nT: 3\n")
    with pytest.raises(ConfigError) as err:
        load_yaml(path)
    assert "not UTF-8" in str(err.value) and "0xe9 on line 2" in str(err.value)


def test_a_syntax_error_in_config_yaml_is_refused_with_its_line(tmp_path, capsys):
    from dpbandits.config import exit_if_unreadable

    path = tmp_path / "config.yaml"
    path.write_text("root_seed: 1\nscale: [paper\n")
    with pytest.raises(SystemExit) as stop:
        exit_if_unreadable(path)
    assert stop.value.code == 1
    assert "line 3" in capsys.readouterr().err
    path.write_text("scale: paper\n")
    exit_if_unreadable(path)  # a good file passes
    exit_if_unreadable(tmp_path / "absent.yaml")  # Snakemake reports a missing one itself


@pytest.mark.parametrize("what,text,expected", RAW_CASES, ids=[c[0] for c in RAW_CASES])
def test_raw_yaml_problems_name_the_file_and_line(what, text, expected, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_yaml(path)
    msg = str(err.value)
    assert str(path) in msg and not [s for s in expected if s not in msg], msg


def test_missing_file_is_a_message_not_a_traceback(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_yaml(tmp_path / "nowhere.yaml")


def test_merge_keys_may_override_without_counting_as_repeats(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("base: &b {T: 1, d: 2}\nfig: {<<: *b, T: 3}\n")
    assert load_yaml(path)["fig"] == {"T": 3, "d": 2}


def test_infinity_is_accepted_where_the_schema_says_it_means_non_private(tmp_path):
    _op24(_set("grids.adac_ucb", [1.0, float("inf")]), tmp_path)  # no error


def test_the_catalogue_is_large_enough():
    assert len(CASES) >= 20 and len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("what,where,call,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_key_value_and_what_is_allowed(
    what, where, call, expected, tmp_path
):
    with pytest.raises((ConfigError, ValueError)) as err:
        call(tmp_path)
    msg = str(err.value)
    missing = [s for s in expected if s not in msg]
    assert not missing, f"{what} ({where}): {missing} not in:\n{msg}"


def test_shipped_files_pass_every_check(tmp_path):
    for name in ("cz22", "olucb", "dpdpe"):
        _claims(name, lambda d: None, tmp_path)
    _op24(lambda d: None, tmp_path)
    _plasso(lambda d: None, tmp_path)


def test_nested_config_overrides_get_their_yaml_types():
    # Snakemake reads `--config 'audit={tolerance: 0.1, seed: 7}'` with YAML's BaseLoader:
    # every nested leaf is a string (issue 20, class 10); typed_overrides restores the types
    from dpbandits.config import typed_overrides

    config = load_yaml(ROOT / "config/config.yaml")
    override = {"audit": {"tolerance": "0.1", "seed": "7"}, "experiments": ["cz22", "olucb"]}
    config["audit"].update(override["audit"])  # what Snakemake's deep merge leaves
    typed_overrides(config, override)
    assert config["audit"]["tolerance"] == 0.1 and config["audit"]["seed"] == 7
    assert (
        config["audit"]["bootstrap"] == load_yaml(ROOT / "config/config.yaml")["audit"]["bootstrap"]
    )
    assert config["experiments"] == ["cz22", "olucb"]
    check_schema(config, SCHEMAS / "config.schema.yaml", "config/config.yaml")  # valid now
    typed_overrides(config, {"audit": {"tolerance": ".nan"}})
    with pytest.raises(ConfigError, match="audit.tolerance = nan: must be a finite number"):
        check_schema(config, SCHEMAS / "config.schema.yaml", "config/config.yaml")


def test_a_top_level_boolean_override_is_a_bool_and_a_bad_one_is_refused():
    # `--config arena=false` arrives as the string 'false' (Snakemake reads only False/True)
    from dpbandits.config import typed_overrides

    config = load_yaml(ROOT / "config/config.yaml")
    for word, value in (("false", False), ("TRUE", True)):
        config["arena"] = word
        typed_overrides(config, {"arena": word})
        assert config["arena"] is value
    check_schema(config, SCHEMAS / "config.schema.yaml", "config/config.yaml")
    config["arena"] = "maybe"
    typed_overrides(config, {"arena": "maybe"})
    with pytest.raises(ConfigError, match="arena = 'maybe': must be of type boolean"):
        check_schema(config, SCHEMAS / "config.schema.yaml", "config/config.yaml")


def _arena(mutate, tmp_path):
    data = load_yaml(ROOT / "config/arena.yaml")
    mutate(data)
    load_arena(str(_write(tmp_path, "arena.yaml", data)), str(SCHEMAS / "arena.schema.yaml"))


#: Sizes that used to allocate while the workflow parsed (37-149 GiB for K = 1e9: the instances
#: were built before the size check) or were not checked at all (the arena).
SIZE_CASES = [
    ("K of a figure", lambda t: _experiment("cz22", _set("defaults.K", 10**9), t),
     ["configurations.r1 (panel cz22_fig1a)", "K = 1000000000", "max_job_mb = 16384"]),
    ("K of a sweep", lambda t: _experiment("dpdpe", _set("defaults.K", 10**9), t),
     ["K = 1000000000, d = 20", "the arms alone"]),
    ("K with a population calibration",
     lambda t: _experiment("olucb", _set("defaults.K", 10**8), t),
     ["K = 100000000", "the job would need about"]),
    # found by fuzzing every numeric leaf: tracebacks and hangs while parsing
    ("horizon written as a float", lambda t: _experiment("cz22", _set(
        "privacy_checks.corollaries.T.2", 1e12), t), ["T.2 = 1000000000000.0", "integer"]),
    ("horizon beyond 2^40 (hung in the batch-size search)", lambda t: _experiment(
        "olucb", _set("sweeps.worst.T.0", 2**63), t), ["sweeps.worst.T.0", "<= 1099511627776"]),
    ("calibration grid of 10^12 points per decade", lambda t: _experiment(
        "olucb", _set("calibrations.fair_vec.grid.per_decade", 10**12), t),
     ["per_decade = 1000000000000", "allowed: at most 1001"]),
    ("arena epsilon whose calibration overflows", lambda t: _arena(
        _set("target.epsilon", 1e300), t), ["suites.fixed (contestant", "epsilon = 1e+300"]),
    ("arena batch that does not divide T", lambda t: _arena(_set("suites.fixed.B", 10**9), t),
     ["B = 1000000000", "batch siz"]),
    ("K of an arena suite", lambda t: _arena(_set("suites.fixed.K", 10**9), t),
     ["suites.fixed.K = 1000000000", "the arms alone"]),
    ("arena trials", lambda t: _arena(_set("trials", 10**9), t),
     ["suites.fixed (contestant", "trials = 1000000000", "max_job_mb"]),
    ("arena horizon", lambda t: _arena(_set("suites.fixed.T", [10**12]), t),
     ["T = 1000000000000", "max_job_mb"]),
]  # fmt: skip


@pytest.mark.parametrize("what,call,expected", SIZE_CASES, ids=[c[0] for c in SIZE_CASES])
def test_sizes_are_refused_before_anything_is_allocated(what, call, expected, tmp_path):
    import resource

    # 2 GiB of address space more than the interpreter holds now: enough for every refusal, far
    # too little for the arrays the old code built first (a MemoryError, not a message)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status") as fh:
        vm = next(int(line.split()[1]) for line in fh if line.startswith("VmSize")) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (vm + 2 * 2**30, hard))
    try:
        with pytest.raises(ConfigError) as err:
            call(tmp_path)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    for text in expected:
        assert text in str(err.value), (text, str(err.value))


def test_a_bound_term_that_overflows_is_refused_with_its_key(tmp_path):
    from dpbandits.bound_claims import load_bound_registry

    data = load_yaml(ROOT / "config/claims/op24.yaml")
    term = next(t for c in data["claims"] for t in c.get("terms", []) if t.get("powers"))
    term["powers"][next(iter(term["powers"]))] = 2**63  # OverflowError in the evaluation
    path = _write(tmp_path, "op24_claims.yaml", data)
    with pytest.raises(ConfigError, match=r"op24_claims.yaml: claims\.\d+\.terms\.\d+"):
        load_bound_registry(str(path), str(SCHEMAS / "bound_claims.schema.yaml"))


def test_a_bound_claim_naming_an_experiment_outside_the_plan_is_refused(tmp_path):
    """A claim's ``audit.experiment`` must be one of the study's declared experiments (or
    unit-tests / none): a typo is refused with its key path; the committed registries pass."""
    from dpbandits.bound_claims import load_bound_registry
    from dpbandits.papers import paper

    schema = str(SCHEMAS / "bound_claims.schema.yaml")
    for prefix in ("op24", "plasso"):
        experiments = paper(prefix).module.STUDY.experiments
        load_bound_registry(str(ROOT / f"config/claims/{prefix}.yaml"), schema, experiments)
    data = load_yaml(ROOT / "config/claims/op24.yaml")
    i = next(i for i, c in enumerate(data["claims"]) if c["audit"]["experiment"] == "OP-E1")
    data["claims"][i]["audit"]["experiment"] = "OP-E4"
    path = _write(tmp_path, "op24_claims.yaml", data)
    load_bound_registry(str(path), schema)  # without the plan's experiments: the schema's form
    with pytest.raises(ConfigError, match=rf"claims\.{i}\.audit\.experiment = 'OP-E4'.*OP-E1"):
        load_bound_registry(str(path), schema, ("OP-E1", "OP-E2", "OP-E3"))
