"""The reason a claim's row shows on a page (dpbandits.pages.short_reason): whole when short;
cut at a sentence end, never inside an abbreviation, and marked as cut."""

from dpbandits.pages import short_reason

EVIDENCE = "All 4 selected rows are DELIVERED (largest delivered epsilon 0.0968 at nominal 1)."
SCOPE = "Not tested: the O(eps, delta)-SDP part."


def test_a_reason_within_the_limit_is_shown_whole():
    text = f"{EVIDENCE} {SCOPE}"
    assert short_reason(text, len(text)) == text


def test_a_cut_reason_ends_at_a_sentence_and_says_it_was_cut():
    """The second sentence does not fit: the first is shown, then the mark (the old cut showed
    the first sentence alone, so a reader could not tell that a qualification followed)."""
    text = f"{EVIDENCE} {SCOPE}"
    assert short_reason(text, len(EVIDENCE) + 10) == f"{EVIDENCE} …"


def test_an_abbreviation_ends_no_sentence():
    """'(Thm. 3.2 range' and 'Cor. B.2' are not sentence ends: the cut falls at a word with the
    mark instead of after 'Thm.' (the old cut left '... aside (Thm.')."""
    text = (
        "All 10 selected rows are DELIVERED; 15 selected rows outside the conditions set aside "
        "(Thm. Range epsilon below the bound of Cor. B.2, in cz22 corollaries)."
    )
    cut = short_reason(text, 100)
    assert not cut.endswith("(Thm. …")
    assert cut.endswith(" …") and len(cut) <= 100
    assert cut == text[: text.rfind(" ", 0, 99)] + " …"
