"""The pure parts: markup stripping, dates, URL normalization, option parsing, each engine's response
parser on answers shaped like the real services' (BOM, markup, missing URLs), and property tests that no
parser raises on arbitrary JSON."""
from __future__ import annotations

import json
from datetime import date

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from App_Function_Libraries.Search.engines import ENGINE_MODULES, load_engine
from App_Function_Libraries.Search.engines.base import Connection, SearchOptions
from App_Function_Libraries.Search.errors import InvalidOption
from App_Function_Libraries.Search.options import build_options, parse_date_range
from App_Function_Libraries.Search.engines.textclean import iso_date, strip_markup
from App_Function_Libraries.Search.urls import matches_site, normalize_url

OPTS = SearchOptions(query="q", today=date(2024, 6, 10))


@pytest.mark.parametrize("raw, clean", [
    ("<b>Grand Canyon</b> National Park. Located&nbsp;...", "Grand Canyon National Park. Located ..."),
    ("Kernel <strong>combines prompts</strong> the model&#x27;s request", "Kernel combines prompts the model's request"),
    ("Even if you don&amp;#39;t intend", "Even if you don't intend"),  # escaped twice
    ("&lt;b&gt;bold&lt;/b&gt; text", "bold text"),
    ("a < b and c > d", "a < b and c > d"),
    ("\ufeffTitle\u00a0with  spaces\n", "Title with spaces"),
    ("<script>alert(1)</script>Safe", "Safe"),
    (None, ""), (42, ""),
])
def test_strip_markup(raw, clean):
    assert strip_markup(raw) == clean


@pytest.mark.parametrize("raw, iso", [
    ("2023-03-17T00:00:00.0000000", "2023-03-17"),
    ("2024-08-21T20:02:00.0000000Z", "2024-08-21T20:02:00+00:00"),
    ("2023-01-18T03:05:23+00:00", "2023-01-18T03:05:23+00:00"),
    ("2024-03-05", "2024-03-05"),
    ("Jan 29, 2023", "2023-01-29"),
    ("March 5, 2024", "2024-03-05"),
    ("5 Mar 2024", "2024-03-05"),
    ("Mon, 04 Mar 2024 10:00:00 GMT", "2024-03-04T10:00:00+00:00"),
    ("3 days ago", "2024-06-07"),
    ("2 weeks ago", "2024-05-27"),
    ("yesterday-ish", None), ("", None), (None, None), (1700000000, None),
])
def test_iso_date(raw, iso):
    assert iso_date(raw, today=date(2024, 6, 10)) == iso


@pytest.mark.parametrize("a, b", [
    ("https://www.example.org/page/", "http://example.org/page"),
    ("https://example.org/a?utm_source=x&utm_medium=y&id=3", "https://example.org/a?id=3"),
    ("https://example.org/a?b=2&a=1", "https://example.org/a?a=1&b=2"),
    ("https://EXAMPLE.org:443/a#section", "https://example.org/a"),
    ("https://example.org/a?gclid=1&fbclid=2", "https://example.org/a"),
    ("https://example.org/index.html", "https://example.org/"),
])
def test_normalize_url_equal(a, b):
    assert normalize_url(a) == normalize_url(b)


@pytest.mark.parametrize("a, b", [
    ("https://example.org/a", "https://example.org/b"),
    ("https://example.org/a?id=1", "https://example.org/a?id=2"),
    ("https://example.org:8080/a", "https://example.org/a"),
    ("https://blog.example.org/a", "https://example.org/a"),
])
def test_normalize_url_distinct(a, b):
    assert normalize_url(a) != normalize_url(b)


def test_matches_site():
    assert matches_site("https://www.pinterest.com/pin/1", "pinterest.com")
    assert matches_site("https://uk.pinterest.com/pin/1", "pinterest.com")
    assert not matches_site("https://notpinterest.com/", "pinterest.com")


def test_option_parsing_forms():
    assert parse_date_range("past_week").preset == "week"
    assert parse_date_range({"start": "2024-01-01"}).start == date(2024, 1, 1)
    assert parse_date_range("2024-01-01..").end is None
    opts = build_options("q", count="5", country="de", search_lang="en-GB", site_blacklist="https://www.a.com/x, b.org",
                         exact_terms=["one two", 'three "four"'], exclude_terms="x, y z", safesearch="on",
                         dedupe_filter="0")
    assert (opts.count, opts.country, opts.search_lang, opts.safesearch) == (5, "DE", "en", "strict")
    assert opts.site_blacklist == ("a.com", "b.org")
    assert opts.exact_terms == ("one two", "three four") and opts.exclude_terms == ("x", "y", "z")
    assert opts.dedupe_filter is False
    with pytest.raises(InvalidOption):
        build_options("q", count=5, country=None, search_lang="english please")


# ---------------------------------------------------------------- parsers on realistic answers

def parse(engine, data):
    return load_engine(engine).parse_response(data, OPTS)


def test_bing_parser_drops_results_without_url_and_reads_totals():
    page = parse("bing", {"_type": "SearchResponse", "webPages": {"totalEstimatedMatches": 2950000, "value": [
        {"name": "Intro | Docs", "url": "https://learn.example.com/overview/", "snippet": "It&#39;s <b>light</b>",
         "datePublished": "2024-06-24T00:00:00.0000000", "language": "en", "siteName": "Learn"},
        {"name": "No URL here", "snippet": "x"},
        {"name": "Bad URL", "url": "javascript:alert(1)"}]}})
    assert page.total == 2950000 and len(page.hits) == 1
    hit = page.hits[0]
    assert (hit.title, hit.snippet) == ("Intro | Docs", "It's light")
    assert (hit.date_published, hit.source) == ("2024-06-24", "Learn")


def test_bing_error_response_is_a_problem():
    assert "quota" in parse("bing", {"_type": "ErrorResponse", "errors": [{"code": "x", "message": "quota"}]}).problem


def test_brave_parser_prefers_page_age_and_reads_profile():
    page = parse("brave", {"query": {"more_results_available": False}, "web": {"results": [
        {"title": "T", "url": "https://a.example/", "description": "<strong>bold</strong> text", "age": "2 days ago",
         "language": "en", "profile": {"name": "A site"}},
        {"title": "U", "url": "https://b.example/", "description": "", "page_age": "2024-03-05T10:11:12"}]}})
    assert [h.date_published for h in page.hits] == ["2024-06-08", "2024-03-05T10:11:12"]
    assert page.hits[0].snippet == "bold text" and page.hits[0].source == "A site" and page.more is False


def test_google_parser_reads_metatags_and_next_page():
    page = parse("google", {"searchInformation": {"totalResults": "16200000"}, "queries": {"nextPage": [{}]},
                            "items": [{"title": "T", "link": "https://a.example/x", "snippet": "S\n more",
                                       "displayLink": "a.example",
                                       "pagemap": {"metatags": [{"og:article:published_time": "2023-05-01T12:00:00Z",
                                                                 "author": "Jane"}]}}]})
    hit = page.hits[0]
    assert page.total == 16200000 and page.more
    assert (hit.snippet, hit.author, hit.date_published) == ("S more", "Jane", "2023-05-01T12:00:00+00:00")


def test_google_parser_takes_a_date_leading_the_snippet():
    item = {"title": "T", "link": "https://a.example/", "snippet": "Jun 24, 2024 ... In this"}
    page = parse("google", {"items": [item]})
    assert page.hits[0].date_published == "2024-06-24"


def test_kagi_parser_keeps_only_t0_items():
    page = parse("kagi", {"meta": {}, "data": [{"t": 0, "url": "https://a.example/", "title": "A",
                                                "snippet": "<b>x</b>&nbsp;y", "published": "2023-01-18T03:05:23+00:00"},
                                               {"t": 1, "list": ["related"]},
                                               {"t": 0, "title": "no url"}]})
    assert [h.url for h in page.hits] == ["https://a.example/"] and page.hits[0].snippet == "x y"


def test_kagi_error_body_is_a_problem():
    assert parse("kagi", {"meta": {}, "data": None, "error": [{"code": 1, "msg": "Insufficient credit"}]}).problem \
        == "Insufficient credit"


def test_searxng_parser_lists_unresponsive_engines():
    page = parse("searxng", {"query": "q", "results": [], "unresponsive_engines": [["google", "CAPTCHA"],
                                                                                   ["brave", "timeout"]]})
    assert page.unresponsive == ["google (CAPTCHA)", "brave (timeout)"] and page.hits == []


def test_tavily_and_serper_parsers():
    tav = parse("tavily", {"results": [{"title": "T", "url": "https://a.example/", "content": "c", "score": "0.9"}]})
    assert tav.hits[0].score == 0.9
    ser = parse("serper", {"organic": [{"title": "T", "link": "https://a.example/", "snippet": "s",
                                        "date": "Jan 29, 2023", "position": 1}]})
    assert ser.hits[0].date_published == "2023-01-29"
    assert parse("serper", {"message": "Not enough credits"}).problem == "Not enough credits"


def test_duckduckgo_parser_maps_text_and_news_dicts():
    page = parse("duckduckgo", [{"title": "T", "href": "https://a.example/", "body": "b &amp; c"},
                                {"title": "N", "url": "https://n.example/", "body": "news",
                                 "date": "2024-07-03T16:25:22+00:00",
                                 "source": "Wire"}])
    assert [h.url for h in page.hits] == ["https://a.example/", "https://n.example/"]
    assert page.hits[0].snippet == "b & c" and page.hits[1].source == "Wire"


@pytest.mark.parametrize("engine", ENGINE_MODULES)
def test_parsers_reject_non_object_answers(engine):
    assert parse(engine, "just a string").problem


# ---------------------------------------------------------------- property tests: parsers never raise

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=25)

SHAPES = {  # the keys each parser looks for, so arbitrary values reach its inner code
    "bing": lambda v: {"_type": "SearchResponse", "webPages": {"value": v, "totalEstimatedMatches": v}},
    "brave": lambda v: {"web": {"results": v}, "query": v},
    "google": lambda v: {"items": v, "searchInformation": v, "queries": v},
    "searxng": lambda v: {"results": v, "unresponsive_engines": v, "number_of_results": v},
    "kagi": lambda v: {"data": v, "error": v},
    "tavily": lambda v: {"results": v, "detail": v},
    "serper": lambda v: {"organic": v, "message": v},
    "duckduckgo": lambda v: v if isinstance(v, list) else [v],
    "semanticscholar": lambda v: {"data": v, "total": v, "error": v},
    "openalex": lambda v: {"results": v if isinstance(v, list) else [v], "meta": v},
    "crossref": lambda v: {"status": "ok", "message": {"items": v}},
}  # arxiv and pubmed answer XML: Tests/test_engines_scholarly_parsing.py gives their parsers random trees
item_values = st.dictionaries(
    st.sampled_from(["title", "name", "url", "link", "href", "snippet", "description", "content", "body",
                     "datePublished", "page_age", "age", "published", "publishedDate", "date", "t", "score",
                     "engines", "profile", "pagemap", "language", "siteName", "displayLink", "source"]),
    json_values, max_size=8)


@pytest.mark.parametrize("engine", ENGINE_MODULES)
@hsettings(max_examples=40, deadline=None)
@given(data=json_values)
def test_parser_never_raises_on_arbitrary_json(engine, data):
    page = load_engine(engine).parse_response(data, OPTS)
    assert all(h.url.startswith(("http://", "https://")) for h in page.hits)


@pytest.mark.parametrize("engine", list(SHAPES))
@hsettings(max_examples=40, deadline=None)
@given(items=st.lists(item_values, max_size=4) | json_values)
def test_parser_never_raises_on_shaped_json(engine, items):
    page = load_engine(engine).parse_response(SHAPES[engine](items), OPTS)
    json.dumps([h.to_result_dict() for h in page.hits])  # results are plain JSON
    assert all("<b>" not in h.title for h in page.hits)


@pytest.mark.parametrize("engine", [e for e in ENGINE_MODULES if e != "duckduckgo"])
@hsettings(max_examples=25, deadline=None)
@given(query=st.text(min_size=1, max_size=40).filter(str.strip), count=st.integers(1, 100), page=st.integers(0, 12))
def test_request_builders_are_total(engine, query, count, page):
    module = load_engine(engine)
    opts = SearchOptions(query=" ".join(query.split()) or "q", count=count, country="US", search_lang="en")
    request = module.build_request(opts, Connection("http://127.0.0.1:1/x", "k", {"cx": "c"}), page)
    assert request is None or request.method in ("GET", "POST")
