"""Read further: a report is not "not answered" until the run has looked past its first pages.

When the report stage finds that nothing the run read answers the question (the report would say "The sources
do not answer this question", with its closest passages), the run reads on once before saying so
(pipeline.read_further; its caller, the new run's report step, then writes the report again):
  1 the results it found and selected but did not read (beyond pages_max), when there are any; else
  2 the next results: the run's queries searched again (its plan's, on the same engines) asking each engine for
    twice as many results (`count`); the results the run already has are dropped, at most result_max are kept,
    and they are judged for relevance like the first ones. Not when the first search found fewer results than
    one engine was asked for (`ran_out`: the engines gave all they had).
At most `most` of them are read (pages_max, or what the run's page budget leaves), their notes taken and numbers
given after the first ones; the report is then written again from every source, and says it is not answered only
if that is still so. A run says what it did in one note ("read further: …", `note`).

It happens once, in a new run (the web search, the command line, MCP and API), with any writer; not in a re-run
(the user chose its sources), a dig-deeper round, a watch's scheduled run (it reports what is new since the last),
after a cancel or once a budget is reached, and not when the run read nothing (no page could be read: the fetch
says why) or its option is off (`read_further`).
A report whose first pages answer the question costs nothing more. This module holds the rules; the stages it
runs are pipeline.py's.
"""
from __future__ import annotations

import dataclasses

from App_Function_Libraries.records import ResearchResult, Source, counted
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.subqueries import run_queries
from App_Function_Libraries.Search.options import MAX_RESULT_COUNT
from App_Function_Libraries.Search.urls import normalize_url

NOT_READ_PAGES_MAX = "not read: only the first"  # pipeline.stage_pages' reason for a selected result it did not read
WIDER = 2  # the next results: each engine is asked for this many times `count`
FOUND, NEXT, SEARCH = "the results found but not read", "the next results", "the search"


def needs_further(result: ResearchResult) -> bool:
    """The report says the sources read do not answer the question: pages were read, nothing clears the floor."""
    return result.mode == "none" and bool(result.closest)


def ran_out(sources: list[Source], count: int, result_max: int) -> bool:
    """The search found fewer results than one engine was asked for (`count`) and than the run keeps: every
    engine answered all it had, and asking for more finds nothing new."""
    return len(sources) < min(count, result_max)


def waiting(sources: list[Source]) -> list[Source]:
    """The selected results the run did not read because of pages_max, made ready to read."""
    found = [s for s in sources if s.selected and not s.fetched and s.skipped.startswith(NOT_READ_PAGES_MAX)]
    for source in found:
        source.skipped = ""
    return found


def query_groups(params: ResearchParams, result: ResearchResult) -> dict[tuple[str, ...], list[str]]:
    """The run's queries by the engines they were searched on: its plan's (a durable run), else the question and
    its sub-queries on every engine (plan.plan_from's)."""
    planned = (params.plan or {}).get("queries") or []
    if not planned:
        return {tuple(params.engines): run_queries(result.question, result.sub_queries, params.max_queries)}
    return engine_groups([(q["query"], q.get("engines") or params.engines) for q in planned])


def engine_groups(queries: list[tuple[str, list[str]]]) -> dict[tuple[str, ...], list[str]]:
    """(query, engines) pairs as the queries of each set of engines, searched together."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for query, engines in queries:
        groups.setdefault(tuple(engines), []).append(query)
    return groups


def wider(params: ResearchParams, default_count: int, known: int) -> ResearchParams:
    """The run's params asking each engine for WIDER times as many results, room kept for `known` results."""
    return dataclasses.replace(params, count=min(MAX_RESULT_COUNT, WIDER * (params.count or default_count)),
                               result_max=known + params.result_max)


def known_addresses(sources: list[Source]) -> set[str]:
    """Normalized addresses (asked-for and final) of every source the run has."""
    return {normalize_url(u) for s in sources for u in (s.url, s.final_url) if u}


def new_ones(found: list[Source], sources: list[Source], known: set[str], most: int) -> list[Source]:
    """Of `found`, at most `most` the run does not have (`known`: known_addresses(sources)), ranked after its own."""
    fresh = [s for s in found if normalize_url(s.url) not in known][:most]
    last = max((s.rank for s in sources), default=0)
    for rank, source in enumerate(fresh, start=last + 1):
        source.rank = rank
    return fresh


def note(before: int, read: int | None, where: str) -> str:
    """The run's note: how many pages it had read, how many more it read and from where (None: there was no
    relevant result to read)."""
    done = f"read further: nothing in the {counted(before, 'page')} read answered the question; "
    if read is None:
        return done + f"{where} held no other relevant page"
    return done + f"read {counted(read, 'more page')} from {where}"
