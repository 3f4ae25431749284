"""Online learners: Maler and OGD (the online learners of OnlineUCB, olucb, Sec. 3 and 5)."""

from .maler import Maler, n_experts, n_grid

__all__ = ["Maler", "n_experts", "n_grid"]
