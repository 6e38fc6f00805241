"""The desktop UI in headless Chromium against the real app (`python app.py --config …`) on the test world.

One app process and one browser for the whole module; the tests run in file order and build on each other
where the issue's story does (a report saved to notes is then found in Notes). Screenshots of every tab go to
Docs/screenshots/.
"""
from __future__ import annotations

import json
import re
import urllib.request

import pytest

from Tests.support import browser as ui
from Tests.support.mini_web import MiniWeb
from Tests.support.testworld import TestWorld

pytestmark = pytest.mark.browser

BRAVE_KEY = "brave-secret-7f3a9c1e"


@pytest.fixture(scope="module")
def world():
    ui.require_chromium()
    w = TestWorld().start()
    MiniWeb(w, include_faults=False).install()
    yield w
    w.stop()


@pytest.fixture(scope="module")
def app_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("ui_app")


@pytest.fixture(scope="module")
def app_url(world, app_dir):
    config = ui.write_app_config(app_dir, {
        "search": {"search_provider_default": "searxng", "search_enable_subquery": "false"},
        "engines": {"searxng_api_url": world.url("/searxng"), "brave_api_key": BRAVE_KEY}})
    with ui.running_app(config) as url:
        yield url


@pytest.fixture(scope="module")
def page(app_url):
    with ui.chromium_page() as p:
        ui.open_app(p, app_url)
        yield p


def expect(locator):
    from playwright.sync_api import expect as pw_expect
    return pw_expect(locator)


# ---------------------------------------------------------------- Settings

def test_settings_never_shows_a_key(page, app_url, app_dir):
    ui.open_tab(page, "Settings")
    brave = ui.field(page, "set-engines-brave-api-key", "input")
    assert brave.input_value() == "" and brave.get_attribute("placeholder") == "(set)"
    assert ui.field(page, "set-engines-kagi-api-key", "input").get_attribute("placeholder") == "(not set)"
    with urllib.request.urlopen(app_url + "config", timeout=10) as resp:
        assert BRAVE_KEY not in resp.read().decode("utf-8")
    assert BRAVE_KEY not in page.content()

    ui.fill(page, "set-engines-kagi-api-key", "kagi-secret-55aa")
    page.click("#set-save")
    expect(page.locator("#set-saved")).to_contain_text("[engines] kagi_api_key", timeout=30_000)
    kagi = ui.field(page, "set-engines-kagi-api-key", "input")
    expect(kagi).to_have_attribute("placeholder", "(set)")
    assert kagi.input_value() == ""
    assert "kagi_api_key = kagi-secret-55aa" in (app_dir / "config.txt").read_text()
    assert "kagi-secret-55aa" not in page.content()

    page.click("#set-test-searxng")
    expect(page.locator("#set-verdict-searxng")).to_contain_text("OK", timeout=30_000)
    page.get_by_text("Engine health").click()
    page.click("#set-health-refresh")
    expect(page.locator("#set-health")).to_contain_text("searxng", timeout=30_000)
    ui.screenshot(page, "settings")


# ---------------------------------------------------------------- Notes

def test_notes_write_search_edit_and_trash(page):
    ui.open_tab(page, "Notes")
    page.click("#notes-new")
    expect(page.locator("#notes-info")).to_contain_text("New note")
    ui.fill(page, "notes-title", "Sourdough starter care")
    ui.fill(page, "notes-keywords", "bread, fermentation")
    ui.fill(page, "notes-content", "Feed the **starter** daily with equal weights of flour and water.")
    page.click("#notes-save")
    expect(page.locator("#notes-info")).to_contain_text("version 1")

    ui.fill(page, "notes-search", "flour")
    page.click("#notes-search-btn")
    expect(page.locator("#notes-list")).to_contain_text("Sourdough starter care")
    ui.click_cell(page, "notes-list", 0)
    expect(ui.field(page, "notes-title")).to_have_value("Sourdough starter care")
    page.get_by_role("tab", name="Preview").click()
    expect(page.locator("#notes-preview strong")).to_have_text("starter")
    page.get_by_role("tab", name="Edit").click()

    page.click("#notes-delete")
    expect(page.locator("#notes-info")).to_contain_text("New note")
    expect(page.locator("#notes-list")).not_to_contain_text("Sourdough starter care")
    page.locator("#notes-trash input").check()
    expect(page.locator("#notes-list")).to_contain_text("Sourdough starter care")
    ui.click_cell(page, "notes-list", 0)
    page.click("#notes-restore")
    expect(page.locator("#notes-info")).to_contain_text("version 3")
    page.locator("#notes-trash input").uncheck()
    expect(page.locator("#notes-list")).to_contain_text("Sourdough starter care")
