"""The local engines: the Wikipedia index and the document library answer through the engine interface
(search_engine / search_many), with the text found riding on each hit."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from App_Function_Libraries.Search.engine import search_with
from App_Function_Libraries.Search.many import search_many
from App_Function_Libraries.Search.options import SearchOptions
from App_Function_Libraries.Wikipedia.index import forget_wiki_index
from Tests.support.make_pdf import write_pdf


def library_files(folder: Path) -> Path:
    folder.mkdir()
    arctic = [f"Sea ice covers the Arctic Ocean in month {m} of the survey, as the buoys reported." for m in range(40)]
    write_pdf(folder / "ice.pdf", [arctic, ["Alpine glaciers lost a tenth of their volume between 2021 and 2023."]])
    (folder / "coffee.md").write_text("# Brewing\n\nA French press needs coarse grounds and four minutes of "
                                      "steeping.\n", encoding="utf-8")
    return folder


def test_a_missing_index_and_an_empty_library_are_typed_engine_failures(make_settings, tmp_path):
    settings = make_settings({"wikipedia": {"index_dir": str(tmp_path / "no-index")},
                              "documents": {"index_dir": str(tmp_path / "no-docs")}})
    forget_wiki_index()
    found = search_many(["wikipedia", "documents"], ["q one", "q two"], SearchOptions.build(None, settings),
                        settings=settings)
    assert found.results == [] and [r.error_kind for r in found.runs] == ["not_set_up"] * 4
    wiki, docs = found.runs[0].error, found.runs[1].error
    assert "no Wikipedia index" in wiki and "build --demo" in wiki
    assert docs.startswith("empty") and "docs add" in docs


def test_a_local_engine_takes_no_key_and_no_url_and_refuses_nothing_it_does_not_know(make_settings):
    settings = make_settings()
    answer = search_with("wikipedia", "", settings)
    assert answer.error_kind == "invalid_option"  # the same option checks as every engine: an empty query
    answer = search_with("nowhere", "q", settings)
    assert answer.error_kind == "invalid_option" and "wikipedia" in answer.error and "documents" in answer.error


def test_a_cancelled_local_search_is_cancelled(make_settings):
    settings = make_settings()
    cancel = threading.Event()
    cancel.set()
    found = search_many(["wikipedia"], ["q"], SearchOptions.build(None, settings), settings=settings, cancel=cancel)
    assert [r.error_kind for r in found.runs] == ["cancelled"]


@pytest.mark.slow
def test_local_hits_carry_their_text_and_where_they_are(make_settings, tmp_path):
    from App_Function_Libraries.Documents.library import DocumentLibrary
    from App_Function_Libraries.Wikipedia.demo import build_demo_index
    settings = make_settings()
    forget_wiki_index()
    build_demo_index(progress=lambda done, total: None, settings=settings)
    DocumentLibrary(settings).add([library_files(tmp_path / "files")])
    found = search_many(["wikipedia", "documents"], ["Who first reached the summit of Mount Everest?",
                                                     "How much volume did alpine glaciers lose?"],
                        SearchOptions.build(None, settings, count=3), settings=settings)
    assert found.errors == {} and [r.label.split("|")[0] for r in found.runs] == ["wikipedia", "documents"] * 2
    everest = found.runs[0].answer.hits[0]
    assert everest.kind == "wikipedia" and everest.title == "Mount Everest" and "Tenzing" in everest.in_hand
    assert everest.url == "demo-encyclopedia:Mount_Everest"  # the team wrote it: no link to Wikipedia
    glaciers = found.runs[3].answer.hits[0]
    page = glaciers.title.rsplit(" ", 1)[-1]  # the page its best chunk starts on
    assert glaciers.kind == "document" and glaciers.title == f"ice.pdf, p. {page}" and page.isdigit()
    assert glaciers.url.startswith("file://") and glaciers.url.endswith(f"/files/ice.pdf#p{page}")
    assert "a tenth of their volume" in glaciers.in_hand
    assert all(h.in_hand.strip() and h.snippet for run in found.runs for h in run.answer.hits)
    # two pages of one PDF stay two results (the fragment names the page), each with its own text
    pages = [r for r in found.results if r.url.startswith("file://") and "/ice.pdf#p" in r.url]
    assert len({r.url for r in pages}) == len(pages) and all(r.in_hand and r.kind == "document" for r in pages)
    # one fusion: every result has its place in the one ranking of every (engine, query) run
    assert [r.rank for r in found.results] == list(range(1, len(found.results) + 1))
    forget_wiki_index()


def test_one_fusion_merges_a_page_found_on_the_web_and_in_the_index_keeping_the_text_in_hand():
    from App_Function_Libraries.Search.engine import EngineAnswer
    from App_Function_Libraries.Search.engines.base import Hit
    from App_Function_Libraries.Search.many import EngineRun, merge_runs
    page = "https://en.wikipedia.org/wiki/Honey_bee"
    web = EngineRun("searxng", "q", EngineAnswer("searxng", hits=[Hit("Honey bee - Wikipedia", page + "#Dance"),
                                                                  Hit("Bees", "https://bees.example/")]))
    wiki = EngineRun("wikipedia", "q", EngineAnswer("wikipedia", hits=[
        Hit("Honey bee", page, in_hand="The waggle dance tells the way.", kind="wikipedia")]))
    docs = EngineRun("documents", "q", EngineAnswer("documents", hits=[
        Hit("hive.pdf, p. 1", "file:///lib/hive.pdf#p1", in_hand="page one", kind="document"),
        Hit("hive.pdf, p. 2", "file:///lib/hive.pdf#p2", in_hand="page two", kind="document")]))
    merged = merge_runs([web, wiki, docs])
    # reciprocal rank fusion over the three rankings: 2/61, 1/61, 1/62 and 1/62 (a tie keeps the first seen)
    assert [m.url for m in merged] == [page + "#Dance", "file:///lib/hive.pdf#p1", "https://bees.example/",
                                       "file:///lib/hive.pdf#p2"]
    bee = merged[0]  # first in two rankings: first in the one fusion
    assert bee.engines == ["searxng", "wikipedia"] and bee.in_hand == "The waggle dance tells the way."
    assert bee.kind == "wikipedia" and merged[2].kind == "web" and merged[2].in_hand == ""
    assert [m.in_hand for m in merged[1::2]] == ["page one", "page two"]  # two pages of one file stay two


def test_runs_saved_before_the_text_rode_on_the_source_still_read_it():
    from App_Function_Libraries.records import ResearchResult
    from App_Function_Libraries.Research.durable import _legacy_in_hand
    from App_Function_Libraries.Research.pipeline import _in_hand
    saved = {"question": "q", "sources": [
        {"title": "Honey bee", "url": "demo-encyclopedia:Honey_bee", "kind": "wikipedia",
         "passages": [{"text": "first"}, {"text": "second"}]},
        {"title": "Dance", "url": "https://papers.example/dance", "kind": "paper", "paper": {"abstract": "abs"}}]}
    old = ResearchResult.from_dict(saved)  # a saved report: the local text is its stored passages
    assert _in_hand(old.sources[0]) == "first\n\nsecond" and old.sources[1].text_in_hand == "abs"
    stopped = ResearchResult.from_dict(saved)  # a durable run's state kept the text beside, by URL
    _legacy_in_hand(stopped, {"demo-encyclopedia:Honey_bee": "the text found", "https://papers.example/dance": "abs"})
    assert stopped.sources[0].in_hand == "the text found" and stopped.sources[1].in_hand == ""


def test_a_local_search_past_its_deadline_times_out_and_a_cancel_ends_the_wait():
    import time

    from App_Function_Libraries.Search.errors import Cancelled, TimedOut
    from App_Function_Libraries.Search.runner import RunPolicy, _within_deadline
    gate = threading.Event()
    try:
        started = time.monotonic()
        with pytest.raises(TimedOut, match=r"The Wikipedia index \(local\) did not answer within 0.2 s"):
            _within_deadline(lambda: gate.wait(10), RunPolicy(timeout=0.2), "The Wikipedia index (local)")
        assert time.monotonic() - started < 5
        cancel = threading.Event()
        threading.Timer(0.1, cancel.set).start()
        with pytest.raises(Cancelled):
            _within_deadline(lambda: gate.wait(10), RunPolicy(timeout=60, cancel=cancel), "documents")
        assert time.monotonic() - started < 10
    finally:
        gate.set()  # the searches left behind end
    assert _within_deadline(lambda: 42, RunPolicy(timeout=5), "documents") == 42  # control: in time, answered


def test_a_saved_report_keeps_a_local_sources_text_in_hand(make_settings):
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.records import ResearchResult, Source
    store = get_research_store(make_settings())
    result = ResearchResult(question="q", report_markdown="Bees dance [1].", sources=[
        Source("Honey bee", "demo-encyclopedia:Honey_bee", kind="wikipedia", in_hand="The waggle dance.", n=1),
        Source("Bees", "https://bees.example/", n=2)])
    saved = store.load_report(store.save_research(result))
    assert [(s.kind, s.in_hand) for s in saved.sources] == [("wikipedia", "The waggle dance."), ("web", "")]


def test_a_local_engine_does_not_note_safesearch_but_notes_a_date_range_it_cannot_keep():
    """Safesearch has nothing to filter in the user's own index and files; a date range it cannot apply is
    still noted. Control: a web engine without safesearch notes it."""
    from App_Function_Libraries.Search.engines import load_engine
    from App_Function_Libraries.Search.engines.base import unsupported_notes
    from App_Function_Libraries.Search.options import build_options
    opts = build_options("bees", count=5, safesearch="strict", date_range="week")
    wiki = unsupported_notes(load_engine("wikipedia").SPEC, opts)
    assert wiki == ["wikipedia: date_range not supported, ignored"]
    web_spec = load_engine("searxng").SPEC
    bare = type(web_spec)(**{**web_spec.__dict__, "honours": {}})
    assert "safesearch" in unsupported_notes(bare, opts)[0]
