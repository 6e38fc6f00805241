"""A search that failed says so: the stage shows ✗ with the reason in plain words, a run where nothing could be
searched has no report, is not saved, and the CLI exits non-zero; a partly failed search still reports, with
one note per failing engine (never the internal "engine|query" label)."""
from __future__ import annotations

import socket

import pytest

from App_Function_Libraries.Research.pipeline import process_question
from App_Function_Libraries.Research.report import NO_RESULTS, extractive_brief
from App_Function_Libraries.Search.failures import engine_failures, nothing_searched, plain_reason
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"
UNREACHABLE = "SearXNG could not be reached — no internet?"


def closed_port_url() -> str:
    """An address where nothing listens (connection refused): a real unreachable service."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def offline_config(**sections) -> dict:
    values = {"search": {"search_provider_default": "searxng", "search_max_retries": 0,
                         "search_cache_ttl_seconds": 0},
              "engines": {"searxng_api_url": closed_port_url()},
              "research": {"use_embeddings": "false"}, "llm": {"provider": "none"}}
    for section, kv in sections.items():
        values.setdefault(section, {}).update(kv)
    return values


# ---------------------------------------------------------------- plain words

def test_failures_are_grouped_per_engine_in_plain_words():
    runs = [("searxng", "cannot reach SearXNG at http://x: connection refused", "unreachable"),
            ("searxng", "cannot reach SearXNG at http://x: connection refused", "unreachable"),
            ("brave", None, None), ("brave", "Brave Search is rate-limiting Quarry (HTTP 429)", "rate_limited")]
    failures = engine_failures(runs)
    assert [(f.engine, f.failed, f.asked, f.total) for f in failures] == [("searxng", 2, 2, True),
                                                                         ("brave", 1, 2, False)]
    assert failures[0].note() == f"{UNREACHABLE} (all 2 searches: cannot reach SearXNG at http://x: connection refused)"
    assert failures[1].note() == ("Brave Search is rate-limiting Quarry — wait a few minutes or pick another engine "
                                  "(1 of 2 searches: Brave Search is rate-limiting Quarry (HTTP 429))")
    one = engine_failures([("kagi", "Kagi rejected the API key (HTTP 401)", "bad_key")])[0]
    assert one.note() == ("Kagi refused the API key — check it in Settings → Search engines "
                          "(Kagi rejected the API key (HTTP 401))")
    assert nothing_searched(runs) == ""  # brave answered once: something was searched
    assert nothing_searched(runs[:2]) == UNREACHABLE


def test_a_failure_without_wording_keeps_the_engines_own_message():
    assert plain_reason("duckduckgo", "unreachable", "x") == "DuckDuckGo could not be reached — no internet?"
    assert plain_reason("duckduckgo", "error", "DuckDuckGo search failed: odd") == "DuckDuckGo search failed: odd"
    assert plain_reason("wikipedia", None, "index broken") == "The Wikipedia index: index broken"
    assert nothing_searched([("wikipedia", "no Wikipedia index in /x", "not_set_up")] * 2) == (
        "The Wikipedia index: no Wikipedia index in /x")


def test_no_results_at_all_says_so_without_pointing_to_an_empty_list():
    assert extractive_brief("q", ["q"], []) == NO_RESULTS
    assert "below" not in NO_RESULTS


# ---------------------------------------------------------------- the pipeline

def test_an_unreachable_engine_fails_the_search_stage_and_the_run_stops(make_settings):
    make_settings(offline_config())
    events = []
    result = process_question(QUESTION, on_progress=events.append)
    assert result.searched_nothing and result.stage_failures == {"search": UNREACHABLE}
    assert result.sources == [] and result.report_markdown == ""
    failed = [e for e in events if e.failed]
    assert [(e.stage, e.message) for e in failed] == [("search", UNREACHABLE)]
    assert not any(e.stage in ("relevance", "fetch", "report") for e in events)  # nothing to do after it
    assert all("|" not in note for note in result.errors)
    assert any(note.startswith(UNREACHABLE + " (cannot reach SearXNG") for note in result.errors)


def test_an_engine_picked_without_its_key_says_it_is_not_set_up(make_settings):
    make_settings(offline_config(search={"search_provider_default": "brave"}))
    result = process_question(QUESTION)
    assert result.stage_failures["search"].startswith("Brave Search is not set up: it needs an API key")


def test_one_failing_engine_of_two_is_a_note_and_the_report_is_written(world, make_settings):
    web = MiniWeb(world, include_faults=False).install()
    make_settings(research_config(web, search={"search_provider_default": "searxng,brave",
                                               "search_cache_ttl_seconds": 0}))
    result = process_question(QUESTION)
    assert not result.searched_nothing and result.stage_failures == {} and result.citations
    brave = [n for n in result.errors if n.startswith("Brave Search")]
    assert len(brave) == 1 and "is not set up" in brave[0] and "|" not in brave[0]


def test_a_run_that_searched_nothing_is_not_saved(make_settings):
    from App_Function_Libraries import quarry
    from App_Function_Libraries.DB.research_store import get_research_store
    settings = make_settings(offline_config())
    result = quarry.research(QUESTION, settings=settings)  # save=True by default
    assert result.searched_nothing
    assert get_research_store(settings).list_reports() == []


def test_cli_research_exits_non_zero_when_nothing_could_be_searched(make_settings, capsys):
    from App_Function_Libraries.CLI.main import main as cli_main
    settings = make_settings(offline_config())
    assert cli_main(["--config", str(settings.path), "research", QUESTION]) == 1
    err = capsys.readouterr().err
    assert f"research: nothing could be searched: {UNREACHABLE}" in err
    assert "search: failed" in err and "saved as" not in err


# ---------------------------------------------------------------- the Web Search tab

def test_the_stage_board_shows_a_failed_stage_with_its_reason():
    from App_Function_Libraries.Gradio_UI.web_search_view import StageBoard
    from App_Function_Libraries.Research.pipeline import ProgressEvent
    board = StageBoard()
    for event in (ProgressEvent("subqueries", 1, 1), ProgressEvent("search", 0, 2),
                  ProgressEvent("search", 2, 2, UNREACHABLE, failed=True), ProgressEvent("done", 1, 1)):
        board.apply(event)
    lines = board.markdown().split("  \n")
    assert lines[0].startswith("✓ **Sub-queries**")
    assert lines[1] == f"✗ **Search** · {UNREACHABLE}"
    assert all(line.startswith("– ") for line in lines[2:])  # not run: nothing to judge, read or report


def test_the_report_area_says_nothing_could_be_searched_and_history_stays_empty(make_settings):
    pytest.importorskip("gradio")
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.Gradio_UI import web_search_tab as tab
    settings = make_settings(offline_config())
    result = process_question(QUESTION)
    values = tab.result_values(result)
    assert len(values) == tab.RESULT_OUTPUTS
    assert "Nothing could be searched" in values[0] and "no internet?" in values[0]
    assert values[2] is None  # no report in the tab's state: follow-ups and re-runs have nothing to act on
    assert all(v.get("visible") is False for v in values[-tab.PANELS - tab.TAIL:-tab.TAIL])
    assert values[-tab.TAIL] == ""  # no source cards; the search options stay as they were (to pick another)
    tab.save_to_history(result, settings)
    assert get_research_store(settings).list_reports() == []


def test_a_fetch_stage_that_read_no_page_shows_failed_with_why(world, make_settings):
    web = MiniWeb(world, include_faults=False).install()
    make_settings(research_config(web, search={"search_cache_ttl_seconds": 0},
                                  fetch={"allow_private_addresses": "false", "cache_ttl_seconds": 0}))
    events = []
    result = process_question(QUESTION, on_progress=events.append)  # every page is on a refused address
    assert result.sources and not any(s.fetched for s in result.sources)
    failed = [e for e in events if e.failed]
    assert [e.stage for e in failed] == ["fetch"]
    assert failed[0].message.startswith("none of the ") and "pages could be read" in failed[0].message
    assert not result.searched_nothing  # the search answered: the run goes on and is saved as usual
