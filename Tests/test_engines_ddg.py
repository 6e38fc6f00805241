"""DuckDuckGo at the ddgs library boundary: ddgs does its own HTTP to services we cannot reach, so the
DDGS class's `text` is given realistic result dicts (title, href, body) to check the mapping and the option
translation, and the real offline failure is checked to become a clean `error`."""
from __future__ import annotations

import ddgs.ddgs
import pytest
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

from App_Function_Libraries.Web_Search.websearch import perform_websearch
from Tests.support.search_apis import clean_health  # noqa: F401 (autouse)


@pytest.fixture
def ddg_settings(make_settings):
    return make_settings({"search": {"search_max_retries": 1, "search_cache_ttl_seconds": 0},
                          "engines": {"duckduckgo_backend": "duckduckgo,brave"}})


class RecordingText:
    """Stands in for DDGS.text: records the call and returns ddgs-shaped dicts (or raises)."""

    def __init__(self, results=None, error=None):
        self.calls: list[dict] = []
        self.timeouts: list = []
        self.results, self.error = results, error

    def install(self, monkeypatch):
        recorder = self
        original_init = ddgs.ddgs.DDGS.__init__

        def init(self, *args, **kwargs):
            recorder.timeouts.append(kwargs.get("timeout"))
            original_init(self, *args, **kwargs)

        def text(self, query, **kwargs):
            recorder.calls.append({"query": query, **kwargs})
            if recorder.error:
                raise recorder.error
            return recorder.results
        monkeypatch.setattr(ddgs.ddgs.DDGS, "__init__", init)
        monkeypatch.setattr(ddgs.ddgs.DDGS, "text", text)
        return self


RESULTS = [
    {"title": "News, sport, celebrities and gossip | The Sun", "href": "https://www.thesun.co.uk/",
     "body": "Get the latest news, exclusives, sport &amp; showbiz from <b>The Sun</b>"},
    {"title": "Same page again", "href": "http://thesun.co.uk/?utm_source=ddg", "body": "duplicate"},
    {"title": "No link", "body": "dropped"},
    {"title": "Pinterest board", "href": "https://www.pinterest.com/x/", "body": "blacklisted"},
    {"title": "Weather", "href": "https://weather.example.org/today", "body": "Sunny"},
]


def test_mapping_and_options_reach_ddgs(monkeypatch, ddg_settings):
    text = RecordingText(RESULTS).install(monkeypatch)
    answer = perform_websearch("duckduckgo", "uk news", "GB", "en", "en", 10, date_range="week", safesearch="strict",
                               site_blacklist=["pinterest.com"], exactTerms="front page", excludeTerms="gossip",
                               settings=ddg_settings)
    assert answer["error"] is None
    assert text.calls == [{"query": 'uk news "front page" -gossip -site:pinterest.com', "region": "uk-en",
                           "safesearch": "on", "timelimit": "w", "max_results": 10, "backend": "duckduckgo,brave"}]
    assert text.timeouts == [15]
    assert [r["url"] for r in answer["results"]] == ["https://www.thesun.co.uk/", "https://weather.example.org/today"]
    first = answer["results"][0]
    assert first["content"] == "Get the latest news, exclusives, sport & showbiz from The Sun"
    assert first["metadata"]["source"] == "thesun.co.uk"


def test_explicit_range_and_no_country(monkeypatch, ddg_settings):
    text = RecordingText(RESULTS[:1]).install(monkeypatch)
    perform_websearch("duckduckgo", "q", "all", "de", "en", 3, date_range="2024-01-01..2024-02-01",
                      search_result_language="de", settings=ddg_settings)
    call = text.calls[0]
    assert call["region"] == "wt-wt" and call["timelimit"] == "2024-01-01..2024-02-01" and call["max_results"] == 3


def test_unsupported_options_are_reported(monkeypatch, ddg_settings):
    RecordingText(RESULTS[:1]).install(monkeypatch)
    answer = perform_websearch("duckduckgo", "q", "US", "en", "en", 3, sort_results_by="date", filter=0,
                               settings=ddg_settings)
    assert answer["processing_error"] == "duckduckgo: filter, sort_results_by not supported, ignored"


@pytest.mark.parametrize("error, message, calls", [
    (RatelimitException("https://html.duckduckgo.com/html 202 Ratelimit"), "DuckDuckGo is rate-limiting Quarry", 2),
    (TimeoutException("https://html.duckduckgo.com/html timed out"), "DuckDuckGo did not answer within 15 s", 2),
    (DDGSException("No results found."), None, 1),
    (DDGSException("https://duckduckgo.com 403 Forbidden captcha"), "DuckDuckGo blocked the request", 1),
])
def test_ddgs_exceptions_become_typed_errors(monkeypatch, ddg_settings, error, message, calls):
    text = RecordingText(error=error).install(monkeypatch)
    answer = perform_websearch("duckduckgo", "q", "US", "en", "en", 3, settings=ddg_settings, sleep=lambda s: None)
    if message is None:
        assert answer["error"] is None and answer["results"] == []
    else:
        assert answer["error"].startswith(message)
    assert len(text.calls) == calls  # rate limits and time-outs are retried (search_max_retries = 1)


def test_real_offline_ddgs_failure_is_a_clean_error(ddg_settings):
    """No stand-in: the installed ddgs, which cannot reach the internet here (skipped where it can)."""
    answer = perform_websearch("duckduckgo", "quarry offline check", "US", "en", "en", 3, settings=ddg_settings)
    if answer["error"] is None:
        pytest.skip("this machine reaches DuckDuckGo; the offline path cannot be checked here")
    assert answer["error"].startswith(("cannot reach DuckDuckGo", "DuckDuckGo did not answer",
                                       "DuckDuckGo search failed", "DuckDuckGo is rate-limiting"))
    assert "\n" not in answer["error"] and len(answer["error"]) < 300
    assert answer["search_time"] < 30


def test_cli_search_with_duckduckgo(monkeypatch, ddg_settings, capsys):
    from App_Function_Libraries.CLI.main import main as cli_main
    text = RecordingText(RESULTS).install(monkeypatch)
    rc = cli_main(["--config", str(ddg_settings.path), "search", "uk news", "--engine", "duckduckgo", "--count",
                   "5", "--country", "GB", "--date-range", "day"])
    out = capsys.readouterr().out
    assert rc == 0 and "3 result(s) from duckduckgo" in out and "https://www.thesun.co.uk/" in out
    assert text.calls[0]["region"] == "uk-en" and text.calls[0]["timelimit"] == "d"
