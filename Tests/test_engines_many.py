"""search_many (concurrent engines, merging, de-duplication, rank fusion), the search cache (TTL, cached
marker, offline re-run), and the `python app.py search` command against the test world."""
from __future__ import annotations

import json
import sqlite3

import pytest

from App_Function_Libraries.CLI.main import main as cli_main
from App_Function_Libraries.Search.cache import SearchCache, cache_key
from App_Function_Libraries.Search.many import EngineRun, merge_runs, search_many
from App_Function_Libraries.Search.engine import search_with
from App_Function_Libraries.Search.options import SearchOptions
from Tests.support.search_apis import KEY, PATHS, SearchAPIs, clean_health  # noqa: F401 (autouse)

HTTP_ENGINES = ("bing", "brave", "google", "searxng", "kagi", "tavily", "serper")


@pytest.fixture
def apis(world, make_settings):
    apis = SearchAPIs(world).install()
    apis.settings = make_settings(apis.config())
    return apis


def options(apis, **values):
    return SearchOptions.build(None, apis.settings, country="US", search_lang="en", result_lang="en", **values)


def answer_with(engine, urls):
    return {"results": [{"title": u, "url": u, "content": "", "metadata": {"date_published": None}} for u in urls],
            "error": None, "processing_error": None}


def test_merge_runs_dedupes_and_fuses_ranks():
    runs = [EngineRun("bing", "q", answer_with("bing", ["https://a.org/x", "https://b.org/", "https://c.org/"])),
            EngineRun("brave", "q", answer_with("brave", ["https://www.b.org", "http://a.org/x?utm_source=1"])),
            EngineRun("kagi", "q", answer_with("kagi", ["https://d.org/"]))]
    merged = merge_runs(runs)
    assert [m.normalized_url for m in merged] == ["a.org/x", "b.org", "d.org", "c.org"]
    a, b = merged[0], merged[1]
    assert a.engines == ["bing", "brave"] and a.ranks == {"bing|q": 1, "brave|q": 2}
    assert a.fused_score == pytest.approx(1 / 61 + 1 / 62, abs=1e-6) and a.rank == 1
    assert b.engines == ["bing", "brave"] and b.url == "https://www.b.org"  # brave placed it higher
    assert merged[2].engines == ["kagi"] and merged[2].fused_score == pytest.approx(1 / 61, abs=1e-6)


def test_merge_keeps_best_placed_text_and_fills_metadata_gaps():
    first = {"results": [{"title": "late", "url": "https://a.org/", "content": "", "metadata": {"author": "Ann",
                                                                                              "date_published": None}}]}
    second = {"results": [{"title": "early", "url": "https://a.org", "content": "c",
                           "metadata": {"author": None, "date_published": "2024-01-01"}}]}
    first["results"].insert(0, {"title": "other", "url": "https://z.org/", "content": "", "metadata": {}})
    merged = merge_runs([EngineRun("bing", "q", first), EngineRun("kagi", "q", second)])
    item = next(m for m in merged if m.normalized_url == "a.org")
    assert item.title == "early" and item.metadata == {"author": "Ann", "date_published": "2024-01-01"}
    assert item.engines == ["bing", "kagi"]


def test_search_many_runs_engines_concurrently_and_merges(apis, world):
    world.fault(PATHS["kagi"], delay=2.0)
    world.fault(PATHS["tavily"], delay=2.0)
    merged = search_many(["kagi", "tavily", "brave"], "solar power", options(apis, count=5), settings=apis.settings)
    kagi, tavily = apis.requests_to("kagi")[0], apis.requests_to("tavily")[0]
    # both were asked before either (2 s each) had answered; one after the other they would be 2 s apart (a
    # tight bound failed on a loaded machine, where starting the threads alone took 0.4 s)
    assert abs(kagi.time - tavily.time) < 1.5
    assert merged.errors == {}
    assert len(merged.results) == 5  # all three engines know the same five pages
    assert merged.results[0].engines == ["kagi", "tavily", "brave"]
    assert [r.rank for r in merged.results] == [1, 2, 3, 4, 5]
    assert merged.to_dict()["results"][0]["engines"] == ["kagi", "tavily", "brave"]


def test_search_many_with_several_queries_and_a_failing_engine(apis, world):
    world.fault(PATHS["bing"], status=401)
    merged = search_many(["bing", "serper"], ["solar power", "wind power"], options(apis, count=3),
                         settings=apis.settings, use_cache=False)
    assert set(merged.errors) == {"bing|solar power", "bing|wind power"}
    assert "Bing rejected the subscription key" in merged.errors["bing|solar power"]
    assert len(merged.results) == 6 and {tuple(r.queries) for r in merged.results} == {("solar power",),
                                                                                       ("wind power",)}


def test_search_many_rejects_unknown_options(apis):
    with pytest.raises(TypeError):
        search_many(["bing"], "q", settings=apis.settings, colour="blue")


# ---------------------------------------------------------------- cache

def test_cached_answer_is_marked_and_works_offline(world, make_settings):
    apis = SearchAPIs(world).install()
    apis.settings = make_settings(apis.config(search_cache_ttl_seconds=3600))
    first = search_with("brave", "solar power", apis.settings, country="US", search_lang="en", count=5)
    assert first.cached is False and first.error is None
    world.fault(PATHS["brave"], reset=True)  # the service is unreachable from now on
    again = search_with("brave", "solar power", apis.settings, country="US", search_lang="en", count=5)
    assert again.cached is True and again.cached_at and again.error is None
    assert again.hits == first.hits
    assert len(apis.requests_to("brave")) == 1  # answered without the network
    other = search_with("brave", "solar power", apis.settings, country="US", search_lang="en", count=5,
                        date_range="week")
    assert other.error.startswith("cannot reach Brave Search") and other.cached is False


def test_cache_key_follows_the_google_engine_id_and_the_ddgs_backend(world, make_settings, monkeypatch):
    apis = SearchAPIs(world).install()
    config = apis.config(search_cache_ttl_seconds=3600)
    first = search_with("google", "solar power", make_settings(config), country="US", search_lang="en", count=3)
    config["engines"]["google_search_engine_id"] = "other-cx-999"
    other = search_with("google", "solar power", make_settings(config), country="US", search_lang="en", count=3)
    assert first.cached is False and other.cached is False
    assert [r.arg("cx") for r in apis.requests_to("google")] == ["test-cx-123", "other-cx-999"]
    config["engines"]["google_api_key"] = "another-key-5678"  # the key is no part of the cache key
    again = search_with("google", "solar power", make_settings(config), country="US", search_lang="en", count=3)
    assert again.cached is True and len(apis.requests_to("google")) == 2

    import ddgs.ddgs
    backends = []
    monkeypatch.setattr(ddgs.ddgs.DDGS, "text", lambda self, query, **kw: backends.append(kw["backend"]) or [
        {"title": "t", "href": f"https://{kw['backend']}.example/", "body": "b"}])
    for backend in ("duckduckgo", "brave", "duckduckgo"):
        config["engines"]["duckduckgo_backend"] = backend
        search_with("duckduckgo", "solar power", make_settings(config), country="US", search_lang="en", count=3)
    assert backends == ["duckduckgo", "brave"]  # the third search is the first one's, from the cache


def test_cache_key_endpoint_keeps_its_parameters_but_no_credential():
    base = cache_key("searxng", "http://h.example/search?engines=wikipedia", {"query": "q"})
    assert cache_key("searxng", "http://user:pw@h.example/search?engines=wikipedia&api_key=abc123&token=t",
                     {"query": "q"}) == base
    assert cache_key("searxng", "http://h.example/search?engines=google", {"query": "q"}) != base


def test_cache_rows_hold_no_key(world, make_settings, tmp_path):
    apis = SearchAPIs(world).install()
    apis.settings = make_settings(apis.config(search_cache_ttl_seconds=3600))
    search_with("kagi", "solar power", apis.settings, country="US", search_lang="en", count=5)
    db = apis.settings.resolve_path(apis.settings.databases.research_db)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT * FROM search_cache").fetchall()
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert len(rows) == 1 and mode == "wal"
    assert KEY not in json.dumps(rows)


def test_expired_entry_is_refreshed_and_stale_one_serves_when_offline(world, make_settings):
    apis = SearchAPIs(world).install()
    apis.settings = make_settings(apis.config(search_cache_ttl_seconds=60))
    search_with("serper", "solar power", apis.settings, country="US", search_lang="en", count=5)
    db = apis.settings.resolve_path(apis.settings.databases.research_db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE search_cache SET created_at = created_at - 3600")
    refreshed = search_with("serper", "solar power", apis.settings, country="US", search_lang="en", count=5)
    assert refreshed.cached is False and len(apis.requests_to("serper")) == 2
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE search_cache SET created_at = created_at - 3600")
    world.fault(PATHS["serper"], status=503)
    stale = search_with("serper", "solar power", apis.settings, country="US", search_lang="en", count=5)
    assert stale.cached is True and stale.error is None and len(stale.hits) == 5
    assert "serper failed (Serper had a server error" in stale.notes


def test_ttl_zero_disables_the_cache(world, make_settings):
    apis = SearchAPIs(world).install()
    apis.settings = make_settings(apis.config(search_cache_ttl_seconds=0))
    for _ in range(2):
        assert search_with("bing", "q", apis.settings, country="US", search_lang="en", count=3).cached is False
    assert len(apis.requests_to("bing")) == 2


def test_broken_cache_file_does_not_break_search(world, make_settings, tmp_path):
    apis = SearchAPIs(world).install()
    bad = tmp_path / "not-a-db.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    config = apis.config(search_cache_ttl_seconds=3600)
    config["databases"] = {"research_db": str(bad)}
    answer = search_with("bing", "q", make_settings(config), country="US", search_lang="en", count=3)
    assert answer.error is None and len(answer.hits) == 3


def test_cache_put_and_get_roundtrip(tmp_path):
    cache = SearchCache(tmp_path / "sub" / "c.db", clock=lambda: 100.0)
    cache.put("k", "bing", "q", {"count": 3}, {"results": [1]})
    got = cache.get("k")
    assert got.answer == {"results": [1]} and got.created_at == 100.0 and got.age_seconds == 0.0
    assert cache.get("missing") is None and cache.clear() == 1


# ---------------------------------------------------------------- CLI

@pytest.fixture
def cli_config(world, make_settings, tmp_path):
    apis = SearchAPIs(world).install()
    make_settings(apis.config())
    return apis, str(tmp_path / "config.txt")


@pytest.mark.parametrize("engine", HTTP_ENGINES)
def test_cli_search_every_engine(cli_config, capsys, engine):
    _, config = cli_config
    rc = cli_main(["--config", config, "search", "solar power", "--engine", engine, "--count", "3"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert f"3 result(s) from {engine}" in out and "https://www.site0.example/solar-power/1/" in out


def test_cli_json_with_options(cli_config, capsys):
    apis, config = cli_config
    rc = cli_main(["--config", config, "search", "tea", "--engine", "brave", "--count", "2", "--country", "DE",
                   "--search-lang", "de", "--date-range", "month", "--json", "--no-cache"])
    answer = json.loads(capsys.readouterr().out)
    assert rc == 0 and answer["search_engine"] == "brave" and len(answer["results"]) == 2
    wire = apis.requests_to("brave")[-1]
    assert (wire.arg("country"), wire.arg("freshness"), wire.arg("ui_lang")) == ("DE", "pm", "de-DE")


def test_cli_several_engines(cli_config, capsys):
    _, config = cli_config
    rc = cli_main(["--config", config, "search", "solar power", "--engine", "bing,kagi", "--count", "2"])
    out = capsys.readouterr().out
    assert rc == 0 and "2 result(s) from bing, kagi" in out and "bing, kagi]" in out


def test_cli_error_exit_code(cli_config, capsys, world):
    _, config = cli_config
    world.fault(PATHS["kagi"], status=401, body=b'{"data": null, "error": [{"code": 1, "msg": "Unauthorized"}]}')
    rc = cli_main(["--config", config, "search", "q", "--engine", "kagi", "--no-cache"])
    assert rc == 1 and "error: Kagi rejected the API token" in capsys.readouterr().err


def test_cli_bad_option_is_a_clear_error(cli_config, capsys):
    _, config = cli_config
    rc = cli_main(["--config", config, "search", "q", "--engine", "bing", "--date-range", "soon"])
    assert rc == 1 and "date_range 'soon' is not understood" in capsys.readouterr().err
