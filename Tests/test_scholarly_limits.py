"""Scholarly answers cannot bypass the size limits: every parser keeps at most records.MAX_ABSTRACT_CHARS of an
abstract (reading at most scholarly.RAW_ABSTRACT_CHARS of what was sent), OpenAlex's inverted index is bounded
in words, an arXiv feed is parsed only up to the entries asked for, a stored paper's abstract is capped too,
and a number no float can hold loses nothing (the parsers never raise)."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import date

from App_Function_Libraries.records import MAX_ABSTRACT_CHARS, Paper
from App_Function_Libraries.Search.engine import search_with
from App_Function_Libraries.Search.engines import load_engine
from App_Function_Libraries.Search.engines.base import SearchOptions
from App_Function_Libraries.Search.engines.openalex import MAX_ABSTRACT_WORDS, abstract_from_index
from App_Function_Libraries.Search.engines.scholarly import bare_doi
from App_Function_Libraries.Search.engines.textclean import as_float, as_int, as_url
from App_Function_Libraries.Search.runner import _xml_or_none
from Tests.support.hostile_search import HostileSearch
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in
from Tests.support.testworld import Response

OPTS = SearchOptions(query="q", count=10, today=date(2024, 6, 10))
ATOM = "{http://www.w3.org/2005/Atom}"
HUGE_ABSTRACT = "<p>Bees <i>dance</i> to tell the way.</p> " * 120_000  # 5 MB of markup


def kept(abstract: str) -> bool:
    return 0 < len(abstract) <= MAX_ABSTRACT_CHARS and abstract.endswith(" …")


def atom_feed(entries: int, summary: str = "Bees dance.") -> bytes:
    items = "".join(f"<entry><id>http://arxiv.org/abs/{i}</id><title>Paper {i}</title><summary>{summary}</summary>"
                    f"<link rel='alternate' href='http://arxiv.org/abs/{i}'/></entry>" for i in range(entries))
    return f"<feed xmlns='http://www.w3.org/2005/Atom'>{items}</feed>".encode()


def test_each_json_parser_keeps_at_most_the_abstract_cap():
    answers = {"crossref": {"status": "ok", "message": {"items": [{"DOI": "10.1000/a", "abstract": HUGE_ABSTRACT}]}},
               "semanticscholar": {"total": 1, "data": [{"url": "https://s.example/p", "abstract": HUGE_ABSTRACT}]}}
    for engine, answer in answers.items():
        page = load_engine(engine).parse_response(answer, OPTS)
        assert kept(page.hits[0].paper.abstract), engine
        assert len(page.hits[0].snippet) <= 502


def test_the_xml_parsers_keep_at_most_the_abstract_cap():
    arxiv = load_engine("arxiv").parse_response(ET.fromstring(atom_feed(1, "Bees dance. " * 500_000)), OPTS)
    assert kept(arxiv.hits[0].paper.abstract)
    sections = "".join(f"<AbstractText Label='PART {i}'>{'Bees dance. ' * 50_000}</AbstractText>" for i in range(8))
    article = (f"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>T"
               f"</ArticleTitle><Abstract>{sections}</Abstract></Article></MedlineCitation></PubmedArticle>"
               f"</PubmedArticleSet>")
    pubmed = load_engine("pubmed").parse_response(ET.fromstring(article), OPTS)
    assert kept(pubmed.hits[0].paper.abstract) and pubmed.hits[0].paper.abstract.startswith("PART 0: Bees dance.")


def test_openalex_rebuilds_at_most_the_capped_number_of_words():
    # a word of 100k characters at every position below the old position cap: 6.9M characters before
    long_words = {f"w{i}" + "x" * 100_000: [i] for i in range(0, MAX_ABSTRACT_WORDS, 70)}
    assert 0 < len(abstract_from_index(long_words)) <= MAX_ABSTRACT_CHARS
    # many words at the same positions, and a million positions for one word: still bounded, still quick
    crowded = {f"w{i}": list(range(50)) for i in range(20_000)} | {"again": list(range(1_000_000))}
    assert 0 < len(abstract_from_index(crowded)) <= MAX_ABSTRACT_CHARS
    assert abstract_from_index({"Abstract": [0], "Bees": [1], "dance.": [2]}) == "Bees dance."  # a control


def test_an_arxiv_feed_is_parsed_only_up_to_the_entries_asked_for():
    root = _xml_or_none(atom_feed(60_000), ATOM + "entry", 10)
    assert len(root.findall(ATOM + "entry")) == 10
    broken = atom_feed(11)[:-len("</feed>")] + b"<entry><unclosed>"  # not well-formed after entry 11
    assert len(_xml_or_none(broken, ATOM + "entry", 10).findall(ATOM + "entry")) == 10
    assert _xml_or_none(broken) is None  # a control: parsed whole, the same body is refused
    assert len(_xml_or_none(atom_feed(3), ATOM + "entry", 10).findall(ATOM + "entry")) == 3


def test_arxiv_over_the_wire_gives_the_entries_asked_for(world, make_settings):
    world.route("GET", "/arxiv/query", lambda req: Response(200, atom_feed(5_000), {"Content-Type":
                                                                                    "application/atom+xml"}))
    settings = make_settings({"engines": {"arxiv_api_url": world.url("/arxiv/query")},
                              "search": {"search_cache_ttl_seconds": 0, "search_max_retries": 0}})
    answer = search_with("arxiv", "bees", settings, count=7)
    assert answer.error is None and len(answer.hits) == 7


def test_a_stored_papers_abstract_is_capped_so_keeping_it_embeds_no_megabyte():
    paper = Paper.from_dict({"doi": "10.1000/a", "abstract": "bees dance " * 50_000})
    assert kept(paper.abstract)
    assert Paper(abstract="short").abstract == "short"


def test_a_number_no_float_holds_is_none_and_loses_no_answer(world, make_settings):
    assert as_float(10 ** 400) is None and as_int(10 ** 400) is None and as_float("9" * 400) is None
    assert as_float(12) == 12.0  # a control
    hostile = HostileSearch(world).install()
    settings = make_settings({"engines": {"searxng_api_url": hostile.base("big-number")},
                              "search": {"search_cache_ttl_seconds": 0}})
    answer = search_with("searxng", "big", settings)
    assert answer.error is None and [h.url for h in answer.hits] == ["https://big.example/"]
    assert answer.hits[0].score is None


def test_a_control_character_never_enters_a_doi_or_a_result_url():
    assert bare_doi("10.1000/bee\x01s") == "10.1000/bee"
    assert as_url("https://bees.example/a\x1bb") == "" and as_url("https://bees.example/ab") != ""
    page = load_engine("crossref").parse_response(
        {"status": "ok", "message": {"items": [{"DOI": "10.1000/bee\x0bs", "URL": "https://x.example/\x07"}]}}, OPTS)
    assert page.hits[0].paper.doi == "10.1000/bee" and json.dumps(page.hits[0].url).isascii()
