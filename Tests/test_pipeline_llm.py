"""The research pipeline end to end in LLM mode: the mini web behind a SearXNG-format API, a scripted model
behind an OpenAI-compatible server, every fault of the test world in the results."""
from __future__ import annotations

import json
import math
import re
import threading
import time

import pytest

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.Research.pipeline import process_question, rerun_from_fetch
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.records import ResearchResult
from Tests.support.deadline import finishes_within
from Tests.support.mini_web import INJECTION, MiniWeb, research_config
from Tests.support.openai_server import ScriptedLLM
from Tests.support.research_llm import data_blocks, outside_data, script_research
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"
BEE_WORDS = ("bee", "honey", "waggle", "bienen", "forag", "hive")


@pytest.fixture
def web(world):
    return MiniWeb(world, timeout_delay=5).install()


@pytest.fixture
def llm(world):
    model = script_research(ScriptedLLM(default="?"), BEE_WORDS,
                            sub_queries=["honey bee waggle dance", "bee round dance scent", "sourdough starter"])
    return model.install(world)


@pytest.fixture
def settings(world, web, llm, make_settings):
    return make_settings(research_config(web, world.url("/v1")))


def by_path(result: ResearchResult, path: str):
    return next(s for s in result.sources if s.url.endswith("/web/" + path))


def test_cited_report_with_every_fault_recorded(world, web, llm, make_settings):
    # caps high enough that every fault and hostile page of the mini web is searched, judged and read
    make_settings(research_config(web, world.url("/v1"), research={"pages_max": 40},
                                  search={"search_result_max": 40, "search_result_max_per_query": 40}))
    started = time.monotonic()
    result = finishes_within(120, lambda: process_question(QUESTION))
    elapsed = time.monotonic() - started
    assert result.mode == "llm"
    assert result.sub_queries == ["honey bee waggle dance", "bee round dance scent", "sourdough starter"]
    # every [n] left in the report names a numbered source, and each citation carries its source's quote
    numbered = {s.n: s for s in result.cited_sources()}
    cited = {int(n) for group in re.findall(r"\[([\d,\s-]+)\]", result.report_markdown)
             for n in re.split(r"[,\s-]+", group) if n}
    assert cited and cited <= set(numbered)
    assert result.invalid_citations_removed == 1 and "[99]" not in result.report_markdown
    assert result.citations
    for c in result.citations:
        src = numbered[c.n]
        assert c.url == (src.final_url or src.url) and c.content_hash == src.content_hash
        assert any(c.quote in " ".join(p.text.split()) for p in src.passages)  # a passage, or its sentence
    # the faults: recorded per source, none of them cited, all within the time-outs
    expected_errors = {"faults/rate-limited": "429", "faults/server-error": "500", "faults/timeout": "time-out",
                       "faults/loop-a": "redirect loop", "faults/binary": "not a text page"}
    for path, words in expected_errors.items():
        source = by_path(result, path)
        assert source.verdict == "relevant" and not source.fetched and words in source.error and source.n is None
    huge = by_path(result, "faults/huge")
    assert huge.fetched and "cut at" in huge.error
    assert "read as" in by_path(result, "faults/bad-encoding").error
    assert by_path(result, "go/waggle").final_url.endswith("/web/bees/waggle-dance")
    # hostile pages: a bogus charset label is ignored (the page is read and cited); PDFs pypdf cannot read and a
    # redirect to a malformed address are that source's failure
    for path in ("hostile/hex-charset", "hostile/base64-charset"):
        assert by_path(result, path).fetched and by_path(result, path).n is not None
    assert "declares 'hex'" in by_path(result, "hostile/hex-charset").error
    hostile_errors = {"hostile/filter.pdf": "Unsupported filter /FooDecode",
                      "hostile/encrypted.pdf": "encrypted PDF", "hostile/bad-redirect": "bad redirect location"}
    for path, words in hostile_errors.items():
        source = by_path(result, path)
        assert source.verdict == "relevant" and not source.fetched and words in source.error and source.n is None
    assert elapsed < 60  # no hang (2-3 s idle, 10 s on a loaded machine); "time-out" above proves the time-out
    # the bread page was judged irrelevant and never fetched
    starter = by_path(result, "bread/starter")
    assert starter.verdict == "irrelevant" and starter.reason and not starter.fetched
    assert not web.world.requests_to("/web/bread/")


def test_llm_calls_batches_timings_and_json(settings, llm):
    result = process_question(QUESTION)
    fetched = sum(1 for s in result.sources if s.fetched)
    budget = 3 + math.ceil(len(result.sources) / 8) + fetched
    assert result.llm_usage["calls"] == llm.calls <= budget
    assert result.llm_usage["prompt_tokens"] > 0
    assert set(result.timings) >= {"subqueries", "search", "relevance", "fetch", "rank", "extract", "report",
                                   "verify", "total"}
    # relevance: batches of 8 at temperature 0
    batches = [b for b, p in zip(llm.bodies, llm.prompts) if "Judge every result" in p]
    assert len(batches) == math.ceil(len(result.sources) / 8)
    assert all(b["temperature"] == 0 for b in batches)
    # the result is JSON and round-trips; its params hold no key
    again = ResearchResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.report_markdown == result.report_markdown
    assert [c.quote for c in again.citations] == [c.quote for c in result.citations]
    assert "api_key" not in json.dumps(result.params)


def test_page_text_reaches_prompts_only_inside_data_delimiters(settings, llm):
    process_question(QUESTION)
    carrying = [p for p in llm.prompts if "IGNORE ALL PREVIOUS INSTRUCTIONS" in p]
    assert carrying, "the injection page was never shown to the model"
    for prompt in llm.prompts:
        outside = outside_data(prompt)
        assert "IGNORE ALL PREVIOUS" not in outside and "evil.example" not in outside
        assert "waggle run" not in outside  # ordinary page text is data too
    assert any(INJECTION[:40] in text for p in carrying for _, text in data_blocks(p))


def test_progress_for_every_stage_and_the_report_streamed(settings):
    events, pieces = [], []
    result = process_question(QUESTION, on_progress=events.append, on_report_delta=pieces.append)
    finished = {e.stage for e in events if e.done == e.total}
    assert finished >= {"subqueries", "search", "relevance", "fetch", "rank", "extract", "report", "verify", "done"}
    fetch = [e.done for e in events if e.stage == "fetch"]
    assert fetch == sorted(fetch)
    assert len(pieces) > 3 and "".join(pieces).strip().startswith("## Findings")
    assert result.report_markdown.startswith("## Findings")


def test_cancel_stops_pending_work_promptly(settings, web, llm):
    llm.delay = 1.0
    cancel = threading.Event()

    cancelled_at = []

    def stop_when_fetching(event):
        if event.stage == "fetch" and not cancel.is_set():
            cancelled_at.append(time.monotonic())
            cancel.set()

    result = process_question(QUESTION, on_progress=stop_when_fetching, cancel=cancel)
    # measured from the cancel (0.03 s); the rest of the run without it takes 5 s (its LLM calls take 1 s each)
    assert cancelled_at and time.monotonic() - cancelled_at[0] < 2.5
    assert any(e.startswith("cancelled") for e in result.errors)
    assert not result.citations


def test_rerun_from_fetch_honours_user_overrides(settings, web):
    first = process_question(QUESTION)
    starter = by_path(first, "bread/starter")
    starter.user_override = True
    waggle = by_path(first, "bees/waggle-dance")
    waggle.user_override = False
    second = rerun_from_fetch(first)
    assert by_path(second, "bread/starter").fetched
    assert not by_path(second, "bees/waggle-dance").fetched
    assert by_path(second, "bees/waggle-dance").n is None
    assert second.sub_queries == first.sub_queries
    assert second.timings["search"] == first.timings["search"]
    # pages read the first time came from the page cache
    assert len(web.world.requests_to("/web/bees/round-dance")) == 1


def test_unparseable_relevance_batch_is_retried_one_by_one_then_unjudged(world, web, make_settings):
    def results(prompt: str) -> list[str]:
        return [text for label, text in data_blocks(prompt) if label.startswith("result ")]

    model = ScriptedLLM(default="?")
    model.when(lambda p: "Judge every result" in p and len(results(p)) > 1, "not json at all")
    model.when(lambda p: "Judge every result" in p and any("waggle" in t.lower() for t in results(p)),
               lambda p: json.dumps({"verdicts": [{"id": 1, "relevant": True, "reason": "on topic"}]}))
    model.when("Judge every result", '{"verdicts": [{"id": 7, "relevant": "perhaps"}]}')
    script_research(model, BEE_WORDS, sub_queries=["honey bee waggle dance", "sourdough starter"])
    model.install(world)
    make_settings(research_config(web, world.url("/v1")))
    result = process_question(QUESTION)
    waggle = by_path(result, "bees/waggle-dance")
    assert waggle.verdict == "relevant" and waggle.reason == "on topic"
    starter = by_path(result, "bread/starter")
    assert starter.verdict == "unjudged" and "could not be judged" in starter.reason
    assert starter.fetched  # unjudged results are kept


def test_subqueries_fall_back_to_the_question_after_three_bad_answers(world, web, make_settings):
    model = ScriptedLLM(default="?")
    model.when("JSON array of strings", "Sure! Here are some queries: bees, honey.")
    script_research(model, BEE_WORDS)
    model.install(world)
    make_settings(research_config(web, world.url("/v1")))
    result = process_question(QUESTION)
    asked = [p for p in model.prompts if "search queries for this question" in p]
    assert len(asked) == 3
    assert result.sub_queries == [QUESTION]
    assert any("sub-queries" in e for e in result.errors)
    assert result.citations


def test_search_api_faults_are_recorded_and_the_report_still_written(world, web, llm, make_settings):
    make_settings(research_config(web, world.url("/v1")))
    world.fault("/searxng/search", malformed_json=True, times=1)
    result = process_question(QUESTION)
    assert any(e.startswith("SearXNG gave an answer Quarry cannot read") for e in result.errors)
    assert result.citations


def test_llm_failure_while_writing_falls_back_to_an_extractive_brief(world, web, make_settings):
    """A server that stops answering while the report is written: the report is extractive, one note says
    why, and the rest of the run does not call the server again (follow-ups are derived, not asked)."""
    model = ScriptedLLM(default="?")
    model.when(prompts.REPORT_RULES[:60], lambda prompt: 1 / 0)  # the server fails: 500 "handler error"
    script_research(model, BEE_WORDS, sub_queries=["waggle dance direction", "do bumblebees dance too"]).install(world)
    make_settings(research_config(web, world.url("/v1")))  # max_retries = 0
    result = process_question(QUESTION)
    assert result.mode == "extractive" and result.citations
    notes = [e for e in result.errors if "LLM" in e]
    assert len(notes) == 1 and "is not answering (HTTP 500" in notes[0] and "this report is extractive" in notes[0]
    report_calls = [p for p in model.prompts if prompts.REPORT_RULES[:60] in p]
    assert len(report_calls) == 1 and not any(prompts.FOLLOW_UP_SYSTEM[:60] in p for p in model.prompts)
    assert result.follow_ups  # derived from the passages instead


def test_report_the_server_refuses_falls_back_with_its_reason(world, web, make_settings):
    """A request error (the server answers, 400) is this call's failure, not the server's: said as such."""
    script_research(ScriptedLLM(default="?"), BEE_WORDS).install(world)
    make_settings(research_config(web, world.url("/v1")))
    world.fault("/v1/chat/completions", status=400, body=b'{"error": {"message": "boom"}}', times=None)
    result = process_question(QUESTION)
    assert result.mode == "extractive"
    assert any(e.startswith("report: the LLM failed") for e in result.errors)
    assert not any("is not answering" in e for e in result.errors)


def test_several_engines_in_their_own_formats_are_merged(world, make_settings):
    """SearXNG (the mini web) and Brave (search_apis: pages elsewhere on the web, unreachable here)."""
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.pipeline import Services
    from Tests.support.search_apis import SearchAPIs

    apis = SearchAPIs(world).install()
    web = MiniWeb(world, include_faults=False, search_prefix="/mini-searxng").install()
    script_research(ScriptedLLM(default="?"), BEE_WORDS + ("result",), sub_queries=["honey bee waggle dance"]
                    ).install(world)
    values = research_config(web, world.url("/v1"))
    values["engines"] = {**apis.config()["engines"], "searxng_api_url": web.search_base}
    settings = make_settings(values)
    services = Services.from_settings(settings)
    services.fetcher = PageFetcher(settings.fetch, resolver=MiniWeb.resolver)  # *.example does not resolve
    params = ResearchParams.from_settings(settings, engines=["searxng", "brave"], count=5)
    result = process_question(QUESTION, params, services=services)
    engines = {tuple(s.engines) for s in result.sources}
    assert ("searxng",) in engines and ("brave",) in engines
    assert len(apis.requests_to("brave")) == 2  # the question and one sub-query
    brave = [s for s in result.sources if s.engines == ["brave"] and s.verdict == "relevant"]
    assert brave and all(not s.fetched and "cannot resolve" in s.error for s in brave)
    assert result.citations and all(c.url.startswith(world.url("/web/")) for c in result.citations)
