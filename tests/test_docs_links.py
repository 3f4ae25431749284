"""Every relative link of the project's Markdown pages (README, docs/, config/README) resolves:
its file exists, and an anchor names a heading of that file (GitHub's slugs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(
    [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "config" / "README.md"]
    + list((ROOT / "docs").rglob("*.md"))
)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to ``-``."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    body = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+\s+(.*)$", body, flags=re.M)}


def links(page: Path) -> list[str]:
    body = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    body = re.sub(r"`[^`\n]*`", "", body)
    return [t for t in LINK.findall(body) if not re.match(r"[a-z]+:", t)]


def test_the_slug_is_githubs():
    assert slug("Reading a verdict: ordering claims") == "reading-a-verdict-ordering-claims"
    assert slug("Privacy verdicts: both bounds") == "privacy-verdicts-both-bounds"
    assert slug("`make bench`") == "make-bench"


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file or heading does not exist."""
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading with that anchor in {dest.name}")
    return broken


def test_a_moved_section_and_a_missing_file_are_caught(tmp_path):
    (tmp_path / "a.md").write_text("# Title\n\n## Reading a verdict: ordering claims\n")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#reading-a-verdict-ordering-claims) [moved](a.md#privacy-audit) "
        "[gone](c.md) [web](https://example.org/x.md) `[code](d.md)`\n"
    )
    assert broken_links(page) == [
        "a.md#privacy-audit: no heading with that anchor in a.md",
        "c.md: no such file",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    broken = broken_links(page)
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)
