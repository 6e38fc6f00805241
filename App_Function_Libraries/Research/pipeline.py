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
"""
from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from App_Function_Libraries.config import Settings, get_settings
from App_Function_Libraries.LLM.base import LLMClient, LLMError, LLMUnavailable
from App_Function_Libraries.LLM.breaker import LLMHealth, guarded
from App_Function_Libraries.Retrieval.embeddings import ModelOnFirstUse, TextEncoder
from App_Function_Libraries.Retrieval.fusion import reciprocal_rank_fusion
from App_Function_Libraries.Retrieval.rerank import PairScorer, get_cross_encoder
from App_Function_Libraries.Research import coverage, relevance, report
from App_Function_Libraries.Research.fetch import PageFetcher
from App_Function_Libraries.Research.follow_ups import suggest_follow_ups
from App_Function_Libraries.Research.local_sources import LocalSearch, search_local, split_engines
from App_Function_Libraries.Research.page_stream import PageCache, StreamConfig, none_read, read_pages
from App_Function_Libraries.Research.rank import MemoEmbedder, RankSettings
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.records import ResearchResult, Source
from App_Function_Libraries.Research.subqueries import analyze_question, dedupe_queries
from App_Function_Libraries.Search.errors import InvalidOption
from App_Function_Libraries.Search.failures import engine_failures, nothing_searched
from App_Function_Libraries.Search.many import MultiSearch, search_many
from App_Function_Libraries.Search.options import SearchOptions

LOAD_STAGE = "embedding_model"  # waiting for the embedding model to load: where a stage first needs it
STAGES = ("subqueries", "search", LOAD_STAGE, "relevance", "fetch", "extract", "rank", "notes", "report", "verify",
          "follow_ups")
SEARCH_STAGES = ("subqueries", "search", "relevance")  # stages 1-3: a re-run from the fetch keeps their timings
PAGE_STAGES = ("fetch", "extract", "rank", "notes")  # stages 4-6, one stream (page_stream.py)
# "extraction" is the role that writes the page notes: named so in users' config files ([llm_extraction])
LLM_ROLES = ("subquery", "relevance", "extraction", "final_answer")


@dataclass
class ProgressEvent:
    stage: str  # one of STAGES, or "done"
    done: int
    total: int
    message: str = ""
    failed: bool = False  # the stage failed as a whole; message says why, in plain words


ProgressFn = Callable[[ProgressEvent], None]

class SearchFn(Protocol):
    """How the pipeline searches (Search/many.search_many, or a test's stand-in): every query on every engine,
    merged; `cancel` set breaks it off (every request under way ends at once)."""

    def __call__(self, engines: list[str], queries: list[str], options: SearchOptions, *,
                 settings: Settings | None = None, use_cache: bool = True,
                 cancel: threading.Event | None = None) -> MultiSearch: ...


@dataclass
class Services:
    """What the pipeline talks to. Built from settings by default; tests and benchmarks may swap parts."""
    settings: Settings
    llms: dict[str, LLMClient | None] = field(default_factory=dict)
    fetcher: PageFetcher | None = None
    page_cache: PageCache | None = None  # default: the research store, when [fetch] cache_ttl_seconds > 0
    search: SearchFn | None = None  # default: Search/many.search_many
    embedder_factory: Callable[[], TextEncoder] | None = None  # default: Retrieval/embeddings.get_embedder
    _embedder: TextEncoder | None = None
    _embedder_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_settings(cls, settings: Settings | None = None, use_llm: bool = True) -> "Services":
        from App_Function_Libraries.LLM.registry import get_llm
        settings = settings or get_settings()
        llms = {role: (get_llm(role, settings) if use_llm else None) for role in LLM_ROLES}
        return cls(settings=settings, llms=llms, fetcher=PageFetcher(settings.fetch))

    def embedder_ready(self) -> bool:
        """Whether embedder() answers at once: the model is loaded (by an earlier run, or a preload)."""
        if self._embedder is not None:
            return True
        if self.embedder_factory is not None or not self.settings.research.use_embeddings:
            return False
        from App_Function_Libraries.Retrieval.embeddings import get_embedder
        return get_embedder(self.settings).loaded

    def embedder(self) -> TextEncoder | None:
        """The embedding model (loaded once, in whichever thread asks first), or None when turned off."""
        if not self.settings.research.use_embeddings:
            return None
        with self._embedder_lock:
            if self._embedder is None:
                if self.embedder_factory is not None:
                    model = self.embedder_factory()
                else:
                    from App_Function_Libraries.Retrieval.embeddings import get_embedder
                    model = get_embedder(self.settings)
                model.encode(["warm up"])  # the weights and the first call's set-up, now
                self._embedder = model  # only now: embedder_ready() means loaded
            return self._embedder

    def page_store(self) -> PageCache | None:
        if self.page_cache is None and self.settings.fetch.cache_ttl_seconds > 0:
            from App_Function_Libraries.DB.research_store import get_research_store
            self.page_cache = get_research_store(self.settings)
        return self.page_cache

    def search_fn(self) -> SearchFn:
        if self.search is None:
            self.search = search_many
        return self.search


class Run:
    """One run's bookkeeping: progress, timings, cancellation, LLM usage, the health of its LLM servers."""

    def __init__(self, result: ResearchResult, services: Services, params: ResearchParams,
                 on_progress: ProgressFn | None, cancel: threading.Event | None):
        self.result, self.services, self.params = result, services, params
        self.on_progress, self.cancel = on_progress, cancel
        self.started = time.monotonic()
        self.finished = False  # set by finish(): no progress is reported after it
        self.health = LLMHealth()
        self.llms = guarded(dict(services.llms), self.health) if params.use_llm else {}
        self._memo: MemoEmbedder | None = None
        self.in_hand: dict[str, str] = {}  # URL -> text found with it (local sources, paper abstracts): not fetched
        self.search_failure = ""  # why no search answered, in plain words ("" once one did)
        self.searched_any = False  # a search of this run answered (even with no results)
        self.usage_before = {role: _usage(c) for role, c in self.llms.items() if c is not None}
        self.page_log = None  # a durable run's pages (Research/durable.py): read once, kept as they are read

    def llm(self, role: str) -> LLMClient | None:
        """The role's client; None without an LLM, or once the run has given up on its server."""
        client = self.llms.get(role)
        return None if self.health.is_down(client) else client

    def embedder(self) -> MemoEmbedder | None:
        """The run's embedder (None when embeddings are turned off): each text is encoded once in the whole run,
        and the model loads when the first text is encoded."""
        if self._memo is None and self.services.settings.research.use_embeddings:
            self._memo = MemoEmbedder(ModelOnFirstUse(self.load_embedder))
        return self._memo

    def load_embedder(self) -> TextEncoder:
        """The embedding model; when it is not loaded yet, the wait shows as the stage LOAD_STAGE (progress and
        timing)."""
        if self.services.embedder_ready():
            return self.services.embedder()
        self.progress(LOAD_STAGE, 0, 1, "loading the embedding model")
        t0 = time.monotonic()
        model = self.services.embedder()
        waited = time.monotonic() - t0
        self.result.timings[LOAD_STAGE] = round(waited, 3)
        self.progress(LOAD_STAGE, 1, 1, f"loaded in {waited:.1f} s")
        return model

    def progress(self, stage: str, done: int, total: int, message: str = "", failed: bool = False) -> None:
        if self.on_progress and not self.finished:  # a page broken off by a stop may end after the run
            self.on_progress(ProgressEvent(stage, done, total, message, failed))

    def stopped(self) -> bool:
        """The run was told to stop (cancelled, or its budget reached); unlike cancelled(), notes nothing."""
        return self.cancel is not None and self.cancel.is_set()

    def cancelled(self, stage: str) -> bool:
        if self.cancel is not None and self.cancel.is_set():
            if not any(e.startswith("cancelled") for e in self.result.errors):
                self.result.errors.append(f"cancelled during {stage}")
            return True
        return False

    def timed(self, stage: str, fn: Callable[[], Any]) -> Any:
        t0 = time.monotonic()
        try:
            return fn()
        finally:
            self.result.timings[stage] = round(time.monotonic() - t0, 3)

    def finish(self) -> ResearchResult:
        self.result.timings["total"] = round(time.monotonic() - self.started, 3)
        self.result.llm_usage = _usage_delta(self.llms, self.usage_before)
        notes = self.health.notes("so this report is extractive" if self.result.mode == "extractive"
                                  else "for the rest of this run")
        self.result.errors[:0] = [n for n in notes if n not in self.result.errors]
        self.progress("done", 1, 1)
        self.finished = True
        return self.result


# ---------------------------------------------------------------- entry points

def process_question(question: str, params: ResearchParams | None = None, on_progress: ProgressFn | None = None,
                     cancel: threading.Event | None = None, *, on_report_delta: Callable[[str], None] | None = None,
                     services: Services | None = None) -> ResearchResult:
    """Research a question from sub-queries to a verified, cited report."""
    question = " ".join(question.split())
    if not question:
        raise ValueError("the question is empty")
    params = params or ResearchParams.from_settings(services.settings if services else None)
    params.check_report_options()
    services = services or Services.from_settings(use_llm=params.use_llm)
    run = Run(ResearchResult(question=question, params=params.to_dict()), services, params, on_progress, cancel)
    queries = run.timed("subqueries", lambda: _stage_subqueries(run, params))
    if not run.cancelled("search"):
        run.timed("search", lambda: _stage_search(run, params, queries))
    if run.result.searched_nothing:  # nothing to judge, read or report: the run says why and stops
        return run.finish()
    _warm_embedder(services, run.result.sources)
    if not run.cancelled("relevance"):
        run.timed("relevance", lambda: stage_relevance(run, params, run.result.sources))
    _stages_pages_and_report(run, params, on_report_delta)
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
    run.in_hand.update(_texts_in_hand(result))
    _warm_embedder(services, [s for s in fresh.sources if s.selected])
    _stages_pages_and_report(run, params, on_report_delta)
    return run.finish()


def _reset_source(source: Source) -> Source:
    return Source(title=source.title, url=source.url, snippet=source.snippet, engines=list(source.engines),
                  queries=list(source.queries), rank=source.rank, fused_score=source.fused_score,
                  date_published=source.date_published, verdict=source.verdict, reason=source.reason,
                  user_override=source.user_override, round=source.round, kind=source.kind,
                  paper=dataclasses.replace(source.paper) if source.paper else None)


def _texts_in_hand(result: ResearchResult) -> dict[str, str]:
    """For a re-run: what a local source or a paper's abstract gave (its stored passages; the abstract)."""
    hand = {}
    for s in result.sources:
        if s.kind in ("wikipedia", "document") and s.passages:
            hand[s.url] = "\n\n".join(p.text for p in s.passages)
        elif s.paper is not None and s.paper.abstract:
            hand[s.url] = s.paper.abstract
    return hand


def _stages_pages_and_report(run: Run, params: ResearchParams, on_delta) -> None:
    if not run.cancelled("fetch"):
        stage_pages(run, params, run.result.sources)
    if not run.cancelled("report"):
        run.timed("report", lambda: stage_report(run, params, on_delta))
    if not run.cancelled("verify"):
        run.timed("verify", lambda: stage_verify(run))
    if not run.cancelled("follow_ups"):
        run.timed("follow_ups", lambda: stage_follow_ups(run, params))


# ---------------------------------------------------------------- stages 1-3

def _stage_subqueries(run: Run, params: ResearchParams) -> list[str]:
    """The LLM's sub-queries; without an LLM, the question's own parts when it asks several things (each is
    searched too, and the extractive brief is grouped by them), else none."""
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
    queries = dedupe_queries([run.result.question] + subs, exclude=None)
    return queries[:params.max_queries]


def _stage_search(run: Run, params: ResearchParams, queries: list[str]) -> None:
    run.result.sources += search_sources(run, params, queries, lambda found: found[:params.result_max])
    note_search_failure(run)


def note_search_failure(run: Run) -> None:
    """After the search stage: when no search of it answered, result.stage_failures says why."""
    if run.search_failure:
        run.result.stage_failures["search"] = run.search_failure


def search_sources(run: Run, params: ResearchParams, queries: list[str],
                   keep: Callable[[list[Any]], list[Any]]) -> list[Source]:
    """Every query on every engine and local source at once, fused by rank; `keep` picks which become Sources."""
    web, local = split_engines(params.engines)
    total = len(queries) * len(params.engines)
    run.progress("search", 0, total)
    settings = run.services.settings
    found_local: list[LocalSearch] = []
    count = params.count or settings.search.search_result_max_per_query
    searching = threading.Thread(target=lambda: found_local.append(
        search_local(local, queries, settings, count, run.cancel)), name="local-sources", daemon=True)
    searching.start()  # beside the web engines, which wait on the network (no local source: nothing to do)
    found = _search_web(run, params, web, queries) if web else MultiSearch([], [], [], [])
    searching.join()
    local_found = found_local[0] if found_local else LocalSearch()
    runs = [(r.engine, r.error, r.error_kind) for r in found.runs] + [(r.source, r.error, None)
                                                                     for r in local_found.runs]
    notes = local_found.notes + [f.note() for f in engine_failures(runs)]
    run.result.errors += [n for n in notes if n not in run.result.errors]
    sources = keep(_fused(found, local_found, run.in_hand))
    reason = "" if run.stopped() else nothing_searched(runs, local_found.notes)
    if reason and not run.searched_any:  # a stage searched in groups (a plan) fails only if every group did
        run.search_failure = "; ".join(dict.fromkeys(r for r in (run.search_failure, reason) if r))
        run.progress("search", total, total, run.search_failure, failed=True)
    else:
        run.searched_any, run.search_failure = True, ""
        run.progress("search", total, total, f"{len(sources)} results")
    return sources


def _search_web(run: Run, params: ResearchParams, engines: list[str], queries: list[str]) -> MultiSearch:
    try:
        options = SearchOptions.build(None, run.services.settings, **params.search_values())
        return run.services.search_fn()(engines, queries, options, settings=run.services.settings,
                                        use_cache=params.use_cache, cancel=run.cancel)
    except InvalidOption as exc:  # every engine refuses it alike, for every query
        return MultiSearch.refused(engines, queries, str(exc))


def _fused(web: MultiSearch, local: LocalSearch, in_hand: dict[str, str]) -> list[Source]:
    """Web results and local finds as Sources in one ranking: reciprocal rank fusion over every (engine or
    local source, query) ranking, as the web engines' results are fused among themselves. The text of each
    local find and each paper's abstract goes into `in_hand`."""
    sources: dict[str, Source] = {}
    rankings: dict[str, list[tuple[int, str]]] = {run.label: [] for run in web.runs}  # in the order asked
    for item in web.results:
        sources[item.normalized_url] = Source(
            title=item.title, url=item.url, snippet=item.content, engines=list(item.engines),
            queries=list(item.queries), date_published=item.hit.date_published,
            kind="paper" if item.hit.paper else "web", paper=item.hit.paper)
        for label, position in item.ranks.items():
            rankings.setdefault(label, []).append((position, item.normalized_url))
        if item.hit.paper is not None and item.hit.paper.abstract:
            in_hand.setdefault(item.url, item.hit.paper.abstract)
    for run in local.runs:
        for position, find in enumerate(run.finds, start=1):
            source = sources.setdefault(find.url, Source(title=find.title, url=find.url, snippet=find.snippet,
                                                         kind=find.kind))
            source.engines += [run.source] if run.source not in source.engines else []
            source.queries += [run.query] if run.query not in source.queries else []
            rankings.setdefault(run.label, []).append((position, find.url))
            in_hand.setdefault(find.url, find.text)
    if not local.runs:  # the web engines' own fusion, as it stands
        fused = [(item.normalized_url, item.fused_score) for item in web.results]
    else:
        fused = reciprocal_rank_fusion([[key for _, key in sorted(ranking)] for ranking in rankings.values()])
    out = []
    for rank, (key, score) in enumerate(fused, start=1):
        source = sources[key]
        source.rank, source.fused_score = rank, round(score, 6)
        out.append(source)
    return out


def stage_relevance(run: Run, params: ResearchParams, sources: list[Source],
                    aspects: list[str] | None = None) -> None:
    """Judge these sources (the run's, or a dig-deeper round's new ones, with that round's queries)."""
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

def stage_pages(run: Run, params: ResearchParams, sources: list[Source]) -> None:
    """Stages 4-6 over the selected ones of these sources (at most pages_max)."""
    services, settings = run.services, run.services.settings
    selected = [s for s in sources if s.selected]
    chosen = selected[:params.pages_max]
    for source in selected[params.pages_max:]:
        source.skipped = f"not read: only the first {params.pages_max} selected results are read (pages_max)"
    cfg = StreamConfig(
        question=run.result.question, fetcher=services.fetcher or PageFetcher(settings.fetch),
        rank=RankSettings(params.passages_per_page, settings.research.passage_words_min,
                          settings.research.passage_words_max),
        cache=services.page_store() if params.use_cache else None, cache_ttl=settings.fetch.cache_ttl_seconds,
        embedder=run.embedder(), cross_encoder=_cross_encoder(run), llm=run.llm("extraction"),
        in_hand=run.in_hand, page_log=run.page_log,
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


def stage_report(run: Run, params: ResearchParams, on_delta, *, renumber: bool = True, earlier_report: str = "",
                 groups: list[str] | None = None) -> None:
    """Stage 7. A dig-deeper round keeps the numbers (renumber=False), hands the writer the report it
    rewrites (earlier_report) and the queries of every round (groups)."""
    result = run.result
    numbered = report.number_sources(result.sources) if renumber else result.numbered_sources()
    run.progress("report", 0, 1, f"{len(numbered)} sources")
    llm = run.llm("final_answer")
    options = dataclasses.replace(params.report_options(), previous_answer=earlier_report)
    queries = groups or result.sub_queries
    result.unanswered_parts = []
    nothing = report.not_answered(result.question, result.sources, run.embedder(), queries) if numbered else ""
    if nothing:  # below the relevance floor: said plainly, whatever writes the report
        result.report_markdown = nothing
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
        result.report_markdown, result.unanswered_parts = report.write_brief(
            result.question, queries or [result.question], result.sources, run.embedder(), options)
        result.mode = "extractive"
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
    if check.invalid_removed:
        result.errors.append(f"report: removed {check.invalid_removed} citation(s) naming no source")
    if result.unsupported_citations:
        result.errors.append(f"report: {result.unsupported_citations} cited sentence(s) not supported by the "
                             f"source they cite (marked in the report)")
    run.progress("verify", 1, 1)


def stage_follow_ups(run: Run, params: ResearchParams) -> None:
    run.progress("follow_ups", 0, 1)
    llm = run.llm("subquery") or run.llm("final_answer")
    follow_ups, problem = suggest_follow_ups(run.result, llm, params.follow_up_count)
    run.result.follow_ups = follow_ups
    if problem:
        run.result.errors.append(problem)
    run.progress("follow_ups", 1, 1, f"{len(follow_ups)} suggested")


# ---------------------------------------------------------------- helpers

def _warm_embedder(services: Services, sources: list[Source]) -> threading.Thread | None:
    """Start loading the embedding model in the background once there are sources to rank (an LLM's relevance
    check or the page downloads overlap the load); none for a run that found nothing."""
    if not sources or not services.settings.research.use_embeddings or services.embedder_ready():
        return None

    def load():
        try:
            services.embedder()
        except Exception:  # noqa: BLE001 - the stage that needs it reports the failure
            pass
    thread = threading.Thread(target=load, name="embedder-warm-up", daemon=True)
    thread.start()
    return thread


def _usage(client: LLMClient) -> dict[str, int]:
    return client.usage.as_dict()


def _usage_delta(llms: dict[str, LLMClient | None], before: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Calls and tokens this run spent, per role and in all (clients shared by roles counted once)."""
    out: dict[str, Any] = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "roles": {}, "models": []}
    seen: set[int] = set()
    for role, client in llms.items():
        if client is None:
            continue
        now, was = _usage(client), before.get(role, {})
        delta = {k: now[k] - was.get(k, 0) for k in now}
        out["roles"][role] = delta
        if client.describe() not in out["models"]:
            out["models"].append(client.describe())
        if id(client) in seen:
            continue
        seen.add(id(client))
        for k in ("calls", "prompt_tokens", "completion_tokens"):
            out[k] += delta[k]
    return out
