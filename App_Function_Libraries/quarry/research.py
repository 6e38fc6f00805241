"""Research a question: the parameters a front door may set, the run (pipeline, then dig-deeper rounds), and
saving it. `research()` is what the CLI, the UI's HTTP API and the MCP server call."""
from __future__ import annotations

import threading
from typing import Callable

from App_Function_Libraries.quarry._common import count_argument, name_list, settings_or_current
from App_Function_Libraries.quarry.errors import BadArgument, QuarryError, one_line

REPORT_FORMATS = ("full", "short", "bullets", "table")


def research_params(settings=None, *, engines=None, pages: int | None = None, no_llm: bool = False,
                    subqueries: bool = True, relevance: bool = True, report_format: str | None = None,
                    tone: str | None = None, lang: str | None = None, length: int | None = None,
                    preset: str | None = None, use_cache: bool = True, follow_up_of: str | None = None,
                    search_options: dict | None = None, budget_seconds: float | None = None,
                    budget_pages: int | None = None, budget_tokens: int | None = None):
    """ResearchParams from the settings with these overrides; BadArgument names a wrong one. `search_options`:
    web search options by their SearchOptions names (country, search_lang, date_range, safesearch,
    site_blacklist, include_sites, ...); one left None takes its [search] default. budget_seconds,
    budget_pages, budget_tokens: the run's budget (0: no limit; None: [research] budget_*)."""
    from App_Function_Libraries.config import ENGINES, LOCAL_SOURCES
    from App_Function_Libraries.Research.params import ResearchParams
    settings = settings_or_current(settings)
    chosen = name_list(engines) or None
    unknown = [e for e in chosen or [] if e not in ENGINES + LOCAL_SOURCES]
    if unknown:
        raise BadArgument(None, f"unknown engine {', '.join(unknown)}; engines are {', '.join(ENGINES)}, "
                                f"local sources {', '.join(LOCAL_SOURCES)}")
    count_argument("pages", pages, 1)
    count_argument("length", length, 1)
    count_argument("budget_pages", budget_pages, 0, 100)
    count_argument("budget_tokens", budget_tokens, 0)
    if budget_seconds is not None and (isinstance(budget_seconds, bool) or not isinstance(budget_seconds, (int, float))
                                       or budget_seconds < 0):
        raise BadArgument("budget_seconds", "must be a number of seconds, at least 0 (0: no limit)")
    if report_format is not None and report_format not in REPORT_FORMATS:
        raise BadArgument("report_format", f"must be one of {', '.join(REPORT_FORMATS)}")
    overrides = {"engines": chosen, "pages_max": pages, "report_format": report_format, "tone": tone,
                 "report_language": lang, "length_words": length, "budget_seconds": budget_seconds,
                 "budget_pages": budget_pages, "budget_llm_tokens": budget_tokens,
                 **search_overrides(search_options, settings)}
    if preset:
        from App_Function_Libraries.Research.presets import load_preset, sanitize_name
        try:
            overrides.update(aggregation_prompt=load_preset(preset, settings), preset=sanitize_name(preset))
        except ValueError as exc:
            raise BadArgument(None, one_line(exc)) from exc
    overrides.update({k: False for k, on in (("use_llm", not no_llm), ("subqueries", subqueries),
                                             ("relevance_check", relevance), ("use_cache", use_cache)) if not on})
    params = ResearchParams.from_settings(settings, **overrides)
    try:
        params.check_report_options()
    except ValueError as exc:
        raise BadArgument(None, one_line(exc)) from exc
    return _follow_up(follow_up_of, params, settings) if follow_up_of else params


def search_overrides(values: dict | None, settings) -> dict:
    """The search options set in `values` (SearchOptions names), each checked as the search will use it;
    BadArgument names a wrong one."""
    from App_Function_Libraries.Search.errors import InvalidOption
    from App_Function_Libraries.Search.options import SearchOptions
    values = {k: v for k, v in (values or {}).items() if v not in (None, "", [], ())}
    for name, value in values.items():
        if name not in SearchOptions.names():
            raise BadArgument(name, f"is no search option; they are {', '.join(SearchOptions.names())}")
        try:
            SearchOptions.build(None, settings, **{name: value})
        except InvalidOption as exc:  # "date_range 'x' is not understood: ..." (the option's name or label first)
            first, _, rest = one_line(exc).partition(" ")
            named = first in (name, SearchOptions.label(name)) and rest
            raise BadArgument(name, rest if named else f"is not valid: {one_line(exc)}") from exc
    return values


def _follow_up(report_id: str, params, settings):
    from App_Function_Libraries.DB.connection import StoreError
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.Research.follow_ups import follow_up_params
    store = get_research_store(settings)
    try:
        return follow_up_params(store.load_report(store.resolve_id(report_id)), params)
    except StoreError as exc:
        raise BadArgument(None, one_line(exc)) from exc


def research(question: str, params=None, *, rounds: int = 0, save: bool = True, durable: bool | None = None,
             plan=None, run_id: str | None = None, on_progress: Callable | None = None,
             cancel: threading.Event | None = None, on_report_delta: Callable[[str], None] | None = None,
             settings=None, services=None, **options):
    """Research `question` from sub-queries to a verified, cited report; returns the ResearchResult.

    `params` is a ResearchParams, or built by research_params(settings, **options) (engines, pages, no_llm,
    report_format, tone, lang, length, preset, follow_up_of, budget_*, ...). `plan` (a ResearchPlan, its dict, or
    see quarry.runs.plan) is followed instead of making one. `rounds` (0-5) digs deeper after the report.
    `on_progress` gets the pipeline's ProgressEvents; setting `cancel` stops the run, which returns what it has.
    With `save` the result is stored in the research database under result.id (`run_id` if given; a failure to
    save is added to result.errors: the report still stands), unless no search answered
    (result.searched_nothing: there is no report; result.stage_failures["search"] says why). `durable`
    (default: `save`) commits each stage as it completes, so an interrupted run can be resumed
    (quarry.runs.resume). `services` (pipeline.Services)
    replaces the LLMs, fetcher or search built from the settings. QuarryError when the run cannot be done."""
    from App_Function_Libraries.Research.durable import execute
    settings = settings_or_current(settings)
    count_argument("rounds", rounds, 0, 5)
    params = params if params is not None else research_params(settings, **options)
    plan = read_plan(plan) if plan is not None else None
    cancel = cancel or threading.Event()
    try:
        result = execute(question, params, plan=plan, store=_run_store(settings, save if durable is None else durable),
                         run_id=run_id, on_progress=on_progress, cancel=cancel, on_report_delta=on_report_delta,
                         services=services)
    except ValueError as exc:
        raise QuarryError(f"research failed: {one_line(exc)}") from exc
    return finish_run(result, rounds, cancel, save, settings, on_progress)


def finish_run(result, rounds: int, cancel: threading.Event, save: bool, settings, on_progress=None):
    """After the pipeline: dig deeper `rounds` times, then save (when `save`)."""
    if rounds and not cancel.is_set() and not result.searched_nothing:
        from App_Function_Libraries.Research.dig_deeper import dig_deeper
        from App_Function_Libraries.Research.params import ResearchParams
        try:
            result = dig_deeper(result, rounds, ResearchParams.from_dict(result.params), on_progress, cancel)
        except Exception as exc:  # noqa: BLE001 - the first report still stands
            result.errors.append(f"dig deeper failed: {one_line(exc)}")
    if save and not result.searched_nothing:  # no report to keep: the run says why (stage_failures)
        try:
            save_result(result, settings)
        except QuarryError as exc:
            result.errors.append(str(exc))
    return result


def nothing_searched(result) -> QuarryError:
    """The error for a run where no search answered (result.searched_nothing): one line saying why, the same
    for the CLI, MCP and the HTTP API."""
    return QuarryError(f"research: nothing could be searched: {result.stage_failures.get('search', '')}")


def read_plan(plan):
    """A ResearchPlan from a ResearchPlan, its dict, or JSON text; BadArgument("plan", …) when it is wrong."""
    import json

    from App_Function_Libraries.Research.plan import ResearchPlan
    if isinstance(plan, ResearchPlan):
        return plan
    try:
        return ResearchPlan.from_dict(json.loads(plan) if isinstance(plan, str) else plan)
    except ValueError as exc:  # json.JSONDecodeError is one
        raise BadArgument("plan", one_line(exc)) from exc


def _run_store(settings, durable: bool):
    if not durable:
        return None
    from App_Function_Libraries.DB.run_store import get_run_store
    return get_run_store(settings)


def save_result(result, settings=None) -> str:
    """Store a research result (replacing an earlier save of it); its id. QuarryError when it cannot be."""
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.DB.run_store import get_run_store
    settings = settings_or_current(settings)
    try:
        saved = get_research_store(settings).save_research(result)
    except Exception as exc:  # noqa: BLE001 - saving is a convenience; the caller still has the report
        raise QuarryError(f"could not save the result: {one_line(exc)}") from exc
    if not any(e.startswith("cancelled") for e in getattr(result, "errors", [])):
        try:
            get_run_store(settings).set_status(saved, "done")  # a durable run is finished (no row: nothing)
        except Exception:  # noqa: BLE001 - the report is saved; its run's status is bookkeeping
            pass
    return saved
