"""A job's log: its progress lines and a failure's traceback."""

import pytest

from dpbandits.runtime.joblog import job_log, progress


def test_progress_is_written_to_the_job_log_as_lines(tmp_path):
    log = tmp_path / "job.log"
    with job_log(str(log)):
        for _ in progress(range(3), desc="run e1", unit="cell"):
            pass
    lines = log.read_text().splitlines()
    assert any("run e1" in line and "0/3" in line for line in lines)  # the bar at its start
    assert "3/3" in lines[-1] and "\r" not in log.read_text()  # closed at 3 of 3, one per line


def test_a_failure_is_logged_with_its_traceback_and_re_raised(tmp_path):
    log = tmp_path / "job.log"
    with pytest.raises(ZeroDivisionError), job_log(str(log)):
        1 / 0  # noqa: B018
    text = log.read_text()
    assert "job failed" in text and "ZeroDivisionError" in text and "Traceback" in text
