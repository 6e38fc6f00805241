"""Faults on the scholarly engines: PubMed's second request failing, retried and typed like the first; 429s
retried with back-off (Retry-After honoured) and then suspending the engine; time-outs; malformed XML; HTML
where Atom or JSON belongs; a key echoed in a 5xx body; `check` and the health record covering them."""
from __future__ import annotations

import pytest

from App_Function_Libraries.Search.engine import engine_health_check, engine_health_snapshot, search_with
from App_Function_Libraries.status import configured_engines
from Tests.support.scholarly_apis import ENGINES, KEY, PATHS, ScholarlyAPIs
from Tests.support.search_apis import clean_health  # noqa: F401 (autouse)
from Tests.test_engines_faults import FakeSleep


@pytest.fixture
def setup(world, make_settings):
    def factory(retries=2, timeout=15, suspend_after=3):
        apis = ScholarlyAPIs(world).install()
        apis.settings = make_settings(apis.config(search_max_retries=retries, search_timeout_seconds=timeout,
                                                  search_suspend_after_failures=suspend_after))
        return apis
    return factory


def search(apis, engine, sleep=None):
    return search_with(engine, "protein folding", apis.settings, count=5, sleep=sleep or FakeSleep(), use_cache=False)


def test_pubmed_efetch_500_is_retried_alone_then_succeeds(setup, world):
    apis = setup()
    world.fault(PATHS["pubmed"] + "/efetch.fcgi", status=502, body=b"Bad Gateway", times=1)
    sleep = FakeSleep()
    answer = search(apis, "pubmed", sleep)
    assert answer.error is None and len(answer.hits) == 5
    paths = [r.path.rsplit("/", 1)[1] for r in apis.requests_to("pubmed")]
    assert paths == ["esearch.fcgi", "efetch.fcgi", "efetch.fcgi"]  # the esearch is not repeated
    assert len(sleep.delays) == 1


def test_pubmed_efetch_failing_every_time_is_the_answers_error(setup, world):
    apis = setup(retries=1)
    world.fault(PATHS["pubmed"] + "/efetch.fcgi", status=500, body=b"Internal Server Error")
    answer = search(apis, "pubmed")
    assert answer.error.startswith("PubMed had a server error (HTTP 500)")
    assert answer.error.endswith("(after 2 tries)") and answer.hits == []
    assert engine_health_snapshot(apis.settings)["pubmed"].last_error_kind == "server_error"


def test_429_retried_honouring_retry_after_then_succeeds(setup, world):
    apis = setup()
    world.fault(PATHS["crossref"], status=429, headers={"Retry-After": "7"}, body=b"Too Many Requests", times=2)
    sleep = FakeSleep()
    answer = search(apis, "crossref", sleep)
    assert answer.error is None and len(answer.hits) == 5
    assert sleep.delays == [7.0, 7.0]


def test_rate_limit_every_time_suspends_the_engine(setup):
    apis = setup(retries=0, suspend_after=2)
    apis.rate_limited.add("semanticscholar")
    for _ in range(2):
        assert search(apis, "semanticscholar").error.startswith("Semantic Scholar is rate-limiting Quarry")
    third = search(apis, "semanticscholar")
    assert "suspended" in third.error and len(apis.requests_to("semanticscholar")) == 2
    assert engine_health_snapshot(apis.settings)["semanticscholar"].suspended_until > 0


def test_timeout_is_retried_and_reported(setup, world):
    apis = setup(retries=1, timeout=0.3)
    world.fault(PATHS["openalex"], delay=0.8)
    answer = search(apis, "openalex")
    assert answer.error.startswith("OpenAlex did not answer within 0.3 s")
    assert len(apis.requests_to("openalex")) == 2


@pytest.mark.parametrize("engine, body, message", [
    ("arxiv", b"<?xml version='1.0'?><feed xmlns='http://www.w3.org/2005/Atom'><entry><title>cut",
     "arXiv sent malformed XML (HTTP 200"),
    ("pubmed", b"<eSearchResult><Count>3</Count><IdList><Id>1</Id>", "PubMed sent malformed XML (HTTP 200"),
    ("arxiv", b"<!DOCTYPE html><html><body>Welcome</body></html>", "arXiv answered HTML (text/html) instead of XML"),
    ("openalex", b"<!DOCTYPE html><html><body>404</body></html>", "OpenAlex answered HTML (text/html) instead of JSON"),
])
def test_broken_answers_are_bad_responses_not_retried(setup, world, engine, body, message):
    apis = setup()
    path = PATHS[engine] + ("/esearch.fcgi" if engine == "pubmed" else "")
    ctype = "text/html" if b"html" in body else "text/xml"
    world.fault(path, status=200, body=body, content_type=ctype)
    answer = search(apis, engine)
    assert answer.error.startswith(message), answer.error
    assert len(apis.requests_to(engine)) == 1


def test_well_formed_xml_of_another_kind_is_a_bad_response(setup, world):
    apis = setup()
    world.fault(PATHS["arxiv"], status=200, body=b"<rss><channel/></rss>", content_type="application/xml")
    assert search(apis, "arxiv").error == "arXiv gave an answer Quarry does not understand: expected an Atom feed"


def test_key_echoed_in_a_server_error_never_shows(setup, world):
    apis = setup(retries=0)
    world.fault(PATHS["openalex"], status=500, body=f'{{"error": "internal error for api_key={KEY}"}}'.encode())
    answer = search(apis, "openalex")
    assert answer.error.startswith("OpenAlex had a server error (HTTP 500)") and KEY not in answer.error
    assert KEY not in engine_health_snapshot(apis.settings)["openalex"].last_error


def test_check_probes_each_scholarly_engine(setup):
    apis = setup()
    assert set(ENGINES) <= set(configured_engines(apis.settings))  # they need no key
    for engine in ENGINES:
        ok, message = engine_health_check(engine, apis.settings)
        assert ok is True, message
        assert "answers at http://127.0.0.1" in message and KEY not in message
    apis.rate_limited.add("arxiv")
    ok, message = engine_health_check("arxiv", apis.settings)
    assert ok is False and message.startswith("arXiv asks Quarry to slow down (HTTP 503)")


def test_a_refused_request_says_the_services_reason(setup, world):
    apis = setup()
    world.fault(PATHS["semanticscholar"], status=400, body=b'{"error": "Unrecognized or unsupported fields: [x]"}')
    answer = search(apis, "semanticscholar")
    assert answer.error == "Semantic Scholar refused the request (HTTP 400: Unrecognized or unsupported fields: [x])"
    assert len(apis.requests_to("semanticscholar")) == 1  # not retried
