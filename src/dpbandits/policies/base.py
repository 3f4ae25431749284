"""The Algorithm-1 skeleton shared by every policy of CZ22 (cz22, Sec. 3.1).

A policy is fully described by: when it refreshes its model, the regulariser ``lambda``, the
confidence radius at each refresh, and the noise it sees. Noise comes in *schemes*:

``none``        exact statistics (non-private LinUCB);
``per_round``   every round adds one fresh draw to the running noisy sums (local model, B = 1);
``per_batch``   every completed batch adds one draw: the sum of the batch's ``B`` per-user
                Gaussian draws, which is again Gaussian with ``B`` times the variance (exact
                aggregate identity; the analyzers of CZ22 only ever see the batch sum);
``standin``     the script's JDP stand-in: the first ``k(t)`` of ``N0`` pre-drawn node noises;
``tree``        the binary-tree mechanism over rounds (B = 1) or batches;
``vec``         the P_Vec bit-sum protocol (its own engine kernel).

A policy object holds no per-trial state: the engine advances all trials of a cell at once,
and the reference loop replays one trial literally.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar

import numpy as np

from dpbandits.runtime.job_memory import BASE_MB, bytes_per_trial

from ..mechanisms.gaussian import entry_scales
from .confidence import script_width

CALIBRATIONS = ("experiment", "theory")
#: Option every LinUCB-type policy accepts: a multiplier of its confidence width (the "confidence
#: scaling" of the script, 1 there; tuned only in the fairness companion of olucb).
WIDTH_OPTIONS = {"width_scale": 1.0}
FIDELITIES = ("script", "corrected")


#: Prefixes of the conditions a statement sets (:meth:`Policy.unmet_statement_conditions`).
STATEMENT_LABELS = ("Thm.", "Prop.", "Cor.")


@dataclass(frozen=True)
class Setting:
    """Bandit and privacy setting of one cell.

    Attributes
    ----------
    T : int
        Horizon.
    d : int
        Dimension.
    epsilon, delta : float or None
        Privacy level (None for non-private policies).
    B : int
        Batch size of the shuffle / batched policies (ignored by sequential ones).
    K : int or None
        Number of actions, where a policy's constants depend on it (DP-DPE: beta = 1/(kT)).
    """

    T: int
    d: int
    epsilon: float | None = None
    delta: float | None = None
    B: int = 1
    K: int | None = None


@dataclass(frozen=True)
class Quirks:
    """The script's quirks (docs/design.md#algorithms); ``fidelity=script`` turns them all on.

    Attributes
    ----------
    truncate_b : bool
        (1) P_Vec draws ``floor(b)`` binomial trials but de-biases with the real ``b``.
    fixed_width : bool
        (2) The confidence width is computed once at ``t = n``.
    linucb_lambda_mismatch : bool
        (3) Non-private LinUCB's width uses ``Gamma = 1`` while its Gram uses ``lambda = 1e-4``;
        corrected: ``lambda = Gamma = 1`` (AY11's usual choice, the theory default).
    half_sum_symmetrization : bool
        (4) Gaussian matrix noise is ``(W + W^T)/2`` instead of Alg. 2's mirrored upper triangle.
    nan_argmax : bool
        (5) Negative quadratic forms give NaN indices and the first NaN wins the argmax;
        corrected: clip at 0 (and count the event).

    Quirk (6), the JDP stand-in, is a choice of algorithm (``jdp_standin`` vs ``jdp_tree``),
    made per configuration in the experiment file.
    """

    truncate_b: bool = True
    fixed_width: bool = True
    linucb_lambda_mismatch: bool = True
    half_sum_symmetrization: bool = True
    nan_argmax: bool = True

    @classmethod
    def from_fidelity(cls, fidelity: str, **overrides: bool) -> Quirks:
        """All quirks on (``script``) or off (``corrected``), then individual overrides."""
        if fidelity not in FIDELITIES:
            raise ValueError(f"fidelity must be one of {FIDELITIES}, got {fidelity!r}")
        names = {f.name for f in fields(cls)}
        unknown = set(overrides) - names
        if unknown:
            raise ValueError(f"unknown quirk(s) {sorted(unknown)}; allowed: {sorted(names)}")
        on = fidelity == "script"
        return cls(**{**{n: on for n in names}, **overrides})

    def as_dict(self) -> dict[str, bool]:
        """Plain dict (for metadata)."""
        return asdict(self)


class Policy:
    """Base class: one LinUCB-type algorithm under one named calibration.

    Parameters
    ----------
    setting : Setting
    calibration : {"experiment", "theory"}
        ``experiment``: the constants that drew the published figure (the authors' script);
        ``theory``: the constants of the theorem, made explicit (docs/papers/cz22.md).
    quirks : Quirks, optional
        Script quirks (experiment calibration only); default: all on.
    **options
        Policy-specific options (see the subclass's ``options``).
    """

    algorithm: ClassVar[str] = ""
    label: ClassVar[str] = ""
    engine: ClassVar[str] = "gaussian"
    private: ClassVar[bool] = True
    calibrations: ClassVar[tuple[str, ...]] = CALIBRATIONS
    options: ClassVar[dict[str, object]] = {}
    #: Whether the option ``width_scale`` (a multiplier of the confidence width) applies.
    scalable: ClassVar[bool] = True
    #: Whether its engine runs compiled (numba) kernels, which a timing run loads beforehand.
    compiled: ClassVar[bool] = True
    #: Whether its engine runs phase by phase: no per-round reward tables, no realized regret.
    phase_level: ClassVar[bool] = False
    #: The family of privacy release descriptions that accounts it
    #: (:data:`dpbandits.privacy.cell_releases.RELEASES`); None: no description.
    release: ClassVar[str | None] = None
    #: The option that moves its noise continuously below the calibration's discrete knobs
    #: (``p_scale`` of a binomial bit-sum protocol, in (0, 1], 1 = the paper's map); a matched
    #: calibration turns it when the map jumps over the target
    #: (:mod:`dpbandits.privacy.matching`). None: the map's noise is already continuous.
    noise_knob: ClassVar[str | None] = None
    #: Interpreter, libraries and compiled kernels of a job running it (MiB,
    #: :func:`dpbandits.runtime.job_memory.job_memory_mb`).
    base_mb: ClassVar[int] = BASE_MB

    #: Theory defaults (docs/papers/cz22.md): sub-Gaussian constant, ||theta*||, feature bound.
    THEORY_R: ClassVar[float] = 0.5
    THEORY_S: ClassVar[float] = 1.0
    THEORY_L: ClassVar[float] = 1.0

    def __init__(
        self,
        setting: Setting,
        calibration: str = "experiment",
        quirks: Quirks | None = None,
        **options,
    ):
        if calibration not in self.calibrations:
            raise ValueError(
                f"{self.algorithm}: calibration {calibration!r} is not available; "
                f"allowed: {', '.join(self.calibrations)}"
            )
        allowed = {**(WIDTH_OPTIONS if self.scalable else {}), **self.options}
        unknown = set(options) - set(allowed)
        if unknown:
            raise ValueError(
                f"{self.algorithm}: unknown option(s) {sorted(unknown)}; "
                f"allowed: {sorted(allowed) or 'none'}"
            )
        if setting.T < 1 or setting.d < 2:
            raise ValueError(f"need T >= 1 and d >= 2, got T={setting.T}, d={setting.d}")
        if self.private:
            eps, delta = setting.epsilon, setting.delta
            if eps is None or not eps > 0:
                raise ValueError(f"{self.algorithm}: epsilon must be > 0, got {eps}")
            if delta is None or not 0 < delta < 1:
                raise ValueError(f"{self.algorithm}: delta must be in (0, 1), got {delta}")
        self.setting = setting
        self.calibration = calibration
        self.quirks = quirks if quirks is not None else Quirks()
        self.opts = {**allowed, **options}
        if self.scalable and not float(self.opts["width_scale"]) > 0:
            raise ValueError(
                f"{self.algorithm}: width_scale must be > 0, got {options['width_scale']!r}"
            )
        # Filled in by _calibrate():
        self.period: int = 1
        self.scheme: str = "none"
        self.lam: float = 1.0
        self.noise_std: float = 0.0
        self.convention: str = "upper_mirror"
        self.consts: dict[str, float] = {}
        self._calibrate()
        T = setting.T
        if T % self.period:
            raise ValueError(f"{self.algorithm}: batch size {self.period} must divide T={T}")

    # -- to be provided by subclasses ------------------------------------------------------------
    def _calibrate(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _radius_at(self, t: np.ndarray, L: float) -> np.ndarray:
        """Experiment: the script's width with ``self.Gamma``; theory: ``self.reg.beta``."""
        if self.calibration == "experiment":
            T = self.setting.T
            t_eff = np.full(np.shape(t), float(T)) if self.quirks.fixed_width else t
            return script_width(self.Gamma, self.setting.d, T, L, t_eff)
        return self.reg.beta(t, R=self.THEORY_R, S=self.THEORY_S, L=self.THEORY_L)

    # -- dispatch: what the engines, the sizes and the privacy audit ask the policy -------------
    @classmethod
    def runs_on(cls, calibration: str) -> frozenset[str]:
        """The instance settings its engine runs it on under ``calibration``: ``fixed`` arm sets
        (the default: the engine precomputes per-arm statistics), ``fresh`` decision sets or
        ``sparse`` contexts."""
        return frozenset({"fixed"})

    def simulator(self) -> str:
        """Key of the engine that simulates it (:data:`dpbandits.engine.run.SIMULATORS`;
        :attr:`engine` unless a calibration runs on another engine)."""
        return self.engine

    def release_family(self) -> str | None:
        """Key of its release description (:attr:`release` unless a calibration changes it)."""
        return self.release

    def trial_bytes(self, K: int) -> int:
        """Working memory (bytes) of one trial on ``K`` arms (:func:`dpbandits.runtime.job_memory.
        bytes_per_trial` of its noise scheme)."""
        s = self.setting
        return bytes_per_trial(self.scheme, s.T, K, s.d, self.n_refresh, self.n_batches)

    @property
    def table_bases(self) -> int:
        """Number of base policies whose per-play tables a job holds (0: none)."""
        return 0

    # -- shared API ------------------------------------------------------------------------------
    @property
    def clip(self) -> bool:
        """Clip negative quadratic forms at 0 (True) or let them give NaN (script quirk 5)."""
        return self.calibration == "theory" or not self.quirks.nan_argmax

    @property
    def n_refresh(self) -> int:
        """Number of model refreshes over the horizon."""
        return self.setting.T // self.period

    @property
    def n_batches(self) -> int:
        """Number of completed batches (leaves of a batched tree)."""
        return self.setting.T // self.period

    def refresh_rounds(self) -> np.ndarray:
        """0-based rounds at which the model is recomputed (``0, B, 2B, ...``)."""
        return np.arange(0, self.setting.T, self.period)

    def radius(self, L: float) -> np.ndarray:
        """Confidence radius at every refresh for an instance with max arm norm ``L``.

        Multiplied by the option ``width_scale`` (1 unless a calibration tunes it).
        """
        r = np.broadcast_to(self._radius_at(self.refresh_rounds(), L), (self.n_refresh,))
        scale = float(self.opts["width_scale"]) if self.scalable else 1.0
        return (r * scale).astype(float)

    def noise_scales(self) -> np.ndarray:
        """Std of every packed entry of one raw noise draw of this policy's scheme."""
        return entry_scales(self.setting.d, self.noise_std, self.convention)

    def cumulative_noise_std(self, L: float) -> float | None:
        """Std of the noise accumulated in one vector entry over the horizon (``sigma~``).

        The quantity that Lemma 3.9 of CZ22 puts in the privacy term ``sqrt(sigma~ T)``;
        None for schemes where it is not a sum of independent per-batch draws.
        """
        if self.scheme in ("per_round", "per_batch"):
            return self.noise_std * float(np.sqrt(self.n_batches))
        if self.scheme == "none":
            return 0.0
        return None

    def constants(self, L: float | None = None) -> dict[str, float]:
        """Named calibration constants (for metadata, tables and tests)."""
        out = {"lambda": float(self.lam), "period": int(self.period)}
        out.update(self.consts)
        if L is not None:
            r = self.radius(L)
            out["radius_first"] = float(r[0])
            out["radius_last"] = float(r[-1])
        return out

    def conditions(self) -> list[tuple[str, bool]]:
        """Conditions of the theorem behind the theory calibration, and whether the cell meets them.

        Empty under the experiment calibration, which claims no theorem.
        """
        return self._conditions() if self.calibration == "theory" else []

    def unmet_statement_conditions(self) -> list[str]:
        """The conditions of :meth:`conditions` that the statement itself sets (named after a
        theorem, proposition or corollary: :data:`STATEMENT_LABELS`) and the cell does not meet:
        outside them the statement claims nothing (a proof step's condition, e.g. a lemma's, is
        not the statement's scope)."""
        return [c for c, ok in self.conditions() if not ok and c.startswith(STATEMENT_LABELS)]

    def _conditions(self) -> list[tuple[str, bool]]:
        return []

    def describe(self) -> str:
        """One-line description for logs."""
        s = self.setting
        return (
            f"{self.algorithm} [{self.calibration}] d={s.d} T={s.T} eps={s.epsilon} "
            f"delta={s.delta} period={self.period} scheme={self.scheme}"
        )
