"""The research pipeline without an LLM, with the real MiniLM embedding model: relevance by similarity,
passages ranked by BM25 + embeddings, an extractive brief whose every [n] is a verified quote."""
from __future__ import annotations

import pytest

from App_Function_Libraries.Research.pipeline import process_question
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

pytestmark = pytest.mark.slow

QUESTION = "How do honey bees communicate the location of food?"


def test_extractive_report_with_real_embeddings(world, make_settings):
    web = MiniWeb(world, timeout_delay=5).install()
    make_settings(research_config(web, embeddings=True, research={"relevance_embedding_threshold": 0.3}))
    result = process_question(QUESTION)
    assert result.mode == "extractive" and result.llm_usage["calls"] == 0
    by_path = {s.url.rsplit("/web/", 1)[1]: s for s in result.sources}
    assert by_path["bees/waggle-dance"].verdict == "relevant"
    assert "similarity" in by_path["bees/waggle-dance"].reason
    numbered = {s.n: s for s in result.cited_sources()}
    assert result.citations and result.invalid_citations_removed == 0
    for c in result.citations:
        source = numbered[c.n]
        assert c.sentence.rstrip(".") in c.quote  # an extractive sentence is quoted from its own passage
        assert c.content_hash == source.content_hash and c.similarity > 0.5
    assert any("waggle" in c.sentence.lower() or "dance" in c.sentence.lower() for c in result.citations)
    assert by_path["faults/rate-limited"].n is None and "429" in by_path["faults/rate-limited"].error


def test_off_topic_results_judged_irrelevant_by_similarity(world, make_settings):
    web = MiniWeb(world, include_faults=False).install()
    make_settings(research_config(web, embeddings=True, research={"relevance_embedding_threshold": 0.3}))
    result = process_question("How do honey bees find food and water?")
    by_path = {s.url.rsplit("/web/", 1)[1]: s for s in result.sources}
    assert by_path["bread/hydration"].verdict == "irrelevant" and not by_path["bread/hydration"].fetched
    assert by_path["bees/round-dance"].verdict == "relevant" and by_path["bees/round-dance"].fetched
    assert result.citations
