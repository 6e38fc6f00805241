"""Engine health shared through the research database, and `python app.py check`'s engine probe: it searches
with the configured [search] defaults, records its outcome like any search, and reports what it kept."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from App_Function_Libraries.DB.connection import close_thread_connections
from App_Function_Libraries.Gradio_UI.engine_health import health_rows
from App_Function_Libraries.Search.engines import ENGINE_MODULES
from App_Function_Libraries.Search.health import forget_health_boards
from App_Function_Libraries.Search.engine import (engine_health_check, engine_health_snapshot,
                                                         lift_engine_suspensions, search_with)
from Tests.conftest import ROOT
from Tests.support.search_apis import KEY, PATHS, SearchAPIs, clean_health  # noqa: F401 (autouse)


def test_probe_searches_with_the_configured_defaults(world, make_settings):
    apis = SearchAPIs(world).install()
    settings = make_settings(apis.config(search_content_country="GB", search_language_query="de",
                                         search_language_results="fr", search_safesearch="strict",
                                         search_result_blacklist="pinterest.com"))
    ok, message = engine_health_check("bing", settings)
    assert ok is True, message
    wire = {k: v[0] for k, v in apis.requests_to("bing")[-1].query.items()}
    assert wire["mkt"] == "fr-GB" and wire["setLang"] == "de" and wire["safeSearch"] == "Strict"
    assert wire["q"] == "open source -site:pinterest.com" and wire["count"] == "1"


@pytest.fixture
def apis(world, make_settings):
    apis = SearchAPIs(world).install()
    apis.settings = make_settings(apis.config(search_cache_ttl_seconds=0, search_suspend_after_failures=3,
                                              search_provider_default="bing"))
    return apis


def another_process():
    """What a second Quarry process starts with: no board in memory, only the shared database."""
    forget_health_boards()
    close_thread_connections()


def test_probe_reports_the_results_it_kept_not_what_the_service_sent(apis):
    ok, message = engine_health_check("serper", apis.settings)  # Serper sends 10 at the least
    assert ok is True and f"Serper answers at {apis.url('serper')}: 1 result(s) for 1 asked in" in message
    assert apis.requests_to("serper")[-1].json()["num"] == 10


def test_failures_in_one_process_are_seen_and_obeyed_by_another(apis, world):
    world.fault(PATHS["bing"], status=500, body=f'{{"message": "broken for {KEY}"}}'.encode(), times=2)
    for _ in range(2):
        assert "server error" in search_with("bing", "q", apis.settings, country="US", search_lang="en", count=3).error
    another_process()
    state = engine_health_snapshot(apis.settings)["bing"]
    assert (state.consecutive_failures, state.failures, state.last_error_kind) == (2, 2, "server_error")
    assert KEY not in state.last_error and "broken for ***" in state.last_error
    assert health_rows(apis.settings)[ENGINE_MODULES.index("bing")][2] == "failing"  # the Settings tab's view

    ok, message = engine_health_check("bing", apis.settings)  # the fault is over: the probe succeeds
    assert ok is True and "health: healthy (before this check: 2 failure(s) in a row (last: Bing had a server " \
                          "error (HTTP 500) (broken for ***)" in message
    another_process()
    state = engine_health_snapshot(apis.settings)["bing"]
    assert (state.consecutive_failures, state.successes) == (0, 1)  # the probe was recorded


def test_a_failing_probe_counts_towards_suspension_and_check_in_another_process_sees_it(apis, world):
    world.fault(PATHS["kagi"], status=503, times=3)
    for _ in range(3):
        ok, message = engine_health_check("kagi", apis.settings)
        assert ok is False and message.startswith("Kagi had a server error (HTTP 503)")
    another_process()
    answer = search_with("kagi", "q", apis.settings, country="US", search_lang="en", count=3)
    assert answer.error.startswith("kagi is suspended for")
    assert len(apis.requests_to("kagi")) == 3  # the suspended search did not reach the server
    proc = subprocess.run([sys.executable, "app.py", "--config", str(apis.settings.path), "check", "--no-settings"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"})
    lines = {line.split(":")[0]: line for line in proc.stdout.splitlines()}
    assert re.match(r"FAIL engine kagi: kagi is suspended for \d+ s more after 3 failures in a row \(last: Kagi "
                    r"had a server error \(HTTP 503\)", lines["FAIL engine kagi"])
    assert lines["OK   engine bing"].startswith(f"OK   engine bing: Bing answers at {apis.url('bing')}: 1 result(s)")
    assert len(apis.requests_to("kagi")) == 3 and proc.returncode == 1
    lift_engine_suspensions(apis.settings)
    assert search_with("kagi", "q", apis.settings, country="US", search_lang="en", count=3).error is None
