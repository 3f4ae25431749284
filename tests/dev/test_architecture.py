"""The package's shape (dpbandits.dev.architecture): no import cycle, no module over the line
limit but the compiled kernels, no branch on a paper's name outside its package and the policy
classes. Each check catches a planted case."""

from __future__ import annotations

from dpbandits.dev import architecture as arch


def test_no_import_cycle_between_modules():
    graph = arch.import_graph()
    assert "dpbandits.engine.run" in graph and "dpbandits.policies.base" in graph
    assert "dpbandits.engine.op24_cells" in graph["dpbandits.engine.run"]
    assert arch.cycles(graph) == []


def test_a_planted_cycle_is_found_with_every_member():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e2"}, "e2": {"e"}}
    assert sorted(arch.cycles(graph)) == [["a", "b", "c"], ["e", "e2"]]
    assert arch.cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_module_over_the_line_limit(tmp_path):
    assert arch.long_modules() == {}
    (tmp_path / "engine").mkdir()
    (tmp_path / "big.py").write_text("x = 1\n" * (arch.MAX_LINES + 1))
    (tmp_path / "engine" / "kernels.py").write_text("x = 1\n" * (arch.MAX_LINES + 1))
    (tmp_path / "fits.py").write_text("x = 1\n" * arch.MAX_LINES)
    assert arch.long_modules(tmp_path) == {"big.py": arch.MAX_LINES + 1}


def test_no_branch_on_a_paper_name_outside_its_package_and_the_policies(tmp_path):
    assert arch.paper_branches() == []
    for where in ("engine", "papers/op24", "policies"):
        (tmp_path / where).mkdir(parents=True)
        (tmp_path / where / "m.py").write_text(
            'def f(p):\n    if p.engine == "op24" or p.calibration in ("plasso", "x"):\n'
            "        return 1\n    return p.algorithm != 'op24_like'\n"
        )
    assert arch.paper_branches(tmp_path, ("op24", "plasso")) == [
        "engine/m.py:2: op24",
        "engine/m.py:2: plasso",
    ]
