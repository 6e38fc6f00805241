"""The desktop UI in headless Chromium against the real app (`python app.py --config …`) on the test world.

One app process and one browser for the whole module; the tests run in file order and build on each other
where the issue's story does (a report saved to notes is then found in Notes). Each tab is photographed with
its content (see Tests/support/browser.py: SCREENSHOTS).
"""
from __future__ import annotations

import json
import re
import urllib.request

import pytest

from App_Function_Libraries import options
from Tests.support import browser as ui
from Tests.support.mini_web import MiniWeb
from Tests.support.report_questions import ONLY_ON, path_of
from Tests.support.testworld import TestWorld

pytestmark = pytest.mark.browser

BRAVE_KEY = "brave-secret-7f3a9c1e"


QUESTION = "How do honey bees communicate where flowers are?"
SMALL_SCREEN = {"width": 1366, "height": 768}
# what of a 1366x768 screen the browser's own bars (tabs, address bar) and a desktop's panel take away
SCREEN_BARS = 128


@pytest.fixture(scope="module")
def world():
    ui.require_chromium()
    w = TestWorld().start()
    MiniWeb(w, include_faults=False).install()
    yield w
    w.stop()


@pytest.fixture(scope="module")
def story():
    """What one test leaves for the next (the report's sources, …)."""
    return {}


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


# ---------------------------------------------------------------- the first screen

# the controls that act on a report: hidden until there is one
RESULT_PANELS = ("ws-next", "ws-chat", "ws-sources-panel", "ws-keep")


def expect_result_controls(page, shown: bool) -> None:
    for elem_id in RESULT_PANELS:
        (expect(page.locator(f"#{elem_id}")).to_be_visible() if shown else
         expect(page.locator(f"#{elem_id}")).to_be_hidden())
    for elem_id in ("ws-dig", "ws-details", "ws-note-title", "ws-copy", "ws-download-md", "ws-chat-question"):
        (expect(page.locator(f"#{elem_id}")).to_be_visible() if shown else
         expect(page.locator(f"#{elem_id}")).to_be_hidden())


def test_first_screen_invites_a_question(page):
    expect(page.locator("#tab-web_search")).to_be_visible()  # the tab the app opens on
    for elem_id in ("ws-question", "ws-search", "ws-engines", "ws-advanced"):
        expect(page.locator(f"#{elem_id}")).to_be_visible()
    expect(page.locator("#ws-advanced")).not_to_contain_text(options.label("exact_terms"))  # option panels start collapsed
    expect_result_controls(page, False)
    ui.screenshot(page, "first_screen")
    ui.open_tab(page, "Wikipedia")
    expect(page.locator("#wiki-status")).to_contain_text("Build the demo encyclopedia")
    expect(page.locator("#wiki-build")).to_have_text("Build the demo encyclopedia")
    ui.open_tab(page, "Documents")
    expect(page.locator("#docs-count")).to_contain_text("Add files or a folder")
    ui.open_tab(page, "Web Search")


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

    ui.fill(page, "notes-search", "flour -rye")
    page.click("#notes-search-btn")
    expect(page.locator("#notes-list")).to_contain_text("Sourdough starter care")
    # the note's own **starter** shows as typed; the match is the only bold text
    expect(page.locator("#notes-list")).to_contain_text("Feed the **starter** daily")
    expect(page.locator("#notes-list [data-testid=cell-0-3] strong")).to_have_text("flour")
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


# ---------------------------------------------------------------- Web Search

def report_links(page) -> dict[str, str]:
    """{"[n]": href} of the citation links in the report."""
    links = page.locator("#ws-report a")
    out = {}
    for i in range(links.count()):
        text = links.nth(i).inner_text().strip()
        if re.fullmatch(r"\[\d+\]", text):
            out.setdefault(text, links.nth(i).get_attribute("href"))
    return out


def evidence_sources(page) -> set[str]:
    """The source addresses the report's evidence links to (without their #:~:text= fragment)."""
    links = page.locator("#ws-report .evidence a")
    return {links.nth(i).get_attribute("href").split("#:~:text=")[0] for i in range(links.count())}


def wait_for_run(page, timeout=150_000):
    expect(page.locator("#ws-progress")).to_contain_text("✓ Verify citations", timeout=timeout)
    ui.wait_done(page, "ws-report")


def first_line_box(page) -> dict:
    """Where the report's first line (its first paragraph or list item with a citation: the lead answer)
    lies, with the page scrolled to its top, and the window's height."""
    return page.evaluate("""() => {
      window.scrollTo(0, 0);
      const first = [...document.querySelectorAll('#ws-report p, #ws-report li')].find((e) => !e.closest('details')
        && [...e.querySelectorAll('a')].some((a) => /^\\[\\d+\\]$/.test(a.innerText.trim())));
      const box = first.getBoundingClientRect();
      return {text: first.innerText, top: box.top, bottom: box.top + parseFloat(getComputedStyle(first).lineHeight),
              height: window.innerHeight, scrolled: window.scrollY};
    }""")


def test_search_shows_stages_and_a_cited_report(page, world, story):
    ui.open_tab(page, "Web Search")
    page.set_viewport_size(SMALL_SCREEN)  # issue 22: the answer first, on a 1366x768 screen
    expect(page.locator("#ws-cancel")).to_be_hidden()  # nothing runs yet
    expect(page.locator("#ws-engines")).to_be_visible()  # the search options are open before any report
    world.fault("/searxng", delay=6.0, times=1)  # long enough to see the search stage running on a slow machine
    ui.fill(page, "ws-question", QUESTION)
    ui.field(page, "ws-question").press("Enter")  # Enter searches
    expect(page.locator("#ws-progress")).to_contain_text("◐ Search", timeout=30_000)
    expect(page.locator("#ws-cancel")).to_be_visible()  # Cancel only while a run runs
    expect_result_controls(page, False)
    wait_for_run(page)
    expect_result_controls(page, True)
    expect(page.locator("#ws-cancel")).to_be_hidden()

    # issue 22: the report's first line shows without scrolling; the search options are folded away (the
    # question box and Search stay); the sources are cards; the full table waits in the closed Details fold
    expect(page.locator("#ws-options button.label-wrap").first).not_to_have_class(re.compile(r"\bopen\b"))
    expect(page.locator("#ws-engines")).to_be_hidden()
    box = first_line_box(page)
    assert box["scrolled"] == 0 and 0 <= box["top"] and box["bottom"] <= box["height"] - SCREEN_BARS, box
    for elem_id in ("ws-question", "ws-search"):
        expect(page.locator(f"#{elem_id}")).to_be_visible()
    cards = page.locator("#ws-source-cards .ws-card")
    expect(cards.first).to_be_visible()
    expect(page.locator("#ws-source-cards .ws-card[data-cited=yes]").first).to_contain_text("cited: ")
    # issue 22: the sources show once, as the cards: the report has no sources list of its own under it
    expect(page.locator("#ws-report")).not_to_contain_text("Read but not cited")
    expect(page.locator("#ws-report hr")).to_have_count(0)
    expect(page.locator("#ws-details button.label-wrap").first).not_to_have_class(re.compile(r"\bopen\b"))
    expect(page.locator("#ws-details #ws-sources")).to_be_hidden()
    ui.screenshot(page, "answer_first", full_page=False)
    page.set_viewport_size(ui.VIEWPORT)
    ui.open_fold(page, "ws-details")
    expect(page.locator("#ws-sources")).to_be_visible()

    rows = ui.table_rows(page, "ws-sources")
    assert cards.count() == sum(1 for row in rows if row[1])  # a card per source read
    links = report_links(page)
    assert len(links) >= 2, page.locator("#ws-report").inner_text()
    # a linked [n] group sits tight with its punctuation ("comb [1]." was "comb [1] ."; Gradio pads links)
    pads = page.evaluate("""() => [...document.querySelectorAll('#ws-report .cite a')].map((a) => {
      const s = getComputedStyle(a); return s.paddingLeft + ' ' + s.paddingRight; })""")
    assert pads and set(pads) == {"0px 0px"}, pads
    # and so do the evidence's "Open [n] at this text" links (the same CITE_CSS rule)
    pads = page.evaluate("""() => [...document.querySelectorAll('#ws-report .evidence a')].map((a) => {
      const s = getComputedStyle(a); return s.paddingLeft + ' ' + s.paddingRight; })""")
    assert pads and set(pads) == {"0px 0px"}, pads
    # the embedding model's stage says what became of it (loaded with its time, ready, or skipped and why)
    expect(page.locator("#ws-progress")).to_contain_text(re.compile(
        r"Load embedding model · (loaded in [\d.]+ s|ready \(loaded before this run\)|skipped)"))
    cited = {row[1]: row[3] for row in rows if row[1]}
    # issue 22: each [n] opens its evidence: the quote in its passage, the cited words marked, and a link
    # opening the listed source at that text (#:~:text=)
    for label, href in links.items():
        assert href.startswith("#web-evidence-"), href
        fold = page.locator(f"details:has({href})")
        expect(fold).not_to_have_attribute("open", "")
        page.locator("#ws-report a", has_text=label).first.click()
        expect(fold).to_have_attribute("open", "")
        expect(page.locator(f"{href} mark")).to_be_visible()
        source_link = fold.locator("a").first.get_attribute("href")
        assert source_link.startswith(cited[label.strip("[]")] + "#:~:text="), source_link
    assert all(row[7].startswith("yes") for row in rows if row[1])
    story["first_cited"] = cited["1"]
    ui.screenshot(page, "web_search")


def test_ask_about_the_report_answers_from_its_sources_numbered_in_the_answer(page, story):
    rows = ui.table_rows(page, "ws-sources")
    n, url = next((row[1], row[3]) for row in rows if row[1] and path_of(row[3]) in ONLY_ON)
    question, fact = ONLY_ON[path_of(url)]
    ui.fill(page, "ws-chat-question", question)
    ui.field(page, "ws-chat-question").press("Enter")
    log = page.locator("#ws-chat-log")
    expect(log).to_contain_text(fact, timeout=60_000)
    expect(log).to_contain_text(f"Q: {question}")
    cited = {a.inner_text().strip(): a.get_attribute("href") for a in log.locator("a").all()
             if re.fullmatch(r"\[\d+\]", a.inner_text().strip())}
    assert set(cited) == {"[1]"}, cited  # issue 22: the answer numbers its one source 1, no gaps
    if n != "1":  # listed under the answer with the report's number
        expect(log).to_contain_text(f"(the report's [{n}])")
    for label, href in cited.items():  # each [k] opens its evidence, whose link is the same source's, at the text
        assert href.startswith("#chat"), cited
        fold = log.locator(f"details:has([id='{href[1:]}'])")
        links = [a.get_attribute("href") or "" for a in fold.locator("a").all()]
        assert any(link.split("#:~:")[0] == url for link in links), (label, links)
    expect(ui.field(page, "ws-chat-question")).to_have_value("")
    story["chat_question"] = question
    ui.screenshot(page, "report_chat")


def test_untick_a_source_and_rerun(page, story):
    first = story["first_cited"]
    rows = ui.table_rows(page, "ws-sources")
    index = next(i for i, row in enumerate(rows) if row[3] == first)
    page.locator(f"#ws-sources [data-testid=cell-{index}-0] input[type=checkbox]").uncheck()
    page.click("#ws-rerun")
    expect(page.locator("#ws-report")).to_contain_text("Working", timeout=30_000)
    wait_for_run(page)
    assert first not in report_links(page).values()
    row = next(r for r in ui.table_rows(page, "ws-sources") if r[3] == first)
    assert row[1] == "" and row[5] == "relevant", row
    assert len(report_links(page)) >= 1


def test_copy_and_download_markdown(page, story):
    page.click("#ws-copy")
    copied = page.wait_for_function("async () => { const t = await navigator.clipboard.readText(); "
                                    "return t.length > 0 ? t : null; }").json_value()
    assert copied.startswith(f"# {QUESTION}") and "## Sources" in copied
    with page.expect_download() as info:
        page.click("#ws-download-md")
    text = open(info.value.path(), encoding="utf-8").read()
    assert info.value.suggested_filename.endswith(".md")
    assert text.startswith(f"# {QUESTION}") and "## Sources" in text
    for href in evidence_sources(page):  # issue 22: [n] opens its evidence, which links to the source
        assert href in text
    assert story["first_cited"] not in text
    # a word of a cited sentence (the lead, or a supporting item when more than the lead clears the floor)
    cited = page.locator("#ws-report :is(p, li):has(.cite)").first.inner_text()
    words = re.findall(r"[A-Za-z]{9,}", cited)
    story["report_word"] = words[0]


def test_save_report_to_notes_and_find_it(page, story):
    ui.fill(page, "ws-note-keywords", "bees, ui-test")
    page.click("#ws-save-note")
    expect(page.locator("#ws-saved")).to_contain_text("Saved to Notes")
    ui.open_tab(page, "Notes")
    ui.fill(page, "notes-search", story["report_word"])
    page.click("#notes-search-btn")
    expect(page.locator("#notes-list")).to_contain_text(QUESTION)
    ui.click_cell(page, "notes-list", 0)
    expect(ui.field(page, "notes-title")).to_have_value(QUESTION)
    expect(ui.field(page, "notes-keywords")).to_have_value("bees, ui-test")
    expect(page.locator("#notes-info")).to_contain_text("from a research report")
    ui.screenshot(page, "notes")


def test_a_run_whose_sources_do_not_answer_says_so(page):
    """Issue 22: sources that do not answer the question are not presented as its answer."""
    ui.open_tab(page, "Web Search")
    ui.fill(page, "ws-question", "What did Karl von Frisch eat for breakfast?")
    ui.field(page, "ws-question").press("Enter")
    report = page.locator("#ws-report")
    expect(report).to_contain_text("do not answer this question", timeout=150_000)
    expect(report).to_contain_text("not used")
    assert not report_links(page), "nothing is cited as an answer"


def test_cancel_stops_a_search(page, world):
    ui.open_tab(page, "Web Search")
    world.fault("/searxng", delay=4.0, times=1)
    ui.fill(page, "ws-question", "What is a sourdough starter made of?")
    page.click("#ws-search")
    expect(page.locator("#ws-progress")).to_contain_text("◐ Search", timeout=30_000)
    page.click("#ws-cancel")
    expect(page.locator("#ws-progress")).to_contain_text("■", timeout=30_000)
    ui.wait_done(page, "ws-report")
    expect(page.locator("#ws-report")).to_contain_text("cancelled")


def test_escape_cancels_and_result_controls_wait_for_the_new_report(page, world):
    world.fault("/searxng", delay=4.0, times=1)
    ui.fill(page, "ws-question", "How long does dough need to rise?")
    ui.field(page, "ws-question").press("Enter")
    expect(page.locator("#ws-progress")).to_contain_text("◐ Search", timeout=30_000)
    expect_result_controls(page, False)  # a new question: the last report's controls go away
    ui.field(page, "ws-question").press("Escape")
    expect(page.locator("#ws-progress")).to_contain_text("■", timeout=30_000)
    ui.wait_done(page, "ws-report")
    expect(page.locator("#ws-report")).to_contain_text("cancelled")
    expect_result_controls(page, True)  # what was done is a report to act on


def test_history_reopens_a_report(page, story):
    ui.open_tab(page, "History")
    expect(page.locator("#hist-list")).to_contain_text(QUESTION)
    rows = ui.table_rows(page, "hist-list")
    assert len(rows) >= 3  # the search, the re-run, the cancelled search
    index = next(i for i, r in enumerate(rows) if r[1] == QUESTION)
    ui.click_cell(page, "hist-list", index, 1)
    expect(page.locator("#hist-preview")).to_contain_text(QUESTION)
    ui.screenshot(page, "history")
    page.click("#hist-open")
    expect(page.locator("#tab-web_search")).to_be_visible()
    expect(page.locator("#ws-report")).to_contain_text(QUESTION)
    assert report_links(page)


def test_history_shows_and_asks_about_a_report(page, story):
    from Tests.support.report_questions import UNRELATED
    ui.open_tab(page, "History")
    expect(page.locator("#hist-list")).to_contain_text(QUESTION)
    rows = ui.table_rows(page, "hist-list")
    first_search = max(i for i, r in enumerate(rows) if r[1] == QUESTION)  # newest first: the oldest is last
    ui.click_cell(page, "hist-list", first_search, 1)
    expect(page.locator("#hist-chat-log")).to_contain_text(f"Q: {story['chat_question']}")
    ui.fill(page, "hist-chat-question", UNRELATED)
    page.click("#hist-chat-ask")
    log = page.locator("#hist-chat-log")
    expect(log).to_contain_text("do not answer this question", timeout=60_000)
    expect(log).to_contain_text(f"Q: {story['chat_question']}")  # the earlier exchange is still listed
    assert not re.search(r"\[\d+\]", log.inner_text().split(UNRELATED)[1])  # nothing invented, nothing cited
    ui.open_tab(page, "Web Search")


# ---------------------------------------------------------------- Documents

DOCS = {
    "starter-care.md": "# Keeping a sourdough starter\n\nFeed the starter every day with equal weights of rye flour "
                       "and water. Keep it in a loosely covered jar at room temperature; in the fridge it needs "
                       "feeding only once a week.\n\nA healthy starter doubles in volume within six hours of "
                       "feeding and smells pleasantly sour.\n",
    "hive-log.txt": "Hive inspection log.\n\nIn May the colony built eleven frames of comb. The queen was seen on "
                    "frame four; brood was healthy. We added a second box because foragers were bringing in "
                    "a lot of lime-tree nectar.\n",
}


def test_documents_add_list_and_ask(page, tmp_path_factory):
    folder = tmp_path_factory.mktemp("my_docs")
    ui.add_documents(page, folder, DOCS, timeout=120_000)
    expect(page.locator("#docs-count")).to_contain_text("2 document(s)")
    assert {r[1] for r in ui.table_rows(page, "docs-list")} == set(DOCS)

    ui.fill(page, "docs-question", "How often does a sourdough starter need feeding?")
    ui.field(page, "docs-question").press("Enter")
    expect(page.locator("#docs-answer")).to_contain_text("Sources", timeout=60_000)
    answer = page.locator("#docs-answer")
    expect(answer).to_contain_text("every day")
    first = answer.locator("a", has_text="[1]").first
    assert first.get_attribute("href") == "#doc-evidence-0"  # issue 22: [n] opens its evidence
    expect(page.locator("#doc-source-1")).to_have_count(1)
    fold = page.locator("details:has(#doc-evidence-0)")
    expect(fold).not_to_have_attribute("open", "")
    first.click()  # the fold around the evidence opens: the passage with the cited words marked
    expect(fold).to_have_attribute("open", "")
    expect(page.locator("#doc-evidence-0 mark")).to_be_visible()
    expect(answer).to_contain_text("starter-care.md")
    ui.screenshot(page, "documents")

    names = [r[1] for r in ui.table_rows(page, "docs-list")]
    ui.click_cell(page, "docs-list", names.index("hive-log.txt"), 1)
    expect(page.locator("#docs-selected")).to_contain_text("Selected document")
    page.click("#docs-remove")
    expect(page.locator("#docs-count")).to_contain_text("1 document(s)")
    assert [r[1] for r in ui.table_rows(page, "docs-list")] == ["starter-care.md"]
    assert (folder / "hive-log.txt").exists()


# ---------------------------------------------------------------- Wikipedia

def test_wikipedia_build_demo_index_and_ask(page):
    from App_Function_Libraries.Wikipedia.demo import DEMO_CORPUS
    if not DEMO_CORPUS.exists():
        pytest.skip(f"the demo encyclopedia is missing ({DEMO_CORPUS})")
    ui.open_tab(page, "Wikipedia")
    expect(page.locator("#wiki-status")).to_contain_text("No index yet")
    page.click("#wiki-build")
    expect(page.locator("#wiki-status")).to_contain_text("passages", timeout=240_000)
    expect(page.locator("#wiki-build")).to_be_hidden()

    ui.fill(page, "wiki-question", "How do honey bees tell each other where flowers are?")
    page.click("#wiki-ask")
    expect(page.locator("#wiki-answer")).to_contain_text("Sources", timeout=60_000)
    answer = page.locator("#wiki-answer")
    expect(answer).to_contain_text("waggle dance")
    href = answer.locator("a", has_text="[1]").first.get_attribute("href")
    assert href.startswith("#") and "wikipedia.org" not in answer.inner_html()  # the team wrote it: no link out
    expect(page.locator("#wiki-status")).to_contain_text("Demo encyclopedia")
    page.locator("#tab-wikipedia").get_by_text("Passages used").click()
    expect(page.locator("#wiki-passages [role=gridcell]").first).to_be_visible()
    rows = ui.table_rows(page, "wiki-passages")
    assert rows and rows[0][2].startswith("demo-encyclopedia:") and float(rows[0][3]) != 0
    ui.screenshot(page, "wikipedia")


# ---------------------------------------------------------------- Settings, after the searches

def test_engine_health_shows_the_searches_made(page):
    ui.open_tab(page, "Settings")
    page.locator("#tab-settings").get_by_text("Engine health").click()
    page.click("#set-health-refresh")
    expect(page.locator("#set-health")).to_contain_text("search(es) answered", timeout=30_000)
    row = next(r for r in ui.table_rows(page, "set-health") if r[0] == "searxng")
    assert row[1:3] == ["yes", "healthy"], row
    ui.screenshot(page, "settings")


# ---------------------------------------------------------------- page text in a report stays text

def hostile_report_text(world) -> str:
    """What a page can hold and a report quote verbatim: a beacon, a form asking for the key, a fake [1]."""
    return (f'Bees dance to show the way <img src="{world.url("/beacon/img")}"> [1].\n\n'
            f'<form action="{world.url("/steal")}" method="post">Re-enter your API key: <input name="key">'
            f'<button>Save</button></form>\n\n'
            f'<a href="{world.url("/fake")}">[1]</a> ![chart]({world.url("/beacon/md")})\n')


def assert_shown_as_text(page, elem_id: str, world) -> None:
    box = page.locator(f"#{elem_id}")
    expect(box).to_contain_text("Re-enter your API key")
    expect(box).to_contain_text('<img src="' + world.url("/beacon/img") + '">')
    for tag in ("img", "form", "input", "button", "script", "iframe"):
        assert box.locator(tag).count() == 0, (elem_id, tag)
    assert box.locator(f"a[href^='{world.url('/fake')}']").count() == 0
    assert box.locator(f"a[href^='{world.url('/steal')}']").count() == 0


def test_page_html_in_a_report_shows_as_text_in_web_search_history_and_notes(page, world, app_dir):
    from App_Function_Libraries.DB.notes_store import NotesStore
    from App_Function_Libraries.DB.research_store import ResearchStore
    from App_Function_Libraries.records import ResearchResult, Source
    question = "Why do bees dance for their hive?"
    text = hostile_report_text(world)
    result = ResearchResult(question=question, mode="extractive", report_markdown=text,
                            sources=[Source("Waggle dance", world.url("/web/bees"), n=1, fetched=True)])
    ResearchStore(app_dir / "quarry.db", secrets=[]).save_research(result)
    NotesStore(app_dir / "quarry.db").add_note("Quoted page", text, "web")

    ui.open_tab(page, "History")
    expect(page.locator("#hist-list")).to_contain_text(question)
    rows = ui.table_rows(page, "hist-list")
    ui.click_cell(page, "hist-list", next(i for i, r in enumerate(rows) if r[1] == question), 1)
    assert_shown_as_text(page, "hist-preview", world)
    page.click("#hist-open")
    expect(page.locator("#ws-report")).to_contain_text(question)
    assert_shown_as_text(page, "ws-report", world)
    assert report_links(page) == {"[1]": world.url("/web/bees")}  # the real citation, not the fake one

    ui.open_tab(page, "Notes")
    ui.fill(page, "notes-search", "Quoted")
    page.click("#notes-search-btn")
    expect(page.locator("#notes-list")).to_contain_text("Quoted page")
    rows = ui.table_rows(page, "notes-list")  # the saved report may match "Quoted" too ("sentences quoted …")
    ui.click_cell(page, "notes-list", next(i for i, r in enumerate(rows) if any("Quoted page" in c for c in r)))
    page.get_by_role("tab", name="Preview").click()
    assert_shown_as_text(page, "notes-preview", world)
    page.get_by_role("tab", name="Edit").click()

    page.wait_for_timeout(1000)  # time for any image the browser would load
    assert world.requests_to("/beacon") == [] and world.requests_to("/steal") == []
