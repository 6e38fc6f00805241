"""The search cache as a versioned store (schema_versions, migrations, an older unversioned table adopted)
and what its rows may hold: never an API key, even one a server echoes back."""
from __future__ import annotations

import json
import sqlite3

import pytest

from App_Function_Libraries.DB.connection import close_thread_connections, forget_schema_checks
from App_Function_Libraries.Search.cache import MIGRATIONS, SearchCache
from App_Function_Libraries.Search.engine import search_with
from Tests.support.search_apis import KEY, PATHS, SearchAPIs, clean_health  # noqa: F401 (autouse)
from Tests.support.testworld import Response

LLM_KEY = "sk-llm-key-0123456789abcdef"


@pytest.fixture(autouse=True)
def fresh_connections():
    forget_schema_checks()
    yield
    close_thread_connections()
    forget_schema_checks()


def test_unversioned_cache_of_an_older_quarry_is_adopted(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:  # the table as Quarry made it before schema versions
        conn.executescript("CREATE TABLE search_cache (key TEXT PRIMARY KEY, engine TEXT NOT NULL, query TEXT NOT "
                           "NULL, options TEXT NOT NULL, created_at REAL NOT NULL, answer TEXT NOT NULL);")
        conn.execute("INSERT INTO search_cache VALUES ('k', 'bing', 'q', '{}', 100.0, '{\"results\": [1]}')")
    cache = SearchCache(path, clock=lambda: 160.0)
    got = cache.get("k")
    assert got.answer == {"results": [1]} and got.age_seconds == 60.0
    with sqlite3.connect(path) as conn:
        versions = dict(conn.execute("SELECT component, version FROM schema_versions").fetchall())
    assert versions["search_cache"] == len(MIGRATIONS) == 1


def test_cache_written_by_a_newer_quarry_is_skipped_not_fatal(world, make_settings, tmp_path):
    apis = SearchAPIs(world).install()
    settings = make_settings(apis.config(search_cache_ttl_seconds=3600))
    db = settings.resolve_path(settings.databases.research_db)
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL, "
                     "updated_at REAL NOT NULL)")
        conn.execute("INSERT INTO schema_versions VALUES ('search_cache', 99, 0)")
    for _ in range(2):
        answer = search_with("bing", "q", settings, country="US", search_lang="en", count=3)
        assert answer.error is None and answer.cached is False and len(answer.hits) == 3
    assert len(apis.requests_to("bing")) == 2


def test_cache_rows_hold_no_key_even_when_the_server_echoes_it(world, make_settings):
    """A page that fails with the key in its error body ends up in processing_error, and a result snippet
    quotes keys: what is stored has none of them (nor the LLM key from the settings)."""
    apis = SearchAPIs(world).install()
    config = apis.config(search_cache_ttl_seconds=3600)
    config["llm"] = {"api_key": LLM_KEY}
    settings = make_settings(config)
    serve_google = apis.google

    def leaky(req):
        if req.arg("start") != "1":
            return Response.json({"error": {"message": f"backend failure for key={KEY}"}}, status=500)
        body = json.loads(serve_google(req).body)
        body["items"][0]["snippet"] = f"a page quoting {KEY} and {LLM_KEY}"
        return Response.json(body)
    world.route("GET", PATHS["google"], leaky)
    answer = search_with("google", "solar power", settings, country="US", search_lang="en", count=15)
    assert answer.error is None and "page 2 failed" in answer.notes
    db = settings.resolve_path(settings.databases.research_db)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT * FROM search_cache").fetchall()
    assert len(rows) == 1
    stored = json.dumps(rows)
    assert KEY not in stored and LLM_KEY not in stored and "page 2 failed" in stored
    again = search_with("google", "solar power", settings, country="US", search_lang="en", count=15)
    assert again.cached is True and KEY not in json.dumps(again.to_dict())


def test_a_placeholder_llm_key_is_no_secret_results_keep_the_word(world, make_settings, tmp_path):
    """Local servers take any key; users set `api_key = ollama`. Results, the cache, a saved run and its
    export keep the word (URLs included), while a credential-looking key is still removed."""
    from App_Function_Libraries.DB.export import export_report
    from App_Function_Libraries.DB.redact import configured_secrets
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.records import ResearchResult, Source
    apis = SearchAPIs(world).install()
    config = apis.config(search_cache_ttl_seconds=3600)
    config["llm"] = {"api_key": "ollama"}
    settings = make_settings(config)
    serve_google = apis.google

    def about_ollama(req):
        body = json.loads(serve_google(req).body)
        body["items"][0].update(link="https://ollama.com/library/llama3", title="llama3 on ollama",
                                snippet=f"running models with ollama, not {KEY}")
        return Response.json(body)
    world.route("GET", PATHS["google"], about_ollama)
    first = search_with("google", "ollama models", settings, country="US", search_lang="en", count=3).hits[0]
    assert first.url == "https://ollama.com/library/llama3" and first.title == "llama3 on ollama"
    assert "with ollama" in first.snippet and KEY not in first.snippet
    again = search_with("google", "ollama models", settings, country="US", search_lang="en", count=3)
    assert again.cached is True and again.hits[0].url == "https://ollama.com/library/llama3"
    result = ResearchResult(question="What is ollama?", report_markdown="ollama runs models locally [1].",
                            sources=[Source("llama3 on ollama", "https://ollama.com/library/llama3", n=1)])
    secrets = configured_secrets(settings)
    assert "ollama" in secrets
    store = get_research_store(settings)
    saved = store.load_report(store.save_research(result))
    assert saved.sources[0].url == "https://ollama.com/library/llama3" and "ollama runs" in saved.report_markdown
    assert "https://ollama.com/library/llama3" in export_report(result, "md", secrets=secrets)
