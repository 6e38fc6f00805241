"""Issue 22 item 2: a web report whose sources do not answer keeps its closest passages ("not used") as data,
as every other answer path does: on the result (ResearchResult.closest, its answer record), after saving and
loading, and in the JSON the MCP tools and the HTTP API answer (plain.research_out). An answered run has none."""
from __future__ import annotations

import pytest

from App_Function_Libraries.DB.connection import close_thread_connections
from App_Function_Libraries.DB.research_store import ResearchStore
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.pipeline import process_question
from App_Function_Libraries.quarry.plain import research_out
from App_Function_Libraries.records import ResearchResult
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

NOT_ANSWERED = "What did Karl von Frisch eat for breakfast?"
ANSWERED = "How do honey bees communicate the location of food?"


@pytest.fixture
def store(tmp_path):
    yield ResearchStore(tmp_path / "quarry.db", secrets=[])
    close_thread_connections()


def run(world, make_settings, question: str) -> ResearchResult:
    web = MiniWeb(world, include_faults=False).install()
    make_settings(research_config(web))
    return process_question(question, ResearchParams.from_settings(follow_up_count=0))


def test_a_report_that_does_not_answer_keeps_its_closest_passages_as_data(world, make_settings, store):
    result = run(world, make_settings, NOT_ANSWERED)
    assert result.answer_status == "not_answered" and not result.citations
    assert "not used" in result.report_markdown
    closest = result.answer.closest
    assert closest and closest == result.closest
    titles = {s.title or s.url for s in result.numbered_sources()}
    for c in closest:
        assert c.where in titles and 0 <= c.score < 1 and c.text
        assert f"{c.where} (relevance {c.score:.2f}):" in result.report_markdown  # the passages the text lists

    loaded = store.load_report(store.save_research(result))
    assert loaded.closest == closest and loaded.answer.closest == closest

    out = research_out(loaded, saved=True)
    assert out["answer_status"] == "not_answered"
    assert out["closest"] == [{"where": c.where, "score": c.score, "text": c.text} for c in closest]


def test_an_answered_report_has_no_closest_passages(world, make_settings, store):
    result = run(world, make_settings, ANSWERED)
    assert result.answer_status != "not_answered" and result.citations
    assert result.closest == [] and result.answer.closest == []
    assert research_out(store.load_report(store.save_research(result)), saved=True)["closest"] == []


def test_a_run_saved_before_closest_loads_with_none(store):
    result = ResearchResult("An older run", report_markdown="The sources read do not answer this question.",
                            answer_status="not_answered")
    data = result.to_dict()
    del data["closest"]  # as an older Quarry saved it
    loaded = store.load_report(store.save_research(data))
    assert loaded.closest == [] and research_out(loaded, saved=True)["closest"] == []
