"""A report says the sources do not answer only after the run has read further (Research/read_further.py): when
nothing in the first pages clears the relevance floor, the next results are searched (each engine asked for twice
as many), read and numbered, and the report is written again. Over real HTTP: a SearXNG-speaking search whose
first ten results only mention the topic and whose 13th answers the question."""
from __future__ import annotations

import pytest

from App_Function_Libraries import quarry
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.pipeline import process_question
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in
from Tests.support.testworld import Response

QUESTION = "How far do honey bees fly to find nectar?"
ANSWER = "Honey bees fly up to six kilometres from the hive to find nectar when flowers nearby are scarce."
FILLERS = ["Honey bees keep their colony warm in winter by clustering around the queen.",
           "A beekeeper inspects the frames of honey bees every week in spring.",
           "Honey bees build wax combs of hexagonal cells inside the hive.",
           "The queen of the honey bees lays up to two thousand eggs a day in summer.",
           "Drones are the male honey bees and they do not sting.",
           "Honey bees were brought to the Americas by European settlers.",
           "Varroa mites are the worst pest of honey bees kept in hives today.",
           "Honey bees store honey to eat during the cold months of the year.",
           "Worker honey bees live about six weeks in the busy summer season.",
           "Swarming is how a colony of honey bees splits into two colonies.",
           "Honey bees guard the entrance of the hive against wasps and robbers.",
           "Royal jelly is fed to the larvae of honey bees that will become queens.",
           "Honey bees cool the hive by fanning their wings at its entrance.",
           "Propolis is a resin that honey bees use to seal gaps in the hive.",
           "The waggle dance of honey bees was decoded by Karl von Frisch.",
           "Honey bees see ultraviolet light that people cannot see.",
           "A strong colony of honey bees holds about fifty thousand workers.",
           "Honey bees make beeswax from glands on the underside of their abdomen.",
           "Beekeepers use smoke to calm honey bees before opening a hive.",
           "Honey bees have five eyes: two large compound eyes and three small ones."]
ANSWER_AT = 12  # zero-based: the 13th result, on the second page of ten


def page_html(title: str, sentence: str) -> str:
    return (f"<html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{sentence} "
            f"This page is part of a series about keeping bees at home and in gardens.</p></main></body></html>")


class BeeSearch:
    """Pages on the test world and a SearXNG JSON search listing them in a fixed order, ten a page."""

    def __init__(self, world, answer: bool = True):
        self.world, self.requests = world, []
        texts = list(FILLERS)
        if answer:
            texts.insert(ANSWER_AT, ANSWER)
        self.pages = [(f"/bees/{i}", f"Honey bee notes {i}", text) for i, text in enumerate(texts)]

    def install(self) -> "BeeSearch":
        for path, title, text in self.pages:
            self.world.route("GET", path, lambda req, t=title, x=text: Response.html(page_html(t, x)))
        self.world.route("GET", "/searxng/search", self.search)
        return self

    def search(self, req) -> Response:
        page_no = int(req.arg("pageno", "1") or 1)
        self.requests.append(page_no)
        hits = self.pages[(page_no - 1) * 10:page_no * 10]
        results = [{"url": self.world.url(path), "title": title, "content": "Notes about honey bees.",
                    "engine": "bees", "engines": ["bees"], "positions": [i + 1], "score": 1.0 / (i + 1),
                    "category": "general"} for i, (path, title, _) in enumerate(hits)]
        return Response.json({"query": req.arg("q"), "number_of_results": len(self.pages), "results": results,
                              "answers": [], "corrections": [], "infoboxes": [], "suggestions": [],
                              "unresponsive_engines": []})


def settings_for(world, make_settings):
    return make_settings({"search": {"search_provider_default": "searxng", "search_max_retries": 0},
                          "engines": {"searxng_api_url": world.url("/searxng")},
                          "research": {"use_embeddings": "false", "pages_max": 10},
                          "llm": {"provider": "none"}})


def params(**values) -> ResearchParams:
    return ResearchParams.from_settings(follow_up_count=0, use_cache=False, **values)


def further_notes(result) -> list[str]:
    return [e for e in result.errors if e.startswith("read further")]


def test_the_answer_on_the_second_page_of_results_is_found(world, make_settings):
    bees = BeeSearch(world).install()
    settings_for(world, make_settings)
    events = []
    result = process_question(QUESTION, params(), on_progress=events.append)
    assert result.answer_status == "answered", result.report_markdown
    said = [(e.stage, e.message) for e in events if "further" in e.message]  # the reader sees why it goes on
    assert said == [("report", "nothing in the 10 pages read answers the question: reading further")]
    lead = result.report_markdown.split("[")[0]
    assert "six kilometres" in lead
    cited = {s.url.rsplit("/", 1)[1] for s in result.cited_sources()}
    assert str(ANSWER_AT) in cited
    assert bees.requests == [1, 1, 2]  # the first page, then each engine asked for twice as many
    assert sum(1 for s in result.sources if s.fetched) == 20
    assert further_notes(result) == ["read further: nothing in the 10 pages read answered the question; read 10 "
                                     "more pages from the next results"]


def test_control_with_the_option_off_the_report_says_not_answered_after_the_first_page(world, make_settings):
    bees = BeeSearch(world).install()
    settings_for(world, make_settings)
    result = process_question(QUESTION, params(read_further=False))
    assert result.answer_status == "not_answered" and not result.citations
    assert bees.requests == [1] and not further_notes(result)
    assert sum(1 for s in result.sources if s.fetched) == 10


def test_nothing_further_answers_either_the_report_says_so_once(world, make_settings):
    bees = BeeSearch(world, answer=False).install()
    settings_for(world, make_settings)
    result = process_question(QUESTION, params())
    assert result.answer_status == "not_answered" and not result.citations
    assert "do not answer this question" in result.report_markdown and result.closest
    assert bees.requests == [1, 1, 2]  # read further once, not again
    assert len(further_notes(result)) == 1


@pytest.mark.parametrize("pages, requests, where", [
    (10, [1, 1, 2], "the next results"),  # a full first page: asked for more, none new
    (6, [1], "the search"),  # fewer than asked for: the engine gave all it had, it is not asked again
])
def test_a_search_with_no_further_results_says_so(world, make_settings, pages, requests, where):
    bees = BeeSearch(world, answer=False)
    bees.pages = bees.pages[:pages]
    bees.install()
    settings_for(world, make_settings)
    result = process_question(QUESTION, params())
    assert result.answer_status == "not_answered" and bees.requests == requests
    assert further_notes(result) == [f"read further: nothing in the {pages} pages read answered the question; "
                                     f"{where} held no other relevant page"]


def test_a_report_the_first_pages_answer_reads_no_further(world, make_settings):
    bees = BeeSearch(world).install()
    settings_for(world, make_settings)
    result = process_question("How many eggs a day does the queen of the honey bees lay in summer?", params())
    assert result.answer_status == "answered" and "two thousand eggs" in result.report_markdown
    assert bees.requests == [1] and not further_notes(result)


def test_results_found_but_not_read_are_read_before_searching_again(world, make_settings):
    bees = BeeSearch(world).install()
    settings_for(world, make_settings)
    result = process_question(QUESTION, params(count=20, result_max=20, pages_max=10))
    assert result.answer_status == "answered" and "six kilometres" in result.report_markdown
    assert bees.requests == [1, 2]  # no search beyond the first
    assert further_notes(result) == ["read further: nothing in the 10 pages read answered the question; read 10 "
                                     "more pages from the results found but not read"]


def test_a_saved_run_reads_further_and_keeps_its_page_budget(world, make_settings):
    BeeSearch(world).install()
    settings = settings_for(world, make_settings)
    result = quarry.research(QUESTION, params(), settings=settings)
    assert result.answer_status == "answered" and "six kilometres" in result.report_markdown
    assert len(further_notes(result)) == 1
    budgeted = quarry.research(QUESTION, params(budget_pages=10), settings=settings)
    assert budgeted.answer_status == "not_answered" and not further_notes(budgeted)
    assert sum(1 for s in budgeted.sources if s.fetched) == 10


@pytest.mark.parametrize("budget_pages, read", [(15, 15), (40, 20)])
def test_a_page_budget_bounds_what_is_read_further(world, make_settings, budget_pages, read):
    BeeSearch(world, answer=False).install()
    settings = settings_for(world, make_settings)
    result = quarry.research(QUESTION, params(budget_pages=budget_pages), settings=settings, save=False)
    assert sum(1 for s in result.sources if s.fetched) == read


def test_a_watchs_run_reports_what_is_new_and_reads_no_further(world, make_settings, capsys):
    import json
    import re

    from App_Function_Libraries.CLI.main import main
    bees = BeeSearch(world, answer=False).install()
    cli = ["--config", str(settings_for(world, make_settings).path)]
    assert main(cli + ["research", QUESTION, "--no-llm", "--json", "--no-cache"]) == 0
    report_id = json.loads(capsys.readouterr().out)["id"]
    assert bees.requests == [1, 1, 2]  # a new run reads further
    assert main(cli + ["watch", "add", report_id[:8], "--every", "1d"]) == 0
    watch_id = re.search(r"watch (\w{8}):", capsys.readouterr().out).group(1)
    path, title, _ = bees.pages[0]  # a changed page that still does not answer
    world.route("GET", path, lambda req: Response.html(page_html(title, "Honey bees rest at night in the hive.")))
    bees.requests.clear()
    assert main(cli + ["watch", "run", watch_id]) == 0
    assert "1 changed" in capsys.readouterr().out
    assert bees.requests == [1]


def test_the_command_lines_progress_says_it_reads_further(world, make_settings, capsys):
    """Without a terminal the CLI prints a line per finished stage, and again when a stage finishes saying
    something new: the report stage's 'reading further' (it printed 'report: 1/1' once and nothing more)."""
    from App_Function_Libraries.CLI.main import main
    BeeSearch(world).install()
    cli = ["--config", str(settings_for(world, make_settings).path)]
    assert main(cli + ["research", QUESTION, "--no-llm", "--no-cache", "--no-save"]) == 0
    lines = [line.split("] ", 1)[1] for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert "report: 1/1 (nothing in the 10 pages read answers the question: reading further)" in lines
    assert lines.count("report: 1/1") == 1 and lines.count("fetch: 10/10") == 1  # the same line is not repeated
