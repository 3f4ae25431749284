"""The arena: every private linear bandit of the reproduced papers on shared instances, at one
privacy target, with regret set against the privacy each run's noise delivers (docs/arena.md).

Modules: :mod:`.spec` (``config/arena.yaml`` read, validated and expanded into simulation
cells), :mod:`.leaderboard` (final regret with intervals, ranks with ties, delivered epsilon),
:mod:`.claims` (the papers' pairwise claims as verdict rows), :mod:`.plots` (one frontier
figure per suite) and :mod:`.page` (the arena page of the report). The simulations are the
pipeline's own (:func:`dpbandits.pipeline.run_cells`): one job per suite, dimension and horizon,
every contestant on the same instances and reward streams (common random numbers).
"""
