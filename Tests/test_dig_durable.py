"""Dig-deeper rounds of a durable run are committed one by one: a run interrupted in round 2 of 3 resumes at
round 2 with round 1 kept (its query not searched again), and a run cancelled in round 2 keeps the results that
round found and goes on with them on resume (not searched again, no page read twice). Test world: the mini web
and a scripted model."""
from __future__ import annotations

import threading

import pytest

from App_Function_Libraries import quarry
from App_Function_Libraries.DB.run_store import get_run_store
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.openai_server import ScriptedLLM
from Tests.support.research_llm import script_research
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"
BEE_WORDS = ("bee", "honey", "waggle", "forag", "hive", "dance", "sun")
ROUND_ONE, ROUND_TWO = "polarised light sun compass", "round dance flowers near the hive"
OPTIONS = dict(subqueries=False, count=2, use_cache=False)


class Killed(BaseException):
    """The process dies here (as SIGKILL would end it: nothing after runs)."""


@pytest.fixture
def settings(world, make_settings):
    web = MiniWeb(world, include_faults=False).install()
    script_research(ScriptedLLM(default="?"), BEE_WORDS, invalid_citation=None,
                    gap_queries=[[ROUND_ONE], [ROUND_TWO]]).install(world)
    return make_settings(research_config(web, world.url("/v1")))


def searched(world, query: str) -> int:
    return sum(1 for r in world.requests_to("/searxng/search") if r.arg("q") == query)


def fetches(world) -> dict[str, int]:
    paths = [r.path for r in world.requests if r.path.startswith("/web/")]
    return {p: paths.count(p) for p in paths}


def test_a_run_interrupted_in_round_two_resumes_at_round_two(world, settings):
    def die_in_round_two(event):
        if event.message.startswith("round 2"):
            raise Killed
    with pytest.raises(Killed):
        quarry.research(QUESTION, rounds=3, run_id="dig-killed", on_progress=die_in_round_two, settings=settings,
                        **OPTIONS)
    run = get_run_store(settings).get_run("dig-killed")
    assert run.status in ("failed", "interrupted") and run.stage == "rounds"
    assert [r["queries"] for r in run.state["rounds"]] == [[ROUND_ONE]] and run.state["rounds_asked"] == 3
    one = run.state["rounds"][0]
    assert one["added"] and one["stop"] == ""

    resumed = quarry.runs.resume("dig-killed", settings=settings)  # the rounds asked for are kept with the run
    assert [r["round"] for r in resumed.rounds] == [1, 2, 3]
    assert resumed.rounds[0].to_dict() == one  # round 1 as it was committed, not done again
    assert resumed.rounds[1]["queries"] == [ROUND_TWO] and resumed.rounds[2]["stop"] == "no gap left to search"
    assert searched(world, ROUND_ONE) == 1 and searched(world, ROUND_TWO) == 1
    assert {a["n"] for r in resumed.rounds for a in r["added"]} <= {s.n for s in resumed.numbered_sources()}
    assert get_run_store(settings).get_run("dig-killed").status == "done"
    assert quarry.history.get("dig-killed", settings).rounds == resumed.rounds


def test_a_run_cancelled_in_round_two_keeps_its_results_and_goes_on_with_them(world, settings):
    cancel = threading.Event()
    state = {"round": 0}

    def cancel_while_round_two_reads(event):
        if event.message.startswith("round "):
            state["round"] = int(event.message.split()[1].rstrip(":"))
        if state["round"] == 2 and event.stage == "fetch" and event.done == 0:
            cancel.set()
    first = quarry.research(QUESTION, rounds=3, run_id="dig-cancelled", cancel=cancel,
                            on_progress=cancel_while_round_two_reads, settings=settings, **OPTIONS)
    assert [r["round"] for r in first.rounds] == [1, 2] and first.rounds[1]["stop"] == "cancelled"
    found = {s.url for s in first.sources if s.round == 2}
    assert found and any(e.startswith("cancelled") for e in first.errors)
    run = get_run_store(settings).get_run("dig-cancelled")
    assert run.status == "cancelled" and run.stage == "rounds"
    assert {s["url"] for s in run.state["sources"] if s.get("round") == 2} == found  # the round's results kept

    resumed = quarry.runs.resume("dig-cancelled", settings=settings)
    assert [r["round"] for r in resumed.rounds] == [1, 2, 3]
    two = resumed.rounds[1]
    assert two["queries"] == [ROUND_TWO] and two["stop"] == "" and two["added"]
    assert {a["url"] for a in two["added"]} <= found
    assert searched(world, ROUND_ONE) == 1 and searched(world, ROUND_TWO) == 1  # not searched again
    assert all(n == 1 for n in fetches(world).values()), fetches(world)  # no page read twice
    assert not any(e.startswith("cancelled") for e in resumed.errors)
    assert get_run_store(settings).get_run("dig-cancelled").status == "done"
