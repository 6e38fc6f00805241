"""`python app.py check`'s engine probe: it searches with the configured [search] defaults and reports what
it kept truthfully."""
from __future__ import annotations

from App_Function_Libraries.Web_Search.websearch import engine_health_check
from Tests.support.search_apis import SearchAPIs, clean_health  # noqa: F401 (autouse)


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
