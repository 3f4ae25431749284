"""Notebook parameters: a parameter the pipeline passes must be declared by the notebook.

papermill injects unknown parameters silently, so a typo would run the notebook with its default
value; :func:`check_parameters` refuses them before the notebook executes.
"""

from __future__ import annotations

from pathlib import Path

from .config import ConfigError


def declared_parameters(notebook: str | Path) -> list[str]:
    """Names assigned in the notebook's cell tagged ``parameters`` (papermill's inspection)."""
    import papermill as pm

    return list(pm.inspect_notebook(str(notebook)))


def check_parameters(notebook: str | Path, parameters: dict) -> None:
    """Raise :class:`~dpbandits.config.ConfigError` naming every parameter that ``notebook``
    does not declare, with the declared ones."""
    declared = declared_parameters(notebook)
    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise ConfigError(
            f"{notebook}: parameter(s) {unknown} not declared in its parameters cell; "
            f"allowed: {', '.join(declared)}"
        )
