"""Conformance with real captured answers (../shared/data/search_api, read in place, never copied): each
file is served through the test world byte for byte (BOM included) as its service's answer, and must parse
into results with a title and a URL and no markup or entities left. Skipped when the folder is absent."""
from __future__ import annotations

import json
import re
from pathlib import Path

import ddgs.ddgs
import pytest

from App_Function_Libraries.Search.urls import normalize_url
from App_Function_Libraries.Search.engine import search_with
from Tests.support.scholarly_replay import engine_url, expected_count, replay, scholarly_samples
from Tests.support.search_apis import PATHS, SearchAPIs, clean_health  # noqa: F401 (autouse)
from Tests.support.testworld import Response

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "search_api"
PREFIXES = {"bing_": "bing", "brave_": "brave", "google_": "google", "tavily_": "tavily", "kagi_": "kagi",
            "searxng_": "searxng", "serper_": "serper", "duckduckgo_": "duckduckgo"}
MARKUP = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?/?>|&(?:[a-zA-Z]{2,8}|#\d{1,6}|#x[0-9a-fA-F]{1,5});")
ITEMS = {  # where each service keeps its results, to count what must come out
    "bing": lambda d: d.get("webPages", {}).get("value", []), "brave": lambda d: d.get("web", {}).get("results", []),
    "google": lambda d: d.get("items", []), "tavily": lambda d: d.get("results", []),
    "kagi": lambda d: [i for i in d.get("data") or [] if i.get("t") == 0], "searxng": lambda d: d.get("results", []),
    "serper": lambda d: d.get("organic", []), "duckduckgo": lambda d: d,
}


def captured_files() -> list[tuple[str, Path]]:
    if not DATA.is_dir():
        return []
    out = []
    for path in sorted(DATA.glob("*.json")):
        engine = next((e for prefix, e in PREFIXES.items() if path.name.startswith(prefix)), None)
        if engine:
            out.append((engine, path))
    return out


FILES = captured_files()


def expected_urls(engine: str, data) -> set[str]:
    urls = set()
    for item in ITEMS[engine](data):
        url = item.get("url") or item.get("link") or item.get("href") or ""
        if url.startswith(("http://", "https://")):
            urls.add(normalize_url(url))
    return urls


@pytest.mark.skipif(not FILES, reason=f"no captured search answers at {DATA}")
@pytest.mark.parametrize("engine, path", FILES, ids=[p.name for _, p in FILES])
def test_captured_answer_parses_clean(engine, path, world, make_settings, monkeypatch):
    raw = path.read_bytes()
    data = json.loads(raw.decode("utf-8-sig"))
    apis = SearchAPIs(world).install()
    settings = make_settings(apis.config(search_cache_ttl_seconds=0, search_result_blacklist=""))
    if engine == "duckduckgo":
        monkeypatch.setattr(ddgs.ddgs.DDGS, "text", lambda self, query, **kw: json.loads(raw))
    else:
        route = PATHS[engine] + ("/search" if engine == "searxng" else "")
        world.route("POST" if engine in ("tavily", "serper") else "GET", route,
                    lambda req: Response(200, raw, {"Content-Type": "application/json"}))
    answer = search_with(engine, "captured", settings, country="US", search_lang="en", count=100)
    assert answer.error is None, answer.error
    results = answer.hits
    assert results, "no results parsed"
    assert {normalize_url(r.url) for r in results} == expected_urls(engine, data)
    for r in results:
        assert r.title.strip() and r.url.startswith(("http://", "https://"))
        for text in (r.title, r.snippet):
            assert not MARKUP.search(text), f"markup left in {text!r}"
            assert "\ufeff" not in text
        date = r.date_published
        assert date is None or re.match(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2})?)?$", date)


# ---------------------------------------------------------------- scholarly engines (XML and JSON, errors too)

SCHOLARLY = scholarly_samples(DATA)


@pytest.mark.skipif(not SCHOLARLY, reason=f"no captured scholarly answers at {DATA}")
@pytest.mark.parametrize("sample", SCHOLARLY, ids=[s.path.name for s in SCHOLARLY])
def test_captured_scholarly_answer_parses_clean(sample, world, make_settings):
    replay(world, sample)
    settings = make_settings({"engines": {f"{sample.engine}_api_url": engine_url(world, sample.engine)},
                              "search": {"search_cache_ttl_seconds": 0, "search_max_retries": 0}})
    answer = search_with(sample.engine, "captured", settings, count=100)
    if sample.is_error:  # one line a person can act on, no results, no traceback
        assert answer.error and "\n" not in answer.error and "Traceback" not in answer.error
        assert answer.hits == []
        return
    assert answer.error is None, answer.error
    results = answer.hits
    assert len(results) == expected_count(sample)
    for r in results:
        paper = r.paper
        assert r.title.strip() and r.url.startswith("https://")
        for text in (r.title, r.snippet, paper.abstract, paper.venue, *paper.authors):
            assert not MARKUP.search(text), f"markup left in {text!r}"
            assert "\n" not in text and "  " not in text
        assert paper.doi == paper.doi.lower() and not paper.doi.startswith("http")
        assert paper.year is None or 1500 < paper.year < 2100
        assert r.snippet == "" or paper.abstract.startswith(r.snippet.removesuffix(" …"))
