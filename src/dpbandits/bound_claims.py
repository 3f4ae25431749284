"""Registries of claimed bounds (``dp-bandit-claims/v1``, e.g. ``config/claims/op24.yaml``):
loading, evaluating a bound's terms, and the secant exponent in ``T`` of a term over a window.

A bound is ``combine`` (sum | max | min) over ``terms``; a term's value is
``coef * prod_key eval(key)^power * prod_logs ln(eval(arg))^power``, where keys and ``arg`` are
arithmetic expressions over the registry's variables (``'K*T'``, ``'1/delta'``, ``'eps+delta'``)
and ``ln`` is the natural logarithm (the bounds of op24's Table 1; docs/papers/op24.md).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Mapping

from .config import ConfigError, check_schema, load_yaml

_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def evaluate(expr: str, values: Mapping[str, float]) -> float:
    """Value of an arithmetic expression (``+ - * / **``, ``log(...)`` = natural log, numbers,
    variable names)."""

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in values:
                raise KeyError(f"{expr!r}: variable {node.id!r} has no value")
            return float(values[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "log"
            and len(node.args) == 1
            and not node.keywords
        ):
            return math.log(ev(node.args[0]))
        raise ValueError(
            f"{expr!r}: only + - * / ** and log(...) over numbers and variables are allowed"
        )

    return ev(ast.parse(str(expr), mode="eval"))


def term_value(term: dict, values: Mapping[str, float]) -> float:
    """``coef * prod eval(key)^power * prod ln(eval(arg))^power``."""
    v = float(term["coef"])
    for key, power in term["powers"].items():
        v *= evaluate(key, values) ** power
    for lg in term["logs"]:
        v *= math.log(evaluate(lg["arg"], values)) ** lg["power"]
    return v


def bound_value(claim: dict, values: Mapping[str, float]) -> float:
    """The claim's bound: ``combine`` over its terms."""
    terms = [term_value(t, values) for t in claim["terms"]]
    return {"sum": sum, "max": max, "min": min}[claim["combine"]](terms)


def term_of(claim: dict, role: str) -> dict:
    """The claim's term with this role (``nonprivate`` or ``privacy``)."""
    for t in claim["terms"]:
        if t["role"] == role:
            return t
    raise KeyError(f"{claim['id']}: no {role} term")


def t_secant_exponent(term: dict, values: Mapping[str, float], T_lo: float, T_hi: float) -> float:
    """``ln(f(T_hi)/f(T_lo)) / ln(T_hi/T_lo)`` for the term ``f`` as a function of ``T`` (the other
    variables fixed at ``values``): the claimed slope of a log-log fit over ``[T_lo, T_hi]``."""
    lo = term_value(term, {**values, "T": T_lo})
    hi = term_value(term, {**values, "T": T_hi})
    return math.log(hi / lo) / math.log(T_hi / T_lo)


def leading_term(claim: dict, values: Mapping[str, float], T_lo: float, T_hi: float) -> dict:
    """The term with the largest secant exponent in ``T`` over the window (rule R-UP-T of
    docs/papers/op24.md), among the terms that do not vanish (a privacy term is 0 at
    ``rho = inf``)."""
    live = [t for t in claim["terms"] if term_value(t, {**values, "T": T_lo}) > 0]
    return max(live, key=lambda t: t_secant_exponent(t, values, T_lo, T_hi))


#: Audit experiments every paper may name besides those of its own plan.
GENERIC_EXPERIMENTS = ("unit-tests", "none")


def load_bound_registry(path: str, schema: str, experiments=None) -> dict:
    """Load and validate a registry: the schema, unique ids, and every term evaluable (finite and
    positive) at a reference point of the variables (so a typo in a term fails at load).

    ``experiments`` (the study's :attr:`dpbandits.papers.study.Study.experiments`): when given,
    every claim's ``audit.experiment`` must be one of them or of :data:`GENERIC_EXPERIMENTS`
    (``ConfigError`` naming the claim's key path, the value and what is allowed).
    """
    data = load_yaml(path)
    check_schema(data, schema, path)
    if experiments is not None:
        allowed = (*experiments, *GENERIC_EXPERIMENTS)
        for i, claim in enumerate(data["claims"]):
            named = claim["audit"]["experiment"]
            for name in [named] if isinstance(named, str) else named:
                if name not in allowed:
                    raise ConfigError(
                        f"{path}: claims.{i}.audit.experiment = {name!r}: not an experiment of "
                        f"the paper's plan; allowed: {', '.join(allowed)}"
                    )
    seen = set()
    point = {"T": 1e6, "K": 10, "d": 5, "rho": 0.1, "eps": 1.0, "delta": 0.01, "s0": 5, "sigma": 1}
    for i, claim in enumerate(data["claims"]):
        if claim["id"] in seen:
            raise ConfigError(f"{path}: claims.{i}.id = {claim['id']!r}: duplicate id")
        seen.add(claim["id"])
        for j, term in enumerate(claim.get("terms", [])):
            try:
                v = term_value(term, point)
            except (KeyError, ValueError, ArithmeticError) as exc:  # OverflowError: huge powers
                raise ConfigError(f"{path}: claims.{i}.terms.{j}: {exc}") from None
            if not (math.isfinite(v) and v > 0):
                raise ConfigError(f"{path}: claims.{i}.terms.{j} = {v!r} at {point}: not > 0")
    return data


__all__ = [
    "GENERIC_EXPERIMENTS",
    "bound_value",
    "evaluate",
    "leading_term",
    "load_bound_registry",
    "t_secant_exponent",
    "term_of",
    "term_value",
]
