"""The typed search contract (issue 14): SearchOptions is the one set of option names, search_engine answers an
EngineAnswer whose to_dict() is the JSON `python app.py search --json` always printed, search_many merges Hits
(a scholarly work's facts, Hit.paper, survive into the merged result and the research Source), and research
params saved under the old option names still load."""
from __future__ import annotations

import dataclasses
import json
from datetime import date

import pytest

from App_Function_Libraries.CLI.main import main as cli_main
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.pipeline import Run, Services, search_sources
from App_Function_Libraries.records import Paper, ResearchResult
from App_Function_Libraries.Search.engine import (ECHO_ORDER, EngineAnswer, perform_websearch, search_engine,
                                                  search_with)
from App_Function_Libraries.Search.engines.base import Hit
from App_Function_Libraries.Search.errors import InvalidOption
from App_Function_Libraries.Search.many import EngineRun, MultiSearch, merge_runs
from App_Function_Libraries.Search.options import SearchOptions
from Tests.support.search_apis import SearchAPIs, clean_health  # noqa: F401 (autouse)

#: web_search_results_dict's keys, in the order `app.py search --json` prints them (include_sites: issue 15)
ANSWER_KEYS = ["search_engine", "search_query", "content_country", "search_lang", "output_lang", "result_count",
               "date_range", "safesearch", "site_blacklist", "exactTerms", "excludeTerms", "filter", "geolocation",
               "search_result_language", "sort_results_by", "include_sites", "results", "total_results_found",
               "search_time", "error", "processing_error", "cached", "cached_at"]


@pytest.fixture
def apis(world, make_settings):
    apis = SearchAPIs(world).install()
    apis.settings = make_settings(apis.config())
    return apis


@pytest.fixture
def cli_config(world, make_settings, tmp_path):
    apis = SearchAPIs(world).install()
    make_settings(apis.config())
    return apis, str(tmp_path / "config.txt")


def cli_json(config, capsys, *args):
    rc = cli_main(["--config", config, "search", "solar power", "--json", "--no-cache", "--engine", *args])
    return rc, json.loads(capsys.readouterr().out)


def test_cli_json_of_one_engine_is_unchanged(cli_config, capsys):
    _, config = cli_config
    rc, answer = cli_json(config, capsys, "kagi", "--count", "2", "--exclude-site", "pinterest.com",
                          "--result-lang", "fr")
    assert rc == 0 and list(answer) == ANSWER_KEYS
    echo = {k: answer[k] for k in ANSWER_KEYS[:16]}
    assert echo == {"search_engine": "kagi", "search_query": "solar power", "content_country": None,
                    "search_lang": None, "output_lang": None, "result_count": 2, "date_range": None,
                    "safesearch": None, "site_blacklist": ["pinterest.com"], "exactTerms": None, "excludeTerms": None,
                    "filter": None, "geolocation": None, "search_result_language": "fr", "sort_results_by": None,
                    "include_sites": None}
    assert answer["results"][0] == {
        "title": "solar power -site:pinterest.com — result 1",
        "url": "https://www.site0.example/solar-power-site-pinterest-com/1/",
        "content": "Page 1 about solar power -site:pinterest.com: facts & figures ...",
        "metadata": {"date_published": "2024-03-01T08:00:00+00:00", "author": None, "source": "site0.example",
                     "language": None, "relevance_score": None,
                     "snippet": "Page 1 about solar power -site:pinterest.com: facts & figures ..."}}
    assert (answer["total_results_found"], answer["error"], answer["cached"], answer["cached_at"]) == (2, None,
                                                                                                        False, None)
    assert answer["processing_error"] == "kagi: search_result_language, safesearch not supported, ignored"


@pytest.mark.parametrize("args, echoed, error", [
    (["google", "--count", "3", "--exact", "a b", "--exclude", "honey", "--sort", "date", "--safesearch", "strict"],
     {"result_count": 3, "exactTerms": ["a b"], "excludeTerms": ["honey"], "sort_results_by": "date",
      "safesearch": "strict"}, None),
    (["brave", "--count", "2", "--country", "DE", "--search-lang", "de", "--date-range", "month"],
     {"content_country": "DE", "search_lang": "de", "result_count": 2, "date_range": "month"}, None),
    (["bing", "--date-range", "soon"], {"date_range": "soon"}, "date_range 'soon' is not understood"),
    (["nosuch", "--date-range", "soon"], {"date_range": "soon"}, "unknown search engine 'nosuch'"),
])
def test_cli_json_echoes_the_options_as_given_under_their_labels(cli_config, capsys, args, echoed, error):
    _, config = cli_config
    rc, answer = cli_json(config, capsys, *args)
    assert list(answer) == ANSWER_KEYS and rc == (1 if error else 0)
    assert {k: v for k, v in answer.items() if k in ANSWER_KEYS[2:16] and v is not None} == echoed
    assert (answer["error"] or "").startswith(error or "") and bool(answer["results"]) is not bool(error)


def test_cli_json_of_several_engines_is_unchanged(cli_config, capsys):
    _, config = cli_config
    rc, merged = cli_json(config, capsys, "bing,kagi", "--count", "2")
    assert rc == 0 and list(merged) == ["queries", "engines", "search_time", "results", "errors",
                                        "processing_errors", "runs"]
    first = merged["results"][0]
    assert list(first) == ["title", "url", "content", "metadata", "engines", "queries", "ranks", "fused_score", "rank"]
    assert first["ranks"] == {"bing|solar power": 1, "kagi|solar power": 1} and first["fused_score"] == 0.032787
    assert list(first["metadata"]) == ["date_published", "author", "source", "language", "relevance_score", "snippet"]
    assert merged["runs"] == [{"engine": "bing", "query": "solar power", "results": 2, "error": None, "cached": False},
                              {"engine": "kagi", "query": "solar power", "results": 2, "error": None, "cached": False}]
    assert merged["processing_errors"] == {"kagi|solar power": "kagi: safesearch not supported, ignored"}
    rc, refused = cli_json(config, capsys, "tavily,kagi", "--date-range", "soon")
    assert rc == 1 and set(refused["errors"]) == {"tavily|solar power", "kagi|solar power"}


def test_the_adapter_and_the_typed_search_give_the_same_answer(apis):
    typed = search_with("brave", "solar power", apis.settings, use_cache=False, count=3, exact_terms=["a b"])
    assert isinstance(typed, EngineAnswer) and len(typed.hits) == 3 and isinstance(typed.hits[0], Hit)
    old = perform_websearch("brave", "solar power", None, None, None, 3, exactTerms=["a b"], settings=apis.settings,
                            use_cache=False)
    assert {**typed.to_dict(), "search_time": 0} == {**old, "search_time": 0}
    assert EngineAnswer.from_dict(old).to_dict() == old  # an answer read back from its JSON is the same answer
    options = SearchOptions.build("solar power", apis.settings, count=3, exact_terms="a b")
    built = search_engine("brave", options, apis.settings, use_cache=False)
    assert [h.url for h in built.hits] == [h.url for h in typed.hits] and built.options == options
    assert built.to_dict()["exactTerms"] == ["a b"] and built.to_dict()["content_country"] is None  # a default


def test_options_have_one_name_each_and_derive_their_defaults(make_settings):
    settings = make_settings({"search": {"search_content_country": "GB", "search_result_max_per_query": 7}})
    assert set(ECHO_ORDER) - {"output_lang"} == set(SearchOptions.names())
    assert "query" not in SearchOptions.names() and SearchOptions.label("dedupe_filter") == "filter"
    opts = SearchOptions.build(None, settings, exact_terms="waggle dance", today=date(2024, 6, 10))
    assert (opts.query, opts.country, opts.count, opts.exact_terms) == ("", "GB", 7, ("waggle dance",))
    assert {"country", "count"} <= opts.defaulted and "exact_terms" not in opts.defaulted
    assert opts.options_in_use() == ["country", "search_lang", "result_lang", "safesearch", "exact_terms"]
    assert opts.cache_view()["defaulted"] == sorted(SearchOptions.label(n) for n in opts.defaulted)
    assert opts.for_query("  bees  ").query == "bees"
    with pytest.raises(InvalidOption, match="the search query is empty"):
        opts.for_query(" ")
    with pytest.raises(TypeError, match="exactTerms"):
        SearchOptions.build(None, settings, exactTerms="old spelling")
    with pytest.raises(InvalidOption, match="content_country 'Germany'"):  # messages keep the labels
        SearchOptions.build(None, settings, country="Germany")


def paper_hit(url, paper=None, **facts):
    return Hit(title=url, url=url, snippet="s", paper=paper, **facts)


def test_a_papers_facts_survive_the_merge_from_any_finding():
    paper = Paper(authors=["Ann Bee"], year=2021, venue="arXiv", doi="10.1000/bees", abstract="Waggle.")
    first = EngineAnswer("kagi", hits=[paper_hit("https://z.org/"), paper_hit("https://arxiv.org/abs/1", author="A")])
    second = EngineAnswer("arxiv", hits=[paper_hit("https://arxiv.org/abs/1", paper, date_published="2021-05-01")])
    merged = merge_runs([EngineRun("kagi", "q", first), EngineRun("arxiv", "q", second)])
    item = next(m for m in merged if m.normalized_url == "arxiv.org/abs/1")
    assert item.hit.paper == paper and item.hit.author == "A" and item.hit.date_published == "2021-05-01"
    assert item.engines == ["kagi", "arxiv"] and item.metadata["paper"]["doi"] == "10.1000/bees"
    assert item.to_dict()["metadata"]["paper"] == dataclasses.asdict(paper)
    assert next(m for m in merged if m.normalized_url == "z.org").hit.paper is None


def search_stage(settings, params, queries, search=None):
    run = Run(ResearchResult(question=queries[0]), Services(settings, search=search), params, None, None)
    return run, search_sources(run, params, queries, lambda found: found)


def test_research_sources_are_built_from_the_merged_hits(make_settings):
    """The pipeline gives search_many typed options from the params and copies each hit's facts into its Source
    (the search services stand behind `search`: here an answer as a scholarly engine gives it)."""
    settings = make_settings({})
    paper = Paper(authors=["Ann Bee"], year=2021, venue="arXiv", doi="10.1000/bees")
    asked = []

    def search(engines, queries, options, *, settings, use_cache=True, cancel=None):
        asked.append(options)
        runs = [EngineRun(e, q, EngineAnswer(e, options.for_query(q), hits=[
            paper_hit("https://arxiv.org/abs/1", paper, date_published="2021-05-01"), paper_hit("https://b.org/")]))
            for q in queries for e in engines]
        return MultiSearch(list(queries), list(engines), merge_runs(runs), runs)

    params = ResearchParams.from_settings(settings, engines=["kagi"], count=4, country="DE", sort="date")
    _, sources = search_stage(settings, params, ["how do bees dance?"], search)
    assert (asked[0].count, asked[0].country, asked[0].sort) == (4, "DE", "date")
    assert asked[0].result_lang == settings.search.search_language_results and "result_lang" in asked[0].defaulted
    assert (sources[0].kind, sources[0].paper, sources[0].date_published) == ("paper", paper, "2021-05-01")
    assert (sources[1].kind, sources[1].paper) == ("web", None)


def test_a_bad_option_in_research_params_fails_every_search_with_its_message(make_settings):
    settings = make_settings({})
    # from_settings refuses the bad value (BadArgument); a saved run opened with from_dict is not checked
    params = ResearchParams.from_dict({**ResearchParams.from_settings(settings, engines=["kagi", "brave"]).to_dict(),
                                       "date_range": "soon"})
    run, sources = search_stage(settings, params, ["bees?", "wasps?"])
    assert sources == [] and run.result.errors == [  # one note per engine, in plain words, then its message
        f"{name} could not take one of the search options (all 2 searches: date_range 'soon' is not understood: "
        "use day, week, month, year or YYYY-MM-DD..YYYY-MM-DD)" for name in ("Kagi", "Brave Search")]


def test_params_saved_under_the_old_option_names_still_load():
    saved = {"engines": ["brave"], "result_count": 7, "result_max": 9, "content_country": "DE", "search_lang": "de",
             "output_lang": None, "search_result_language": "fr", "sort_results_by": "date",
             "exact_terms": ["waggle dance"], "dedupe_filter": True, "tone": "academic"}
    params = ResearchParams.from_dict(saved)
    assert (params.count, params.country, params.result_lang, params.sort) == (7, "DE", "fr", "date")
    assert (params.result_max, params.exact_terms, params.dedupe_filter, params.tone) == (9, ["waggle dance"], True,
                                                                                         "academic")
    assert params.search_values() == {"country": "DE", "search_lang": "de", "result_lang": "fr", "sort": "date",
                                      "exact_terms": ["waggle dance"], "dedupe_filter": True, "count": 7}
    assert ResearchParams.from_dict(params.to_dict()) == params
    assert ResearchParams.from_dict({**params.to_dict(), "result_count": 3}).count == 7  # the new name wins
