"""The report printed to PDF by a headless Chromium, on A4 pages (the page size is the style
sheet's ``@page`` rule, which Chromium follows)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Final

from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.files import replacing

__all__ = ["CHROMIUM_FLAGS", "CHROMIUM_NAMES", "find_chromium", "render_pdf"]

#: Browsers that can print a page to PDF from the command line, most likely first.
CHROMIUM_NAMES: Final = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
)
#: Flags of a headless Chromium that renders one local file and talks to no server. The report
#: is our own file, without scripts from elsewhere, so the sandbox (which refuses to run as
#: root in containers) adds nothing here.
CHROMIUM_FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
_PDF_TIMEOUT_SECONDS: Final = 120


def find_chromium() -> str | None:
    """The path of a Chromium or Chrome on ``PATH``, or ``None``."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def render_pdf(
    html_path: str | os.PathLike[str], pdf_path: str | os.PathLike[str] | None = None
) -> Path:
    """Print a report to PDF with a headless Chromium (default: beside it, ``.pdf``).

    Raises :class:`~tarot_analysis.errors.TarotInputError` when no browser is found or it
    fails, saying which in one line.
    """
    source = Path(html_path).resolve()
    target = Path(pdf_path) if pdf_path is not None else source.with_suffix(".pdf")
    browser = find_chromium()
    if browser is None:
        raise TarotInputError(
            f"no PDF: no headless Chromium found (looked for {', '.join(CHROMIUM_NAMES)})"
        )
    # Printed to a temporary file beside the target, renamed when complete: a browser killed or
    # a disk full midway leaves the old PDF, not a truncated one.
    with (
        tempfile.TemporaryDirectory(prefix="tarot-chromium-") as profile,
        replacing(target) as temporary,
    ):
        command = [
            browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--no-pdf-header-footer",
            f"--print-to-pdf={temporary.resolve()}", source.as_uri(),
        ]  # fmt: skip
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=_PDF_TIMEOUT_SECONDS, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise TarotInputError(f"no PDF: {browser} failed ({error})") from None
        if done.returncode != 0 or not temporary.exists():
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise TarotInputError(f"no PDF: {browser} exited with {done.returncode} ({last})")
    return target
