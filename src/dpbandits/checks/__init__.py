"""Checks of a whole build, run by hand or by the tests, never by a job.

* :mod:`.verify`: a build against the canonical run, by value (``make verify``;
  ``python -m dpbandits.checks.verify``).
* :mod:`.compare`: two builds against each other, every reproducible number
  (``python -m dpbandits.checks.compare A B``; ``make slurm-test`` and the rebuild tests).
* :mod:`.browser`: the pages as a reader's browser shows them (headless Chromium offline;
  ``dpb pages``).
"""
