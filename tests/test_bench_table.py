"""`make bench` ends with one table: every workload, its time now, its target and the ratio, so a
missed target is visible at a glance (issue 23)."""

from dpbandits.cli import machine_line, summary_table


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
