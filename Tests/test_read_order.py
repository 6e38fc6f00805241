"""Which results a run reads. A run of one query (no LLM to write sub-queries) asks for enough results to keep
result_max of them, as a run of several does; without an LLM the pages read are the selected results whose title
and snippet are most similar to the question (relevance.read_order), not merely the engine's first ones."""
from __future__ import annotations

import pytest

from App_Function_Libraries.records import Source
from App_Function_Libraries.Research import relevance
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.pipeline import process_question
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"


def test_a_run_of_one_query_asks_for_enough_results_to_fill_result_max(make_settings):
    settings = make_settings({"search": {"search_result_max_per_query": 10, "search_result_max": 15}})
    params = ResearchParams.from_settings(settings)
    assert params.search_values_for(1, settings)["count"] == 15  # one query: its 10 would leave 5 places
    assert params.search_values_for(2, settings)["count"] == 10  # two queries of 10 fill 15
    assert params.search_values_for(6, settings)["count"] == 10
    wide = ResearchParams.from_settings(settings, result_max=200)
    assert wide.search_values_for(1, settings)["count"] == 100  # the most count allows
    assert wide.search_values_for(4, settings)["count"] == 50


def test_a_count_the_caller_sets_is_asked_as_it_is(make_settings):
    settings = make_settings({"search": {"search_result_max": 15}})
    assert ResearchParams.from_settings(settings, count=2).search_values_for(1, settings)["count"] == 2
    assert ResearchParams.from_settings(settings, count=30).search_values_for(1, settings)["count"] == 30


def judged(title: str, similarity: float | None, rank: int, override: bool | None = None) -> Source:
    source = Source(title, f"http://{title}.test/", rank=rank, user_override=override)
    if similarity is None:
        relevance.apply_verdict(source, relevance.Verdict(True, "the page explains the dance"))  # an LLM's
    else:  # as judge_with_embeddings writes it
        relevance.apply_verdict(source, relevance.Verdict(True, f"similarity to the question {similarity:.2f} "
                                                                f"(at least the threshold 0.20)"))
    return source


def test_without_an_llm_the_most_similar_results_are_read_first():
    sources = [judged("a", 0.31, 1), judged("b", 0.62, 2), judged("c", 0.31, 3), judged("d", 0.55, 4)]
    assert [s.title for s in relevance.read_order(sources)] == ["b", "d", "a", "c"]  # ties: search rank


def test_llm_verdicts_keep_the_search_rank_and_a_ticked_in_result_goes_first():
    llm = [judged("a", None, 1), judged("b", None, 2), judged("c", None, 3)]
    assert [s.title for s in relevance.read_order(llm)] == ["a", "b", "c"]
    mixed = [judged("a", 0.5, 1), judged("b", None, 2), judged("c", 0.7, 3)]  # some not measured: rank
    assert [s.title for s in relevance.read_order(mixed)] == ["a", "b", "c"]
    ticked = [judged("a", 0.5, 1), judged("b", 0.1, 2, override=True), judged("c", 0.7, 3)]
    assert [s.title for s in relevance.read_order(ticked)] == ["b", "c", "a"]


@pytest.mark.slow
@pytest.mark.parametrize("count", [None, 10])
def test_a_one_query_run_reads_the_most_similar_of_result_max_results(world, make_settings, count):
    """The mini web with two mirrors of each article: more than ten results for the question. Without a count the
    run asks SearXNG for a second page and keeps 15; with count=10 (the control) it asks one page and keeps 10.
    Either way the 7 pages read are the most similar of those judged relevant."""
    web = MiniWeb(world, include_faults=False, mirrors=2).install()
    settings = make_settings(research_config(web, embeddings=True, research={"pages_max": 7}))
    values = {} if count is None else {"count": count}
    result = process_question(QUESTION, ResearchParams.from_settings(settings, use_cache=False, **values))
    pages_asked = sorted(int(r.arg("pageno") or 1) for r in world.requests_to("/searxng/search"))
    assert pages_asked == ([1, 2] if count is None else [1])
    assert len(result.sources) == (15 if count is None else 10)
    selected = [s for s in result.sources if s.selected]
    read = [s for s in selected if not s.skipped]
    unread = [s for s in selected if s.skipped]
    assert len(read) == 7 and unread and all("only 7 selected results are read" in s.skipped for s in unread)
    similarity = {s.url: relevance.similarity_of(s.reason)[0] for s in selected}
    assert min(similarity[s.url] for s in read) >= max(similarity[s.url] for s in unread)
    assert any(s.rank <= 10 for s in unread)  # one of the engine's first ten is less like the question
    if count is None:  # ... than a result of the second page, read in its place
        assert any(s.rank > 10 for s in read)
