"""Paper 003 (cz22): Chowdhury and Zhou, shuffle private linear contextual bandits (ICML 2022;
docs/papers/cz22.md).

Everything of this paper is configuration (config/experiments/cz22.yaml, config/claims/cz22.yaml)
over the shared layers: its algorithms (LinUCB and its JDP, LDP and shuffle variants) are in
:mod:`dpbandits.policies` and the engine, its audit uses the shared rate fits and orderings.
"""
