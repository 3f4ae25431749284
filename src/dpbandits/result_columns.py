"""Names shared by the engine, the reference loop and the parquet layer (no heavy imports)."""

#: Per-trial metrics recorded at every checkpoint: cumulative up to the checkpoint round, except
#: ``lambda_min``, the smallest eigenvalue of the model matrix in force at that round.
METRICS = (
    "regret_realized",
    "regret_pseudo",
    "nan_index_rounds",
    "clipped_index_rounds",
    "nonpd_refreshes",
    "best_arm_rounds",
    "lambda_min",
)

#: The fields of a simulation cell that place it, by the cell's kind
#: (:meth:`dpbandits.config.Cell.place`): the first setting columns of its results file after
#: ``experiment`` (:func:`dpbandits.io.setting_columns`).
PLACE_FIELDS = {
    "figure": ("figure", "panel", "configuration", "series"),
    "sweep": ("sweep", "schedule", "point"),
    "calibration": ("calibration_id", "figure", "panel", "configuration", "series", "point"),
}
