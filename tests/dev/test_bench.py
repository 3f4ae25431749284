"""`make bench` ends with one table: every workload, its time now, its target and the ratio, so a
missed target is visible at a glance (issue 23)."""

from dpbandits.dev.bench import machine_line, summary_table


def test_the_table_flags_a_missed_target_and_gives_the_ratio():
    table = summary_table(
        [("panel", 6.0, 3.0, "70x faster than the reference loop"), ("audit", 30.0, 600.0, "")]
    )
    lines = table.splitlines()
    assert lines[0].split()[:2] == ["workload", "now"] and len(lines) == 4
    panel, audit = lines[2], lines[3]
    assert panel.split()[1:4] == ["6.0", "3.0", "2.00"] and panel.endswith("MISSED")
    assert "70x faster" in panel
    assert audit.split()[1:4] == ["30.0", "600.0", "0.05"] and "MISSED" not in audit


def test_the_machine_line_says_how_this_machine_compares():
    """The targets were set on one machine; the bench says how fast the machine it runs on is,
    at its start and at its end."""
    ref = (0.69, 0.94)
    assert "about 1.6x slower" in machine_line(1.20, 1.40, ref)
    assert "about 2.0x faster" in machine_line(0.40, 0.42, ref)
    assert "as fast as" in machine_line(0.80, 0.85, ref)
    assert "took 1.20 s at the start and 1.40 s at the end (0.69-0.94 s" in machine_line(
        1.20, 1.40, ref
    )


def test_each_paper_offers_its_own_workload_and_the_bench_runs_them_all(monkeypatch):
    """The workloads come from the papers' packages (their ``bench_workload`` hooks), not from
    a list in the command line: the bench calls the chosen one with the parsed options."""
    import importlib
    from types import SimpleNamespace

    from dpbandits.dev import bench
    from dpbandits.papers import papers

    have = [p.prefix for p in papers() if p.hook("bench_workload") is not None]
    assert have == ["cz22", "olucb", "dpdpe", "plasso"]
    for prefix in have:  # each workload's module imports and offers its run
        assert callable(importlib.import_module(f"dpbandits.papers.{prefix}.bench").run)
    called = []
    monkeypatch.setattr(
        bench, "workloads", lambda: {p: lambda r, o, p=p: called.append(p) for p in have}
    )
    monkeypatch.setattr(bench, "machine_loop_seconds", lambda: 1.0)
    bench.run(SimpleNamespace(only="dpdpe", root="."))
    assert called == ["dpdpe"]


def test_the_cz22_panel_records_its_row():
    """A tiny panel through the moved workload: its row reaches the table."""
    from dpbandits.dev import bench
    from dpbandits.papers.cz22.bench import panel

    before = len(bench.SUMMARY)
    panel(2, 200, 2, 1, 60)
    name, seconds, target, reference = bench.SUMMARY[before]
    assert name.startswith("cz22 Figure 1 panel (5 alg x 2 x T=200") and target == 3.0
    assert seconds > 0 and "faster per round than the reference loop" in reference
    del bench.SUMMARY[before:]


def test_the_every_part_certificate_records_its_row_from_a_cold_cache():
    """A small level (d = 2, 12 phases at T = 10^4): the row reaches the table, and the part
    cache the bench set aside is put back."""
    from dpbandits.dev import bench
    from dpbandits.privacy import part_cache

    cache = part_cache.PART_CACHE
    before = len(bench.SUMMARY)
    bench.bench_every_part(300.0, d=2, T=10**4)
    name, seconds, target, reference = bench.SUMMARY[before]
    assert (
        name == "DP-DPE shuffle certificate over every part (d = 2, 156 parts)" and target == 10.0
    )
    assert seconds > 0 and reference.endswith("parts certified on the fine grid")
    assert part_cache.PART_CACHE == cache
    del bench.SUMMARY[before:]


def test_the_every_count_certificate_records_its_row():
    from dpbandits.dev import bench

    before = len(bench.SUMMARY)
    bench.bench_every_count(36.9, T=200)
    name, seconds, target, reference = bench.SUMMARY[before]
    assert name == "DP-PE shuffle certificate over every user count (1..200)" and target == 3.0
    assert seconds > 0 and reference.startswith("largest at n = ")
    del bench.SUMMARY[before:]
