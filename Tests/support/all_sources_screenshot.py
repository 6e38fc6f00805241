"""Docs/screenshots/all_sources.png: one report in the Web Search tab citing a web page, a paper, a Wikipedia
article and a document together. Sets up the test world (the mini web behind SearXNG, the bee papers behind
OpenAlex, one with an open-access PDF), the demo Wikipedia index and a small document library in a temp folder,
starts the app on them, runs the research in Debian's Chromium and saves the screenshot.

    python -m Tests.support.all_sources_screenshot [OUT.png]
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from Tests.support import browser as ui
from Tests.support.all_sources import install_bee_papers, set_up_local_sources
from Tests.support.mini_web import MiniWeb
from Tests.support.testworld import TestWorld

QUESTION = "How do honey bees communicate the location of food?"
ENGINES = "searxng,openalex,wikipedia,documents"


KIND_OF_ENGINE = {"openalex": "paper", "wikipedia": "wikipedia", "documents": "document"}


def kinds_cited(page) -> set[str]:
    """The kinds of the numbered rows in the sources table, told by what found them (its "engines" column)."""
    return {KIND_OF_ENGINE.get(row[4].split(",")[0].strip(), "web")
            for row in ui.table_rows(page, "ws-sources") if row[1]}


def take(out: Path) -> set[str]:
    from playwright.sync_api import expect
    from App_Function_Libraries import config
    world = TestWorld().start()
    try:
        web = MiniWeb(world, include_faults=False).install()
        apis = install_bee_papers(world)
        with tempfile.TemporaryDirectory(prefix="quarry-all-sources-") as tmp:
            directory = Path(tmp)
            path = ui.write_app_config(directory, {
                "search": {"search_provider_default": ENGINES, "search_enable_subquery": "false"},
                "engines": {"searxng_api_url": web.search_base, **apis.config()["engines"]},
                "research": {"relevance_embedding_threshold": 0.3}})
            set_up_local_sources(config.load_settings(path, env={}), directory)
            with ui.running_app(path) as url, ui.chromium_page() as page:
                ui.open_app(page, url)
                ui.open_tab(page, "Web Search")
                ui.fill(page, "ws-question", QUESTION)
                ui.field(page, "ws-question").press("Enter")
                expect(page.locator("#ws-progress")).to_contain_text("✓ Verify citations", timeout=240_000)
                ui.wait_done(page, "ws-report")
                kinds = kinds_cited(page)
                out.parent.mkdir(parents=True, exist_ok=True)
                page.evaluate("() => document.querySelectorAll('.toast-wrap').forEach(t => t.remove())")
                page.screenshot(path=str(out), full_page=True)
                return kinds
    finally:
        world.stop()


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ui.DOCS_SCREENSHOTS / "all_sources.png"
    found = take(target)
    print(f"{target}: numbered kinds {sorted(found)}")
    sys.exit(0 if found >= {"web", "paper", "wikipedia", "document"} else 1)
