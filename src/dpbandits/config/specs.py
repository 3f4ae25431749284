"""What an experiment file expands into: cells (one simulation job each), panels, figures,
sweeps, calibrations, and the experiment that holds them.

* A **cell** is one simulation job: (experiment, panel, configuration, series), holding all
  trials; it knows its policy, its seeds and its output path.
* A **figure** is one rendered panel: a list of cells of one (panel, configuration) drawn as
  regret curves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace

from ..policies import Quirks, Setting, make_policy
from ..policies.base import Policy
from ..privacy.matching import is_matched, matched_base, matched_policy
from ..result_columns import PLACE_FIELDS


def results_root(scale: str) -> str:
    """Root of generated files: ``results`` at paper scale, ``results/<scale>`` otherwise.

    Separate roots keep a quick run from overwriting paper-scale results.
    """
    return "results" if scale == "paper" else f"results/{scale}"


def _plain_copy(value):
    """A copy of a plain value (dicts, lists and tuples copied recursively, scalars as is)."""
    if isinstance(value, dict):
        return {k: _plain_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_plain_copy(v) for v in value)
    return value


@dataclass(frozen=True)
class Cell:
    """One simulation job: all trials of one (panel, configuration, series).

    ``kind`` says which fields place the cell:

    - ``"figure"``: ``figure``, ``panel``, ``configuration`` and ``series`` (the sweep and
      calibration fields are empty);
    - ``"sweep"``: ``sweep`` (the sweep id of the experiment file), ``schedule`` (the series of
      the sweep: a schedule entry, or one gap of its gap grid) and ``point`` (``eps<e>_T<T>``,
      with ``_d<d>`` when the sweep varies d); ``figure``, ``panel``, ``configuration`` and
      ``series`` are empty;
    - ``"calibration"``: ``calibration_id`` (the calibration of the experiment file) and
      ``point`` (the tried option value, or ``reference``); ``figure`` to ``series`` name the
      figure cell it calibrates (or the reference cell it matches).
    """

    experiment: str
    figure: str
    panel: str
    configuration: str
    series: str
    algorithm: str
    calibration: str
    fidelity: str
    instances: str
    T: int
    trials: int
    K: int
    d: int
    epsilon: float | None
    delta: float
    B: int
    instance_seed: int
    reward_seed_offset: int
    checkpoints: int
    root_seed: int
    scale: str
    quirks: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    kind: str = "figure"
    first_trial: int = 0
    instance_options: dict = field(default_factory=dict)
    noise_key: str = "panel"
    sweep: str = ""
    schedule: str = ""
    point: str = ""
    calibration_id: str = ""

    @property
    def calibration_ids(self) -> list[str]:
        """Ids of the calibrations whose chosen value an option of this cell takes."""
        return [
            v["calibrated"]
            for v in self.options.values()
            if isinstance(v, dict) and "calibrated" in v
        ]

    def resolved_options(self, calibrated: dict[str, float] | None = None) -> dict:
        """Options with every ``{calibrated: id}`` replaced by the chosen value and
        ``lambda_min: population`` by the instance family's population value.

        Without ``calibrated`` a stand-in 1.0 is used (to validate the configuration before the
        calibration has run).
        """
        from ..envs import population_lambda_min

        out = {}
        for key, value in self.options.items():
            if isinstance(value, dict) and "calibrated" in value:
                out[key] = 1.0 if calibrated is None else float(calibrated[value["calibrated"]])
            elif key == "lambda_min" and value == "population":
                out[key] = population_lambda_min(self.instances, self.d, self.K)
            else:
                out[key] = value
        return out

    @property
    def path(self) -> str:
        """Output parquet, relative to the project root."""
        return f"{results_root(self.scale)}/sim/{self.stem}.parquet"

    @property
    def stem(self) -> str:
        """Figure cells: ``<experiment>/<panel>/<configuration>/<series>``; sweep cells:
        ``<experiment>/<sweep>/<schedule>/<eps..._T...>``."""
        if self.kind == "sweep":
            return f"{self.experiment}/{self.sweep}/{self.schedule}/{self.point}"
        if self.kind == "calibration":
            where = f"{self.calibration_id}/{self.series}"
            return f"{self.experiment}/calibration/{where}/{self.point or 'base'}"
        return f"{self.experiment}/{self.panel}/{self.configuration}/{self.series}"

    def place(self) -> dict[str, str]:
        """The fields that place this cell, by kind (see the class docstring): the setting
        columns of its results file and its timing row."""
        return {name: getattr(self, name) for name in PLACE_FIELDS[self.kind]}

    @property
    def seed_panel(self) -> str:
        """The panel name in the key of the noise streams: the panel of a figure cell,
        ``sweep:<sweep>:<point>`` for a sweep cell, ``calibration:<id>:<id>:<point>`` for a
        calibration cell (the id twice: the key these cells had when the id and point were stored
        in the figure and panel fields, kept so that their noise is unchanged).

        With ``noise_key = "settings"`` (an experiment default) figure cells are keyed by their
        settings instead of their panel, so the same setting in two figures (e.g. epsilon = 10 in
        dpdpe's Figure 2(a) and 2(b)) draws the same noise and gives the same numbers.
        """
        if self.kind == "sweep":
            return f"sweep:{self.sweep}:{self.point}"
        if self.kind == "calibration":
            return f"calibration:{self.calibration_id}:{self.calibration_id}:{self.point}"
        if self.noise_key == "settings":
            eps = "none" if self.epsilon is None else f"{self.epsilon:g}"
            opts = json.dumps(self.instance_options, sort_keys=True)
            where = f"{self.instances}:{opts}:eps{eps}:delta{self.delta:g}:d{self.d}:T{self.T}"
            return f"settings:{where}"
        return self.panel

    def as_dict(self) -> dict:
        """Plain, JSON-serialisable dict: equal to ``dataclasses.asdict(self)`` (the same keys
        in the same order, nested dicts and lists copied), without its generic recursion, which
        cost ~1 s of every workflow parse (5000 calls)."""
        return {name: _plain_copy(getattr(self, name)) for name in _CELL_FIELDS}

    def computation_key(self) -> str:
        """The cell's simulation, as canonical JSON: every field except the labels that place
        a figure cell (:data:`LABEL_FIELDS`), plus the panel name its noise streams are keyed
        by (:attr:`seed_panel`). Every number of a cell's results is a function of these
        (the instances, reward and noise streams, the policy and its calibrated options, the
        horizon, trials and checkpoints), so two cells with the same key give the same values
        (:meth:`Experiment.shared_sources`); the labels only name where the file goes."""
        d = self.as_dict()
        for name in LABEL_FIELDS:
            del d[name]
        d["seed_panel"] = self.seed_panel
        return json.dumps(d, sort_keys=True)

    def config_hash(self) -> str:
        """SHA-256 of the cell's canonical JSON: changes iff a setting of this cell changes."""
        from ..io import settings_hash

        return settings_hash(self.as_dict())

    def memory_mb(self, policy: Policy | None = None) -> int:
        """Estimated peak memory (MiB) of simulating this cell
        (:mod:`dpbandits.runtime.job_memory`)."""
        from dpbandits.runtime.job_memory import job_memory_mb

        pol = self.policy(search=False) if policy is None else policy
        return job_memory_mb(
            pol.trial_bytes(self.K),
            self.trials,
            self.T,
            self.checkpoints,
            pol.table_bases,
            pol.base_mb,
        )

    def policy(self, calibrated: dict[str, float] | None = None, search: bool = True) -> Policy:
        """The calibrated policy of this cell (``calibrated``: chosen values by calibration id).

        ``search=False``: a matched cell's policy at its label, after checking that it can be
        matched (:func:`dpbandits.privacy.matching.matched_policy`): its shapes and sizes, without
        the search for its noise (what validation and job sizes need)."""
        setting = Setting(
            T=self.T, d=self.d, epsilon=self.epsilon, delta=self.delta, B=self.B, K=self.K
        )
        quirks = Quirks.from_fidelity(self.fidelity, **self.quirks)
        options = self.resolved_options(calibrated)
        if is_matched(self.calibration):  # the base calibration's map at an internal epsilon
            base = matched_base(self.calibration)

            def build(epsilon: float, **knob) -> Policy:
                at = replace(setting, epsilon=epsilon)
                return make_policy(self.algorithm, at, base, quirks, **{**options, **knob})

            return matched_policy(self, build, search)
        return make_policy(self.algorithm, setting, self.calibration, quirks, **options)

    @classmethod
    def from_dict(cls, data: dict) -> Cell:
        """Inverse of :meth:`as_dict`."""
        return cls(**data)


#: Field names of :class:`Cell` in declaration order (its ``as_dict`` keys).
_CELL_FIELDS = tuple(f.name for f in fields(Cell))

#: Fields of a figure cell that only name it: where its file goes and how it is drawn. The
#: simulation reads none of them (its noise streams read the panel through
#: :attr:`Cell.seed_panel`, which :meth:`Cell.computation_key` keeps).
LABEL_FIELDS = ("figure", "panel", "configuration")


@dataclass(frozen=True)
class PanelSpec:
    """One panel of a figure under one configuration."""

    id: str
    letter: str
    epsilon: float | None
    d: int
    caption: str
    cells: tuple[Cell, ...]
    title: str = ""
    T: int = 0


@dataclass(frozen=True)
class FigureSpec:
    """One figure of one configuration, rendered by one notebook execution.

    The notebook draws the combined multi-panel figure ``<figure><suffix>`` and every panel
    ``<panel><suffix>``, for each metric (realized regret; plus pseudo-regret, suffix
    ``_pseudo``, for the primary configuration).
    """

    id: str
    experiment: str
    figure: str
    configuration: str
    suffix: str
    title: str
    caption: str
    series: tuple[str, ...]
    panels: tuple[PanelSpec, ...]
    metrics: tuple[str, ...]
    notebook: str = "notebooks/regret_curves.ipynb"
    plot: str = "cumulative"
    band: str = "se"
    #: The configuration's calibration (its non-private series may run under another: a
    #: matched configuration's run under the calibration it matches).
    calibration: str = ""

    @property
    def inputs(self) -> list[str]:
        """Parquet files the figure reads."""
        return [c.path for p in self.panels for c in p.cells]

    def names(self, metric: str) -> tuple[str, list[str]]:
        """Output names (without extension) of the combined figure and of each panel; a metric
        other than the figure's first gets the suffix ``_pseudo``."""
        suffix = "_pseudo" if metric != self.metrics[0] else self.suffix
        return f"{self.figure}{suffix}", [f"{p.id}{suffix}" for p in self.panels]

    def panel_images(self, metric: str) -> bool:
        """Whether single-panel files are written for ``metric``: the figure's first metric, when
        the panels are plots of their own (not points of one plot) and there are several."""
        return (
            metric == self.metrics[0]
            and self.plot in ("cumulative", "per_round")
            and len(self.panels) > 1
        )

    @property
    def image_names(self) -> list[str]:
        """Every figure name this notebook writes: per metric the combined figure, then the
        single panels (realized regret only; pseudo-regret is drawn as a combined figure)."""
        out = []
        for metric in self.metrics:
            combined, panels = self.names(metric)
            out.extend([combined, *(panels if self.panel_images(metric) else [])])
        return out


@dataclass(frozen=True)
class SweepSpec:
    """A horizon (and epsilon) sweep: one cell per (schedule, epsilon, T)."""

    id: str
    experiment: str
    title: str
    description: str
    T: tuple[int, ...]
    epsilon: tuple[float, ...]
    trials: int
    schedules: tuple[str, ...]
    cells: tuple[Cell, ...]
    #: Schedule entry of the experiment file -> its series: itself, or one series per gap of
    #: its ``gap_grid`` (largest gap first). One simulation job per entry.
    grids: dict = field(default_factory=dict)

    def cells_of(self, schedule: str) -> list[Cell]:
        """The cells of one schedule (all epsilon and T)."""
        return [c for c in self.cells if c.schedule == schedule]

    def cells_of_entry(self, entry: str) -> list[Cell]:
        """The cells of every series of one schedule entry (a gap grid's: every gap)."""
        return [c for s in self.grids[entry] for c in self.cells_of(s)]


@dataclass(frozen=True)
class CalibrationSpec:
    """A search over one option of one series.

    ``min_regret`` (e.g. OnlineUCB's ``c_beta``, the radius scale olucb leaves open;
    docs/papers/olucb.md, "Calibration"): the series' cell of ``configuration`` in ``panel`` is
    rerun for every grid value on the instances ``first_trial .. first_trial + trials - 1``
    (disjoint from the evaluation trials). The value with the smallest mean final pseudo-regret
    is chosen (ties: the larger value); if it is at an end of the grid, ``extend`` more values
    beyond that end are tried once.

    ``match`` (e.g. DPE-FixedU's ``U``, which dpdpe, Sec. 7 chooses so that both algorithms
    have the same communication cost; docs/papers/dpdpe.md): the integer in ``search`` whose mean
    final ``metric`` is closest to the ``reference`` cell's, found by bisection (the metric
    increases with the option), then checked at the neighbours.
    """

    id: str
    experiment: str
    title: str
    series: str
    option: str
    grid: tuple[float, ...]
    step: float
    extend: int
    base: Cell
    objective: str = "min_regret"
    reference: Cell | None = None
    metric: str = "regret_pseudo"
    search: tuple[int, int] | None = None

    @property
    def path(self) -> str:
        """Output table (value, mean_final, se_final, chosen)."""
        return f"{results_root(self.base.scale)}/calibration/{self.experiment}/{self.id}.csv"

    def cell(self, value: float) -> Cell:
        """The base cell with the option set to ``value`` (an integer for ``match``)."""
        value = int(value) if self.objective == "match" else float(value)
        return type(self.base)(
            **{
                **self.base.as_dict(),
                "options": {**self.base.options, self.option: value},
                "point": f"{value:.6g}",
            }
        )


@dataclass
class Experiment:
    """An expanded experiment file."""

    name: str
    data: dict
    cells: list[Cell]
    figures: list[FigureSpec]
    sweeps: list[SweepSpec] = field(default_factory=list)
    calibrations: list[CalibrationSpec] = field(default_factory=list)
    #: Cells of ``privacy_checks``: accounted by the privacy audit, never simulated.
    privacy_cells: tuple[Cell, ...] = ()
    _shared: dict | None = field(default=None, repr=False, compare=False)

    def figure(self, fig_id: str) -> FigureSpec:
        """Figure by id."""
        for f in self.figures:
            if f.id == fig_id:
                return f
        raise KeyError(fig_id)

    def groups(self) -> dict[tuple[str, str], list[Cell]]:
        """Cells grouped by (panel, configuration) (the benchmark's unit of work)."""
        out: dict[tuple[str, str], list[Cell]] = {}
        for cell in self.cells:
            out.setdefault((cell.panel, cell.configuration), []).append(cell)
        return out

    def jobs(self) -> dict[tuple[str, str], list[Cell]]:
        """Cells grouped into simulation jobs: by (panel, configuration), or by (figure,
        configuration) when the experiment file says ``simulation_jobs: figure``.

        A panel job reruns only the panel whose setting changed; a figure job saves a process
        start (~1.5 s of imports and numba's start-up) per panel, which is most of a cheap
        panel's time (dpdpe's Figure 2 had 40 panel jobs of 1.7-3 s). The cells of a job
        are simulated one after the other, each from its own seeds, so the grouping changes no
        number.
        """
        if self.data.get("simulation_jobs", "panel") == "panel":
            return self.groups()
        out: dict[tuple[str, str], list[Cell]] = {}
        for cell in self.cells:
            out.setdefault((cell.figure, cell.configuration), []).append(cell)
        return out

    def shared_sources(self) -> dict[str, tuple[Cell, tuple[str, str]]]:
        """Cells whose simulation an earlier job already runs: ``{stem: (source, job)}``, with
        ``job`` the source's key in :meth:`jobs`.

        Two figure cells with the same :meth:`Cell.computation_key` give the same values (the
        seeds leave the configuration out on purpose, so that configurations are paired;
        ``noise_key: settings`` does the same across panels). Such repeats are common: a
        configuration that changes one series (cz22's R2 changes only LinUCB-SDP-Vec of
        two panels) repeats every other series of the primary one. The job of a repeat copies
        the source's results file and relabels it (:func:`dpbandits.pipeline.copy_cell`)
        instead of simulating again; the values are the same as simulated, only the time is
        saved.

        The source is the cell with that key in the earliest job (in the order of
        :meth:`jobs`), so a job only takes files from earlier jobs and the dependencies have no
        cycle; repeats inside one job are simulated each.
        """
        if self._shared is not None:
            return self._shared
        jobs = list(self.jobs().items())
        first: dict[str, tuple[int, Cell]] = {}
        for index, (_, cells) in enumerate(jobs):
            for cell in cells:
                if cell.kind == "figure":
                    first.setdefault(cell.computation_key(), (index, cell))
        out = {}
        for index, (_, cells) in enumerate(jobs):
            for cell in cells:
                if cell.kind != "figure":
                    continue
                where, source = first[cell.computation_key()]
                if where < index:
                    out[cell.stem] = (source, jobs[where][0])
        self._shared = out
        return out

    @property
    def series(self) -> tuple[str, ...]:
        """Every series label declared by the experiment."""
        return tuple(self.data["series"])

    def configuration_series(self, configuration: str) -> tuple[str, ...]:
        """Series drawn by one configuration (the same in every panel)."""
        return tuple(
            dict.fromkeys(c.series for c in self.cells if c.configuration == configuration)
        )

    def calibration(self, cid: str) -> CalibrationSpec:
        """Calibration by id."""
        for cal in self.calibrations:
            if cal.id == cid:
                return cal
        raise KeyError(cid)
