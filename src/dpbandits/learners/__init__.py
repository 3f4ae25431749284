"""Online learners: Maler and OGD (the online learners of OnlineUCB, spec 000 §3)."""

from .maler import Maler, n_experts, n_grid

__all__ = ["Maler", "n_experts", "n_grid"]
