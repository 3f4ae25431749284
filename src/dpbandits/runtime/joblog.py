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


class _LogLines:
    """A file-like sink that turns tqdm's carriage-return updates into log lines."""

    def __init__(self, logger: logging.Logger):
        self.logger = logger

    def write(self, text: str) -> None:
        line = text.replace("\r", "").strip()
        if line:
            self.logger.info(line)

    def flush(self) -> None:
        pass


def progress(iterable=None, *, desc: str, total: int | None = None, unit: str = "cell"):
    """A tqdm progress bar written to the job's log (one line at most every 10 s).

    Parameters
    ----------
    iterable : iterable, optional
        What to iterate over; without it, call ``update`` on the returned bar.
    desc : str
        The label in front of the bar (e.g. the job's run id).
    total : int, optional
        Number of steps, if ``iterable`` has no length.
    unit : str
        What one step is.

    Returns
    -------
    tqdm.tqdm
        The bar (iterate over it, or use it as a context manager and call ``update``).
    """
    from tqdm import tqdm

    return tqdm(
        iterable,
        desc=desc,
        total=total,
        unit=unit,
        file=_LogLines(logging.getLogger("dpbandits.progress")),
        mininterval=10.0,
        ascii=True,
        ncols=100,
    )
