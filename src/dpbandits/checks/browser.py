"""Pages as a reader's browser shows them: headless Chromium renders a page offline, and the
rendered DOM is checked for markup shown as text, unnamed table headers, links to missing files,
network requests and claim statuses.

Chromium is Debian's ``chromium`` package (``make browser`` installs it). A page is loaded from
its file with every host name unresolvable, and Chromium's network log lists every request it
tried: a self-contained page tries none.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

#: Where Debian's package puts the browser.
CHROMIUM = "/usr/bin/chromium"

#: Flags of a headless, offline, sandbox-free (root) run that starts no background service.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)

#: Markup that must never be visible as text (an escaped tag of the page's own structure).
ESCAPED_TAG = re.compile(
    r"<\s*/?\s*(h[1-6]|th|td|tr|p|table|thead|tbody|div|span|img|a|ul|li)\b[^<]*>"
)
#: TeX math visible as text (a formula of a claims registry shown raw): a command of TeX math.
TEX_COMMAND = re.compile(
    r"\\(frac|tfrac|sqrt|left|right|mathcal|mathrm|mathbb|text|varepsilon|epsilon|delta|rho|"
    r"sigma|log|ln|le|ge|infty|Omega|Theta|big|Big)(?![A-Za-z])"
)


def chromium() -> str:
    """The browser's path; ``RuntimeError`` saying how to install it when it is missing."""
    path = shutil.which("chromium") or (CHROMIUM if os.path.exists(CHROMIUM) else None)
    if not path:
        raise RuntimeError("Chromium is not installed: run `make browser` (Debian's chromium)")
    return path


@dataclass
class Rendered:
    """A page as the browser rendered it: the DOM it built and the requests it tried."""

    page: Path
    dom: str
    requests: list[str] = field(default_factory=list)


#: Hosts the browser itself calls at start-up (time, updates, accounts), whatever the page.
BROWSER_HOSTS = frozenset(
    {
        "clients2.google.com",
        "update.googleapis.com",
        "accounts.google.com",
        "optimizationguide-pa.googleapis.com",
        "safebrowsingohttpgateway.googleapis.com",
        "redirector.gvt1.com",
        "edgedl.me.gvt1.com",
        "www.google.com",
        "clientservices.googleapis.com",
    }
)
_URL = re.compile(r'"url"\s*:\s*"((?:https?|wss?|ftp)://[^"]+)"')


def _requests(netlog: Path) -> list[str]:
    """URLs of every request in a Chromium network log to anything but a local file and the
    browser's own services (:data:`BROWSER_HOSTS`): the log's ``url`` fields with a network
    scheme, read as text, since Chromium may stop before it has closed its JSON."""
    if not netlog.exists():
        return []
    urls = set(_URL.findall(netlog.read_text(errors="replace")))
    return sorted(u for u in urls if urlparse(u).hostname not in BROWSER_HOSTS)


def render(page: str | Path, screenshot: str | Path | None = None, timeout: float = 60) -> Rendered:
    """Load ``page`` (a file) in headless Chromium offline; return its DOM and its requests.

    With ``screenshot``, a PNG of the page's first 1280 x 2400 pixels is written there too.
    """
    page = Path(page).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        netlog = Path(tmp) / "net.json"
        base = [chromium(), *FLAGS, f"--user-data-dir={tmp}/profile"]
        dom = subprocess.run(
            [*base, f"--log-net-log={netlog}", "--dump-dom", page.as_uri()],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        ).stdout
        requests = _requests(netlog)
        if screenshot is not None:
            Path(screenshot).parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [
                    *base,
                    "--window-size=1280,2400",
                    f"--screenshot={Path(screenshot).resolve()}",
                    page.as_uri(),
                ],
                capture_output=True,
                timeout=timeout,
                check=True,
            )
    return Rendered(page, dom, requests)


class _Reader(HTMLParser):
    """Collects the DOM's visible text, table headers, links, images and claim rows."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.headers: list[str] = []
        self.links: list[str] = []
        self.claims: list[tuple[str, str]] = []
        self._skip = 0
        self._th: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style", "title"):
            self._skip += 1
        if tag == "th":
            self._th = []
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "img" and a.get("src"):
            self.links.append(a["src"])
        if "data-claim" in a:
            self.claims.append((a["data-claim"], a.get("data-status", "")))

    def handle_endtag(self, tag):
        if tag in ("script", "style", "title") and self._skip:
            self._skip -= 1
        if tag == "th" and self._th is not None:
            self.headers.append("".join(self._th).strip())
            self._th = None

    def handle_data(self, data):
        if self._skip:
            return
        self.text.append(data)
        if self._th is not None:
            self._th.append(data)


def read_dom(dom: str) -> _Reader:
    """Parse a rendered DOM (see :class:`_Reader` for what is collected)."""
    reader = _Reader()
    reader.feed(dom)
    return reader


def problems(rendered: Rendered) -> list[str]:
    """What a reader would trip over on a rendered page, one line each (empty: none).

    Markup visible as text (HTML tags or TeX commands), a table header cell without a name
    (pandas' index corner cells, which hold no text by design, are the exception when the row
    holds a named header), a link or image whose file does not exist, a request to the network.
    """
    out = []
    r = read_dom(rendered.dom)
    text = "".join(r.text)
    for m in list(ESCAPED_TAG.finditer(text))[:5]:
        out.append(f"markup shown as text: {m.group(0)[:60]!r}")
    for m in list(TEX_COMMAND.finditer(text))[:5]:
        start = max(m.start() - 20, 0)
        out.append(f"TeX shown as text: {text[start : m.end() + 20]!r}")
    if r.headers and not any(r.headers):
        out.append("table headers without names")
    for href in r.links:
        url = urlparse(href)
        if url.scheme in ("http", "https", "mailto", "data") or href.startswith("#"):
            continue
        target = (rendered.page.parent / unquote(url.path)).resolve()
        if url.path and not target.exists():
            out.append(f"link to a missing file: {href}")
    out.extend(f"network request: {u}" for u in rendered.requests)
    return out


def claim_statuses(rendered: Rendered) -> list[tuple[str, str]]:
    """The (claim id, status) of every element of the page carrying ``data-claim``."""
    return read_dom(rendered.dom).claims


#: The pages a reader opens first, relative to a build's results folder, loaded in the browser
#: (every other page is checked as written, without it).
MAIN_PAGES = (
    "index.html",
    "audit/report.html",
    "audit/cz22.html",
    "audit/privacy.html",
    "arena/arena.html",
)


def static_problems(page: Path) -> list[str]:
    """:func:`problems` of a page as written (its HTML is the DOM it builds: no script changes
    the pipeline's pages), without the browser and its network log."""
    return problems(Rendered(page, page.read_text(encoding="utf-8", errors="replace")))


def status_mismatches(page: Path, dom: str, scoreboard: dict) -> list[str]:
    """Claim rows of a page whose ``data-status`` differs from ``scoreboard`` (claim id ->
    status) or that name a claim the scoreboard does not have."""
    out = []
    for cid, status in read_dom(dom).claims:
        if cid not in scoreboard:
            out.append(f"{page}: claim {cid} is not in the scoreboard")
        elif scoreboard[cid] != status:
            out.append(f"{page}: {cid} shows {status!r}, the scoreboard says {scoreboard[cid]!r}")
    return out


def build_pages(root: str | Path) -> list[Path]:
    """The HTML pages of the build under ``root``, without those of a build nested in it
    (``results/quick``, ``results/full``: a folder with its own ``audit/scoreboard.csv``, checked
    on its own against its own scoreboard)."""
    root = Path(root)
    nested = [b.parent.parent for b in root.glob("*/audit/scoreboard.csv")]
    return sorted(p for p in root.rglob("*.html") if not any(p.is_relative_to(n) for n in nested))


def check_build(root: str | Path, screenshots: bool = True) -> list[str]:
    """Check every HTML page of a build under ``root`` (``results`` or ``results/quick``).

    The :data:`MAIN_PAGES` are rendered offline in Chromium (their screenshots go to
    ``<root>/screenshots/`` with ``screenshots``); every page is checked for markup shown as
    text, unnamed headers and missing link targets, and its claim rows against
    ``<root>/audit/scoreboard.csv``; a build nested in it (``results/quick``) is left to its
    own check. Returns one line per problem (empty: none).
    """
    from ..io import CorruptResultError, read_csv_rows

    root = Path(root)
    board_file = root / "audit" / "scoreboard.csv"
    out = []
    if board_file.exists():
        try:
            board = {row["claim_id"]: row["status"] for row in read_csv_rows(board_file)}
        except CorruptResultError as err:
            out.append(f"{board_file}: {err}")
            board = None
    else:
        out.append(
            f"{board_file}: missing, so no claim row is checked against it "
            f"(the build under {root}/ has no audit: `snakemake --cores all` builds it)"
        )
        board = None
    for rel in MAIN_PAGES:
        if not (root / rel).exists():
            out.append(f"{root / rel}: missing")
    for page in build_pages(root):
        rel = page.relative_to(root).as_posix()
        if rel in MAIN_PAGES:
            shot = root / "screenshots" / (rel.replace("/", "_")[: -len(".html")] + ".png")
            rendered = render(page, shot if screenshots else None)
        else:
            rendered = Rendered(page, page.read_text(encoding="utf-8", errors="replace"))
        out.extend(f"{page}: {p}" for p in problems(rendered))
        if board is not None:
            out.extend(status_mismatches(page, rendered.dom, board))
    return out


__all__ = [
    "MAIN_PAGES",
    "build_pages",
    "check_build",
    "static_problems",
    "status_mismatches",
    "CHROMIUM",
    "Rendered",
    "chromium",
    "claim_statuses",
    "problems",
    "read_dom",
    "render",
]
