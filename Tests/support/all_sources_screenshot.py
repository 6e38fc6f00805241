"""Docs/screenshots/all_sources.png: one report in the Web Search tab citing a web page, a paper, a Wikipedia
article and a document together. Sets up the test world (the mini web behind SearXNG, the bee papers behind
OpenAlex, one with an open-access PDF), the demo Wikipedia index and a small document library in a temp folder,
and the scripted research model behind the OpenAI wire, starts the app on them, runs the research in Debian's Chromium and saves the screenshot.

    python -m Tests.support.all_sources_screenshot [OUT.png]
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from Tests.support import browser as ui
from Tests.support.all_sources import install_bee_papers, set_up_local_sources
from Tests.support.mini_web import MiniWeb
from Tests.support.openai_server import ScriptedLLM
from Tests.support.research_llm import script_research
from Tests.support.testworld import TestWorld

QUESTION = "How do honey bees communicate the location of food?"
ENGINES = "searxng,openalex,wikipedia,documents"


KIND_OF_ENGINE = {"openalex": "paper", "wikipedia": "wikipedia", "documents": "document"}


def kinds_cited(page) -> set[str]:
    """The kinds of the sources the report's [n] links point at, told by what found them (the sources table's
    "engines" column)."""
    links = page.locator("#ws-report a")
    cited = {links.nth(i).inner_text().strip().strip("[]") for i in range(links.count())}
    return {KIND_OF_ENGINE.get(row[4].split(",")[0].strip(), "web")
            for row in ui.table_rows(page, "ws-sources") if row[1] and row[1] in cited}


def take(out: Path) -> set[str]:
    from playwright.sync_api import expect
    from App_Function_Libraries import config
    world = TestWorld().start()
    try:
        web = MiniWeb(world, include_faults=False).install()
        apis = install_bee_papers(world)
        script_research(ScriptedLLM(default="?"), ("bee", "honey", "waggle", "forag", "hive"),
                        invalid_citation=None).install(world)
        with tempfile.TemporaryDirectory(prefix="quarry-all-sources-") as tmp:
            directory = Path(tmp)
            path = ui.write_app_config(directory, {
                "search": {"search_provider_default": ENGINES, "search_enable_subquery": "false"},
                "engines": {"searxng_api_url": web.search_base, **apis.config()["engines"]},
                "llm": {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model",
                        "max_retries": 0, "timeout_seconds": 10}})
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
