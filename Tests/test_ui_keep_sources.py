"""Keep sources in the desktop UI (headless Chromium, the real app on the test world): research, click Keep
sources under the report, read the summary, find the kept pages in the Documents tab's list; keeping them again from History adds none."""
from __future__ import annotations

import re

import pytest

from Tests.support import browser as ui
from Tests.support.mini_web import MiniWeb
from Tests.support.testworld import TestWorld

pytestmark = pytest.mark.browser


def test_keep_sources_adds_the_read_pages_to_the_documents(tmp_path):
    from playwright.sync_api import expect
    ui.require_chromium()
    world = TestWorld().start()
    try:
        MiniWeb(world, include_faults=False).install()
        config = ui.write_app_config(tmp_path, {
            "search": {"search_provider_default": "searxng", "search_enable_subquery": "false"},
            "engines": {"searxng_api_url": world.url("/searxng")}})
        with ui.running_app(config) as url, ui.chromium_page() as page:
            ui.open_app(page, url)
            ui.fill(page, "ws-question", "How do honey bees communicate where flowers are?")
            page.click("#ws-search")
            expect(page.locator("#ws-progress")).to_contain_text("✓ Verify citations", timeout=150_000)
            page.click("#ws-keep-sources")
            expect(page.locator("#ws-kept")).to_contain_text("added to the document library", timeout=120_000)
            added = int(re.search(r"Kept sources: (\d+) added", ui.markdown_text(page, "ws-kept")).group(1))
            assert added >= 1
            ui.open_tab(page, "Documents")
            expect(page.locator("#docs-count")).to_contain_text(f"{added} document(s)", timeout=30_000)
            paths = [row[-1] for row in ui.table_rows(page, "docs-list")]
            assert len(paths) == added and all(str(tmp_path / "kept") in p for p in paths), paths
            ui.open_tab(page, "History")  # the saved report's sources, kept again: all kept before
            expect(page.locator("#hist-count")).to_contain_text("1 saved report(s)")
            ui.click_cell(page, "hist-list", 0, 1)
            expect(page.locator("#hist-preview")).to_contain_text("honey bees")
            page.click("#hist-keep-sources")
            expect(page.locator("#hist-kept")).to_contain_text(re.compile(
                r"Kept sources: 0 added to the document library, \d+ kept before"), timeout=120_000)
    finally:
        world.stop()
