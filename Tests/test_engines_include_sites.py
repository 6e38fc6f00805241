"""Include sites: keeping results to listed sites, end to end — on the wire of each engine that can honour it
(site: operators, Tavily's include_domains), results elsewhere dropped, a note from the engines that cannot
(the scholarly ones), the [search] default, the CLI's --site and the Web Search tab's "Only these sites"."""
from __future__ import annotations

import json

import pytest

from App_Function_Libraries import config as config_mod
from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.Gradio_UI import web_search_params as wp
from App_Function_Libraries.Search.engine import search_with
from App_Function_Libraries.Search.many import search_many
from App_Function_Libraries.Search.options import SearchOptions
from Tests.support.scholarly_apis import ScholarlyAPIs
from Tests.support.search_apis import SearchAPIs, clean_health  # noqa: F401 (autouse)
from Tests.test_ui_web_search import form

QUERY_ENGINES = ("bing", "brave", "google", "searxng", "kagi", "serper")


@pytest.fixture
def apis(world, make_settings):
    apis = SearchAPIs(world).install()
    scholarly = ScholarlyAPIs(world).install()
    config = apis.config(search_cache_ttl_seconds=0)
    config["engines"].update(scholarly.config()["engines"])
    apis.config_values = config
    apis.settings = make_settings(config)
    return apis


def search(apis, engine, settings=None, **options):
    return search_with(engine, "solar power", settings or apis.settings, count=10, use_cache=False, **options)


def last_query(apis, engine) -> str:
    req = apis.requests_to(engine)[-1]
    return req.json()["q"] if req.method == "POST" else req.arg("q")


@pytest.mark.parametrize("engine", QUERY_ENGINES)
def test_one_site_becomes_a_site_operator_and_results_are_kept_to_it(apis, engine):
    answer = search(apis, engine, include_sites=["www.site1.example"])
    assert answer.error is None and "include_sites" not in (answer.notes or "")
    assert last_query(apis, engine) == "solar power site:site1.example"
    assert answer.hits and all("site1.example/" in r.url for r in answer.hits)


def test_several_sites_are_joined_with_or(apis):
    answer = search(apis, "brave", include_sites="site1.example, site3.example", site_blacklist=["quora.com"])
    assert last_query(apis, "brave") == "solar power -site:quora.com (site:site1.example OR site:site3.example)"
    assert {r.url.split("/")[2] for r in answer.hits} == {"www.site1.example", "www.site3.example"}


def test_tavily_takes_include_domains(apis):
    answer = search(apis, "tavily", include_sites=["site2.example"])
    assert apis.requests_to("tavily")[-1].json()["include_domains"] == ["site2.example"]
    assert answer.hits and all("site2.example/" in r.url for r in answer.hits)


@pytest.mark.parametrize("engine", ["arxiv", "crossref"])
def test_an_engine_that_cannot_honour_it_says_so_and_keeps_its_results(apis, engine):
    answer = search(apis, engine, include_sites=["nature.com"])
    assert answer.notes == f"{engine}: include_sites not supported, ignored"
    assert len(answer.hits) == 10


def test_a_bad_domain_is_a_clear_error_and_nothing_is_sent(apis):
    answer = search(apis, "bing", include_sites=["not a domain!"])
    assert answer.error == "include_sites entry 'not' is not a domain (e.g. pinterest.com)" or \
        answer.error.startswith("include_sites entry")
    assert apis.requests_to("bing") == []


def test_the_config_default_applies_when_the_search_names_none(apis, make_settings):
    settings = make_settings({**apis.config_values, "search": {**apis.config_values["search"],
                                                                "search_include_sites": "site4.example"}})
    answer = search(apis, "kagi", settings=settings)
    assert last_query(apis, "kagi") == "solar power site:site4.example"
    assert "include_sites" not in (answer.notes or "")
    # a default an engine cannot take is a preference, not a request: not noted
    assert search(apis, "arxiv", settings=settings).notes is None
    assert search(apis, "kagi", settings=settings, include_sites=[]).hits[0].url.startswith(
        "https://www.site0.example/")  # the caller's empty list means every site


def test_a_bad_config_default_stops_start_up(tmp_path):
    path = tmp_path / "config.txt"
    path.write_text("[search]\nsearch_include_sites = nature.com, not a site\n", encoding="utf-8")
    with pytest.raises(config_mod.ConfigError, match="search_include_sites.*is not a domain"):
        config_mod.load_settings(path, env={})


def test_search_many_passes_it_to_every_engine(apis):
    options = SearchOptions.build(None, apis.settings, count=5, include_sites=["site1.example"])
    merged = search_many(["bing", "arxiv"], "solar power", options, settings=apis.settings, use_cache=False)
    assert "site:site1.example" in last_query(apis, "bing")
    assert any("include_sites not supported" in note for note in merged.processing_errors.values())


def test_cli_site_flag(apis, capsys):
    code = main(["--config", str(apis.settings.path), "search", "solar power", "--engine", "serper", "--site",
                 "site2.example", "--site", "site4.example", "--json", "--no-cache"])
    answer = json.loads(capsys.readouterr().out)
    assert code == 0 and answer["include_sites"] == ["site2.example", "site4.example"]
    assert last_query(apis, "serper") == "solar power (site:site2.example OR site:site4.example)"


def test_web_search_tab_only_these_sites(make_settings):
    settings = make_settings({})
    params = wp.build_params(settings, form(settings, include_sites="nature.com, www.science.org"))
    assert params.include_sites == ["nature.com", "www.science.org"]
    assert params.search_options()["include_sites"] == ["nature.com", "www.science.org"]
    with pytest.raises(ValueError, match="include_sites entry"):
        wp.build_params(settings, form(settings, include_sites="nature.com, a b c"))
