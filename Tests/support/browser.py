"""Browser-test helpers: Debian's Chromium driven by Playwright against the real app started as a child
process on a config that points every service at the test world.

    cfg = write_app_config(tmp_dir, {"engines": {"searxng_api_url": world.url("/searxng")}})
    with running_app(cfg) as url, chromium_page() as page:
        page.goto(url); open_tab(page, "Settings"); ...

Never downloads a browser: CHROMIUM (default /usr/bin/chromium) must exist, else the tests skip, or fail where
QUARRY_REQUIRE_BROWSER=1 (CI sets it, so a failed Chromium install cannot pass as a green run).
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from Tests.support.app_process import ROOT, start_app, stop_app

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
# The browser tests always take their screenshots; they replace Docs/screenshots/ only when asked
# (QUARRY_UPDATE_SCREENSHOTS=1), so an ordinary test run leaves the checkout as it was.
DOCS_SCREENSHOTS = ROOT / "Docs" / "screenshots"
SCREENSHOTS = (DOCS_SCREENSHOTS if os.environ.get("QUARRY_UPDATE_SCREENSHOTS") == "1"
               else Path(tempfile.gettempdir()) / "quarry-screenshots")
VIEWPORT = {"width": 1280, "height": 900}


REQUIRE_BROWSER = "QUARRY_REQUIRE_BROWSER"


def require_chromium() -> None:
    """Skip the calling test without Chromium (a developer's machine); fail it where REQUIRE_BROWSER=1 (CI)."""
    if Path(CHROMIUM).exists():
        return
    message = f"no Chromium at {CHROMIUM} (install Debian's chromium: apt-get install chromium)"
    if os.environ.get(REQUIRE_BROWSER) == "1":
        pytest.fail(f"{message}; {REQUIRE_BROWSER}=1 says the browser tests must run", pytrace=False)
    pytest.skip(message)


def write_app_config(directory: Path, values: dict | None = None) -> Path:
    """A config file for a test app: databases and indexes in `directory`, private addresses allowed,
    no LLM (extractive), plus `values` ({section: {key: value}})."""
    base = {"search": {"search_provider_default": "searxng"},
            "databases": {"research_db": str(directory / "quarry.db"), "notes_db": str(directory / "quarry.db")},
            "fetch": {"allow_private_addresses": "true"},
            "wikipedia": {"index_dir": str(directory / "wiki")},
            "documents": {"index_dir": str(directory / "docs"), "kept_sources_dir": str(directory / "kept")}}
    for section, kv in (values or {}).items():
        base.setdefault(section, {}).update({k: str(v) for k, v in kv.items()})
    text = "".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) + "\n" for s, kv in base.items())
    path = directory / "config.txt"
    path.write_text(text, encoding="utf-8")
    return path


@contextlib.contextmanager
def running_app(config: Path, env: dict | None = None) -> Iterator[str]:
    """`python app.py --config CONFIG` on a free loopback port; yields its URL."""
    proc, url, _ = start_app(["--config", str(config)], env={"QUARRY_CONFIG": "", **(env or {})})
    try:
        yield url
    finally:
        stop_app(proc)


@contextlib.contextmanager
def chromium_page(downloads: bool = True) -> Iterator:
    """A fresh headless Chromium page (clipboard allowed, downloads accepted)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport=VIEWPORT, accept_downloads=downloads)
            context.grant_permissions(["clipboard-read", "clipboard-write"])
            page = context.new_page()
            page.set_default_timeout(30_000)
            yield page
        finally:
            browser.close()


def expect(locator):
    """Playwright's expect (imported when a browser test runs, not when this module is)."""
    from playwright.sync_api import expect as pw_expect
    return pw_expect(locator)


def open_app(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("button[role=tab]", timeout=60_000)


def open_tab(page, label: str) -> None:
    page.get_by_role("tab", name=label, exact=True).click()
    page.wait_for_selector(f"#tab-{label.lower().replace(' ', '_')}", state="visible")


def field(page, elem_id: str, kind: str = "textarea, input"):
    """The input inside the Gradio component with this elem_id."""
    return page.locator(f"#{elem_id}").locator(kind).first


def fill(page, elem_id: str, text: str) -> None:
    box = field(page, elem_id)
    box.fill(text)
    box.dispatch_event("input")


def wait_idle(page, timeout: float = 60_000) -> None:
    """Until no Gradio component shows a pending/progress state."""
    page.wait_for_function(
        "() => !document.querySelector('.pending, .generating, .eta-bar')", timeout=timeout)


def screenshot(page, name: str, full_page: bool = True) -> Path:
    """SCREENSHOTS/NAME.png of the page, without the toast messages that may cover it."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    try:  # not while the page's own load events still grey out what they update
        page.wait_for_function("() => !document.querySelector('.pending')", timeout=10_000)
    except Exception:  # noqa: BLE001 - a picture of a busy page is still a picture
        pass
    page.evaluate("() => document.querySelectorAll('.toast-wrap').forEach(t => t.style.display = 'none')")
    try:
        page.screenshot(path=str(path), full_page=full_page)
    finally:
        page.evaluate("() => document.querySelectorAll('.toast-wrap').forEach(t => t.style.display = '')")
    return path


def add_documents(page, folder: Path, docs: dict[str, str], timeout: float = 180_000) -> None:
    """Write the documents {name: text} into folder and add them through the Documents tab's upload."""
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    open_tab(page, "Documents")
    page.locator("#docs-upload input[type=file]").set_input_files([str(folder / n) for n in docs])
    expect(page.locator(f"#docs-upload a[href*='{next(iter(docs))}']")).to_have_count(1)
    page.click("#docs-add")
    expect(page.locator("#docs-added")).to_contain_text(f"{len(docs)} added", timeout=timeout)


def table_rows(page, elem_id: str) -> list[list[str]]:
    """The body cells of a gr.Dataframe, row by row (its virtual rows as rendered)."""
    cells = page.locator(f"#{elem_id} [role=gridcell]")
    rows: dict[int, list[tuple[int, str]]] = {}
    for i in range(cells.count()):
        cell = cells.nth(i)
        r, c = int(cell.get_attribute("data-row")), int(cell.get_attribute("data-col"))
        rows.setdefault(r, []).append((c, cell.inner_text().strip()))
    return [[text for _, text in sorted(rows[r])] for r in sorted(rows)]


def click_cell(page, elem_id: str, row: int, col: int = 0) -> None:
    page.locator(f"#{elem_id} [data-testid=cell-{row}-{col}]").click()


def wait_done(page, elem_id: str, timeout: float = 120_000) -> None:
    """Until the component with this elem_id has no event pending on it (its progress tracker hidden)."""
    page.wait_for_function(
        """id => { const el = document.getElementById(id);
                   if (!el) return false;
                   return !el.querySelector('.pending') &&
                          [...el.querySelectorAll('[data-testid=status-tracker]')].every(t => t.classList.contains('hide')); }""",
        arg=elem_id, timeout=timeout)


def fold_is_open(page, elem_id: str) -> bool:
    """Whether the gr.Accordion with this elem_id is open (its label button has the class `open`)."""
    return "open" in (page.locator(f"#{elem_id} button.label-wrap").first.get_attribute("class") or "").split()


def open_fold(page, elem_id: str) -> None:
    """Open the gr.Accordion with this elem_id (Web Search's "Search options" or "Details") if it is closed."""
    if not fold_is_open(page, elem_id):
        page.locator(f"#{elem_id} button.label-wrap").first.click()
        page.wait_for_function("id => document.querySelector(`#${id} button.label-wrap`).classList.contains('open')",
                               arg=elem_id)


def markdown_text(page, elem_id: str) -> str:
    return page.locator(f"#{elem_id} .md").first.inner_text()
