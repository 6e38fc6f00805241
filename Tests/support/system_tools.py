"""Tests that need a program or font of the system, not of pip: poppler-utils (pdftotext, pdffonts), a CJK font,
Pango (WeasyPrint's PDF rendering), openssl.

    require_tool("pdftotext")     require_cjk_font()     require_pango()

Each skips the calling test where the thing is missing, naming it and what to install (the README's test
command passes on a fresh machine), and fails it where QUARRY_REQUIRE_SYSTEM_TOOLS=1 (.ci/run installs them and
sets it, so a failed install cannot pass as a green run). Chromium has its own: Tests/support/browser.py.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REQUIRE_SYSTEM_TOOLS = "QUARRY_REQUIRE_SYSTEM_TOOLS"
PACKAGES = {"pdftotext": "poppler-utils", "pdffonts": "poppler-utils", "pdftoppm": "poppler-utils",
            "openssl": "openssl"}
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path.home() / ".local/share/fonts")
CJK_FONT_NAMES = ("wqy", "wenquanyi", "cjk", "zenhei")


def missing(what: str, install: str) -> None:
    """Skip (or, where required, fail) the calling test: `what` is not on this machine."""
    message = f"{what} is not installed (on Debian/Ubuntu: apt-get install {install})"
    if os.environ.get(REQUIRE_SYSTEM_TOOLS) == "1":
        pytest.fail(f"{message}; {REQUIRE_SYSTEM_TOOLS}=1 says the tests that need it must run", pytrace=False)
    pytest.skip(message)


def require_tool(name: str) -> None:
    if shutil.which(name) is None:
        missing(f"{name} ({PACKAGES.get(name, name)})", PACKAGES.get(name, name))


def require_cjk_font() -> None:
    """A font for Chinese, Japanese and Korean, as the PDF export finds it (fontconfig)."""
    if not has_cjk_font():
        missing("a CJK font (WenQuanYi Zen Hei or Noto CJK)", "fonts-wqy-zenhei")


def require_pango() -> None:
    """WeasyPrint's system libraries (Pango, HarfBuzz): without them no PDF can be rendered."""
    if not has_pango():
        missing("Pango (WeasyPrint's PDF rendering)", "libpango-1.0-0 libpangoft2-1.0-0")


def has_cjk_font() -> bool:
    if shutil.which("fc-list"):
        listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, timeout=60)
        return bool(listed.stdout.strip())
    return any(any(n in p.name.lower() for n in CJK_FONT_NAMES) for d in FONT_DIRS if d.is_dir()
               for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".ttc", ".otf"))


@functools.cache
def has_pango() -> bool:
    try:
        import weasyprint  # noqa: F401 - loads Pango through ctypes; OSError without it
    except (ImportError, OSError):
        return False
    return True
