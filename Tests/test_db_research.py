"""The research store: saving and loading whole research runs, the history, user overrides, the page cache."""
from __future__ import annotations

import time

import pytest

from App_Function_Libraries.DB.connection import NotFoundError, StoreError, close_thread_connections, open_database
from App_Function_Libraries.DB.research_store import ResearchStore
from App_Function_Libraries.records import Citation, Page, Passage, ResearchResult, Source


def sample_result(question: str = "How do honey bees share where food is?", **overrides) -> ResearchResult:
    sources = [
        Source(title="Waggle dance", url="https://bees.example/dance", snippet="Bees dance to point at food.",
               engines=["brave", "duckduckgo"], queries=[question, "waggle dance"], rank=1, fused_score=0.032,
               date_published="2021-05-04", verdict="relevant", reason="explains the dance", fetched=True,
               final_url="https://bees.example/dance/", status=200, content_hash="h1",
               passages=[Passage("The angle of the run gives the direction.", 0.81)],
               notes="The dance encodes direction and distance.", n=1),
        Source(title="Pheromones", url="https://ants.example/trails", snippet="Ants use trails.",
               engines=["brave"], rank=2, verdict="irrelevant", reason="about ants", user_override=True, n=2,
               round=1),
        Source(title="Unused", url="https://other.example/", verdict="unjudged", failure="timed out"),
    ]
    data = dict(question=question, params={"engines": ["brave"], "max_results": 15}, sub_queries=["waggle dance"],
                sources=sources, report_markdown="Bees dance [1]; ants follow trails [2].",
                citations=[Citation(1, "Bees dance [1].", "https://bees.example/dance",
                                    "The angle of the run gives the direction.", "h1", 0.9)],
                uncited_sources=[3], invalid_citations_removed=1, timings={"search": 1.25, "fetch": 3.5},
                llm_usage={"calls": 4, "prompt_tokens": 1200, "completion_tokens": 300, "models": ["test-model"]},
                errors=["kagi: no key"], mode="llm", follow_ups=["Do other insects dance?"],
                rounds=[{"round": 1, "added": ["https://ants.example/trails"]}])
    data.update(overrides)
    return ResearchResult(**data)


@pytest.fixture
def store(tmp_path):
    yield ResearchStore(tmp_path / "quarry.db", secrets=[])
    close_thread_connections()


def test_a_saved_run_loads_back_identical(store):
    result = sample_result()
    assert store.save_research(result) == result.id
    assert store.load_report(result.id).to_dict() == result.to_dict()


def test_unknown_fields_survive_a_round_trip(store):
    data = sample_result().to_dict()
    data["future_field"] = {"a": 1}
    data["sources"][0]["future_source_field"] = "kept"
    store.save_research(data)
    db = open_database(store.path)
    assert "future_field" in db.execute("SELECT extra FROM reports").fetchone()[0]
    assert "kept" in db.execute("SELECT extra FROM results WHERE position = 0").fetchone()[0]


def test_saving_again_replaces_the_run(store):
    result = sample_result()
    store.save_research(result)
    result.sources = result.sources[:1]
    result.report_markdown = "Shorter [1]."
    store.save_research(result)
    back = store.load_report(result.id)
    assert len(back.sources) == 1 and back.report_markdown == "Shorter [1]."
    db = open_database(store.path)
    assert db.execute("SELECT count(*) FROM results").fetchone()[0] == 1
    assert store.count_reports() == 1


def test_history_lists_newest_first_and_filters(store):
    old = sample_result("Why is the sky blue?", created_at=time.time() - 100)
    new = sample_result("What is 100% of 50_000?")
    store.save_research(old)
    store.save_research(new)
    summaries = store.list_reports()
    assert [s.id for s in summaries] == [new.id, old.id]
    assert summaries[0].source_count == 3 and summaries[0].citation_count == 1
    assert summaries[0].models == ["test-model"] and summaries[0].mode == "llm"
    assert [s.id for s in store.list_reports(query="sky")] == [old.id]
    assert [s.id for s in store.list_reports(query="100%")] == [new.id]  # LIKE wildcards are literal
    assert [s.id for s in store.list_reports(query="0_0")] == [new.id]
    assert store.list_reports(query="0%5") == []
    assert [s.id for s in store.list_reports(limit=1, offset=1)] == [old.id]
    assert store.resolve_id(new.id[:6]) == new.id


def test_delete_and_missing_reports(store):
    result = sample_result()
    store.save_research(result)
    store.delete_report(result.id)
    with pytest.raises(NotFoundError):
        store.load_report(result.id)
    with pytest.raises(NotFoundError):
        store.delete_report(result.id)
    db = open_database(store.path)
    assert db.execute("SELECT count(*) FROM results").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM citations").fetchone()[0] == 0


def test_a_run_without_a_question_is_refused(store):
    with pytest.raises(StoreError, match="question"):
        store.save_research(ResearchResult(question="  "))
    assert store.count_reports() == 0


def test_user_override(store):
    result = sample_result()
    store.save_research(result)
    store.set_user_override(result.id, "https://other.example/", True)
    store.set_user_override(result.id, "https://ants.example/trails", None)
    back = store.load_report(result.id)
    assert back.sources[2].user_override is True and back.sources[2].selected
    assert back.sources[1].user_override is None and not back.sources[1].selected
    with pytest.raises(NotFoundError):
        store.set_user_override(result.id, "https://nowhere.example/", False)


def test_page_cache(store):
    page = Page(url="https://a.example/x", final_url="https://a.example/x/", status=200, content_hash="abc",
                      title="A", text="Body text", content_type="text/html", fetched_at=time.time() - 50)
    store.put_page(page)
    assert store.get_page("https://a.example/x", 60) == page
    assert store.get_page("https://a.example/x/", 60) == page  # by its final URL too
    assert store.get_page("https://a.example/x", 10) is None  # too old
    assert store.get_page("https://a.example/x", 0) is None  # cache off
    assert store.get_page("https://b.example/", 60) is None
    fresh = Page(url="https://a.example/x", status=304, text="New text", fetched_at=time.time())
    store.put_page(fresh)
    assert store.get_page("https://a.example/x", 60).text == "New text"
    assert store.prune_pages(older_than_seconds=3600) == 0
    store.put_page(Page(url="https://old.example/", fetched_at=time.time() - 7200))
    assert store.prune_pages(older_than_seconds=3600) == 1


def test_pages_do_not_disturb_another_components_tables(store):
    db = open_database(store.path)
    db.execute("CREATE TABLE search_cache (key TEXT PRIMARY KEY, value TEXT)")  # owned by the search layer
    db.execute("INSERT INTO search_cache VALUES ('k', 'v')")
    store.save_research(sample_result())
    store.put_page(Page(url="https://a.example/", fetched_at=time.time()))
    assert db.execute("SELECT value FROM search_cache").fetchall() == [("v",)]


def test_a_paper_source_keeps_its_kind_and_bibliographic_facts(tmp_path):
    from App_Function_Libraries.records import Paper
    paper = Paper(authors=["Karl von Frisch"], year=1967, venue="Harvard University Press",
                  doi="10.4159/harvard.9780674418776", abstract="Dance language.", abstract_only=True)
    result = sample_result()
    result.sources[0].kind, result.sources[0].paper = "paper", paper
    store = ResearchStore(tmp_path / "r.db")
    store.save_research(result)
    loaded = store.load_report(result.id)
    assert (loaded.sources[0].kind, loaded.sources[0].paper) == ("paper", paper)
    assert (loaded.sources[1].kind, loaded.sources[1].paper) == ("web", None)
    assert ResearchResult.from_dict(result.to_dict()).sources[0].paper == paper
