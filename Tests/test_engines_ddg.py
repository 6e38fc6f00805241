"""DuckDuckGo at the ddgs library boundary: ddgs does its own HTTP to services we cannot reach, so the
DDGS class's `text` is given realistic result dicts (title, href, body) to check the mapping and the option
translation, and the real offline failure is checked to become a clean `error`."""
from __future__ import annotations

import socket

import ddgs.ddgs
import pytest
from ddgs import DDGS
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

from App_Function_Libraries.Search.engines.duckduckgo import _from_library_error
from App_Function_Libraries.Search.errors import SearchError
from App_Function_Libraries.Search.engine import search_with
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
    answer = search_with("duckduckgo", "uk news", ddg_settings, country="GB", search_lang="en", count=10,
                         date_range="week", safesearch="strict", site_blacklist=["pinterest.com"],
                         exact_terms="front page", exclude_terms="gossip")
    assert answer.error is None
    assert text.calls == [{"query": 'uk news "front page" -gossip -site:pinterest.com', "region": "uk-en",
                           "safesearch": "on", "timelimit": "w", "max_results": 10, "backend": "duckduckgo,brave"}]
    assert text.timeouts == [15]
    assert [r.url for r in answer.hits] == ["https://www.thesun.co.uk/", "https://weather.example.org/today"]
    first = answer.hits[0]
    assert first.snippet == "Get the latest news, exclusives, sport & showbiz from The Sun"
    assert first.source == "thesun.co.uk"


def test_explicit_range_goes_to_the_duckduckgo_backend_and_a_lost_language_is_noted(monkeypatch, ddg_settings):
    text = RecordingText(RESULTS[:1]).install(monkeypatch)
    answer = search_with("duckduckgo", "q", ddg_settings, country="all", search_lang="de", count=3,
                         date_range="2024-01-01..2024-02-01", result_lang="de")
    call = text.calls[0]
    assert call["region"] == "wt-wt" and call["timelimit"] == "2024-01-01..2024-02-01" and call["max_results"] == 3
    assert call["backend"] == "duckduckgo"  # configured "duckduckgo,brave": ddgs' brave raises KeyError on a range
    assert answer.notes == (
        "duckduckgo: search_lang, search_result_language de needs a content_country (ddgs takes a "
        "country-language region), ignored; searched all regions (wt-wt); duckduckgo: ddgs backend brave cannot "
        "take an explicit date_range; searched with duckduckgo only")


@pytest.mark.parametrize("backend, date_range, sent_backend, timelimit, note", [
    ("auto", "2024-01-01..2024-02-01", "duckduckgo", "2024-01-01..2024-02-01", None),
    ("auto", "month", "duckduckgo,brave", "m", None),
    ("all", None, "all", None, None),
    ("brave,wikipedia", "week", "brave", "w", "duckduckgo: ddgs backend wikipedia cannot take date_range; "
                                                "searched with brave only"),
    ("brave", "2024-01-01..", "brave", None, "duckduckgo: an explicit date_range is honoured only by ddgs' "
                                             "duckduckgo backend, not by duckduckgo_backend 'brave'; date_range ignored"),
])
def test_date_ranges_go_only_to_backends_that_honour_them(monkeypatch, make_settings, backend, date_range,
                                                         sent_backend, timelimit, note):
    settings = make_settings({"search": {"search_cache_ttl_seconds": 0},
                              "engines": {"duckduckgo_backend": backend}})
    text = RecordingText(RESULTS[:1]).install(monkeypatch)
    answer = search_with("duckduckgo", "q", settings, country="US", search_lang="en", count=3, date_range=date_range)
    assert (text.calls[0]["backend"], text.calls[0]["timelimit"]) == (sent_backend, timelimit)
    assert answer.notes == note


def test_one_language_in_the_region_the_other_is_noted(monkeypatch, ddg_settings):
    text = RecordingText(RESULTS[:1]).install(monkeypatch)
    answer = search_with("duckduckgo", "q", ddg_settings, country="DE", search_lang="de", count=3, result_lang="fr")
    assert text.calls[0]["region"] == "de-fr"
    assert answer.notes == ("duckduckgo: its region takes one language; search_result_language fr "
                                          "sent, search_lang de ignored")


def test_default_languages_without_a_country_are_not_noted(monkeypatch, ddg_settings):
    """The [search] language defaults are preferences: lost with content_country 'all', but not the caller's."""
    text = RecordingText(RESULTS[:1]).install(monkeypatch)
    answer = search_with("duckduckgo", "q", ddg_settings, country="all", count=3)
    assert text.calls[0]["region"] == "wt-wt" and answer.notes is None


def test_unsupported_options_are_reported(monkeypatch, ddg_settings):
    RecordingText(RESULTS[:1]).install(monkeypatch)
    answer = search_with("duckduckgo", "q", ddg_settings, country="US", search_lang="en", count=3, sort="date",
                         dedupe_filter=0)
    assert answer.notes == "duckduckgo: filter, sort_results_by not supported, ignored"


@pytest.mark.parametrize("error, message, calls", [
    (RatelimitException("https://html.duckduckgo.com/html 202 Ratelimit"), "DuckDuckGo is rate-limiting Quarry", 2),
    (TimeoutException("https://html.duckduckgo.com/html timed out"), "DuckDuckGo did not answer within 15 s", 2),
    (DDGSException("No results found."), None, 1),
    (DDGSException("https://duckduckgo.com 403 Forbidden captcha"), "DuckDuckGo blocked the request", 1),
])
def test_ddgs_exceptions_become_typed_errors(monkeypatch, ddg_settings, error, message, calls):
    text = RecordingText(error=error).install(monkeypatch)
    answer = search_with("duckduckgo", "q", ddg_settings, country="US", search_lang="en", count=3, sleep=lambda s: None)
    if message is None:
        assert answer.error is None and answer.hits == []
    else:
        assert answer.error.startswith(message)
    assert len(text.calls) == calls  # rate limits and time-outs are retried (search_max_retries = 1)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_real_ddgs_failing_to_connect_becomes_a_clean_error(monkeypatch, ddg_settings):
    """No stand-in: the installed ddgs runs its own request code through a proxy that refuses (DDGS_PROXY),
    so it raises its real DDGSException at once, online or not."""
    monkeypatch.setenv("DDGS_PROXY", f"http://127.0.0.1:{_closed_port()}")
    answer = search_with("duckduckgo", "quarry offline check", ddg_settings, country="US", search_lang="en", count=3,
                         sleep=lambda s: None)
    assert answer.error == ("cannot reach DuckDuckGo (connection failed); check your internet connection (or "
                               "the proxy in DDGS_PROXY)")
    assert answer.seconds < 10


def test_real_ddgs_key_error_from_a_backend_becomes_a_clear_message():
    """ddgs' brave backend raises KeyError on an explicit range (before any request); ddgs wraps it in a
    DDGSException. Quarry never sends that, but should ddgs do it for another option, the message is clear."""
    with pytest.raises(DDGSException) as raised:
        DDGS(timeout=1).text("q", backend="brave", timelimit="2024-01-01..2024-02-01")
    with pytest.raises(SearchError) as mapped:
        _from_library_error(raised.value, "brave")
    assert str(mapped.value) == ("DuckDuckGo: ddgs' brave backend cannot take one of the search options (KeyError: "
                                 "'2024-01-01..2024-02-01'); set duckduckgo_backend to duckduckgo")


def test_cli_search_with_duckduckgo(monkeypatch, ddg_settings, capsys):
    from App_Function_Libraries.CLI.main import main as cli_main
    text = RecordingText(RESULTS).install(monkeypatch)
    rc = cli_main(["--config", str(ddg_settings.path), "search", "uk news", "--engine", "duckduckgo", "--count",
                   "5", "--country", "GB", "--date-range", "day"])
    out = capsys.readouterr().out
    assert rc == 0 and "3 result(s) from duckduckgo" in out and "https://www.thesun.co.uk/" in out
    assert text.calls[0]["region"] == "uk-en" and text.calls[0]["timelimit"] == "d"
