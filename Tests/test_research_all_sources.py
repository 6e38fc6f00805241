"""One research across every source: web pages, the local Wikipedia index and the document library, in one
report whose [n] each point at the right kind of source."""
from __future__ import annotations

import dataclasses
import json
import re
import threading

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.Wikipedia.index import forget_wiki_index
from Tests.support.all_sources import set_up_local_sources
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.openai_server import ScriptedLLM
from Tests.support.research_llm import script_research
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

pytestmark = pytest.mark.slow
QUESTION = "How do honey bees communicate the location of food?"


def run_research(settings, capsys, engines: str, llm: bool = False) -> dict:
    code = main(["--config", str(settings.path), "research", QUESTION, "--engine", engines, "--json", "--no-save"]
                + ([] if llm else ["--no-llm"]))
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def every_source_set_up(world, make_settings, tmp_path, llm_url: str | None = None):
    """The mini web, the demo Wikipedia index and a library holding one PDF of hive notes."""
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web, llm_url, embeddings=True,
                                             research={"relevance_embedding_threshold": 0.3}))
    set_up_local_sources(settings, tmp_path)
    return settings


def test_one_report_cites_web_pages_the_encyclopedia_and_documents(world, make_settings, tmp_path, capsys):
    settings = every_source_set_up(world, make_settings, tmp_path)
    result = run_research(settings, capsys, "searxng,wikipedia,documents")
    numbered = {s["n"]: s for s in result["sources"] if s["n"] is not None}
    assert len(numbered) == len({s["url"] for s in numbered.values()})  # each source numbered once
    kinds = {s["kind"] for s in numbered.values()}
    assert kinds == {"web", "wikipedia", "document"}, [(s["kind"], s["url"]) for s in result["sources"]]
    assert result["citations"] and result["invalid_citations_removed"] == 0
    cited = {c["n"] for c in result["citations"]}
    # issue 22: the extractive brief quotes only what clears the relevance floor, at most six texts: here the
    # encyclopedia and the documents; the LLM-mode test below has the report cite every kind
    assert cited <= set(numbered) and len({numbered[n]["kind"] for n in cited}) >= 2
    for c in result["citations"]:
        assert c["url"] in (numbered[c["n"]]["url"], numbered[c["n"]]["final_url"])
    wiki = [s for s in numbered.values() if s["kind"] == "wikipedia"]
    assert any(s["title"] == "Honey bee" for s in wiki) and all(s["engines"] == ["wikipedia"] for s in wiki)
    doc = next(s for s in numbered.values() if s["kind"] == "document")
    assert doc["url"].startswith("file://") and "/files/hive.pdf#p" in doc["url"]
    assert doc["title"].startswith("hive.pdf, p. ") and doc["engines"] == ["documents"]
    assert not any(e.startswith(("The Wikipedia index", "The document library")) for e in result["errors"])
    forget_wiki_index()


def test_local_sources_not_set_up_are_noted_once_and_the_web_answers(world, make_settings, capsys):
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web, embeddings=True, research={"relevance_embedding_threshold": 0.3}))
    forget_wiki_index()
    result = run_research(settings, capsys, "searxng,wikipedia,documents")
    notes = [e for e in result["errors"] if e.startswith(("The Wikipedia index", "The document library"))]
    assert len(notes) == 2 and "build --demo" in notes[0] and "docs add" in notes[1], result["errors"]
    assert {s["kind"] for s in result["sources"]} == {"web"} and result["citations"]


def test_llm_mode_cites_every_kind_of_source_with_verified_citations(world, make_settings, tmp_path, capsys):
    script_research(ScriptedLLM(default="?"), ("bee", "honey", "waggle", "forag", "hive"),
                    invalid_citation=None).install(world)
    settings = every_source_set_up(world, make_settings, tmp_path, llm_url=world.url("/v1"))
    result = run_research(settings, capsys, "searxng,wikipedia,documents", llm=True)
    assert result["mode"] == "llm"
    numbered = {s["n"]: s for s in result["sources"] if s["n"] is not None}
    assert len(numbered) == len({s["url"] for s in numbered.values()})  # each source numbered once
    assert {s["kind"] for s in numbered.values()} == {"web", "wikipedia", "document"}
    cited_in_text = {int(n) for group in re.findall(r"\[([\d,\s-]+)\]", result["report_markdown"])
                     for n in re.split(r"[,\s-]+", group) if n}
    assert cited_in_text and cited_in_text <= set(numbered)  # every [n] names a numbered source
    assert result["citations"] and result["invalid_citations_removed"] == 0
    assert {numbered[c["n"]]["kind"] for c in result["citations"]} == {"web", "wikipedia", "document"}
    for c in result["citations"]:  # verified: the quote is the cited source's own passage
        src = numbered[c["n"]]
        assert c["url"] in (src["url"], src["final_url"]) and c["content_hash"] == src["content_hash"]
        # the source's own sentence holding the cited one, or its best passage (issue 22), whitespace collapsed
        assert any(c["quote"] in " ".join(p["text"].split()) for p in src["passages"])
    doc = next(s for s in numbered.values() if s["kind"] == "document")
    assert "/files/hive.pdf#p" in doc["url"] and doc["engines"] == ["documents"]
    assert any(s["title"] == "Honey bee" for s in numbered.values() if s["kind"] == "wikipedia")
    forget_wiki_index()


def test_web_and_local_results_are_fused_once_and_the_local_text_rides_on_its_source(world, make_settings,
                                                                                        tmp_path):
    """One fan-out, one fusion: the research's sources are search_many's fused ranking as it stands (the old
    pipeline searched only the web there and fused a second time with the local finds beside it)."""
    from App_Function_Libraries.Research.params import ResearchParams
    from App_Function_Libraries.Research.pipeline import Services, process_question
    from App_Function_Libraries.Search.many import search_many
    settings = every_source_set_up(world, make_settings, tmp_path)
    calls = []

    def search(engines, queries, options, **kw):
        found = search_many(engines, queries, options, **kw)
        calls.append((list(engines), found))
        return found
    services = Services.from_settings(settings, use_llm=False)
    services.search = search
    engines = ["searxng", "wikipedia", "documents"]
    params = dataclasses.replace(ResearchParams.from_settings(settings), engines=engines, use_llm=False)
    result = process_question(QUESTION, params, services=services)
    assert [asked for asked, _ in calls] == [engines]  # every engine, local ones too, in the one search
    fused = calls[0][1].results[:params.result_max]
    assert {s.url: (s.rank, s.fused_score) for s in result.sources} == {r.url: (r.rank, r.fused_score) for r in fused}
    local = [s for s in result.sources if s.kind in ("wikipedia", "document")]
    assert {s.kind for s in local} == {"wikipedia", "document"}
    found = {r.url: r.in_hand for r in fused}
    assert all(s.in_hand and s.in_hand == found[s.url] for s in local)  # the text found rides on the source
    read = [s for s in local if s.fetched]
    assert read and all(s.final_url == s.url for s in read)  # read from the text in hand, never downloaded
    forget_wiki_index()


def test_a_cancelled_run_with_local_engines_resumes_with_their_text(world, make_settings, tmp_path):
    from App_Function_Libraries import quarry
    from App_Function_Libraries.DB.run_store import get_run_store
    from Tests.support.killed_run import HELD
    settings = every_source_set_up(world, make_settings, tmp_path)
    cancel = threading.Event()

    def cancel_when_held(event):
        if event.stage == "fetch" and all(world.requests_to(p) for p in HELD):
            cancel.set()
    first = quarry.research(QUESTION, engines="searxng,wikipedia,documents", no_llm=True, use_cache=False,
                            cancel=cancel, on_progress=cancel_when_held, settings=settings)
    assert any(e.startswith("cancelled") for e in first.errors)
    assert get_run_store(settings).get_run(first.id).status == "cancelled"
    again = quarry.runs.resume(first.id[:8], settings=settings)
    assert again.id == first.id and again.report_markdown
    assert get_run_store(settings).get_run(first.id).status == "done"
    local = [s for s in again.sources if s.kind in ("wikipedia", "document")]
    assert local and all(s.in_hand for s in local)
    assert {s.kind for s in again.numbered_sources()} >= {"wikipedia", "document"}
    forget_wiki_index()
