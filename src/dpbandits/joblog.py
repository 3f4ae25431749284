"""Logging of pipeline jobs: everything, including a failure's traceback, goes to the job's log."""

from __future__ import annotations

import contextlib
import logging


@contextlib.contextmanager
def job_log(path: str):
    """Send the ``dpbandits`` logger (and the root logger) to ``path`` for the job's duration.

    An exception raised inside the block is written to the log with its traceback, then
    re-raised, so Snakemake marks the job failed and removes its outputs.
    """
    handler = logging.FileHandler(path, mode="w")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield logging.getLogger("dpbandits")
    except BaseException:
        logging.getLogger("dpbandits").exception("job failed")
        raise
    finally:
        root.removeHandler(handler)
        handler.close()
