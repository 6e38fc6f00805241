"""The user docs' screenshots of the Wikipedia, Documents and Settings tabs, of a question asked about a report
and of the report options, taken from the running app in Debian's Chromium on the offline test world (the mini
web behind SearXNG; the scripted research model for the report options). Indexes, documents and databases live
in a temp folder.

    python -m Tests.support.doc_screenshots [NAMES...]   # default: all of NAMES, into Docs/screenshots/

Each picture is taken only once what it shows is on the page (an answer with its sources, a finished report);
anything else stops the script with the step that failed. web_search.png, answer_first.png and all_sources.png
are made elsewhere (Tests/test_ui_browser.py, Tests/support/all_sources_screenshot.py).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from Tests.support import browser as ui
from Tests.support.mini_web import MiniWeb
from Tests.support.report_questions import ONLY_ON, path_of
from Tests.support.testworld import TestWorld
from Tests.test_ui_browser import DOCS

PLAIN = ("wikipedia", "documents", "report_chat", "settings")  # one app, no LLM (extractive), in this order
NAMES = PLAIN + ("report_options",)  # report_options: its own app, with the scripted model

WIKI_QUESTION = "Who first climbed Mount Everest?"
WEB_QUESTION = "How do honey bees communicate where flowers are?"
DOCS_QUESTION = "How often does a sourdough starter need feeding?"  # about DOCS, the browser tests' library


def expect(locator):
    return ui.expect(locator)


def wait_for_run(page, timeout: float = 180_000) -> None:
    expect(page.locator("#ws-progress")).to_contain_text("✓ Verify citations", timeout=timeout)
    ui.wait_done(page, "ws-report")


def open_evidence(page, answer_id: str) -> None:
    """Click the answer's first [1], so its evidence fold shows open (the passage, the cited words marked)."""
    page.locator(f"#{answer_id} a", has_text="[1]").first.click()
    expect(page.locator(f"#{answer_id} details[open] mark").first).to_be_visible()


def shoot(page, name: str) -> Path:
    page.evaluate("() => window.scrollTo(0, 0)")
    path = ui.screenshot(page, name)
    print(f"{name}: {path}")
    return path


def wikipedia(page, folder: Path) -> None:
    ui.open_tab(page, "Wikipedia")
    page.click("#wiki-build")
    expect(page.locator("#wiki-status")).to_contain_text("passages", timeout=300_000)
    ui.fill(page, "wiki-question", WIKI_QUESTION)
    page.click("#wiki-ask")
    answer = page.locator("#wiki-answer")
    expect(answer).to_contain_text("Sources", timeout=90_000)
    expect(answer).to_contain_text("Hillary")
    open_evidence(page, "wiki-answer")
    page.locator("#tab-wikipedia").get_by_text("Passages used").click()
    expect(page.locator("#wiki-passages [role=gridcell]").first).to_be_visible()
    shoot(page, "wikipedia")


def documents(page, folder: Path) -> None:
    library = folder / "my_docs"
    library.mkdir()
    ui.add_documents(page, library, DOCS)
    ui.fill(page, "docs-question", DOCS_QUESTION)
    ui.field(page, "docs-question").press("Enter")
    answer = page.locator("#docs-answer")
    expect(answer).to_contain_text("Sources", timeout=90_000)
    expect(answer).to_contain_text("every day")
    open_evidence(page, "docs-answer")
    shoot(page, "documents")


def report_chat(page, folder: Path) -> None:
    ui.open_tab(page, "Web Search")
    ui.fill(page, "ws-question", WEB_QUESTION)
    ui.field(page, "ws-question").press("Enter")
    wait_for_run(page)
    ui.open_fold(page, "ws-details")
    expect(page.locator("#ws-sources [data-testid=cell-0-0]")).to_be_visible()
    url = next(row[3] for row in ui.table_rows(page, "ws-sources") if row[1] and path_of(row[3]) in ONLY_ON)
    question, fact = ONLY_ON[path_of(url)]
    page.locator("#ws-details button.label-wrap").first.click()  # the fold closed again, as a reader finds it
    ui.fill(page, "ws-chat-question", question)
    ui.field(page, "ws-chat-question").press("Enter")
    expect(page.locator("#ws-chat-log")).to_contain_text(fact, timeout=90_000)
    ui.wait_done(page, "ws-chat-log")
    open_evidence(page, "ws-chat-log")
    shoot(page, "report_chat")


def settings(page, folder: Path) -> None:
    ui.open_tab(page, "Settings")
    page.locator("#tab-settings").get_by_text("Engine health").click()
    page.click("#set-health-refresh")
    expect(page.locator("#set-health")).to_contain_text("not used yet", timeout=30_000)
    expect(page.locator("#tab-settings input[placeholder='(set)']")).to_have_count(1)
    shoot(page, "settings")


def take_plain(names: list[str]) -> None:
    world = TestWorld().start()
    try:
        MiniWeb(world, include_faults=False).install()
        with tempfile.TemporaryDirectory(prefix="quarry-doc-shots-") as tmp:
            folder = Path(tmp)
            config = ui.write_app_config(folder, {
                "search": {"search_provider_default": "searxng", "search_enable_subquery": "false"},
                # a saved key, so that Settings shows a key field saying "(set)" (never the key)
                "engines": {"searxng_api_url": world.url("/searxng"), "brave_api_key": "screenshot-key-0000"}})
            with ui.running_app(config) as url, ui.chromium_page() as page:
                ui.open_app(page, url)
                for name in names:
                    globals()[name](page, folder)
    finally:
        world.stop()


def report_options(page) -> None:
    """Set the options, save them as a preset, research with them, dig one round deeper; the picture shows the
    options open above the report they wrote."""
    from Tests.test_ui_report_options import QUESTION, test_options_and_presets
    ui.open_tab(page, "Web Search")
    test_options_and_presets(page)  # tone, format, language, length; a preset saved, refused, reset, loaded
    ui.fill(page, "ws-question", QUESTION)
    ui.field(page, "ws-question").press("Enter")
    wait_for_run(page)
    expect(page.locator("#ws-report")).to_contain_text("preset discoveries")
    page.click("#ws-dig")
    expect(page.locator("#ws-rounds")).to_contain_text("Round 1", timeout=180_000)
    ui.wait_done(page, "ws-report")
    page.locator("#ws-rounds").get_by_text("What changed in the report").click()
    ui.open_fold(page, "ws-options")  # folded away after the run: open it again, with the report options
    ui.open_fold(page, "ws-report-options")
    expect(ui.field(page, "ws-lang")).to_have_value("de")
    shoot(page, "report_options")


def take_options() -> None:
    from Tests.support.openai_server import ScriptedLLM
    from Tests.support.research_llm import script_research
    from Tests.test_ui_report_options import FOLLOW_UPS
    world = TestWorld().start()
    try:
        MiniWeb(world, include_faults=False).install()
        script_research(ScriptedLLM(default="?"), ("bee", "honey", "waggle", "dance", "sun", "forag"),
                        sub_queries=["honey bee waggle dance"], invalid_citation=None, follow_ups=FOLLOW_UPS,
                        gap_queries=[["polarised light sun compass"]],
                        missing="The sources do not say how bees keep their heading under clouds.").install(world)
        with tempfile.TemporaryDirectory(prefix="quarry-doc-shots-") as tmp:
            config = ui.write_app_config(Path(tmp), {
                "search": {"search_provider_default": "searxng", "search_result_max": 2},
                "engines": {"searxng_api_url": world.url("/searxng")},
                "research": {"use_embeddings": "false"},
                "llm": {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model",
                        "max_retries": 0}})
            with ui.running_app(config) as url, ui.chromium_page() as page:
                ui.open_app(page, url)
                report_options(page)
    finally:
        world.stop()


def main(argv: list[str]) -> int:
    names = argv or list(NAMES)
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        print(f"unknown screenshot(s) {unknown}; known: {' '.join(NAMES)}", file=sys.stderr)
        return 2
    ui.SCREENSHOTS = ui.DOCS_SCREENSHOTS  # these are the docs' pictures: always into Docs/screenshots/
    plain = [n for n in PLAIN if n in names]
    if plain:
        take_plain(plain)
    if "report_options" in names:
        take_options()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
