"""Several engines (and queries) searched at once, their results merged into one ranking.

    search_many(engines, queries, options: SearchOptions, *, settings=None, max_workers=8, use_cache=True,
                sleep=None, cancel=None) -> MultiSearch

`options` is built once (SearchOptions.build(None, settings, **values): a template without a query); every
(query, engine) pair is one search_engine() call with options.for_query(query), run concurrently. It never
raises (a query that cannot be searched is that pair's error). Each request ends within [search]
search_timeout_seconds; setting `cancel` (a threading.Event) breaks every request under way off, the pairs not
yet started are not searched (their error is "cancelled"), and search_many returns once its workers have ended:
no thread of it outlives the call (but a local engine's search left past its deadline, which ends by itself
and whose answer is dropped: Search/runner.py).

MultiSearch:
    results   list[MergedResult], best first: one per page (URLs de-duplicated by urls.result_key), each with
              `engines` and `queries` that found it, `ranks` ({"engine|query": position}), `fused_score`
              (reciprocal rank fusion over every (query, engine) ranking) and `rank` (1 = best). `hit` is
              its best-placed finding (title, url, snippet, paper, …), empty facts filled from the others;
              `in_hand` the text a local engine found with it, `kind` what it is (web, paper, wikipedia, document).
`engines` may name web, scholarly and local engines alike (wikipedia, documents): one fan-out, one fusion.
    runs      list[EngineRun], one per (query, engine) in the order asked: `.answer` is its EngineAnswer;
              `.error` its error or None.
    errors    {"engine|query": message} for the runs that failed.
    to_dict() JSON-ready form (`python app.py search --engine a,b --json`).
A caller that wants at most N results takes results[:N] (the ranking is already fused).
"""
from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from App_Function_Libraries.config import Settings, get_settings
from App_Function_Libraries.Retrieval.fusion import RRF_K, reciprocal_rank_fusion
from App_Function_Libraries.Search.engine import EngineAnswer, search_engine
from App_Function_Libraries.Search.engines.base import Hit
from App_Function_Libraries.Search.errors import InvalidOption
from App_Function_Libraries.Search.options import SearchOptions
from App_Function_Libraries.Search.urls import result_key

#: gaps a later finding fills (a page found on the web and in the local index keeps the index's text in hand)
_FILLED = ("date_published", "author", "source", "language", "score", "paper", "in_hand", "kind")


@dataclass
class EngineRun:
    engine: str
    query: str
    answer: EngineAnswer  # a web_search_results_dict given here (a test, a stored answer) is read into one

    def __post_init__(self) -> None:
        if isinstance(self.answer, dict):
            self.answer = EngineAnswer.from_dict(self.answer, self.engine, self.query)

    @property
    def label(self) -> str:
        return f"{self.engine}|{self.query}"

    @property
    def error(self) -> str | None:
        return self.answer.error

    @property
    def error_kind(self) -> str | None:
        return self.answer.error_kind


@dataclass
class MergedResult:
    """One page found by one or more (engine, query) runs."""
    hit: Hit
    normalized_url: str
    engines: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    ranks: dict[str, int] = field(default_factory=dict)
    fused_score: float = 0.0
    rank: int = 0

    @property
    def title(self) -> str:
        return self.hit.title

    @property
    def url(self) -> str:
        return self.hit.url

    @property
    def content(self) -> str:
        return self.hit.snippet

    @property
    def in_hand(self) -> str:
        """The text found with it (a local engine's passages), read instead of fetching the page; "" if none."""
        return self.hit.in_hand

    @property
    def kind(self) -> str:
        """What it is (records.SOURCE_KINDS): a local engine's kind, "paper" with a paper's facts, else "web"."""
        return self.hit.kind or ("paper" if self.hit.paper else "web")

    @property
    def metadata(self) -> dict[str, Any]:
        """What is known of the page besides its text (the result entry's metadata without empty values)."""
        meta = self.hit.to_result_dict()["metadata"]
        return {k: v for k, v in meta.items() if k != "snippet" and v not in (None, "")}

    def to_dict(self) -> dict[str, Any]:
        return {**self.hit.to_result_dict(), "engines": list(self.engines), "queries": list(self.queries),
                "ranks": dict(self.ranks), "fused_score": self.fused_score, "rank": self.rank}


@dataclass
class MultiSearch:
    queries: list[str]
    engines: list[str]
    results: list[MergedResult]
    runs: list[EngineRun]
    search_time: float = 0.0

    @classmethod
    def refused(cls, engines: list[str], queries: list[str], message: str) -> "MultiSearch":
        """The answer when the options themselves cannot be used: every (query, engine) pair failed alike."""
        runs = [EngineRun(e, q, EngineAnswer(e, error=message, asked={"query": q}, error_kind=InvalidOption.kind))
                for q in queries for e in engines]
        return cls(list(queries), list(engines), [], runs)

    @property
    def errors(self) -> dict[str, str]:
        return {run.label: run.error for run in self.runs if run.error}

    @property
    def processing_errors(self) -> dict[str, str]:
        return {run.label: run.answer.notes for run in self.runs if run.answer.notes}

    def to_dict(self) -> dict[str, Any]:
        return {"queries": self.queries, "engines": self.engines, "search_time": self.search_time,
                "results": [r.to_dict() for r in self.results], "errors": self.errors,
                "processing_errors": self.processing_errors,
                "runs": [{"engine": r.engine, "query": r.query, "results": len(r.answer.hits),
                          "error": r.error, "cached": r.answer.cached} for r in self.runs]}


def search_many(engines: Iterable[str] | str, queries: str | Iterable[str], options: SearchOptions, *,
                settings: Settings | None = None, max_workers: int = 8, use_cache: bool = True,
                sleep: Callable[[float], None] | None = None, cancel: threading.Event | None = None) -> MultiSearch:
    engine_list = _unique([engines] if isinstance(engines, str) else list(engines))
    query_list = _unique([queries] if isinstance(queries, str) else list(queries))
    settings = settings or get_settings()
    started = time.monotonic()
    pairs = [(q, e) for q in query_list for e in engine_list]

    def one(pair: tuple[str, str]) -> EngineRun:
        q, e = pair
        if cancel is not None and cancel.is_set():
            return EngineRun(e, q, EngineAnswer(e, error="cancelled", asked={"query": q}, error_kind="cancelled"))
        try:
            opts = options.for_query(q)
        except InvalidOption as exc:
            return EngineRun(e, q, EngineAnswer(e, error=str(exc), asked={"query": q}, error_kind=exc.kind))
        return EngineRun(e, q, search_engine(e, opts, settings, use_cache=use_cache, sleep=sleep, cancel=cancel))

    with ThreadPoolExecutor(max_workers=max(1, min(max_workers, len(pairs) or 1)), thread_name_prefix="search") as pool:
        runs = list(pool.map(one, pairs))
    return MultiSearch(query_list, engine_list, merge_runs(runs), runs, round(time.monotonic() - started, 3))


def merge_runs(runs: list[EngineRun], k: int = RRF_K) -> list[MergedResult]:
    """One result per normalized URL, ordered by reciprocal rank fusion of the runs' rankings."""
    merged: dict[str, MergedResult] = {}
    rankings: list[list[str]] = []
    for run in runs:
        ranking = []
        for position, hit in enumerate(run.answer.hits, start=1):
            key = result_key(hit.url)
            if not key or key in ranking:
                continue
            ranking.append(key)
            _absorb(merged, key, hit, run, position)
        rankings.append(ranking)
    fused = reciprocal_rank_fusion(rankings, k=k)
    ordered = []
    for rank, (key, score) in enumerate(fused, start=1):
        item = merged[key]
        item.fused_score, item.rank = round(score, 6), rank
        ordered.append(item)
    return ordered


def _absorb(merged: dict[str, MergedResult], key: str, hit: Hit, run: EngineRun, position: int) -> None:
    item = merged.get(key)
    if item is None or position < min(item.ranks.values()):
        fresh = MergedResult(dataclasses.replace(hit), key)
        if item is not None:  # a better-placed finding: its text leads, the earlier record is kept
            fresh.engines, fresh.queries, fresh.ranks = item.engines, item.queries, item.ranks
            _fill_gaps(fresh.hit, item.hit)
        merged[key] = item = fresh
    else:
        _fill_gaps(item.hit, hit)
    if run.engine not in item.engines:
        item.engines.append(run.engine)
    if run.query not in item.queries:
        item.queries.append(run.query)
    item.ranks[run.label] = position


def _fill_gaps(hit: Hit, other: Hit) -> None:
    for name in _FILLED:
        if getattr(hit, name) in (None, "") and getattr(other, name) not in (None, ""):
            setattr(hit, name, getattr(other, name))


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(item.strip() for item in items if isinstance(item, str) and item.strip()))
