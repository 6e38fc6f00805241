"""The plan first: `research --plan-only` prints the plan, `research --plan FILE` runs an edited plan (a query
removed, two added, an engine dropped from one) and exactly that is searched; the plan is saved with the run and
shown by `history show`. Budgets: a budget of N pages reads N pages and the report says what was left."""
from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.Research.plan import ResearchPlan
from App_Function_Libraries.Research import report
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.search_apis import SearchAPIs, clean_health  # noqa: F401 - autouse: no engine suspension leaks

QUESTION = "How do honey bees communicate the location of food?"


def searched(world, path: str) -> list[str]:
    """The queries an engine's endpoint received (q= of each request)."""
    return [r.arg("q") or "" for r in world.requests_to(path)]


def two_engines(world, make_settings, **sections):
    web = MiniWeb(world, include_faults=False, search_prefix="/mini").install()
    apis = SearchAPIs(world).install()
    values = research_config(web, **sections)
    values["engines"] = {**apis.config()["engines"], "searxng_api_url": web.search_base}
    return web, make_settings(values)


def test_an_edited_plan_is_what_runs(world, make_settings, capsys, tmp_path):
    web, settings = two_engines(world, make_settings)
    base = ["--config", str(settings.path), "research"]
    assert main(base + [QUESTION, "--engine", "searxng,brave", "--no-llm", "--plan-only"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["question"] == QUESTION
    assert plan["queries"] == [{"query": QUESTION, "engines": ["searxng", "brave"]}]
    assert not world.requests_to("/mini/search") and not world.requests_to("/brave/res/v1/web/search")

    plan["queries"] = [{"query": "waggle dance direction", "engines": ["searxng"]},  # brave dropped from it
                       {"query": "forager bee scent", "engines": ["searxng", "brave"]}]
    plan["budget"]["pages"] = 2
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    assert main(base + ["--plan", str(path), "--no-llm", "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert sorted(searched(world, "/mini/search")) == ["forager bee scent", "waggle dance direction"]
    assert searched(world, "/brave/res/v1/web/search") == ["forager bee scent"]
    assert data["sub_queries"] == ["waggle dance direction", "forager bee scent"]
    assert data["params"]["plan"] == ResearchPlan.from_dict(plan).to_dict()
    assert data["params"]["engines"] == ["searxng", "brave"]
    assert sum(s["fetched"] or bool(s["failure"]) for s in data["sources"]) == 2  # the plan's budget
    saved = re.search(r"saved as (\S+)", out.err).group(1)

    assert main(["--config", str(settings.path), "history", "show", saved[:8]]) == 0
    shown = capsys.readouterr().out
    assert "## Plan" in shown and "| 1 | waggle dance direction | searxng |" in shown
    assert "| 2 | forager bee scent | searxng, brave |" in shown and "budget: 2 pages" in shown


@pytest.mark.parametrize("plan, message", [
    ({"question": QUESTION, "queries": []}, "queries must be a non-empty list"),
    ({"question": QUESTION, "queries": [{"query": "x", "engines": ["altavista"]}]}, "unknown engine altavista"),
    ({"question": QUESTION, "queries": [{"query": "x", "engines": ["brave"]}], "budget": {"pages": -1}},
     "budget pages must be a number of at least 0"),
    ({"question": QUESTION, "queries": [{"query": "x", "engines": ["brave"]}], "colour": "red"},
     "unknown plan field colour"),
])
def test_a_wrong_plan_is_refused_naming_the_field(make_settings, capsys, tmp_path, plan, message):
    settings = make_settings()
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    assert main(["--config", str(settings.path), "research", "--plan", str(path), "--no-llm"]) == 2
    assert message in capsys.readouterr().err


def test_a_page_budget_reads_that_many_pages_and_says_what_was_left(world, make_settings, capsys):
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web))
    code = main(["--config", str(settings.path), "research", QUESTION, "--no-llm", "--json", "--no-cache",
                 "--budget-pages", "3"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    page_requests = [r for r in world.requests if r.path.startswith("/web/")]
    assert len(page_requests) == 3
    read = [s for s in data["sources"] if s["fetched"]]
    unread = [s for s in data["sources"] if s["skipped"].startswith("not read: the run reached its budget")]
    assert len(read) == 3 and unread
    left = data["report_markdown"].split("## Left undone", 1)[1]
    assert "budget of 3 pages read (3 read)" in left
    assert all(s["url"] in left for s in unread) and not any(s["url"] in left for s in read)
    assert any(e.startswith("budget: reached (pages)") for e in data["errors"])


def test_without_a_budget_every_selected_page_is_read(world, make_settings, capsys):
    """Control for the budget test: the same run reads more than 3 pages and leaves nothing undone."""
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web))
    assert main(["--config", str(settings.path), "research", QUESTION, "--no-llm", "--json", "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len([r for r in world.requests if r.path.startswith("/web/")]) > 3
    assert "## Left undone" not in data["report_markdown"]


def test_a_time_budget_stops_reading_and_the_report_says_so(world, make_settings, capsys):
    web = MiniWeb(world, include_faults=False).install()
    world.fault("/web/bees/history", delay=60)  # one page that would hold the run up
    settings = make_settings(research_config(web, fetch={"read_timeout_seconds": 90, "total_timeout_seconds": 90}))
    code = main(["--config", str(settings.path), "research", QUESTION, "--no-llm", "--json", "--no-cache",
                 "--budget-seconds", "10"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["timings"]["total"] < 40
    left = data["report_markdown"].split("## Left undone", 1)[1]
    assert "its time budget of 10 s" in left and web.url("bees/history") in left
    assert data["report_markdown"].split("## Left undone")[0].count("[") >= 1  # a report from what was read


def test_a_token_budget_spent_before_any_page_is_read_says_so(world, make_settings, capsys):
    from Tests.support.openai_server import ScriptedLLM
    from Tests.support.research_llm import script_research
    web = MiniWeb(world, include_faults=False).install()
    script_research(ScriptedLLM(default="?"), ("bee", "honey", "waggle"),
                    sub_queries=["waggle dance direction", "do bumblebees dance too"]).install(world)
    settings = make_settings(research_config(web, world.url("/v1")))
    code = main(["--config", str(settings.path), "research", QUESTION, "--json", "--no-cache",
                 "--budget-tokens", "50", "--rounds", "1"])
    data = json.loads(capsys.readouterr().out)
    # the scripted model's sub-queries alone spend the 50 tokens, and the budget is checked before each step
    # (not only when its watcher next polls), so the run stops before its search on any machine: no one writes
    # an answer, and the report says the run stopped, not that the search found nothing
    md = data["report_markdown"]
    assert code == 0 and data["mode"] == "none" and data["answer_status"] == "not_answered"
    assert md.startswith(report.STOPPED_BEFORE_RESULTS), md
    # nothing spends tokens after the budget is reached (the follow-ups are suggested without the LLM, the round
    # asked for is not dug): the run's usage is what Left undone says was spent when it stopped
    spent = data["llm_usage"]["prompt_tokens"] + data["llm_usage"]["completion_tokens"]
    assert f"({spent:,} spent)" in md and data["follow_ups"], (spent, md)
    assert data["rounds"] == [] and data["budget_reached"] == ["tokens"]
    assert "dig deeper: the 1 round(s) asked for were not done: the run reached its budget (tokens)" in data["errors"]
    assert "its budget of 50 LLM tokens" in md and "so it stopped before reading any page" in md
    assert "could be read" not in md and "from what it had read" not in md and "extractive brief" not in md
    assert report.NO_RESULTS not in md


def test_a_wrong_plan_is_a_quarry_error_a_person_reads():
    from App_Function_Libraries.errors import QuarryError
    from App_Function_Libraries.Research.plan import ResearchPlan
    with pytest.raises(QuarryError, match="the plan's question is empty"):
        ResearchPlan.from_dict({"question": " ", "queries": [{"query": "x", "engines": ["brave"]}]})
    with pytest.raises(QuarryError, match=r"queries\[1\]: unknown engine altavista"):
        ResearchPlan.from_dict({"question": QUESTION, "queries": [{"query": "x", "engines": ["altavista"]}]})
    plan = ResearchPlan.from_dict({"question": QUESTION, "queries": [{"query": "x", "engines": ["wikipedia"]}]})
    assert plan.engines() == ["wikipedia"]  # a local engine is an engine
