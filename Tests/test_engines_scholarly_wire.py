"""The scholarly engines (arxiv, pubmed, semanticscholar, openalex, crossref) against the test world playing each
API in its own wire format: paper metadata parsed, polite-use parameters and options on the wire, PubMed's two
requests, and the services' errors (bad key, rate limit, errors inside HTTP 200 bodies) typed like any engine's,
with no key in any message."""
from __future__ import annotations

import json

import pytest

from App_Function_Libraries.Search.engine import engine_health_snapshot, search_with
from Tests.support.scholarly_apis import ENGINES, KEY, NOTHING_QUERY, ScholarlyAPIs
from Tests.support.search_apis import clean_health  # noqa: F401 (autouse)


@pytest.fixture
def apis(world, make_settings):
    apis = ScholarlyAPIs(world).install()
    apis.settings = make_settings(apis.config())
    return apis


def search(apis, engine, query="protein folding", count=5, settings=None, **options):
    return search_with(engine, query, settings or apis.settings, count=count, use_cache=False, **options)


@pytest.mark.parametrize("engine", ENGINES)
def test_engine_returns_papers_with_their_facts(apis, engine):
    answer = search(apis, engine)
    assert answer.error is None, answer.error
    assert len(answer.hits) == 5
    first = answer.hits[0]
    paper = first.paper
    assert first.title.startswith("On protein folding: part 1")
    assert paper.authors == ["Ada Lovelace"] and paper.year == 2020
    assert paper.doi == "10.5555/protein-folding.1"
    assert paper.abstract.startswith("We study protein folding in case 1") or engine == "pubmed"
    assert "&amp;" not in first.snippet and "<" not in first.snippet.replace("< 5%", "")
    assert first.snippet and first.snippet in paper.abstract or first.snippet.endswith("…")
    if engine == "arxiv":  # the open arXiv page, not the journal's DOI
        assert first.url.startswith("https://arxiv.org/abs/")
        assert paper.pdf_url.startswith("https://arxiv.org/pdf/")
        assert paper.venue == "arXiv"
    else:
        assert first.url == "https://doi.org/10.5555/protein-folding.1"
        assert paper.venue == "Journal of Protein Folding"
    second = answer.hits[1].paper
    if engine in ("semanticscholar", "openalex", "crossref"):  # paper 2 has no open-access PDF
        assert paper.pdf_url == "https://oa.example/1000.pdf" and paper.abstract_only is False
        assert second.pdf_url == "" and second.abstract_only is True
    assert answer.total >= 5


@pytest.mark.parametrize("engine", ENGINES)
def test_nothing_found_is_not_an_error(apis, engine):
    answer = search(apis, engine, query=f"{NOTHING_QUERY} here")
    assert answer.error is None and answer.hits == []


def test_pubmed_asks_esearch_then_efetch_with_its_ids_and_polite_parameters(apis):
    answer = search(apis, "pubmed", count=3)
    esearch, efetch = apis.requests_to("pubmed")
    assert esearch.path.endswith("/esearch.fcgi") and efetch.path.endswith("/efetch.fcgi")
    assert esearch.arg("db") == "pubmed" and esearch.arg("retmax") == "3" and esearch.arg("term") == "protein folding"
    assert efetch.arg("id") == "1000,1001,1002" and efetch.arg("retmode") == "xml"
    for req in (esearch, efetch):
        assert (req.arg("tool"), req.arg("email"), req.arg("api_key")) == ("quarry", "research@example.org", KEY)
    paper = answer.hits[0].paper
    # structured abstract: labels kept, inline <sub> read through, the reference list's DOIs not taken
    assert paper.abstract == ("BACKGROUND: We study protein folding in case 1 with CO2. "
                                 "RESULTS: Results & methods < 5% error.")
    assert paper.doi == "10.5555/protein-folding.1"
    assert answer.hits[0].date_published == "2020-01-01"
    assert answer.total == 30


def test_polite_use_on_the_wire(apis):
    search(apis, "crossref")
    crossref = apis.requests_to("crossref")[-1]
    assert crossref.arg("mailto") == "research@example.org" and crossref.arg("rows") == "5"
    assert crossref.header("crossref-plus-api-token") == f"Bearer {KEY}"
    search(apis, "openalex")
    openalex = apis.requests_to("openalex")[-1]
    assert openalex.arg("mailto") == "research@example.org" and openalex.arg("api_key") == KEY
    assert openalex.arg("per-page") == "5"
    search(apis, "semanticscholar")
    s2 = apis.requests_to("semanticscholar")[-1]
    assert s2.header("x-api-key") == KEY and s2.arg("limit") == "5" and "abstract" in s2.arg("fields")
    search(apis, "arxiv")
    arxiv = apis.requests_to("arxiv")[-1]
    assert arxiv.arg("search_query") == "all:protein AND all:folding" and arxiv.arg("max_results") == "5"


def test_without_a_key_or_contact_nothing_of_them_is_sent(apis, make_settings):
    config = apis.config(key=False)
    config["engines"]["contact_email"] = ""
    settings = make_settings(config)
    for engine in ("pubmed", "openalex", "crossref", "semanticscholar"):
        assert search(apis, engine, settings=settings).error is None
    sent = [r for e in ("pubmed", "openalex", "crossref", "semanticscholar") for r in apis.requests_to(e)]
    assert all("api_key" not in r.query and "mailto" not in r.query and "email" not in r.query for r in sent)
    assert all(r.header("x-api-key") is None and r.header("crossref-plus-api-token") is None for r in sent)


def test_date_range_and_sort_on_the_wire(apis):
    dates = dict(date_range="2021-02-03..2022-04-05", sort="date")
    for engine in ENGINES:
        note = search(apis, engine, **dates).notes
        assert note == ("semanticscholar: sort_results_by not supported, ignored" if engine == "semanticscholar"
                        else None), engine
    assert apis.requests_to("arxiv")[-1].arg("search_query").endswith(
        "AND submittedDate:[202102030000 TO 202204052359]")
    assert apis.requests_to("arxiv")[-1].arg("sortBy") == "submittedDate"
    esearch = [r for r in apis.requests_to("pubmed") if r.path.endswith("esearch.fcgi")][-1]
    assert (esearch.arg("datetype"), esearch.arg("mindate"), esearch.arg("maxdate"), esearch.arg("sort")) == \
        ("pdat", "2021/02/03", "2022/04/05", "pub_date")
    assert apis.requests_to("semanticscholar")[-1].arg("publicationDateOrYear") == "2021-02-03:2022-04-05"
    openalex = apis.requests_to("openalex")[-1]
    assert openalex.arg("filter") == "from_publication_date:2021-02-03,to_publication_date:2022-04-05"
    assert openalex.arg("sort") == "publication_date:desc"
    crossref = apis.requests_to("crossref")[-1]
    assert crossref.arg("filter") == "from-pub-date:2021-02-03,until-pub-date:2022-04-05"
    assert (crossref.arg("sort"), crossref.arg("order")) == ("published", "desc")


def test_phrases_and_exclusions_in_the_query_syntax_of_each(apis):
    search(apis, "arxiv", exact_terms="beta sheet", exclude_terms=["prion"])
    assert apis.requests_to("arxiv")[-1].arg("search_query") == \
        'all:protein AND all:folding AND all:"beta sheet" ANDNOT all:prion'
    search(apis, "pubmed", exact_terms="beta sheet", exclude_terms=["prion"])
    assert apis.requests_to("pubmed")[-2].arg("term") == 'protein folding AND "beta sheet" NOT prion'
    answer = search(apis, "crossref", exact_terms="beta sheet", site_blacklist=["example.org"])
    assert answer.notes == "crossref: site_blacklist, exactTerms not supported, ignored"


def test_safesearch_default_is_not_noted_on_papers(apis, make_settings):
    answer = search(apis, "openalex", safesearch="strict")
    assert answer.notes is None


# ---------------------------------------------------------------- errors

def test_bad_keys_are_typed_and_never_shown(apis, make_settings):
    config = apis.config()
    wrong = "wrong-key-55aa77cc"
    config["engines"].update({f"{e}_api_key": wrong for e in ("pubmed", "semanticscholar", "openalex")})
    settings = make_settings(config)
    pubmed = search(apis, "pubmed", settings=settings)
    assert pubmed.error.startswith("PubMed rejected the API key (HTTP 400: API key invalid)")
    s2 = search(apis, "semanticscholar", settings=settings)
    assert s2.error.startswith("Semantic Scholar rejected the API key (HTTP 403)")
    openalex = search(apis, "openalex", settings=settings)
    assert "OpenAlex rejected the API key (HTTP 401" in openalex.error
    for answer in (pubmed, s2, openalex):
        assert wrong not in json.dumps(answer.to_dict())
    health = engine_health_snapshot(settings)
    assert health["pubmed"].last_error_kind == "bad_key" and wrong not in health["pubmed"].last_error


@pytest.mark.parametrize("engine, message", [
    ("pubmed", "PubMed is rate-limiting Quarry (HTTP 429: API rate limit exceeded)"),
    ("semanticscholar", "Semantic Scholar is rate-limiting Quarry (HTTP 429: Too Many Requests."),
    ("openalex", "OpenAlex is rate-limiting Quarry (HTTP 429: Too many requests)"),
    ("crossref", "Crossref is rate-limiting Quarry (HTTP 429)"),
    ("arxiv", "arXiv asks Quarry to slow down (HTTP 503)"),
])
def test_rate_limits_become_rate_limited_errors_and_health(apis, engine, message):
    apis.rate_limited.add(engine)
    answer = search(apis, engine)
    assert answer.error.startswith(message), answer.error
    assert KEY not in json.dumps(answer.to_dict())  # NCBI's 429 body names the key
    record = engine_health_snapshot(apis.settings)[engine]
    assert record.last_error_kind == "rate_limited" and record.consecutive_failures == 1


def test_an_error_inside_an_http_200_answer_is_an_error(apis, world):
    from Tests.support.testworld import Response
    world.route("GET", "/eutils/esearch.fcgi", lambda req: Response(
        200, b'<?xml version="1.0"?>\n<eSearchResult><ERROR>Invalid query syntax near AND</ERROR></eSearchResult>',
        {"Content-Type": "text/xml"}))
    answer = search(apis, "pubmed")
    assert answer.error == "PubMed refused the request: Invalid query syntax near AND"
    assert engine_health_snapshot(apis.settings)["pubmed"].last_error_kind == "bad_response"


def test_arxiv_error_feed_becomes_its_message(apis, world):
    answer = search(apis, "arxiv", count=5, exact_terms=None)
    assert answer.error is None
    world.route("GET", "/arxiv/api/query", lambda req: apis._atom_error("x", "incorrect id format for 12", 400))
    answer = search(apis, "arxiv")
    assert answer.error == "arXiv refused the query (HTTP 400: incorrect id format for 12)"
    assert answer.hits == []


def test_arxiv_query_leaves_out_its_own_syntax(apis):
    search(apis, "arxiv", query='RNA: (folding) "x" C++', exact_terms="a:b")
    assert apis.requests_to("arxiv")[-1].arg("search_query") == 'all:RNA AND all:folding AND all:x AND all:C++ ' \
        'AND all:"a b"'


def test_cli_prints_a_papers_facts(apis, capsys):
    from App_Function_Libraries.CLI.main import main
    code = main(["--config", str(apis.settings.path), "search", "protein folding", "--engine", "openalex",
                 "--count", "2", "--no-cache"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Ada Lovelace · 2020 · Journal of Protein Folding · doi:10.5555/protein-folding.1 · open-access PDF" in out
    assert "Ada Lovelace, Alan Turing · 2021 · Journal of Protein Folding · doi:10.5555/protein-folding.2 · " \
        "abstract only" in out


def test_research_search_stage_makes_paper_sources_with_their_facts(apis):
    from App_Function_Libraries.records import ResearchResult
    from App_Function_Libraries.Research.params import ResearchParams
    from App_Function_Libraries.Research.pipeline import Run, Services, _reset_source, search_sources
    params = ResearchParams.from_settings(apis.settings, engines=["openalex", "crossref"], count=3)
    run = Run(ResearchResult(question="protein folding"), Services(settings=apis.settings), params, None, None)
    sources = search_sources(run, params, ["protein folding"], lambda found: found)
    assert len(sources) == 3 and all(s.kind == "paper" for s in sources)  # the same 3 DOIs from both
    first = sources[0]
    assert sorted(first.engines) == ["crossref", "openalex"]
    assert first.paper.doi == "10.5555/protein-folding.1" and first.paper.authors == ["Ada Lovelace"]
    assert first.paper.venue == "Journal of Protein Folding" and first.paper.pdf_url == "https://oa.example/1000.pdf"
    again = _reset_source(first)  # a re-run keeps what the source is
    assert again.kind == "paper" and again.paper == first.paper and again.paper is not first.paper
