"""The scholarly parsers on their own: random XML trees and JSON never make them raise, and the pieces the
services make hard (OpenAlex's inverted-index abstracts, DOIs in every spelling, Crossref's JATS abstracts,
PubMed dates by season) come out right. The captured real answers are in test_engines_conformance.py."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import date

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from App_Function_Libraries.Search.engines import load_engine
from App_Function_Libraries.Search.engines.base import SearchOptions
from App_Function_Libraries.Search.engines.crossref import _abstract
from App_Function_Libraries.Search.engines.openalex import abstract_from_index
from App_Function_Libraries.Search.engines.scholarly import bare_doi, trim

OPTS = SearchOptions(query="q", today=date(2024, 6, 10))
A, AX = "{http://www.w3.org/2005/Atom}", "{http://arxiv.org/schemas/atom}"
TAGS = {
    "arxiv": [A + "entry", A + "id", A + "title", A + "summary", A + "author", A + "name", A + "link",
              A + "published", AX + "doi", AX + "journal_ref", "{http://a9.com/-/spec/opensearch/1.1/}totalResults"],
    "pubmed": ["PubmedArticle", "MedlineCitation", "Article", "PMID", "ArticleTitle", "Abstract", "AbstractText",
               "AuthorList", "Author", "LastName", "ForeName", "CollectiveName", "Journal", "JournalIssue",
               "PubDate", "Year", "Month", "Day", "Season", "Title", "PubmedData", "ArticleIdList", "ArticleId",
               "ELocationID", "DocSum", "Item", "Id", "IdList", "Count", "ERROR", "sub"],
}
ROOTS = {"arxiv": [A + "feed"], "pubmed": ["eSearchResult", "PubmedArticleSet", "eSummaryResult", "eFetchResult"]}
ATTRS = st.dictionaries(st.sampled_from(["rel", "title", "href", "IdType", "EIdType", "Name", "Label", "Type"]),
                        st.sampled_from(["alternate", "pdf", "doi", "http://x.example/a", "https://arxiv.org/abs/1",
                                         "AuthorList", "Title", "DOI", "List", "", "10.1/a"]), max_size=3)


def trees(engine: str):
    def node(children):
        return st.builds(lambda tag, text, attrs, kids: (tag, text, attrs, kids), st.sampled_from(TAGS[engine]),
                         st.one_of(st.none(), st.text(max_size=20)), ATTRS, st.lists(children, max_size=4))
    leaf = st.builds(lambda tag, text: (tag, text, {}, []), st.sampled_from(TAGS[engine]),
                     st.one_of(st.none(), st.text(max_size=20)))
    return st.builds(lambda root, kids: (root, None, {}, kids), st.sampled_from(ROOTS[engine]),
                     st.lists(st.recursive(leaf, node, max_leaves=30), max_size=5))


def build(spec) -> ET.Element:
    tag, text, attrs, kids = spec
    element = ET.Element(tag, attrs)
    element.text = text
    element.extend(build(k) for k in kids)
    return element


@pytest.mark.parametrize("engine", ["arxiv", "pubmed"])
@hsettings(max_examples=60, deadline=None)
@given(data=st.data())
def test_xml_parsers_never_raise_on_random_trees(engine, data):
    root = build(data.draw(trees(engine)))
    page = load_engine(engine).parse_response(root, OPTS)
    json.dumps([h.to_result_dict() for h in page.hits])
    assert all(h.url.startswith("https://") for h in page.hits)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                           lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
                           max_leaves=20)
PAPER_KEYS = ["title", "display_name", "url", "doi", "DOI", "abstract", "abstract_inverted_index", "authors",
              "authorships", "author", "year", "publication_year", "venue", "journal", "container-title",
              "externalIds", "openAccessPdf", "best_oa_location", "primary_location", "published", "issued",
              "license", "link", "paperId", "publicationDate", "publication_date", "URL"]
SHAPES = {"semanticscholar": lambda items: {"data": items, "total": 3},
          "openalex": lambda items: {"results": items, "meta": {"count": 3}},
          "crossref": lambda items: {"status": "ok", "message": {"items": items}}}


@pytest.mark.parametrize("engine", list(SHAPES))
@hsettings(max_examples=60, deadline=None)
@given(items=st.lists(st.dictionaries(st.sampled_from(PAPER_KEYS), json_values, max_size=8), max_size=4))
def test_json_parsers_never_raise_on_paper_shaped_json(engine, items):
    page = load_engine(engine).parse_response(SHAPES[engine](items), OPTS)
    json.dumps([h.to_result_dict() for h in page.hits])


def test_openalex_abstract_rebuilt_in_word_order():
    index = {"Abstract": [0], "heat": [1, 4], "pumps": [2], "move": [3], "bad": ["x", -1, 10**9]}
    assert abstract_from_index(index) == "heat pumps move heat"
    assert abstract_from_index({"A": [1], "B": [0]}) == "B A" and abstract_from_index(None) == ""


@pytest.mark.parametrize("raw", ["10.1038/NPHYS1170", "https://doi.org/10.1038/nphys1170", "doi:10.1038/nphys1170.",
                                 "http://dx.doi.org/10.1038/nphys1170"])
def test_dois_come_out_bare_and_lower_case(raw):
    assert bare_doi(raw) == "10.1038/nphys1170"


def test_no_doi_is_empty():
    assert bare_doi("not a doi") == "" and bare_doi(None) == ""


def test_crossref_jats_abstract_keeps_paragraphs_apart_and_drops_the_heading():
    text = "<jats:title>Abstract</jats:title><jats:p>First part.</jats:p><jats:p>Second &amp; last.</jats:p>"
    assert " ".join(_abstract(text).split()) == "First part. Second & last."


def test_snippet_is_trimmed_at_a_word():
    assert trim("word " * 200, 23) == "word word word word …"
    assert trim("short", 23) == "short"


def test_pubmed_season_is_a_year_not_a_day():
    xml = ("<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>7</PMID><Article><Journal><JournalIssue>"
           "<PubDate><Year>1990</Year><Season>Spring</Season></PubDate></JournalIssue><Title>J</Title></Journal>"
           "<ArticleTitle>T</ArticleTitle></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>")
    hit = load_engine("pubmed").parse_response(ET.fromstring(xml), OPTS).hits[0]
    assert hit.paper.year == 1990 and hit.date_published is None
    assert hit.url == "https://pubmed.ncbi.nlm.nih.gov/7/" and hit.paper.abstract_only is True
