"""Search APIs that hold Quarry up or send what it cannot store (Tests/support/hostile_search.py): a search ends
at [search] search_timeout_seconds however the API drips its status line, headers or body (behind a redirect
too); Cancel breaks a search and a research run off at once; no thread of the search outlives it."""
from __future__ import annotations

import threading
import time

import pytest

from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.pipeline import process_question
from App_Function_Libraries.Search.engine import engine_health_snapshot, search_with
from App_Function_Libraries.Search.many import search_many
from App_Function_Libraries.Search.options import SearchOptions
from Tests.support.deadline import finishes_within
from Tests.support.hostile_search import HostileSearch, quarry_threads
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

DELAY = 1.0  # seconds between two bytes of a drip: each read is well inside any read time-out
TIMEOUT = 2.0
SLACK = 2.5  # past the deadline, on a loaded 2-core machine
QUESTION = "How do honey bees communicate the location of food with a dance?"


@pytest.fixture
def hostile(world):
    return HostileSearch(world, delay=DELAY).install()


def search_settings(make_settings, base: str, timeout: float = TIMEOUT, **search):
    return make_settings({"engines": {"searxng_api_url": base},
                          "search": {"search_timeout_seconds": timeout, "search_max_retries": 0,
                                     "search_cache_ttl_seconds": 0, **search}})


def left_over(before: set[threading.Thread], within: float = 2.0) -> set[threading.Thread]:
    """The threads started since `before` that are still alive `within` seconds from now (none, we hope)."""
    end = time.monotonic() + within
    while (extra := quarry_threads() - before) and time.monotonic() < end:
        time.sleep(0.02)
    return extra


def timed(seconds: float, fn):
    started = time.monotonic()
    value = finishes_within(seconds, fn)
    return value, time.monotonic() - started


@pytest.mark.parametrize("name", ["drip-body", "drip-headers", "drip-redirect"])
def test_a_dripping_search_api_ends_at_the_search_timeout(hostile, make_settings, name):
    settings = search_settings(make_settings, hostile.base(name))
    before = quarry_threads()
    answer, seconds = timed(TIMEOUT + 30, lambda: search_with("searxng", "honey bees", settings))
    assert answer.error == f"SearXNG did not answer within {TIMEOUT:g} s" and answer.hits == []
    assert TIMEOUT - 0.1 <= seconds < TIMEOUT + SLACK
    assert not left_over(before)


def test_each_try_has_its_own_deadline_and_the_tries_are_counted(hostile, make_settings):
    settings = search_settings(make_settings, hostile.base("drip-body"), search_max_retries=1)
    answer, seconds = timed(3 * TIMEOUT + 30, lambda: search_with("searxng", "honey bees", settings))
    assert answer.error == f"SearXNG did not answer within {TIMEOUT:g} s (after 2 tries)"
    assert 2 * TIMEOUT <= seconds < 2 * TIMEOUT + 2 + SLACK  # two deadlines and one back-off (at most 2 s)


def test_cancel_breaks_a_search_off_at_once_and_is_no_engine_failure(hostile, make_settings):
    settings = search_settings(make_settings, hostile.base("drip-body"), timeout=60)
    options = SearchOptions.build(None, settings)
    cancel = threading.Event()
    before = quarry_threads()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    found, seconds = timed(30, lambda: search_many(["searxng"], ["honey bees", "wasps"], options, settings=settings,
                                                   cancel=cancel))
    timer.join()
    assert seconds < 0.5 + SLACK
    assert [run.error for run in found.runs] == ["cancelled", "cancelled"]
    assert "searxng" not in engine_health_snapshot(settings)  # not recorded as the engine failing
    assert not left_over(before)


def test_a_control_search_on_a_healthy_api_is_not_cut_short(world, make_settings):
    """The deadline ends only what runs past it: the mini web's SearXNG answers in time, with results."""
    web = MiniWeb(world, include_faults=False).install()
    settings = search_settings(make_settings, web.search_base)
    answer = search_with("searxng", "honey bees dance", settings)
    assert answer.error is None and answer.hits


def research_settings(make_settings, world, hostile, timeout: float):
    web = MiniWeb(world, include_faults=False).install()
    values = research_config(web, search={"search_timeout_seconds": timeout, "search_cache_ttl_seconds": 0},
                             engines={"brave_api_url": hostile.base("drip-body") + "/search",
                                      "brave_api_key": "brave-key-1234"})
    settings = make_settings(values)
    return settings, ResearchParams.from_settings(settings, engines=["searxng", "brave"])


def test_research_with_a_dripping_engine_ends_and_keeps_the_healthy_engines_results(world, hostile, make_settings):
    settings, params = research_settings(make_settings, world, hostile, TIMEOUT)
    before = quarry_threads()
    result, seconds = timed(90, lambda: process_question(QUESTION, params))
    assert result.timings["search"] < TIMEOUT + SLACK
    assert any(e.startswith("Brave Search did not answer in time") and f"did not answer within {TIMEOUT:g} s" in e
               for e in result.errors)
    assert any(s.engines == ["searxng"] for s in result.sources) and result.report_markdown
    assert not left_over(before)


def test_cancel_stops_a_research_stuck_in_the_search_stage(world, hostile, make_settings):
    settings, params = research_settings(make_settings, world, hostile, 120)
    cancel = threading.Event()
    before = quarry_threads()
    timers: list[threading.Timer] = []
    cancelled_at: list[float] = []

    def fire():
        cancelled_at.append(time.monotonic())
        cancel.set()

    def cancel_once_searching(event):  # the search stage has begun: the dripping engine holds it
        if event.stage == "search" and not timers:
            timers.append(threading.Timer(0.5, fire))
            timers[0].start()

    result = finishes_within(60, lambda: process_question(QUESTION, params, on_progress=cancel_once_searching,
                                                          cancel=cancel))
    stopped = time.monotonic()
    timers[0].join()
    assert cancelled_at and stopped - cancelled_at[0] < SLACK  # without the cancel: 120 s
    assert any(e.startswith("Brave Search was stopped: the research was cancelled") for e in result.errors)
    assert any(e.startswith("cancelled") for e in result.errors)
    assert not left_over(before)


def test_a_cancelled_mcp_research_on_a_dripping_engine_stops_at_once_and_is_saved(world, hostile, tmp_path):
    """Over MCP (streamable HTTP, a server process of its own): cancelling a research stuck in the search stage
    on a dripping engine stops the run there and then; it is saved, marked cancelled; the server goes on."""
    import asyncio

    import anyio
    from mcp import Client

    from Tests.support.mcp_world import start_mcp_http, write_config
    web = MiniWeb(world, include_faults=False).install()
    config = write_config(tmp_path, web, {"search": {"search_timeout_seconds": 120, "search_cache_ttl_seconds": 0},
                                          "engines": {"brave_api_url": hostile.base("drip-body") + "/search",
                                                      "brave_api_key": "brave-key-1234"}})
    proc, url = start_mcp_http(config)

    async def scenario() -> float:
        async with Client(url) as client:
            searching = anyio.Event()

            async def on_progress(done, total, message):  # the sub-queries are done: the search begins
                searching.set()

            async with anyio.create_task_group() as group:
                async def call():
                    await client.call_tool("research", {"question": QUESTION, "no_llm": True,
                                                        "engines": ["searxng", "brave"]}, progress_callback=on_progress)
                group.start_soon(call)
                with anyio.fail_after(60):
                    await searching.wait()
                await anyio.sleep(1.5)  # SearXNG has answered, the dripping engine holds the stage
                group.cancel_scope.cancel()
            cancelled_at = time.monotonic()
            with anyio.fail_after(30):
                while not (listed := (await client.call_tool("history_list", {"query": "honey bees"}))
                           .structured_content["reports"]):
                    await anyio.sleep(0.1)
            took = time.monotonic() - cancelled_at
            saved = (await client.call_tool("history_get", {"report_id": listed[0]["id"]})).structured_content
            assert any(e.startswith("Brave Search was stopped: the research was cancelled") for e in saved["errors"])
            assert not (await client.call_tool("history_list", {})).is_error  # still answering
            return took
    try:
        assert asyncio.run(scenario()) < 10  # across processes, polled; without the cancel: 120 s
    finally:
        proc.terminate()
        proc.wait(10)
