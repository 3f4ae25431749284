"""A claim's formula as plain text a page can show: the ``latex`` field of a bound-claims
registry (``config/claims/op24.yaml``, ``plasso.yaml``) without TeX markup.

Greek letters and relations become their Unicode symbols, ``\\frac{a}{b}`` becomes ``a/b``
(parenthesised where a side has more than one symbol), ``\\sqrt{x}`` becomes ``√x`` or ``√(x)``,
``\\text{...}``, ``\\mathrm{...}`` and ``\\mathcal{...}`` their contents, sub- and superscripts
Unicode digits and letters where they exist (``T^{3/5}`` stays ``T^(3/5)``), sizing commands
(``\\left``, ``\\big``) and spacing disappear. Only the commands of TeX math a registry uses
are known; another one is shown by its name without the backslash, never as markup.
"""

from __future__ import annotations

import re

#: Commands that stand for one symbol.
SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "phi": "φ", "psi": "ψ", "omega": "ω", "ell": "ℓ", "Delta": "Δ", "Theta": "Θ",
    "Omega": "Ω", "Sigma": "Σ", "Lambda": "Λ", "infty": "∞", "le": " ≤ ", "leq": " ≤ ",
    "ge": " ≥ ", "geq": " ≥ ", "ne": " ≠ ", "neq": " ≠ ", "approx": " ≈ ", "sim": " ∼ ",
    "cdot": "·", "times": "×", "in": " ∈ ", "subset": " ⊂ ", "subseteq": " ⊆ ",
    "setminus": " ∖ ", "to": " → ", "mid": " | ",
    "log": " log", "ln": " ln", "exp": " exp", "max": " max", "min": " min", "sup": " sup",
    "inf": " inf",
    "quad": "  ", "qquad": "   ", "{": "{", "}": "}", "|": "‖", ",": " ", ";": " ", ":": " ",
    " ": " ", "!": "", "%": "%", "_": "_", "&": "&",
}  # fmt: skip
#: Sizing and spacing commands: dropped (the delimiter after them stays).
SIZING = frozenset(
    {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "displaystyle"}
)
#: Commands whose one argument is shown as it is.
CONTENTS = frozenset(
    {"text", "mathrm", "mathcal", "mathbb", "mathbf", "mathit", "operatorname", "textrm", "mbox"}
)
#: Accents: the argument followed by a combining mark.
ACCENTS = {"hat": "\u0302", "bar": "\u0304", "tilde": "\u0303", "underline": "\u0332"}
FRACTIONS = frozenset({"frac", "tfrac", "dfrac"})

_SUPER = dict(zip("0123456789+-=()in", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ", strict=True))
_SUB = dict(zip("0123456789+-=()aeijklmnoprstx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₗₘₙₒₚᵣₛₜₓ", strict=True))
_COMMAND = re.compile(r"\\([A-Za-z]+|.)")


class _Reader:
    """A cursor over a TeX string, reading groups and single tokens as plain text."""

    def __init__(self, tex: str):
        self.s, self.i = tex, 0

    def group(self, closing: str | None = None) -> str:
        """Text up to ``closing`` (consumed) or the end."""
        out = []
        while self.i < len(self.s):
            c = self.s[self.i]
            if closing is not None and c == closing:
                self.i += 1
                break
            out.append(self.token())
        return "".join(out)

    def argument(self) -> str:
        """The next argument: a braced group or one token (spaces before it skipped)."""
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1
        if self.i < len(self.s) and self.s[self.i] == "{":
            self.i += 1
            return self.group("}")
        return self.token() if self.i < len(self.s) else ""

    def token(self) -> str:
        c = self.s[self.i]
        if c == "{":
            self.i += 1
            return self.group("}")
        if c in "^_":
            self.i += 1
            return _script(self.argument(), _SUPER if c == "^" else _SUB, c)
        if c == "\\":
            m = _COMMAND.match(self.s, self.i)
            self.i = m.end()
            return self._command(m.group(1))
        self.i += 1
        return c

    def _command(self, name: str) -> str:
        if name in SIZING:
            return ""
        if name in CONTENTS:
            return self.argument()
        if name in ACCENTS:
            return self.argument() + ACCENTS[name]
        if name in FRACTIONS:
            num, den = self.argument(), self.argument()
            return f" {_wrap(num)}/{_wrap(den)}"
        if name == "sqrt":
            index = ""
            if self.s.startswith("[", self.i):  # \sqrt[n]{x}
                self.i += 1
                index = self.group("]")
            root = {"": "√", "3": "∛", "4": "∜"}.get(index, f"{index}√")
            radicand = self.argument().strip()
            return root + (radicand if len(radicand) <= 1 or _outer(radicand) else f"({radicand})")
        return SYMBOLS.get(name, name)


def _outer(text: str) -> bool:
    """True when ``text`` is one parenthesised group."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for k, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0 and k < len(text) - 1:
            return False
    return True


def _wrap(text: str) -> str:
    """``text`` parenthesised unless it is a name, a number, one group or a root of one."""
    text = text.strip()
    body = text.lstrip("√∛∜")
    if re.fullmatch(r"[\w.∞]*", body) and len(text) - len(body) <= 1 or _outer(body):
        return text
    return f"({text})"


def _script(text: str, table: dict, mark: str) -> str:
    """A sub- or superscript: Unicode where every character has a form, else ``^x`` / ``_(xy)``."""
    text = text.strip()
    if text and all(c in table for c in text):
        return "".join(table[c] for c in text)
    return mark + (text if len(text) <= 1 else f"({text})")


def tex_text(tex: str) -> str:
    """``tex`` (TeX math, as in a claims registry) as plain text: no backslash command, no
    brace of grouping, single spaces."""
    text = re.sub(r"\s+", " ", _Reader(str(tex)).group())
    return re.sub(r"([(\[{]) | ([)\]}])", r"\1\2", text).strip()


__all__ = ["tex_text"]
