"""dpbandits.tex_text: a claim's TeX formula as plain text, and the bound papers' claim
statements without TeX on their pages."""

import pytest

from dpbandits.bound_claims import load_bound_registry
from dpbandits.checks.browser import Rendered, problems
from dpbandits.pages import claim_statement
from dpbandits.tex_text import tex_text

from .conftest import ROOT, SCHEMAS


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        # op24, Table 1 row 1 (finite arms, the upper bound)
        (
            r"\mathcal{O}\left(\sqrt{KT\log T}\right)+\mathcal{O}\left(\frac{K}{\sqrt{\rho}}"
            r"\sqrt{\log T}\right)",
            "O(√(KT log T))+O(K/√ρ√(log T))",
        ),
        (
            r"\Omega\left(\max\left(d\sqrt{T},\ \frac{d}{\sqrt{\rho}}\right)\right)",
            "Ω(max(d√T, d/√ρ))",
        ),  # fmt: skip
        (r"\frac{d^{3/4}\sqrt{T\log(1/\delta)}}{\sqrt{\varepsilon}}", "(d^(3/4)√(T log(1/δ)))/√ε"),
        (
            r"\text{SparseEstimation is }(\varepsilon_1,\delta_1)\text{-DP}",
            "SparseEstimation is (ε₁,δ₁)-DP",
        ),  # fmt: skip
        (r"\log^{3}T", "log³T"),
        (r"\hat\theta_t \le \bar s", "θ̂ₜ ≤ s̄"),
        (r"\sqrt[3]{x}", "∛x"),
        (r"\unknowncmd{x}", "unknowncmdx"),
    ],
)
def test_tex_becomes_readable_text(tex, text):
    assert tex_text(tex) == text


def test_every_bound_claims_statement_shows_no_tex_and_the_page_check_catches_raw_tex(tmp_path):
    schema = str(SCHEMAS / "bound_claims.schema.yaml")
    statements = [
        claim_statement(c)
        for prefix in ("op24", "plasso")
        for c in load_bound_registry(str(ROOT / f"config/claims/{prefix}.yaml"), schema)["claims"]
    ]
    assert len(statements) >= 20
    page = tmp_path / "p.html"
    page.write_text("<html><body><p>" + "</p><p>".join(statements) + "</p></body></html>")
    assert problems(Rendered(page, page.read_text())) == []
    assert not any("\\" in s for s in statements)
    # planted: one formula shown raw
    raw = r"\mathcal{O}\left(\sqrt{T}\right)"
    page.write_text(f"<html><body><p>{raw}</p></body></html>")
    found = problems(Rendered(page, page.read_text()))
    assert len(found) == 4 and all(f.startswith("TeX shown as text") for f in found)
