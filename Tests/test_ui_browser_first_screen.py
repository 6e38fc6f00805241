"""The first ten minutes in headless Chromium, against the real app with no LLM and its default engine
unreachable (SearXNG at an address where nothing listens stands for "no internet": the same failure,
deterministic where CI does have a network): the mode is shown, an engine without its key is marked in the
picker, the failed search shows ✗ with the plain reason and saves nothing, and Settings refuses a bad URL and
shows the saved values after a reload."""
from __future__ import annotations

import pytest

from Tests.support import browser as ui

pytestmark = pytest.mark.browser

UNREACHABLE = "SearXNG could not be reached — no internet?"
BAD_URL = "htp:/127.0.0.1:8899"


CLOSED_PORT_URL = "http://127.0.0.1:9"  # the discard port: nothing listens there (connection refused)


@pytest.fixture(scope="module")
def app_dir(tmp_path_factory):
    ui.require_chromium()
    return tmp_path_factory.mktemp("first_screen_app")


@pytest.fixture(scope="module")
def page(app_dir):
    """The app (no LLM, its engine unreachable) open in Chromium."""
    config = ui.write_app_config(app_dir, {
        "search": {"search_provider_default": "searxng", "search_max_retries": "0",
                   "search_cache_ttl_seconds": "0"},
        "engines": {"searxng_api_url": CLOSED_PORT_URL},
        "research": {"use_embeddings": "false"}})
    with ui.running_app(config) as url, ui.chromium_page() as browser_page:
        ui.open_app(browser_page, url)
        yield browser_page


expect = ui.expect


def picker_options(page) -> list[str]:
    """The engine picker's option labels (the list opened, read, closed)."""
    page.locator("#ws-engines input").first.click()
    options = page.get_by_role("listbox").get_by_role("option")
    expect(options.first).to_be_visible()
    labels = [" ".join(t.split()).removeprefix("✓ ") for t in options.all_inner_texts()]
    page.keyboard.press("Escape")
    return labels


def test_the_first_screen_says_the_mode_and_marks_an_engine_without_its_key(page):
    expect(page.locator("#ws-mode")).to_contain_text("Answers are quoted extractively")
    expect(page.locator("#ws-mode")).to_contain_text("Settings → Language models")
    labels = picker_options(page)
    assert "brave ✗ not set up: needs API key" in labels
    assert "searxng" in labels  # never searched yet: nothing known against it
    page.locator("#ws-advanced").get_by_text("Advanced search").click()
    subqueries = page.locator("#ws-subqueries input[type=checkbox]")
    expect(subqueries).to_be_disabled()
    expect(page.locator("#ws-subqueries")).to_contain_text("needs an LLM")
    page.locator("#ws-advanced").get_by_text("Advanced search").click()


def test_an_unreachable_engine_shows_a_failed_stage_and_the_plain_reason(page):
    ui.fill(page, "ws-question", "How do honey bees communicate where flowers are?")
    page.click("#ws-search")
    expect(page.locator("#ws-progress")).to_contain_text(f"✗ Search · {UNREACHABLE}", timeout=60_000)
    report = page.locator("#ws-report")
    expect(report).to_contain_text("Nothing could be searched", timeout=30_000)
    expect(report).to_contain_text(UNREACHABLE)
    expect(page.locator("#ws-progress")).not_to_contain_text("✓ Search")
    expect(page.locator("#ws-sources-panel")).to_be_hidden()
    ui.screenshot(page, "search_failed")
    ui.wait_idle(page)
    assert f"searxng ✗ not reachable" in picker_options(page)  # the picker learnt it from the failed search
    ui.open_tab(page, "History")
    expect(page.locator("#tab-history")).not_to_contain_text("How do honey bees communicate")
    ui.open_tab(page, "Web Search")


def test_settings_refuses_a_bad_url_and_shows_saved_values_after_a_reload(page, app_dir):
    ui.open_tab(page, "Settings")
    before = (app_dir / "config.txt").read_text()
    ui.fill(page, "set-engines-searxng-api-url", BAD_URL)
    page.click("#set-save")
    expect(page.locator(".toast-wrap")).to_contain_text("[engines] searxng_api_url", timeout=30_000)
    assert (app_dir / "config.txt").read_text() == before
    ui.fill(page, "set-engines-searxng-api-url", "http://127.0.0.1:8899")
    ui.fill(page, "set-research-pages-max", "4")
    page.click("#set-save")
    expect(page.locator("#set-saved")).to_contain_text("[engines] searxng_api_url", timeout=30_000)
    page.reload()
    page.wait_for_selector("button[role=tab]", timeout=60_000)
    ui.open_tab(page, "Settings")
    expect(ui.field(page, "set-engines-searxng-api-url", "input")).to_have_value("http://127.0.0.1:8899")
    expect(ui.field(page, "set-research-pages-max", "input")).to_have_value("4")
    assert ui.field(page, "set-engines-duckduckgo-backend", "input").count() == 1
    assert page.locator("#set-engines-duckduckgo-api-url").count() == 0  # DuckDuckGo has no URL or key


def test_settings_shows_options_as_the_web_search_form_does_and_true_false_as_a_checkbox(page):
    ui.open_tab(page, "Settings")
    assert ui.field(page, "set-fetch-allow-private-addresses", "input[type=checkbox]").count() == 1
    expect(page.locator("#set-research-report-format")).to_contain_text("Report format")
    style = ui.field(page, "set-research-citation-style", "input")
    style.click()
    page.get_by_role("option", name="Chicago author-date", exact=True).click()
    expect(style).to_have_value("Chicago author-date")  # the label shown; the code is what is saved
    fits = style.evaluate("""el => {  // the value's text ends left of the arrow drawn over the input's end
        const arrow = el.closest('.wrap-inner').querySelector('.icon-wrap');
        const css = getComputedStyle(el), ctx = document.createElement('canvas').getContext('2d');
        ctx.font = css.font;
        const textEnd = el.getBoundingClientRect().left + parseFloat(css.paddingLeft)
            + ctx.measureText(el.value).width;
        return textEnd <= arrow.getBoundingClientRect().left;
    }""")
    assert fits, "the citation style's text runs under the dropdown's arrow"
    style.click()
    page.get_by_role("option", name="numbered", exact=True).click()
