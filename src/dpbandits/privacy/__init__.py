"""Privacy of the experiments' noise: accounting (what a calibration delivers), the releases of
each algorithm, and an empirical auditor (a statistical lower bound on epsilon)."""
