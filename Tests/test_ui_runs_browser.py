"""The UI for plans, durable runs and watchlists in Debian's Chromium against the real app on the test world
(extractive): Review the plan shows the plan as JSON, an edited plan is what Run plan runs; History shows the
plan under the report, lists an interrupted run and resumes it; a watched run's "New since" report opens in Web
Search. Photographed for Docs/runs.md (plan_review, new_since; see Tests/support/browser.py)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from Tests.support import browser as ui
from Tests.support.app_process import ROOT
from Tests.support.mini_web import MiniWeb
from Tests.support.testworld import TestWorld
from Tests.test_research_watch import CHANGE, NEW, change_the_web

pytestmark = pytest.mark.browser
QUESTION = "How do honey bees communicate the location of food?"
EDITED = "waggle dance direction of the sun"


def expect(locator):
    from playwright.sync_api import expect as pw_expect
    return pw_expect(locator)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    ui.require_chromium()
    world = TestWorld().start()
    web = MiniWeb(world, include_faults=False).install()
    folder = tmp_path_factory.mktemp("ui_runs")
    config = ui.write_app_config(folder, {
        "search": {"search_provider_default": "searxng", "search_enable_subquery": "false"},
        "engines": {"searxng_api_url": world.url("/searxng")}, "research": {"use_embeddings": "false"}})
    try:
        with ui.running_app(config) as url, ui.chromium_page() as page:
            ui.open_app(page, url)
            yield {"world": world, "web": web, "config": config, "page": page}
    finally:
        world.stop()


def cli(config, *args) -> str:
    proc = subprocess.run([sys.executable, "app.py", "--config", str(config), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout + proc.stderr


def edit_code(page, elem_id: str, text: str) -> None:
    editor = page.locator(f"#{elem_id} .cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def test_review_the_plan_then_run_the_edited_plan(setup):
    page, world = setup["page"], setup["world"]
    ui.open_tab(page, "Web Search")
    ui.fill(page, "ws-question", QUESTION)
    page.locator("#ws-review-plan input").check()
    expect(page.locator("#ws-search")).to_be_hidden()
    page.click("#ws-plan")
    expect(page.locator("#ws-plan-json")).to_contain_text('"engines"', timeout=60_000)
    plan = json.loads(page.locator("#ws-plan-json .cm-content").inner_text())
    assert plan["queries"] == [{"query": QUESTION, "engines": ["searxng"]}] and not world.requests_to("/searxng")
    plan["queries"] = [{"query": EDITED, "engines": ["searxng"]}]
    plan["budget"]["pages"] = 2
    edit_code(page, "ws-plan-json", json.dumps(plan, indent=2))
    ui.screenshot(page, "plan_review", full_page=False)
    page.click("#ws-run-plan")
    expect(page.locator("#ws-progress")).to_contain_text("✓ Verify citations", timeout=120_000)
    ui.wait_done(page, "ws-report")
    assert [r.arg("q") for r in world.requests_to("/searxng/search")] == [EDITED]
    expect(page.locator("#ws-report")).to_contain_text("Left undone")


def test_history_shows_the_plan_and_resumes_an_interrupted_run(setup):
    from Tests.support.killed_run import FAST_PAGES, start_and_kill
    page, world, config = setup["page"], setup["world"], setup["config"]
    run_id, _ = start_and_kill(config, config.parent / "quarry.db", world, FAST_PAGES, newest=True)
    ui.open_tab(page, "History")
    expect(page.locator("#hist-list")).to_contain_text(QUESTION)
    ui.click_cell(page, "hist-list", 0, 1)
    expect(page.locator("#hist-preview")).to_contain_text(EDITED)  # the plan under the report
    page.locator("#hist-runs").get_by_text("Runs not finished, and watching").click()
    page.click("#hist-runs-refresh")
    expect(page.locator("#hist-runs-note")).to_contain_text("1 run(s) not finished")
    page.click("#hist-resume")
    expect(page.locator("#hist-runs-note")).to_contain_text("Every run finished.", timeout=120_000)
    assert run_id[:8] in cli(config, "history")


def test_a_new_since_report_opens_in_web_search(setup):
    page, world, web, config = setup["page"], setup["world"], setup["web"], setup["config"]
    report_id = json.loads(_json_out(config))["id"]
    added = cli(config, "watch", "add", report_id[:8], "--every", "1d")
    watch_id = added.split("watch ", 1)[1][:8]
    change_the_web(world, web)
    ran = cli(config, "watch", "run", watch_id)
    assert "1 new, 1 changed" in ran
    ui.open_tab(page, "History")
    page.click("#hist-find")
    expect(page.locator("#hist-list")).to_contain_text(QUESTION)
    ui.click_cell(page, "hist-list", 0, 1)
    expect(page.locator("#hist-preview")).to_contain_text("New since")
    page.click("#hist-open")
    expect(page.locator("#ws-report")).to_contain_text(CHANGE[:50])
    expect(page.locator("#ws-report")).to_contain_text(NEW.title)
    page.evaluate("() => window.scrollTo(0, document.getElementById('ws-report').getBoundingClientRect().top"
                  " + window.scrollY - 140)")
    ui.screenshot(page, "new_since", full_page=False)


def _json_out(config) -> str:
    proc = subprocess.run([sys.executable, "app.py", "--config", str(config), "research", QUESTION, "--no-llm",
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
