"""Escaping of text from the configuration for the places it lands.

Titles, captions, series labels and claim statements come from ``config/`` and reach three
renderers, each of which would otherwise interpret them:

* report captions (:func:`rst_text`): Snakemake renders a caption file as a Jinja template and
  then as reStructuredText, so ``{{ ... }}`` / ``{% ... %}`` would run code and a line starting
  ``.. raw:: html`` or ``.. include::`` would inject markup or read files;
* Markdown cells of the executed notebooks and their HTML pages (:func:`md_text`): Markdown
  passes raw HTML (``<script>``) and links (``[x](javascript:...)``) through, and ``$...$``
  starts MathJax;
* HTML pages built directly (:func:`html_text`).

Each function returns text that the renderer shows literally, character for character.
"""

from __future__ import annotations

import html
import re
import string

_WS = re.compile(r"\s+")
#: ASCII punctuation: every character reStructuredText or Markdown may treat as markup.
_PUNCT = frozenset(string.punctuation)


def one_line(text) -> str:
    """``text`` as one line: runs of whitespace (newlines included) become one space."""
    return _WS.sub(" ", str(text)).strip()


def rst_text(text) -> str:
    """Literal reStructuredText (and Jinja-inert) text of one paragraph.

    Whitespace is collapsed (no line can start a directive) and every ASCII punctuation
    character is backslash-escaped: reStructuredText renders ``\\c`` as ``c`` for any ``c``, and
    no Jinja delimiter (``{{``, ``{%``, ``{#``) survives, since each brace is followed by a
    backslash-escaped character.
    """
    return "".join("\\" + c if c in _PUNCT else c for c in one_line(text))


#: Characters Markdown (CommonMark, with MathJax's ``$``) can treat as markup; ``&<>"'`` are
#: handled by HTML escaping instead.
_MD = frozenset("\\`*_{}[]()#+-.!|~$")


def md_text(text) -> str:
    """Literal Markdown text (one line): markup characters backslash-escaped, HTML escaped."""
    escaped = "".join("\\" + c if c in _MD else c for c in one_line(text))
    return html.escape(escaped, quote=True)


def html_text(text) -> str:
    """Literal HTML text (``html.escape`` with quotes)."""
    return html.escape(str(text), quote=True)
