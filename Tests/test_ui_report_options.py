"""Report options, follow-up questions and dig-deeper rounds in headless Chromium against the real app
(`python app.py --config …`), with the mini web and a scripted model on the test world. The model runs in
this process, so the test reads every prompt the app sent. The tests build on each other in file order.
Screenshot: Docs/screenshots/report_options.png.
"""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from App_Function_Libraries.LLM import prompts
from Tests.support import browser as ui
from Tests.support.mini_web import MiniWeb
from Tests.support.openai_server import ScriptedLLM
from Tests.support.research_llm import data_blocks, script_research
from Tests.support.testworld import TestWorld

pytestmark = pytest.mark.browser

QUESTION = "How do honey bees communicate the location of food?"
FOLLOW_UPS = ["Who first decoded the bee dances?", "How precise is the waggle dance?", "Do bees dance at night?"]
EXTRA_RULE = "Mention who made each discovery."


@pytest.fixture(scope="module")
def world_and_llm():
    """The test world with the mini web and the scripted model (running in this process)."""
    ui.require_chromium()
    world = TestWorld().start()
    MiniWeb(world, include_faults=False).install()
    model = script_research(ScriptedLLM(default="?"), ("bee", "honey", "waggle", "dance", "sun", "forag"),
                            sub_queries=["honey bee waggle dance"], invalid_citation=None, follow_ups=FOLLOW_UPS,
                            gap_queries=[["polarised light sun compass"]],
                            missing="The sources do not say how bees keep their heading under clouds.")
    yield world, model.install(world)
    world.stop()


@pytest.fixture(scope="module")
def llm(world_and_llm):
    return world_and_llm[1]


@pytest.fixture(scope="module")
def page(world_and_llm, tmp_path_factory):
    world = world_and_llm[0]
    folder = tmp_path_factory.mktemp("ui_report_options")
    config = ui.write_app_config(folder, {
        "search": {"search_provider_default": "searxng", "search_result_max": 2},
        "engines": {"searxng_api_url": world.url("/searxng")},
        "research": {"use_embeddings": "false"},
        "llm": {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model", "max_retries": 0}})
    with ui.running_app(config) as url, ui.chromium_page() as p:
        ui.open_app(p, url)
        ui.open_tab(p, "Web Search")
        yield p


def choose(page, elem_id: str, option: str) -> None:
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=option, exact=True).click()


def report_prompts(llm) -> list[str]:
    return [p for p in llm.prompts if prompts.REPORT_RULES[:60] in p]


def wait_for_run(page) -> None:
    expect(page.locator("#ws-progress")).to_contain_text("✓ Verify citations", timeout=120_000)
    ui.wait_done(page, "ws-report")


def test_options_and_presets(page):
    page.locator("#ws-report-options").get_by_text("Report options").first.click()
    ui.fill(page, "ws-tone", "academic")
    ui.field(page, "ws-tone").press("Enter")
    choose(page, "ws-format", "bullet brief")
    ui.fill(page, "ws-lang", "de")
    length = page.locator("#ws-length input[type=number]")
    length.fill("300")
    length.press("Enter")

    ui.fill(page, "ws-prompt", "Answer {question} briefly.")
    ui.fill(page, "ws-preset-name", "broken")
    page.click("#ws-preset-save")
    expect(page.locator("#ws-preset-status")).to_contain_text("Not saved: the report prompt has no {sources}")
    page.click("#ws-preset-reset")
    expect(ui.field(page, "ws-prompt")).to_have_value(prompts.DEFAULT_AGGREGATION_PROMPT)

    ui.fill(page, "ws-prompt", prompts.DEFAULT_AGGREGATION_PROMPT + "\n" + EXTRA_RULE)
    ui.fill(page, "ws-preset-name", "discoveries")
    page.click("#ws-preset-save")
    expect(page.locator("#ws-preset-status")).to_contain_text("Saved preset discoveries")
    expect(ui.field(page, "ws-preset", "input")).to_have_value("discoveries")
    page.click("#ws-preset-reset")
    page.click("#ws-preset-load")  # "default" is chosen again after the reset
    expect(ui.field(page, "ws-prompt")).to_have_value(prompts.DEFAULT_AGGREGATION_PROMPT)
    choose(page, "ws-preset", "discoveries")
    page.click("#ws-preset-load")
    expect(ui.field(page, "ws-prompt")).to_have_value(prompts.DEFAULT_AGGREGATION_PROMPT + "\n" + EXTRA_RULE)


def test_a_search_uses_the_options_and_suggests_follow_ups(page, llm):
    ui.fill(page, "ws-question", QUESTION)
    ui.field(page, "ws-question").press("Enter")
    wait_for_run(page)
    sent = report_prompts(llm)[-1]
    assert "Tone: academic." in sent and prompts.REPORT_FORMATS["bullets"] in sent
    assert "under about 300 words" in sent and "Write in German." in sent and EXTRA_RULE in sent
    expect(page.locator("#ws-report")).to_contain_text("Report options: tone academic · bullet brief · de · "
                                                       "≤ 300 words · preset discoveries")
    expect(page.locator("#ws-followups")).to_contain_text("Follow-up questions")
    for i, text in enumerate(FOLLOW_UPS):
        expect(page.locator(f"#ws-followup-{i}")).to_have_text(text)
    expect(page.locator("#ws-followup-3")).to_be_hidden()


def test_dig_deeper_adds_a_round_and_keeps_the_numbers(page):
    ui.open_fold(page, "ws-details")  # the sources table waits under Details
    expect(page.locator("#ws-sources [data-testid=cell-0-0]")).to_be_visible()  # rendered once the fold opened
    before = {row[3]: row[1] for row in ui.table_rows(page, "ws-sources") if row[1]}
    assert before, "the report numbers some sources"
    page.click("#ws-dig")
    expect(page.locator("#ws-rounds")).to_contain_text("Round 1", timeout=120_000)
    ui.wait_done(page, "ws-report")
    rounds = page.locator("#ws-rounds")
    expect(rounds).to_contain_text('searched "polarised light sun compass"')
    expect(rounds).to_contain_text(f"added [{len(before) + 1}] The sun compass of foraging bees")
    rows = ui.table_rows(page, "ws-sources")
    assert {row[3]: row[1] for row in rows if row[3] in before} == before, "old sources keep their numbers"
    added = [row for row in rows if row[8] == "1"]
    assert added and added[0][1] == str(len(before) + 1) and added[0][3].endswith("/web/bees/sun-compass")
    rounds.get_by_text("What changed in the report").click()
    expect(rounds).to_contain_text("added:")
    ui.screenshot(page, "report_options")


def test_a_follow_up_builds_on_the_report(page, llm):
    asked = len(llm.prompts)
    page.click("#ws-followup-1")
    expect(ui.field(page, "ws-question")).to_have_value(FOLLOW_UPS[1])
    expect(page.locator("#ws-report")).to_contain_text(FOLLOW_UPS[1], timeout=120_000)
    wait_for_run(page)
    subquery = next(p for p in llm.prompts[asked:] if "search queries for this question" in p)
    assert QUESTION in subquery and "polarised light sun compass" in subquery  # every query searched so far
    previous = [text for label, text in data_blocks(subquery) if label == "previous answer"]
    assert previous and "[3]" in previous[0], "the answer as dug deeper, sources [1]-[3]"
    expect(page.locator("#ws-report")).to_contain_text("follow-up of")


def test_history_reopens_options_rounds_and_follow_ups(page):
    ui.open_fold(page, "ws-options")  # folded away once the report was written
    choose(page, "ws-format", "full report")  # changed after the run: reopening restores the saved options
    ui.open_tab(page, "History")
    expect(page.locator("#hist-list")).to_contain_text(QUESTION)
    rows = ui.table_rows(page, "hist-list")
    ui.click_cell(page, "hist-list", next(i for i, r in enumerate(rows) if r[1] == QUESTION), 1)
    expect(page.locator("#hist-preview")).to_contain_text(QUESTION)
    page.click("#hist-open")
    expect(page.locator("#ws-report")).to_contain_text(QUESTION)
    expect(page.locator("#ws-rounds")).to_contain_text("Round 1")
    expect(page.locator("#ws-followup-0")).to_have_text(FOLLOW_UPS[0])
    expect(ui.field(page, "ws-format", "input")).to_have_value("bullet brief")
    expect(ui.field(page, "ws-tone", "input")).to_have_value("academic")
    expect(ui.field(page, "ws-prompt")).to_have_value(prompts.DEFAULT_AGGREGATION_PROMPT + "\n" + EXTRA_RULE)
