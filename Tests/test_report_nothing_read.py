"""Issue 22: when no source is given to the writer, the report says what really happened, from the sources' own
state (Research/report.nothing_read): every result judged not relevant (so none was read) is not "no source
could be read"; every read failing keeps that message; a mix gives the count of each. The run is
not_answered with no closest passages (nothing was read), with or without an LLM, in the same words."""
from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from App_Function_Libraries import options
from App_Function_Libraries.Research import report
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.pipeline import Run, Services, process_question, stage_report, stage_verify
from App_Function_Libraries.Research.relevance import Verdict, apply_verdict, similarity_of
from App_Function_Libraries.records import ResearchResult, Source
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.openai_server import ScriptedLLM
from Tests.support.research_llm import script_research
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"
UI_TAB = Path(__file__).resolve().parent.parent / "App_Function_Libraries" / "Gradio_UI" / "web_search_tab.py"


def judged(n: int, reason_of) -> list[Source]:
    """n results judged not relevant (none read), each with the reason its judge gave."""
    sources = [Source(f"Result {i}", f"http://site{i}.test/page", snippet="about something else") for i in range(n)]
    for i, source in enumerate(sources):
        apply_verdict(source, Verdict(False, reason_of(i)))
    return sources


def by_similarity(i: int) -> str:  # the reason judge_with_embeddings gives below its threshold
    return f"similarity to the question {0.05 + i / 100:.2f} (below the threshold 0.25)"


def test_every_result_judged_not_relevant_is_said_so_with_the_threshold_and_how_to_read_them():
    sources = judged(10, by_similarity)
    said, unanswered, closest = report.write_brief(QUESTION, [], sources)
    assert "No source could be read" not in said and said != report.NO_EVIDENCE  # nothing failed to be read
    assert said.startswith("None of the 10 search results was judged relevant to this question")
    assert "below the threshold 0.25, the highest 0.14" in said and "so no page was read" in said
    check = options.OPTIONS["relevance_check"]
    for offered in ("Re-run with selection", check.flag, check.label, "--relevance-embedding-threshold"):
        assert offered in said, offered
    assert unanswered == [] and closest == []
    one = report.nothing_read(judged(1, by_similarity))
    assert one.startswith("The one search result was not judged relevant") and "To read it anyway, tick it" in one


def test_results_an_llm_judged_not_relevant_point_to_its_reasons_and_offer_no_threshold():
    said = report.nothing_read(judged(4, lambda i: "a different subject"))
    assert said.startswith("None of the 4 search results was judged relevant to this question (the sources list")
    assert "threshold" not in said and "--no-relevance" in said and "Re-run with selection" in said


def test_the_ways_to_read_them_anyway_are_the_ones_the_doors_offer():
    """The report names a tick-in table, its re-run button, the switch and the threshold: each exists."""
    tab = UI_TAB.read_text(encoding="utf-8")
    assert '"Details: every result; tick results in or out, then re-run"' in tab
    assert '"Re-run with selection"' in tab and 'option_label("relevance_check")' in tab
    from App_Function_Libraries.CLI.main import build_parser
    args = build_parser().parse_args(["research", "q", "--no-relevance", "--relevance-embedding-threshold", "0.1"])
    assert args.relevance_check is False and args.relevance_embedding_threshold == 0.1
    assert similarity_of(by_similarity(3)) == (0.08, 0.25) and similarity_of("a different subject") is None


def test_reads_that_all_failed_keep_no_evidence_and_a_mix_gives_each_count():
    failed = [Source("Down", "http://down.test/", verdict="relevant", failure="connection failed"),
              Source("Later", "http://later.test/", verdict="relevant", skipped="not read: pages_max")]
    assert report.nothing_read(failed) == report.NO_EVIDENCE  # control: every read tried failed
    ticked = Source("Ticked in", "http://in.test/", verdict="irrelevant", user_override=True, failure="HTTP 404")
    empty = Source("Read", "http://read.test/", verdict="relevant", fetched=True)  # its notes: nothing relevant
    out = Source("Ticked out", "http://out.test/", verdict="relevant", user_override=False)
    mix = judged(7, by_similarity) + [ticked, empty, out]
    said = report.nothing_read(mix)
    assert said.startswith("No page gave anything to report for this question: of the 10 search results, 7 were "
                           "judged not relevant to it (by similarity")
    assert "1 was ticked out, so not read, 1 was read but held nothing about it and 1 could not be read." in said
    assert report.SEE_SOURCES in said and "To read the ones judged not relevant anyway" in said
    assert "No source could be read" not in said
    assert report.SEE_SOURCES not in report.nothing_read(judged(3, by_similarity) + [empty])  # nothing went wrong


@pytest.mark.parametrize("report_format", ["full", "short", "bullets", "table"])
def test_the_run_is_not_answered_with_no_closest_passages_in_every_format(report_format, make_settings):
    settings = make_settings({"research": {"use_embeddings": "false"}})
    result = ResearchResult(QUESTION, sources=judged(10, by_similarity))
    params = ResearchParams.from_settings(settings, use_llm=False, use_cache=False, report_format=report_format)
    run = Run(result, Services(settings=settings), params, None, None)
    stage_report(run)
    stage_verify(run)
    assert result.report_markdown.startswith("None of the 10 search results was judged relevant to this question")
    assert result.report_markdown == report.nothing_read(result.sources)  # the one text, whatever the format
    assert result.answer_status == "not_answered" and result.closest == [] and not result.citations
    assert result.answer.status == "not_answered" and result.answer.closest == []
    assert result.mode == "none"  # no one wrote an answer: not labelled "extractive"


def test_with_an_llm_that_judges_every_result_off_topic_the_run_says_the_same(world, make_settings):
    web = MiniWeb(world, include_faults=False).install()
    llm = script_research(ScriptedLLM(default="?"), ("zebra-crossing-xyz",)).install(world)
    settings = make_settings(research_config(web, world.url("/v1")))
    result = process_question(QUESTION, ResearchParams.from_settings(settings, follow_up_count=0))
    assert result.sources and all(s.verdict == "irrelevant" and not s.fetched for s in result.sources)
    total = len(result.sources)
    assert result.report_markdown.startswith(f"None of the {total} search results was judged relevant")
    assert "the sources list below says why" in result.report_markdown and "No source could be read" not in \
        result.report_markdown
    assert result.answer_status == "not_answered" and result.closest == [] and not result.citations
    without = ResearchResult(QUESTION, sources=copy.deepcopy(result.sources))  # the same state, no LLM
    params = ResearchParams.from_settings(settings, use_llm=False, use_cache=False)
    run = Run(without, Services(settings=settings), params, None, None)
    stage_report(run)
    stage_verify(run)
    assert without.report_markdown == result.report_markdown and without.answer_status == result.answer_status


@pytest.mark.slow
def test_without_an_llm_results_below_the_similarity_threshold_are_said_so(world, make_settings):
    """Real MiniLM embeddings: with a threshold nothing reaches, nothing is read, and the report says so."""
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web, embeddings=True))
    result = process_question(QUESTION, ResearchParams.from_settings(settings, use_llm=False, follow_up_count=0,
                                                                     relevance_embedding_threshold=0.99))
    assert result.sources and not any(s.fetched for s in result.sources)
    said = result.report_markdown
    assert said.startswith(f"None of the {len(result.sources)} search results was judged relevant")
    highest = max(similarity_of(s.reason)[0] for s in result.sources)
    assert re.search(rf"below the threshold 0\.99, the highest {highest:.2f}\)", said)
    assert result.answer_status == "not_answered" and result.closest == []


def test_a_run_that_stopped_before_reading_says_so_not_that_nothing_could_be_read():
    """A budget spent before the first page (durable.mark_unread) leaves every selected result unread: the
    report says the run stopped, and why, not "No source could be read"."""
    why = "not read: the run reached its budget of 50 LLM tokens"
    unread = [Source(f"Page {i}", f"http://p{i}.test/", verdict="relevant", skipped=why) for i in range(3)]
    said = report.nothing_read(unread)
    assert said == report.NONE_READ_YET.format(total=3, why=why) and "No source could be read" not in said
    # control: once one read was tried and failed, the run did not just stop: each count is given
    tried = unread[:2] + [Source("Down", "http://down.test/", verdict="relevant", failure="connection failed")]
    assert report.nothing_read(tried) == report.NO_EVIDENCE


@pytest.mark.parametrize("stopped", [True, False])
def test_a_run_stopped_before_its_search_found_anything_does_not_say_the_search_found_nothing(stopped,
                                                                                               make_settings):
    import threading
    settings = make_settings({"research": {"use_embeddings": "false"}})
    cancel = threading.Event()
    if stopped:
        cancel.set()
    result = ResearchResult(QUESTION)
    params = ResearchParams.from_settings(settings, use_llm=False, use_cache=False)
    stage_report(Run(result, Services(settings=settings), params, None, cancel))
    # control (not stopped): a search that really found nothing says so
    assert result.report_markdown == (report.STOPPED_BEFORE_RESULTS if stopped else report.NO_RESULTS)
    assert result.mode == "none"
