"""Several engines (and queries) searched at once, their results merged into one ranking.

    search_many(engines, query_or_queries, content_country=None, search_lang=None, output_lang=None,
                result_count=None, *, settings=None, max_workers=8, use_cache=True, sleep=None,
                **options) -> MultiSearch

`options` are perform_websearch's keyword options (date_range, safesearch, site_blacklist, exactTerms,
excludeTerms, filter, geolocation, search_result_language, sort_results_by). Every (query, engine) pair
is one perform_websearch call, run concurrently; it never raises.

MultiSearch:
    results   list[MergedResult], best first: one per page (URLs de-duplicated by url_normalize), each with
              `engines` and `queries` that found it, `ranks` ({"engine|query": position}), `fused_score`
              (reciprocal rank fusion over every (query, engine) ranking) and `rank` (1 = best). title,
              url, content and metadata are those of its best-placed finding, gaps filled from the others.
    runs      list[EngineRun], one per (query, engine) in the order asked: `.answer` is its
              web_search_results_dict; `.error` its error or None.
    errors    {"engine|query": message} for the runs that failed.
    to_dict() JSON-ready form.
A caller that wants at most N results takes results[:N] (the ranking is already fused).
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from App_Function_Libraries.config import Settings, get_settings
from App_Function_Libraries.Retrieval.fusion import RRF_K, reciprocal_rank_fusion
from App_Function_Libraries.Search.urls import normalize_url
from App_Function_Libraries.Search.engine import perform_websearch

OPTION_KEYWORDS = ("date_range", "safesearch", "site_blacklist", "exactTerms", "excludeTerms", "filter",
                   "geolocation", "search_result_language", "sort_results_by", "include_sites")


@dataclass
class EngineRun:
    engine: str
    query: str
    answer: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.engine}|{self.query}"

    @property
    def error(self) -> str | None:
        return self.answer.get("error")


@dataclass
class MergedResult:
    title: str
    url: str
    content: str
    metadata: dict[str, Any]
    normalized_url: str
    engines: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    ranks: dict[str, int] = field(default_factory=dict)
    fused_score: float = 0.0
    rank: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "url": self.url, "content": self.content, "metadata": dict(self.metadata),
                "engines": list(self.engines), "queries": list(self.queries), "ranks": dict(self.ranks),
                "fused_score": self.fused_score, "rank": self.rank}


@dataclass
class MultiSearch:
    queries: list[str]
    engines: list[str]
    results: list[MergedResult]
    runs: list[EngineRun]
    search_time: float = 0.0

    @property
    def errors(self) -> dict[str, str]:
        return {run.label: run.error for run in self.runs if run.error}

    @property
    def processing_errors(self) -> dict[str, str]:
        return {run.label: run.answer["processing_error"] for run in self.runs if run.answer.get("processing_error")}

    def to_dict(self) -> dict[str, Any]:
        return {"queries": self.queries, "engines": self.engines, "search_time": self.search_time,
                "results": [r.to_dict() for r in self.results], "errors": self.errors,
                "processing_errors": self.processing_errors,
                "runs": [{"engine": r.engine, "query": r.query, "results": len(r.answer["results"]),
                          "error": r.error, "cached": r.answer.get("cached", False)} for r in self.runs]}


def search_many(engines: Iterable[str] | str, query: str | Iterable[str], content_country=None, search_lang=None,
                output_lang=None, result_count=None, *, settings: Settings | None = None, max_workers: int = 8,
                use_cache: bool = True, sleep: Callable[[float], None] | None = None, **options) -> MultiSearch:
    unknown = set(options) - set(OPTION_KEYWORDS)
    if unknown:
        raise TypeError(f"search_many got unknown options: {', '.join(sorted(unknown))}")
    engine_list = _unique([engines] if isinstance(engines, str) else list(engines))
    queries = _unique([query] if isinstance(query, str) else list(query))
    settings = settings or get_settings()
    started = time.monotonic()
    pairs = [(q, e) for q in queries for e in engine_list]

    def one(pair: tuple[str, str]) -> EngineRun:
        q, e = pair
        answer = perform_websearch(e, q, content_country, search_lang, output_lang, result_count,
                                   settings=settings, use_cache=use_cache, sleep=sleep, **options)
        return EngineRun(e, q, answer)

    with ThreadPoolExecutor(max_workers=max(1, min(max_workers, len(pairs) or 1))) as pool:
        runs = list(pool.map(one, pairs))
    return MultiSearch(queries, engine_list, merge_runs(runs), runs, round(time.monotonic() - started, 3))


def merge_runs(runs: list[EngineRun], k: int = RRF_K) -> list[MergedResult]:
    """One result per normalized URL, ordered by reciprocal rank fusion of the runs' rankings."""
    merged: dict[str, MergedResult] = {}
    rankings: list[list[str]] = []
    for run in runs:
        ranking = []
        for position, result in enumerate(run.answer.get("results") or [], start=1):
            key = normalize_url(result.get("url", ""))
            if not key or key in ranking:
                continue
            ranking.append(key)
            _absorb(merged, key, result, run, position)
        rankings.append(ranking)
    fused = reciprocal_rank_fusion(rankings, k=k)
    ordered = []
    for rank, (key, score) in enumerate(fused, start=1):
        item = merged[key]
        item.fused_score, item.rank = round(score, 6), rank
        ordered.append(item)
    return ordered


def _absorb(merged: dict[str, MergedResult], key: str, result: dict[str, Any], run: EngineRun,
            position: int) -> None:
    item = merged.get(key)
    if item is None or position < min(item.ranks.values()):
        fresh = MergedResult(result.get("title", ""), result.get("url", ""), result.get("content", ""),
                             dict(result.get("metadata") or {}), key)
        if item is not None:  # a better-placed finding: its text leads, the earlier record is kept
            fresh.engines, fresh.queries, fresh.ranks = item.engines, item.queries, item.ranks
            _fill_gaps(fresh, item.metadata)
        merged[key] = item = fresh
    else:
        _fill_gaps(item, result.get("metadata") or {})
    if run.engine not in item.engines:
        item.engines.append(run.engine)
    if run.query not in item.queries:
        item.queries.append(run.query)
    item.ranks[run.label] = position


def _fill_gaps(item: MergedResult, metadata: dict[str, Any]) -> None:
    for name, value in metadata.items():
        if item.metadata.get(name) in (None, "") and value not in (None, ""):
            item.metadata[name] = value


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(item.strip() for item in items if isinstance(item, str) and item.strip()))
