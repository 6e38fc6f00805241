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
                    search_options: dict | None = None):
    """ResearchParams from the settings with these overrides; BadArgument names a wrong one. `search_options`:
    web search options by their SearchOptions names (country, search_lang, date_range, safesearch,
    site_blacklist, include_sites, ...); one left None takes its [search] default."""
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
    if report_format is not None and report_format not in REPORT_FORMATS:
        raise BadArgument("report_format", f"must be one of {', '.join(REPORT_FORMATS)}")
    overrides = {"engines": chosen, "pages_max": pages, "report_format": report_format, "tone": tone,
                 "report_language": lang, "length_words": length, **search_overrides(search_options, settings)}
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


def research(question: str, params=None, *, rounds: int = 0, save: bool = True,
             on_progress: Callable | None = None, cancel: threading.Event | None = None,
             on_report_delta: Callable[[str], None] | None = None, settings=None, services=None, **options):
    """Research `question` from sub-queries to a verified, cited report; returns the ResearchResult.

    `params` is a ResearchParams, or built by research_params(settings, **options) (engines, pages, no_llm,
    report_format, tone, lang, length, preset, follow_up_of, ...). `rounds` (0-5) digs deeper after the report.
    `on_progress` gets the pipeline's ProgressEvents; setting `cancel` stops the run, which returns what it has.
    With `save` the result is stored in the research database under result.id (a failure to save is added to
    result.errors: the report still stands), unless no search answered (result.searched_nothing: there is no
    report; result.stage_failures["search"] says why). `services` (pipeline.Services) replaces the LLMs, fetcher or search
    built from the settings (the UI's per-run LLM choices). QuarryError when the run cannot be done."""
    from App_Function_Libraries.Research.pipeline import process_question
    settings = settings_or_current(settings)
    count_argument("rounds", rounds, 0, 5)
    params = params if params is not None else research_params(settings, **options)
    cancel = cancel or threading.Event()
    try:
        result = process_question(question, params, on_progress, cancel, on_report_delta=on_report_delta,
                                  services=services)
    except ValueError as exc:
        raise QuarryError(f"research failed: {one_line(exc)}") from exc
    if rounds and not cancel.is_set() and not result.searched_nothing:
        from App_Function_Libraries.Research.dig_deeper import dig_deeper
        try:
            result = dig_deeper(result, rounds, params, on_progress, cancel)
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


def save_result(result, settings=None) -> str:
    """Store a research result (replacing an earlier save of it); its id. QuarryError when it cannot be."""
    from App_Function_Libraries.DB.research_store import get_research_store
    try:
        return get_research_store(settings_or_current(settings)).save_research(result)
    except Exception as exc:  # noqa: BLE001 - saving is a convenience; the caller still has the report
        raise QuarryError(f"could not save the result: {one_line(exc)}") from exc
