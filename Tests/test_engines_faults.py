"""Faults: bad keys, refusals, rate limits, server errors, time-outs, malformed JSON, HTML instead of JSON,
dead hosts. Each ends in `error` with the right message and no exception, after the specified number of
tries; Retry-After is honoured (the sleep is faked and the delays asked for are checked); repeated failures
suspend the engine; keys never show."""
from __future__ import annotations

import re
import socket

import pytest

from App_Function_Libraries.Search.errors import RateLimited, TimedOut
from App_Function_Libraries.Search.health import LONG_SUSPENSION, SHORT_SUSPENSION, HealthBoard
from App_Function_Libraries.Search.engine import engine_health_check, search_with
from Tests.support.search_apis import KEY, PATHS, SearchAPIs, clean_health  # noqa: F401 (autouse)
from Tests.support.testworld import Response


class FakeSleep:
    def __init__(self):
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def setup(world, make_settings):
    def factory(retries=2, timeout=15, suspend_after=3, **engine_overrides):
        apis = SearchAPIs(world).install()
        config = apis.config(search_max_retries=retries, search_timeout_seconds=timeout,
                             search_suspend_after_failures=suspend_after, search_cache_ttl_seconds=0)
        config["engines"].update(engine_overrides)
        apis.settings = make_settings(config)
        return apis
    return factory


def search(apis, engine, sleep=None, **kw):
    return search_with(engine, "solar power", apis.settings, country="US", search_lang="en", count=5, sleep=sleep, **kw)


@pytest.mark.parametrize("engine, message", [
    ("bing", "Bing rejected the subscription key (HTTP 401: Access denied due to invalid subscription key"),
    ("brave", "Brave rejected the subscription token (HTTP 422: The provided subscription token is invalid.)"),
    ("google", "Google rejected the API key (HTTP 400: API key not valid. Please pass a valid API key.)"),
    ("kagi", "Kagi rejected the API token (HTTP 401: Unauthorized)"),
    ("tavily", "Tavily rejected the API key (HTTP 401: Unauthorized: missing or invalid API key.)"),
    ("serper", "Serper rejected the API key (HTTP 403: Unauthorized.)"),
])
def test_bad_key_in_each_service_format(setup, engine, message):
    apis = setup(**{f"{engine}_api_key": "wrong-key-123"})
    answer = search(apis, engine)
    assert answer.error.startswith(message)
    assert f"check {engine}_api_key" in answer.error
    assert "wrong-key-123" not in answer.error
    assert len(apis.requests_to(engine)) == 1  # a bad key is not retried


def test_searxng_403_means_json_output_disabled(setup):
    apis = setup()
    apis.searxng_json = False
    answer = search(apis, "searxng")
    assert answer.error.startswith("this SearXNG instance has JSON output disabled: add `json` to "
                                      "`search.formats` in its settings.yml")


def test_searxng_403_with_a_key_set_blames_the_credentials_first(setup, world):
    apis = setup(searxng_api_key="proxy-token-123456")
    world.fault(PATHS["searxng"] + "/search", status=403, body=b"<html><h1>403 Forbidden</h1>nginx</html>",
                content_type="text/html")
    answer = search(apis, "searxng")
    assert answer.error == (
        "SearXNG refused the request (HTTP 403) although searxng_api_key is set: the instance or the authenticating "
        "proxy in front of it did not accept the credentials; check searxng_api_key. If they are right, the "
        "instance may have JSON output disabled: add `json` to `search.formats` in its settings.yml")
    assert apis.requests_to("searxng")[-1].header("authorization") == "Bearer proxy-token-123456"
    assert "proxy-token-123456" not in answer.error


def test_empty_searxng_answer_lists_unresponsive_engines(setup):
    apis = setup()
    apis.searxng_unresponsive = [["google", "CAPTCHA"], ["duckduckgo", "timeout"]]
    answer = search(apis, "searxng")
    assert "upstream engines did not answer: google (CAPTCHA), duckduckgo (timeout)" in answer.error


def test_429_retried_honouring_retry_after_then_succeeds(setup, world):
    apis = setup(retries=2)
    world.fault(PATHS["brave"], status=429, headers={"Retry-After": "7"}, times=2)
    sleep = FakeSleep()
    answer = search(apis, "brave", sleep=sleep)
    assert answer.error is None and len(answer.hits) == 5
    assert sleep.delays == [7.0, 7.0]
    assert len(apis.requests_to("brave")) == 3


def test_429_every_time_gives_up_after_the_retries(setup, world):
    apis = setup(retries=2)
    world.fault(PATHS["bing"], status=429, headers={"Retry-After": "2"},
                body=b'{"error": {"code": "429", "message": "Rate limit is exceeded."}}')
    sleep = FakeSleep()
    answer = search(apis, "bing", sleep=sleep)
    assert answer.error == ("Bing is rate-limiting Quarry (HTTP 429) (Rate limit is exceeded.); wait a minute "
                               "or search fewer sub-queries at once (after 3 tries)")
    assert len(apis.requests_to("bing")) == 3 and sleep.delays == [2.0, 2.0]


def test_500_retried_with_exponential_backoff(setup, world):
    apis = setup(retries=2)
    world.fault(PATHS["kagi"], status=503, body=b"upstream down")
    sleep = FakeSleep()
    answer = search(apis, "kagi", sleep=sleep)
    assert answer.error.startswith("Kagi had a server error (HTTP 503) (upstream down); try again later")
    assert answer.error.endswith("(after 3 tries)")
    assert len(sleep.delays) == 2
    assert 0.375 <= sleep.delays[0] <= 0.625 and 0.75 <= sleep.delays[1] <= 1.25  # 0.5 s, then 1 s, ±25 %


def test_timeout_is_retried_and_reported(setup, world):
    apis = setup(retries=1, timeout=0.2)
    world.fault(PATHS["serper"], delay=0.6)
    answer = search(apis, "serper", sleep=FakeSleep())
    assert answer.error == "Serper did not answer within 0.2 s (after 2 tries)"
    assert answer.seconds < 2.0
    assert len(apis.requests_to("serper")) == 2


def test_malformed_json_is_a_bad_response_not_retried(setup, world):
    apis = setup(retries=2)
    world.fault(PATHS["tavily"], malformed_json=True)
    answer = search(apis, "tavily", sleep=FakeSleep())
    assert answer.error.startswith("Tavily sent malformed JSON (HTTP 200, application/json")
    assert len(apis.requests_to("tavily")) == 1


def test_html_instead_of_json_names_the_configured_url(setup, world):
    apis = setup()
    world.fault(PATHS["google"], content_type="text/html", status=200, body=b"<html><body>Welcome</body></html>")
    answer = search(apis, "google")
    assert answer.error == (f"Google Custom Search answered HTML (text/html) instead of JSON: is the configured "
                               f"URL ({apis.url('google')}) its API endpoint?")


def test_captcha_page_is_reported_as_blocked(setup, world):
    apis = setup()
    world.fault(PATHS["brave"], status=200, headers={"Content-Type": "text/html"},
                body=b"<html><title>Captcha</title><p>Are you a robot?</p></html>")
    answer = search(apis, "brave")
    assert answer.error.startswith("Brave Search answered with a CAPTCHA/bot-check page instead of results")


def test_wrong_endpoint_404(setup, world):
    apis = setup(serper_api_url=world.url("/nowhere"))
    assert search(apis, "serper").error == ("Serper has no API at the configured address (HTTP 404); "
                                               "check serper_api_url")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused(setup):
    url = f"http://127.0.0.1:{_closed_port()}/search"
    apis = setup(bing_api_url=url)
    answer = search(apis, "bing")
    assert answer.error == f"cannot reach Bing at {url}: connection refused; check the address and your network"


def test_connection_reset(setup, world):
    apis = setup(retries=0)
    world.fault(PATHS["kagi"], reset=True)
    assert search(apis, "kagi").error.startswith("cannot reach Kagi at")


def test_key_echoed_by_a_server_never_shows(setup, world):
    apis = setup(retries=0)
    world.fault(PATHS["serper"], status=500, body=f'{{"message": "internal error for key {KEY}"}}'.encode())
    answer = search(apis, "serper")
    assert KEY not in answer.error and "internal error for key ***" in answer.error


def test_later_page_failure_keeps_earlier_pages(setup, world):
    apis = setup(retries=0)
    serve_google = apis.google

    def second_page_breaks(req):
        return serve_google(req) if req.arg("start") == "1" else Response.text("boom", 500)
    world.route("GET", PATHS["google"], second_page_breaks)
    answer = search_with("google", "solar power", apis.settings, country="US", search_lang="en", count=15,
                         use_cache=False)
    assert answer.error is None and len(answer.hits) == 10
    assert "google: page 2 failed, kept the earlier pages" in answer.notes


# ---------------------------------------------------------------- health and suspension

def test_repeated_failures_suspend_the_engine(setup, world):
    apis = setup(retries=0, suspend_after=3)
    world.fault(PATHS["bing"], status=500)
    for _ in range(3):
        assert "server error" in search(apis, "bing").error
    answer = search(apis, "bing")
    # 60 s, less the moments a loaded machine takes between the third failure and this search
    assert re.match(r"bing is suspended for (?:5[89]|60) s more after 3 failures in a row", answer.error)
    assert len(apis.requests_to("bing")) == 3  # the suspended call did not reach the server
    assert search(apis, "brave").error is None  # other engines unaffected
    ok, message = engine_health_check("bing", apis.settings)
    assert ok is False and "suspended" in message


def test_suspension_is_longer_after_429_and_grows(setup):
    clock = [1000.0]
    board = HealthBoard(clock=lambda: clock[0])
    board.record_failure("x", TimedOut("t"), threshold=2)
    assert board.suspension_message("x") is None
    board.record_failure("x", TimedOut("t"), threshold=2)
    assert board.snapshot()["x"].suspended_until == 1000 + SHORT_SUSPENSION
    clock[0] += SHORT_SUSPENSION + 1
    assert board.suspension_message("x") is None  # one try is let through
    board.record_failure("x", RateLimited("r", retry_after=5), threshold=2)
    assert board.snapshot()["x"].suspended_until == clock[0] + LONG_SUSPENSION * 2
    board.record_success("x")
    assert board.suspension_message("x") is None and board.snapshot()["x"].consecutive_failures == 0


def test_the_time_left_is_rounded_up():
    clock = [0.0]
    board = HealthBoard(clock=lambda: clock[0])
    board.record_failure("x", TimedOut("t"), threshold=1)
    clock[0] = 0.6  # a slow machine: the next search comes a moment later
    assert board.suspension_message("x").startswith(f"x is suspended for {SHORT_SUSPENSION:.0f} s more")
    clock[0] = SHORT_SUSPENSION - 0.4
    assert board.suspension_message("x").startswith("x is suspended for 1 s more")
    board.record_failure("y", RateLimited("r", retry_after=5), threshold=1)
    clock[0] += 30
    assert board.suspension_message("y").startswith(f"y is suspended for {LONG_SUSPENSION / 60:.0f} min more")


def test_retry_after_longer_than_the_suspension_wins():
    board = HealthBoard(clock=lambda: 0.0)
    board.record_failure("x", RateLimited("r", retry_after=5000), threshold=1)
    assert board.snapshot()["x"].suspended_until == 5000


def test_health_check_verdicts(setup):
    apis = setup()
    ok, message = engine_health_check("brave", apis.settings)
    assert ok is True and message.startswith(f"Brave Search answers at {apis.url('brave')}: 1 result(s)")
    apis_bad = setup(kagi_api_key="nope-nope")
    ok, message = engine_health_check("kagi", apis_bad.settings)
    assert ok is False and "Kagi rejected the API token" in message and "nope-nope" not in message
    apis_none = setup(tavily_api_key="")
    assert engine_health_check("tavily", apis_none.settings)[0] is None
    assert engine_health_check("nosuch", apis.settings)[0] is False


def test_status_lines_cover_configured_engines(setup):
    from App_Function_Libraries.status import status_lines
    apis = setup()
    verdicts = {v.name: v for v in status_lines(apis.settings)}
    assert verdicts["engine bing"].ok is True and verdicts["engine searxng"].ok is True
    assert all(KEY not in v.message for v in verdicts.values())
