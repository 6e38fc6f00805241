"""The research pipeline: `process_question(question, params) -> ResearchResult`.

Stages, each in its own module (the names are STAGES, used in progress events and timings):
  1 subqueries   subqueries.analyze_question            4-6 pages  page_stream.read_pages: fetch (fetch.py,
  2 search       Search/many.search_many                           download), extract (extract.py, page text),
  3 relevance    relevance.judge_with_llm / _embeddings            rank (rank.py), notes (page_notes.py)
  7 report       report.write_report / extractive_brief, then verify: report.verify_report; follow_ups
`rerun_from_fetch(result, params)` redoes stages 4-7 on a result whose verdicts the user has overridden
(pages come from the page cache). The embedding model loads when a stage first has text to encode, never in a
run with nothing to rank; a run that has to wait for it shows the wait as the stage `embedding_model`.
Progress is reported as ProgressEvent(stage, done, total); setting the
`cancel` event stops pending work promptly and returns what was done, with "cancelled" among the errors.
Without an LLM every stage still works: relevance by embedding similarity, notes are the top passages, and
the report is an extractive brief. A run whose LLM server stops answering (see LLM/breaker.py) gives it up
once, takes those paths for the rest of the run, and says so in one note. A run where no search answered
(every engine failed or could not be used) stops after the search stage: `result.stage_failures["search"]`
says why in plain words, and the search ProgressEvent has failed=True.

The stage API, what dig deeper and durable runs call. Each stage takes the run (Research/run.py: it holds the
params, the result so far and the bookkeeping) and what it works on: stage_subqueries(run),
stage_search(run, queries), stage_relevance(run, sources), stage_pages(run, sources), stage_number(run,
sources), stage_report(run), stage_verify(run), stage_follow_ups(run); search_sources(run, params, queries,
keep) searches without adding to the run.
"""
from __future__ import annotations

import dataclasses
import re
import threading
from typing import Any, Callable

from App_Function_Libraries.LLM.base import LLMError, LLMUnavailable
from App_Function_Libraries.Retrieval.rerank import PairScorer, get_cross_encoder
from App_Function_Libraries.Research import coverage, relevance, report
from App_Function_Libraries.Research import read_further as further
from App_Function_Libraries.Research.errors import EmptyQuestion
from App_Function_Libraries.Research.fetch import PageFetcher
from App_Function_Libraries.Research.follow_ups import suggest_follow_ups
from App_Function_Libraries.Research.page_stream import StreamConfig, none_read, read_pages
from App_Function_Libraries.Research.rank import RankSettings
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.run import LOAD_STAGE, ProgressEvent, ProgressFn, Run, SearchFn, Services
from App_Function_Libraries.records import ResearchResult, Source, counted
from App_Function_Libraries.Research.subqueries import analyze_question, dedupe_queries, run_queries
from App_Function_Libraries.Search.errors import InvalidOption
from App_Function_Libraries.Search.failures import engine_failures, nothing_searched
from App_Function_Libraries.Search.many import MergedResult, MultiSearch
from App_Function_Libraries.Search.options import SearchOptions
from App_Function_Libraries.Search.urls import normalize_url

__all__ = ["LOAD_STAGE", "PAGE_STAGES", "STAGES", "ProgressEvent", "ProgressFn", "Run", "SearchFn", "Services",
           "process_question", "read_further", "rerun_from_fetch", "search_groups", "search_sources",
           "stage_follow_ups", "stage_number", "stage_pages", "stage_relevance", "stage_report", "stage_search",
           "stage_subqueries", "stage_verify"]

STAGES = ("subqueries", "search", LOAD_STAGE, "relevance", "fetch", "extract", "rank", "notes", "report", "verify",
          "follow_ups")
SEARCH_STAGES = ("subqueries", "search", "relevance")  # stages 1-3: a re-run from the fetch keeps their timings
PAGE_STAGES = ("fetch", "extract", "rank", "notes")  # stages 4-6, one stream (page_stream.py)
VERIFY_NOTE = re.compile(r"report: (?:removed \d+ citation\(s\) naming no source|\d+ cited sentence\(s\) not supported)")


# ---------------------------------------------------------------- entry points

def process_question(question: str, params: ResearchParams | None = None, on_progress: ProgressFn | None = None,
                     cancel: threading.Event | None = None, *, on_report_delta: Callable[[str], None] | None = None,
                     services: Services | None = None) -> ResearchResult:
    """Research a question from sub-queries to a verified, cited report."""
    question = " ".join(question.split())
    if not question:
        raise EmptyQuestion("the question is empty")
    params = params or ResearchParams.from_settings(services.settings if services else None)
    params.check_report_options()
    services = services or Services.from_settings(use_llm=params.use_llm)
    run = Run(ResearchResult(question=question, params=params.to_dict()), services, params, on_progress, cancel)
    queries = run.timed("subqueries", lambda: stage_subqueries(run))
    if not run.cancelled("search"):
        run.timed("search", lambda: stage_search(run, queries))
    if run.result.searched_nothing:  # nothing to judge, read or report: the run says why and stops
        return run.finish()
    services.warm_up(run.result.sources)
    if not run.cancelled("relevance"):
        run.timed("relevance", lambda: stage_relevance(run, run.result.sources))
    _stages_pages_and_report(run, on_report_delta, further=params.pages_max if params.read_further else 0)
    return run.finish()


def rerun_from_fetch(result: ResearchResult, params: ResearchParams | None = None,
                     on_progress: ProgressFn | None = None, cancel: threading.Event | None = None, *,
                     on_report_delta: Callable[[str], None] | None = None,
                     services: Services | None = None) -> ResearchResult:
    """Stages 4-7 again on `result`'s sources (user overrides decide which are read); a new result."""
    params = params or ResearchParams.from_dict(result.params)
    params.check_report_options()
    services = services or Services.from_settings(use_llm=params.use_llm)
    fresh = ResearchResult(question=result.question, params=params.to_dict(), sub_queries=list(result.sub_queries),
                           sources=[_reset_source(s) for s in result.sources],
                           timings={k: v for k, v in result.timings.items() if k in SEARCH_STAGES})
    run = Run(fresh, services, params, on_progress, cancel)
    services.warm_up([s for s in fresh.sources if s.selected])
    _stages_pages_and_report(run, on_report_delta)
    return run.finish()


def _reset_source(source: Source) -> Source:
    return Source(title=source.title, url=source.url, snippet=source.snippet, engines=list(source.engines),
                  queries=list(source.queries), rank=source.rank, fused_score=source.fused_score,
                  date_published=source.date_published, verdict=source.verdict, reason=source.reason,
                  user_override=source.user_override, round=source.round, kind=source.kind,
                  paper=dataclasses.replace(source.paper) if source.paper else None, in_hand=_in_hand(source))


def _in_hand(source: Source) -> str:
    """For a re-run: a local source's text in hand (a run saved before it rode on the source: its passages)."""
    if source.in_hand or source.kind not in ("wikipedia", "document"):
        return source.in_hand
    return "\n\n".join(p.text for p in source.passages)


def _stages_pages_and_report(run: Run, on_delta, further: int = 0) -> None:
    """Stages 4-8; `further`: the pages it may read on when nothing read answers the question (read_further)."""
    if not run.cancelled("fetch"):
        stage_pages(run, run.result.sources)
    if not run.cancelled("report"):
        run.timed("report", lambda: _number_and_report(run, on_delta))
    if further and read_further(run, further) and not run.cancelled("report"):
        run.timed("report", lambda: stage_report(run, on_delta), add=True)  # again, from every source read
    if not run.cancelled("verify"):
        run.timed("verify", lambda: stage_verify(run))
    if not run.cancelled("follow_ups"):
        run.timed("follow_ups", lambda: stage_follow_ups(run))


def _number_and_report(run: Run, on_delta) -> None:
    stage_number(run, run.result.sources)
    stage_report(run, on_delta)


def read_further(run: Run, most: int) -> list[Source]:
    """When the report says nothing read answers the question (see Research/read_further.py): the results found
    but not read, else the next results, judged, read (at most `most`) and numbered; returns those numbered (the
    caller writes the report again). The run's note says what was read."""
    result = run.result
    if most <= 0 or run.stopped() or not further.needs_further(result):
        return []
    before = sum(1 for s in result.sources if s.fetched)
    run.progress("report", 1, 1, f"nothing in the {counted(before, 'page')} read answers the question: reading "
                                 "further")
    fresh, where = further.waiting(result.sources), further.FOUND
    if not fresh:
        count = run.params.count or run.services.settings.search.search_result_max_per_query
        if further.ran_out(result.sources, count, run.params.result_max):
            result.errors.append(further.note(before, None, further.SEARCH))
            return []
        fresh, where = run.timed("search", lambda: _next_results(run, count), add=True), further.NEXT
        result.sources += fresh
        run.timed("relevance", lambda: stage_relevance(run, fresh), add=True)
    if not any(s.selected for s in fresh):
        result.errors.append(further.note(before, None, where))
        return []
    earlier = {stage: result.timings.get(stage, 0.0) for stage in PAGE_STAGES}
    stage_pages(run, fresh, most=most)
    for stage, seconds in earlier.items():
        result.timings[stage] = round(seconds + result.timings.get(stage, 0.0), 3)
    result.errors.append(further.note(before, sum(1 for s in fresh if s.fetched), where))
    return stage_number(run, fresh)


def _next_results(run: Run, count: int) -> list[Source]:
    """The run's queries searched again for twice as many results each (`count`: what each engine was asked
    for); those the run does not have yet."""
    result, params = run.result, run.params
    known = further.known_addresses(result.sources)
    found = search_groups(run, further.wider(params, count, len(known)), further.query_groups(params, result))
    return further.new_ones(found, result.sources, known, params.result_max)


# ---------------------------------------------------------------- stages 1-3

def stage_subqueries(run: Run) -> list[str]:
    """The LLM's sub-queries; without an LLM, the question's own parts when it asks several things (each is
    searched too, and the extractive brief is grouped by them), else none. Returns the queries to search."""
    params = run.params
    llm = run.llm("subquery") if params.subqueries else None
    run.progress("subqueries", 0, 1)
    subs = None
    if llm is not None:
        try:
            subs, problem = analyze_question(run.result.question, llm, params.subquery_count,
                                             params.previous_queries, params.previous_answer)
            run.result.errors += [problem] if problem else []
        except LLMUnavailable:  # said once, at the end of the run
            subs = None
    if subs is None:
        subs = coverage.question_parts(run.result.question)[:params.subquery_count] if params.subqueries else []
    run.result.sub_queries = subs
    run.progress("subqueries", 1, 1)
    return run_queries(run.result.question, subs, params.max_queries)


def stage_search(run: Run, queries: list[str]) -> None:
    """Stage 2: the queries on the run's engines; the results become the run's sources (at most result_max)."""
    params = run.params
    run.result.sources += search_sources(run, params, queries, lambda found: found[:params.result_max])
    note_search_failure(run)


def note_search_failure(run: Run) -> None:
    """After the search stage: when no search of it answered, result.stage_failures says why."""
    if run.search_failure:
        run.result.stage_failures["search"] = run.search_failure


def search_sources(run: Run, params: ResearchParams, queries: list[str],
                   keep: Callable[[list[Any]], list[Any]]) -> list[Source]:
    """Every query on every engine (web, scholarly and local alike) at once, fused by rank once (search_many);
    `keep` picks which become Sources."""
    total = len(queries) * len(params.engines)
    run.progress("search", 0, total)
    found = _search(run, params, params.engines, queries)
    runs = [(r.engine, r.error, r.error_kind) for r in found.runs]
    notes = [f.note() for f in engine_failures(runs)]
    run.result.errors += [n for n in notes if n not in run.result.errors]
    sources = keep([_source(item) for item in found.results])
    reason = "" if run.stopped() else nothing_searched(runs)
    if reason and not run.searched_any:  # a stage searched in groups (a plan) fails only if every group did
        run.search_failure = "; ".join(dict.fromkeys(r for r in (run.search_failure, reason) if r))
        run.progress("search", total, total, run.search_failure, failed=True)
    else:
        run.searched_any, run.search_failure = True, ""
        run.progress("search", total, total, counted(len(sources), "result"))
    return sources


def search_groups(run: Run, params: ResearchParams, groups: dict[tuple[str, ...], list[str]]) -> list[Source]:
    """Each group's queries searched together on its engines; the rankings of the groups interleaved (best of
    each first), a URL found by several keeps its best place; at most result_max, ranked 1..n."""
    found = [search_sources(run, dataclasses.replace(params, engines=list(engines)), queries, lambda f: f)
             for engines, queries in groups.items()]
    merged: dict[str, Source] = {}
    for source in sorted((s for group in found for s in group), key=lambda s: s.rank):
        key = normalize_url(source.url)
        if key in merged:
            kept = merged[key]
            kept.engines += [e for e in source.engines if e not in kept.engines]
            kept.queries += [q for q in source.queries if q not in kept.queries]
        else:
            merged[key] = source
    out = list(merged.values())[:params.result_max]
    for rank, source in enumerate(out, start=1):
        source.rank = rank
    return out


def _search(run: Run, params: ResearchParams, engines: list[str], queries: list[str]) -> MultiSearch:
    try:
        options = SearchOptions.build(None, run.services.settings, **params.search_values())
        return run.services.search_fn()(engines, queries, options, settings=run.services.settings,
                                        use_cache=params.use_cache, cancel=run.cancel)
    except InvalidOption as exc:  # every engine refuses it alike, for every query
        return MultiSearch.refused(engines, queries, str(exc))


def _source(item: MergedResult) -> Source:
    """A fused search result as a Source (its place in the one ranking, its text in hand)."""
    return Source(title=item.title, url=item.url, snippet=item.content, engines=list(item.engines),
                  queries=list(item.queries), rank=item.rank, fused_score=item.fused_score,
                  date_published=item.hit.date_published, kind=item.kind, paper=item.hit.paper,
                  in_hand=item.in_hand)


def stage_relevance(run: Run, sources: list[Source], aspects: list[str] | None = None) -> None:
    """Stage 3: judge these sources (the run's, or a dig-deeper round's new ones, with that round's queries)."""
    params = run.params
    total = len(sources)
    run.progress("relevance", 0, total)
    llm = run.llm("relevance")
    if not params.relevance_check or not sources:
        pass
    elif llm is not None:
        unasked = relevance.judge_with_llm(llm, run.result.question, aspects or run.result.sub_queries, sources,
                                           run.services.settings.research.relevance_batch_size, run.cancel,
                                           lambda done, n: run.progress("relevance", done, n))
        _judge_without_llm(run, unasked)  # those it could not ask: the run gave up on the server meanwhile
    elif run.embedder() is not None or run.health.is_down(run.llms.get("relevance")):
        _judge_without_llm(run, sources)
    else:
        run.result.errors.append("relevance: no LLM and embeddings turned off; every result kept unjudged")
    run.progress("relevance", total, total)


def _judge_without_llm(run: Run, sources: list[Source]) -> None:
    """By embedding similarity; without embeddings (the LLM stopped answering) kept unjudged, saying why."""
    if not sources:
        return
    if run.embedder() is None:
        for source in sources:
            relevance.apply_verdict(source, relevance.Verdict(None, "not judged: the LLM stopped answering"))
        return
    relevance.judge_with_embeddings(run.embedder(), run.result.question, sources,
                                    run.params.relevance_embedding_threshold)


# ---------------------------------------------------------------- stages 4-7

def stage_pages(run: Run, sources: list[Source], most: int | None = None) -> None:
    """Stages 4-6 over the selected ones of these sources: the first pages_max, or the first `most` (what a
    budget allows)."""
    params, services, settings = run.params, run.services, run.services.settings
    pages_max = params.pages_max if most is None else most
    selected = [s for s in sources if s.selected]
    chosen = selected[:pages_max]
    for source in selected[pages_max:]:
        source.skipped = f"{further.NOT_READ_PAGES_MAX} {pages_max} selected results are read (pages_max)"
    cfg = StreamConfig(
        question=run.result.question, fetcher=services.fetcher or PageFetcher(settings.fetch),
        rank=RankSettings(params.passages_per_page, settings.research.passage_words_min,
                          settings.research.passage_words_max),
        cache=services.page_store() if params.use_cache else None, cache_ttl=settings.fetch.cache_ttl_seconds,
        embedder=run.embedder(), cross_encoder=_cross_encoder(run), llm=run.llm("extraction"),
        page_log=run.page_log,
        progress=lambda stage, done, total: run.progress(stage, done, total), cancel=run.cancel)
    for stage in PAGE_STAGES:
        run.progress(stage, 0, len(chosen))
    stream = read_pages(chosen, cfg)
    run.result.errors += stream.problems
    run.result.timings.update({k: stream.timings.get(k, 0.0) for k in PAGE_STAGES})
    if chosen and not any(s.fetched for s in chosen) and not run.stopped():
        run.progress("fetch", len(chosen), len(chosen), none_read(chosen), failed=True)


def _cross_encoder(run: Run) -> PairScorer | None:
    name = run.services.settings.embeddings.cross_encoder
    try:
        return get_cross_encoder(name)
    except Exception as exc:  # noqa: BLE001 - a missing re-ranker degrades ranking, never the run
        run.result.errors.append(f"cross-encoder not used: {exc}")
        return None


def stage_number(run: Run, sources: list[Source]) -> list[Source]:
    """Report numbers for these sources that carry notes, after the highest number the run's other sources
    hold (a first report: 1..N; a dig-deeper round: the next ones). Returns those numbered."""
    mine = {id(s) for s in sources}
    return report.number_new_sources([s for s in run.result.sources if id(s) not in mine], sources)


def stage_report(run: Run, on_delta: Callable[[str], None] | None = None, stopped: bool | None = None) -> None:
    """Stage 7: the report from the numbered sources. When the run has a report already (dig deeper), the
    writer rewrites it, keeping its numbers, along the queries of every round. `stopped`: the run was stopped
    (its budget reached, or cancelled) before this stage; by default, whether its stop is set now."""
    result = run.result
    numbered = result.numbered_sources()
    run.progress("report", 0, 1, counted(len(numbered), "source"))
    llm = run.llm("final_answer")
    options = dataclasses.replace(run.params.report_options(), previous_answer=result.report_markdown)
    queries = _report_groups(result)
    result.unanswered_parts, result.closest = [], []
    nothing, closest = (report.not_answered_report(result.question, result.sources, run.embedder(), queries)
                        if numbered else ("", []))
    if nothing:  # below the relevance floor: said plainly, whatever writes the report
        result.report_markdown, result.closest, result.mode = nothing, closest, "none"
        run.progress("report", 1, 1)
        return
    written = False
    if llm is not None and numbered:
        try:
            result.report_markdown = report.write_report(result.question, result.sources, llm, options, queries,
                                                         on_delta)
            result.mode, written = "llm", True
        except LLMUnavailable:  # said once, at the end of the run
            pass
        except LLMError as exc:
            result.errors.append(f"report: the LLM failed ({exc}); wrote an extractive brief instead")
    if not written:
        result.report_markdown, result.unanswered_parts, result.closest = report.write_brief(
            result.question, queries or [result.question], result.sources, run.embedder(), options,
            run.stopped() if stopped is None else stopped)
        result.mode = "extractive" if numbered else "none"  # nothing read: no one wrote an answer
    run.progress("report", 1, 1)


def stage_verify(run: Run) -> None:
    """Stage 8: every [n] checked and given its evidence and verdict (report.verify_report); the sources
    renumbered without gaps, cited first (report.renumber_gapless)."""
    result = run.result
    run.progress("verify", 0, 1)
    check = report.verify_report(result.report_markdown, result.sources, run.embedder())
    result.report_markdown = check.markdown
    result.citations = check.citations
    result.invalid_citations_removed = check.invalid_removed
    report.renumber_gapless(result)
    result.unsupported_citations = sum(c.verdict == report.NOT_SUPPORTED for c in result.citations)
    result.answer_status = ("not_answered" if not result.citations else
                            "partly" if result.unanswered_parts else "answered")
    notes = [f"report: removed {check.invalid_removed} citation(s) naming no source"] if check.invalid_removed else []
    if result.unsupported_citations:
        notes.append(f"report: {result.unsupported_citations} cited sentence(s) not supported by the source they "
                     f"cite (marked in the report)")
    # the report is verified whole each time (a dig-deeper round rewrites it): its notes replace the last check's
    result.errors[:] = [e for e in result.errors if not VERIFY_NOTE.match(e)] + notes
    run.progress("verify", 1, 1)


def _report_groups(result: ResearchResult) -> list[str]:
    """The queries the report is written along: the sub-queries, and after dig-deeper rounds theirs too."""
    if not result.rounds:
        return result.sub_queries
    return dedupe_queries(list(result.sub_queries) + [q for r in result.rounds for q in r.queries])


def stage_follow_ups(run: Run) -> None:
    run.progress("follow_ups", 0, 1)
    llm = run.llm("subquery") or run.llm("final_answer")
    follow_ups, problem = suggest_follow_ups(run.result, llm, run.params.follow_up_count)
    run.result.follow_ups = follow_ups
    if problem:
        run.result.errors.append(problem)
    run.progress("follow_ups", 1, 1, f"{len(follow_ups)} suggested")
