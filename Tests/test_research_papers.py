"""Papers in a research, end to end on the test world over real HTTP: SearXNG and OpenAlex searched together,
one paper's open-access PDF (served by the world) read and cited as full text, another paper with no PDF cited
from its abstract ("abstract only"), and a broken PDF link that falls back to the abstract, saying why."""
from __future__ import annotations

import json

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.CLI.research_command import format_markdown
from App_Function_Libraries.records import ResearchResult
from Tests.support.make_pdf import pdf_bytes
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.scholarly_apis import ScholarlyAPIs
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in
from Tests.support.testworld import Response

pytestmark = pytest.mark.slow
QUESTION = "How do honey bees communicate the location of food?"
PDF_LINES = [
    "Recruitment by dance in honey bee colonies. Full text.",
    "Honey bee foragers communicate the location of food to nest mates with the waggle dance;",
    "in our observation hives the duration of each waggle run grew by about one second for every",
    "kilometre between the hive and the feeder, and the angle of the run matched the feeder's bearing",
    "relative to the sun. Followers that attended six or more dance circuits found the feeder first.",
]
ABSTRACT_ONLY = ("Honey bee scouts communicate the location of food sources by dancing; we recorded that dance "
                 "followers decode the direction from the waggle angle and reach the food within minutes.")


def bee_paper(i: int, title: str, abstract: str, pdf_url: str | None) -> dict:
    return {"title": title, "doi": f"10.5555/bees.{i}", "abstract": abstract, "authors": [("Karl", "Frisch")],
            "year": 1967, "month": 5, "day": 1, "venue": "Journal of Bee Behaviour", "id": 7000 + i,
            "open": pdf_url is not None, "pdf_url": pdf_url}


def scholarly_world(world, pdf_path: str) -> ScholarlyAPIs:
    world.route("GET", "/papers/recruitment.pdf", lambda r: Response(
        200, pdf_bytes([PDF_LINES], "Recruitment by dance"), {"Content-Type": "application/pdf"}))
    world.route("GET", "/papers/gone.pdf", lambda r: Response.text("Not Found", 404))
    library = [
        bee_paper(1, "Recruitment by dance in honey bee colonies",
                  "We observed honey bee recruitment to feeders at several distances.", world.url(pdf_path)),
        bee_paper(2, "How honey bee scouts communicate the location of food", ABSTRACT_ONLY, None)]
    return ScholarlyAPIs(world, library=lambda query: library if query.strip() else []).install()


def run_research(world, make_settings, capsys, pdf_path: str) -> dict:
    web = MiniWeb(world, include_faults=False).install()
    apis = scholarly_world(world, pdf_path)
    values = research_config(web, embeddings=True, research={"relevance_embedding_threshold": 0.3})
    values["engines"].update(apis.config()["engines"])
    settings = make_settings(values)
    code = main(["--config", str(settings.path), "research", QUESTION, "--engine", "searxng,openalex", "--no-llm",
                 "--json", "--no-save"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert apis.requests_to("openalex"), "OpenAlex was not asked"
    return json.loads(out)


def papers_by_title(result: dict) -> dict[str, dict]:
    return {s["title"]: s for s in result["sources"] if s["kind"] == "paper"}


def assert_citations_valid(result: dict) -> dict[int, dict]:
    numbered = {s["n"]: s for s in result["sources"] if s["n"] is not None}
    assert len(numbered) == len({s["url"] for s in numbered.values()})
    assert result["citations"] and result["invalid_citations_removed"] == 0
    for c in result["citations"]:
        assert c["n"] in numbered and c["url"] in (numbered[c["n"]]["url"], numbered[c["n"]]["final_url"])
    return numbered


def test_a_paper_pdf_is_read_and_an_abstract_only_paper_is_cited(world, make_settings, capsys):
    result = run_research(world, make_settings, capsys, "/papers/recruitment.pdf")
    numbered = assert_citations_valid(result)
    papers = papers_by_title(result)
    full, abstract = papers["Recruitment by dance in honey bee colonies"], \
        papers["How honey bee scouts communicate the location of food"]
    assert full["engines"] == ["openalex"] and full["paper"]["doi"] == "10.5555/bees.1"
    assert full["paper"]["abstract_only"] is False and "abstract only" not in full["warning"]
    assert full["fetched"] and full["final_url"].endswith("/papers/recruitment.pdf")
    assert any("one second for every" in p["text"] for p in full["passages"])  # the PDF's text, not the abstract
    assert abstract["paper"]["abstract_only"] is True and abstract["warning"].startswith("abstract only")
    assert any("decode the direction" in p["text"] for p in abstract["passages"])
    assert {numbered[c["n"]]["kind"] for c in result["citations"]} >= {"web", "paper"}
    cited = {numbered[c["n"]]["title"] for c in result["citations"]}
    assert set(papers) <= cited, cited
    assert "one second for every" in result["report_markdown"] or "decode the direction" in result["report_markdown"]
    listed = format_markdown(ResearchResult.from_dict(result))  # the sources list as the terminal prints it
    assert f"[{abstract['n']}] How honey bee scouts communicate the location of food" in listed
    assert "(abstract only: no open-access full text)" in listed


def test_a_broken_pdf_link_falls_back_to_the_abstract_and_says_why(world, make_settings, capsys):
    result = run_research(world, make_settings, capsys, "/papers/gone.pdf")
    assert_citations_valid(result)
    broken = papers_by_title(result)["Recruitment by dance in honey bee colonies"]
    assert broken["paper"]["abstract_only"] is True and not broken["failure"]
    assert broken["warning"].startswith("abstract only: the open-access PDF could not be read")
    assert "404" in broken["warning"], broken["warning"]
    assert any("recruitment to feeders" in p["text"] for p in broken["passages"])
