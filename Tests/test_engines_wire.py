"""Each engine against the test world playing its API: results parsed, paging, and every advanced option
reaching the wire as that service expects it (asserted on the request the server received)."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from App_Function_Libraries.Search.engine import search_with
from Tests.support.search_apis import KEY, NOTHING_QUERY, TOTAL, SearchAPIs

HTTP_ENGINES = ("bing", "brave", "google", "searxng", "kagi", "tavily", "serper")
ALL_OPTIONS = dict(country="DE", search_lang="de", result_lang="fr", date_range="week",
                   safesearch="strict", site_blacklist=["pinterest.com", "www.quora.com"],
                   exact_terms="solar panel", exclude_terms=["cheap"], dedupe_filter=1, geolocation="AT",
                   sort="date")


@pytest.fixture
def apis(world, make_settings):
    apis = SearchAPIs(world).install()
    apis.settings = make_settings(apis.config())
    return apis


def search(apis, engine, query="solar power", count=10, **options):
    options.setdefault("country", "US")
    options.setdefault("search_lang", "en")
    return search_with(engine, query, apis.settings, count=count, use_cache=False, **options)


def sent(apis, engine):
    """The last request the engine's endpoint received: its query args (GET) or JSON body (POST)."""
    req = apis.requests_to(engine)[-1]
    if req.method == "POST":
        return req.json()
    return {k: v[0] for k, v in req.query.items()}


@pytest.mark.parametrize("engine", HTTP_ENGINES)
def test_engine_returns_clean_results_in_the_contract_shape(apis, engine):
    answer = search(apis, engine, count=5)
    assert answer.error is None
    wire = answer.to_dict()  # web_search_results_dict: the JSON of `python app.py search --json`
    assert wire["search_engine"] == engine and wire["search_query"] == "solar power"
    assert len(answer.hits) == 5
    first = answer.hits[0]
    assert set(wire["results"][0]) == {"title", "url", "content", "metadata"}
    assert set(wire["results"][0]["metadata"]) == {"date_published", "author", "source", "language",
                                                   "relevance_score", "snippet"}
    assert first.url == "https://www.site0.example/solar-power/1/"
    assert first.title == "solar power — result 1"
    assert "<" not in first.snippet and "&amp;" not in first.snippet and "facts & figures" in first.snippet
    assert answer.total >= 5 and answer.seconds >= 0
    assert answer.cached is False


@pytest.mark.parametrize("engine", HTTP_ENGINES)
def test_engine_with_no_results_is_not_an_error(apis, engine):
    answer = search(apis, engine, query=f"{NOTHING_QUERY} here")
    assert answer.error is None and answer.hits == []


@pytest.mark.parametrize("engine, requests_for_35", [("bing", 1), ("brave", 2), ("google", 4), ("searxng", 4),
                                                      ("serper", 1)])
def test_paging_collects_the_count_asked(apis, engine, requests_for_35):
    answer = search(apis, engine, count=35)
    assert answer.error is None
    assert [r.url for r in answer.hits][-1].endswith("/35/")
    assert len(answer.hits) == 35
    assert len(apis.requests_to(engine)) == requests_for_35


def test_google_pages_past_its_ten_per_request_cap(apis):
    search(apis, "google", count=25)
    pages = [(r.arg("start"), r.arg("num")) for r in apis.requests_to("google")]
    assert pages == [("1", "10"), ("11", "10"), ("21", "5")]


def test_google_stops_at_100_results(apis):
    answer = search(apis, "google", count=100)
    assert len(answer.hits) == TOTAL  # the service has 57
    assert all(int(r.arg("start")) + int(r.arg("num")) <= 101 for r in apis.requests_to("google"))


def test_bing_options_on_the_wire(apis):
    answer = search(apis, "bing", count=25, **ALL_OPTIONS)
    wire = sent(apis, "bing")
    assert apis.requests_to("bing")[-1].header("ocp-apim-subscription-key") == KEY
    assert wire["q"] == 'solar power "solar panel" -cheap -site:pinterest.com -site:quora.com'
    assert wire["mkt"] == "fr-DE" and wire["setLang"] == "de" and "cc" not in wire
    assert wire["safeSearch"] == "Strict" and wire["freshness"] == "Week"
    assert wire["count"] == "25" and wire["offset"] == "0"
    assert answer.notes == "bing: filter, geolocation, sort_results_by not supported, ignored"


def test_bing_year_and_explicit_ranges_become_date_ranges(apis):
    before = date.today()
    search(apis, "bing", date_range="year")
    after = date.today()  # a run across midnight may have built its range on either day
    assert sent(apis, "bing")["freshness"] in {f"{d - timedelta(days=365)}..{d}" for d in (before, after)}
    search(apis, "bing", date_range="2024-01-01..2024-02-15")
    assert sent(apis, "bing")["freshness"] == "2024-01-01..2024-02-15"


def test_brave_options_on_the_wire(apis):
    answer = search(apis, "brave", count=25, **ALL_OPTIONS)
    first, second = apis.requests_to("brave")
    assert first.header("x-subscription-token") == KEY
    wire = {k: v[0] for k, v in first.query.items()}
    assert wire["q"] == 'solar power "solar panel" -cheap -site:pinterest.com -site:quora.com'
    assert wire["country"] == "DE" and wire["search_lang"] == "fr" and wire["ui_lang"] == "de-DE"
    assert wire["safesearch"] == "strict" and wire["freshness"] == "pw"
    assert wire["count"] == "20" and wire["offset"] == "0" and second.arg("offset") == "1"
    assert answer.notes == "brave: filter, geolocation, sort_results_by not supported, ignored"
    search(apis, "brave", date_range=("2024-01-01", "2024-02-01"))
    assert sent(apis, "brave")["freshness"] == "2024-01-01to2024-02-01"


def test_google_options_on_the_wire(apis):
    answer = search(apis, "google", count=5, **{**ALL_OPTIONS, "site_blacklist": ["pinterest.com"]})
    req = apis.requests_to("google")[-1]
    wire = sent(apis, "google")
    assert req.header("x-goog-api-key") == KEY and "key" not in wire  # the key never travels in the URL
    assert wire["cx"] == "test-cx-123" and wire["q"] == "solar power"
    assert wire["siteSearch"] == "pinterest.com" and wire["siteSearchFilter"] == "e"
    assert wire["exactTerms"] == "solar panel" and wire["excludeTerms"] == "cheap"
    assert wire["gl"] == "at" and wire["cr"] == "countryDE" and wire["hl"] == "de" and wire["lr"] == "lang_fr"
    assert wire["safe"] == "active" and wire["dateRestrict"] == "w1" and wire["sort"] == "date"
    assert wire["filter"] == "1" and wire["num"] == "5"
    assert answer.notes is None


def test_google_several_blacklisted_sites_and_explicit_range(apis):
    answer = search(apis, "google", site_blacklist="a.com, b.org", date_range="2023-01-01..2023-12-31",
                    sort="date", safesearch="moderate")
    wire = sent(apis, "google")
    assert wire["q"] == "solar power -site:a.com -site:b.org" and "siteSearch" not in wire
    assert wire["sort"] == "date:r:20230101:20231231"
    assert "sort_results_by ignored" in answer.notes
    assert "moderate sent as active" in answer.notes


def test_google_takes_one_exact_phrase_and_one_excluded_term_the_rest_go_in_q(apis):
    answer = search(apis, "google", exact_terms=["solar panel", "heat pump", "grid"], exclude_terms="cheap used",
                    safesearch="off")
    wire = sent(apis, "google")
    assert wire["exactTerms"] == "solar panel" and wire["excludeTerms"] == "cheap"
    assert wire["q"] == 'solar power "heat pump" "grid" -used'
    assert answer.error is None and answer.notes is None


def test_searxng_options_on_the_wire(apis):
    answer = search(apis, "searxng", **ALL_OPTIONS)
    wire = sent(apis, "searxng")
    assert apis.requests_to("searxng")[-1].path == "/searxng/search"
    assert wire["format"] == "json" and wire["pageno"] == "1" and wire["categories"] == "general"
    assert wire["q"] == 'solar power "solar panel" -cheap -site:pinterest.com -site:quora.com'
    assert wire["language"] == "fr-DE" and wire["safesearch"] == "2" and wire["time_range"] == "week"
    assert answer.notes == (
        "searxng: filter, geolocation, sort_results_by not supported, ignored; searxng: takes one language; "
        "search_result_language fr sent, search_lang de ignored")
    answer = search(apis, "searxng", date_range="2024-01-01..2024-02-01")
    assert "time_range" not in sent(apis, "searxng")
    assert "explicit date_range is not supported" in answer.notes


def test_searxng_notes_a_count_beyond_its_five_pages(apis):
    answer = search(apis, "searxng", count=80, safesearch="off")
    assert len(apis.requests_to("searxng")) == 5 and len(answer.hits) == 50
    assert answer.notes == ("searxng: result_count 80 may not be reached: Quarry asks for 5 pages "
                                          "at most (about 50 results)")


def test_bing_notes_a_result_language_it_cannot_send_without_a_country(apis):
    answer = search(apis, "bing", country="all", search_lang="de", result_lang="fr",
                    safesearch="off")
    wire = sent(apis, "bing")
    assert "mkt" not in wire and "cc" not in wire and wire["setLang"] == "de"
    assert answer.notes == ("bing: search_result_language fr needs a content_country (Bing takes it "
                                          "as mkt=xx-CC), ignored")


def test_config_defaults_an_engine_cannot_take_are_not_noted_but_a_filtering_safesearch_is(apis):
    """[search] defaults (country US, languages en, safesearch moderate) are preferences: only a safesearch that
    filters is worth a note when the engine has none; options the caller set are noted unless neutral (off)."""
    answers = {e: search_with(e, "tea", apis.settings, count=3, use_cache=False)
               for e in ("kagi", "tavily", "serper", "google")}
    assert answers["kagi"].notes == "kagi: safesearch not supported, ignored"
    assert answers["tavily"].notes == "tavily: safesearch not supported, ignored"
    assert answers["serper"].notes == "serper: safesearch not supported, ignored"
    assert answers["google"].notes is None  # moderate is sent as safe=active: honoured, stricter
    assert sent(apis, "tavily")["country"] == "united states" and sent(apis, "serper")["hl"] == "en"
    quiet = search_with("kagi", "tea", apis.settings, count=3, safesearch="off", use_cache=False)
    assert quiet.notes is None
    asked = search_with("kagi", "tea", apis.settings, country="US", search_lang="en", count=3, safesearch="off",
                        use_cache=False)
    assert asked.notes == "kagi: content_country, search_lang not supported, ignored"


def test_searxng_key_is_sent_as_bearer_when_set(world, make_settings):
    apis = SearchAPIs(world).install()
    config = apis.config()
    config["engines"]["searxng_api_key"] = "proxy-token-1"
    apis.settings = make_settings(config)
    search(apis, "searxng")
    assert apis.requests_to("searxng")[-1].header("authorization") == "Bearer proxy-token-1"


def test_kagi_options_on_the_wire(apis):
    answer = search(apis, "kagi", count=7, **ALL_OPTIONS)
    req = apis.requests_to("kagi")[-1]
    assert req.header("authorization") == f"Bot {KEY}"
    assert sent(apis, "kagi") == {"q": 'solar power "solar panel" -cheap -site:pinterest.com -site:quora.com',
                                  "limit": "7"}
    assert answer.notes == (
        "kagi: content_country, search_lang, search_result_language, date_range, safesearch, filter, "
        "geolocation, sort_results_by not supported, ignored")
    assert len(answer.hits) == 7  # the t=1 related-searches item is not a result


def test_tavily_options_on_the_wire(apis):
    answer = search(apis, "tavily", count=30, **ALL_OPTIONS)
    req = apis.requests_to("tavily")[-1]
    body = req.json()
    assert req.method == "POST" and req.header("authorization") == f"Bearer {KEY}"
    assert body["query"] == "solar power" and body["max_results"] == 20
    assert body["exclude_domains"] == ["pinterest.com", "quora.com"]
    assert body["time_range"] == "week" and body["country"] == "germany" and body["topic"] == "general"
    assert "api_key" not in body
    assert answer.notes == (
        "tavily: search_lang, search_result_language, safesearch, exactTerms, excludeTerms, filter, geolocation, "
        "sort_results_by not supported, ignored; tavily: result_count 30 is more than the 20 it returns, "
        "asked for 20")
    search(apis, "tavily", date_range="2024-01-01..2024-02-01")
    body = apis.requests_to("tavily")[-1].json()
    assert body["start_date"] == "2024-01-01" and body["end_date"] == "2024-02-01" and "time_range" not in body


def test_serper_options_on_the_wire(apis):
    answer = search(apis, "serper", count=25, **ALL_OPTIONS)
    req = apis.requests_to("serper")[-1]
    body = req.json()
    assert req.method == "POST" and req.header("x-api-key") == KEY
    assert body["q"] == 'solar power "solar panel" -cheap -site:pinterest.com -site:quora.com'
    assert body["gl"] == "at" and body["hl"] == "de" and body["tbs"] == "qdr:w" and body["num"] == 30
    assert answer.notes == (
        "serper: search_result_language, safesearch, filter, sort_results_by not supported, ignored; serper: "
        "content_country and geolocation are both its gl; gl=at (geolocation) sent, content_country DE ignored")
    assert len(answer.hits) == 25
    search(apis, "serper", date_range="2024-01-05..2024-02-01")
    assert apis.requests_to("serper")[-1].json()["tbs"] == "cdr:1,cd_min:1/5/2024,cd_max:2/1/2024"


@pytest.mark.parametrize("engine", HTTP_ENGINES)
def test_blacklisted_sites_are_removed_even_when_the_service_returns_them(apis, engine):
    answer = search(apis, engine, count=10, site_blacklist=["site1.example"])
    assert answer.hits and all("site1.example" not in r.url for r in answer.hits)


def test_config_defaults_fill_options_left_none(world, make_settings):
    apis = SearchAPIs(world).install()
    apis.settings = make_settings(apis.config(search_content_country="GB", search_language_query="en",
                                              search_language_results="de", search_safesearch="off",
                                              search_result_blacklist="pinterest.com",
                                              search_result_max_per_query=3))
    answer = search_with("bing", "tea", apis.settings, use_cache=False)
    wire = sent(apis, "bing")
    assert wire["mkt"] == "de-GB" and wire["safeSearch"] == "Off" and wire["count"] == "3"
    assert wire["q"] == "tea -site:pinterest.com"
    echoed = answer.to_dict()  # the options echoed as the caller gave them
    assert echoed["content_country"] is None and echoed["result_count"] is None
    assert len(answer.hits) == 3


@pytest.mark.parametrize("bad, message", [
    (dict(date_range="fortnight"), "date_range 'fortnight' is not understood"),
    (dict(safesearch="banana"), "safesearch 'banana' is not one of off, moderate, strict"),
    (dict(country="Germany"), "not a two-letter country code"),
    (dict(sort="popularity"), "sort_results_by 'popularity'"),
    (dict(site_blacklist=["not a domain!"]), "not a domain"),
    (dict(date_range="2024-05-01..2024-01-01"), "ends before it starts"),
])
def test_bad_options_give_a_clear_error_and_send_nothing(apis, bad, message):
    answer = search(apis, "bing", **bad)
    assert message in answer.error and answer.hits == []
    assert apis.requests_to("bing") == []


def test_unknown_engine_and_bad_count(apis):
    assert "unknown search engine 'altavista'" in search(apis, "altavista").error
    assert "between 1 and 100" in search(apis, "bing", count=0).error
    assert "query is empty" in search(apis, "bing", query="   ").error


def test_engine_without_key_says_what_to_set(world, make_settings):
    settings = make_settings({"engines": {"brave_api_key": ""}})
    answer = search_with("brave", "x", settings, country="US", search_lang="en", count=5)
    assert answer.error.startswith("Brave Search is not configured: set brave_api_key (or QUARRY_BRAVE_API_KEY)")
