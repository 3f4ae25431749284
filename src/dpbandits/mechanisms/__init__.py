"""Privacy mechanisms and, next to each, the calibration functions the papers state.

Simulations, tables and audits call the same functions, so a constant lives in one place.
"""

from . import amplification, gaussian, packing, shuffle_sum, tree, vec

__all__ = ["amplification", "gaussian", "packing", "shuffle_sum", "tree", "vec"]
