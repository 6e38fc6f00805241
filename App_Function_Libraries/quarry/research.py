"""Research a question: the parameters a front door may set, the run (pipeline, then dig-deeper rounds), and
saving it. `research()` is what the CLI, the UI's HTTP API and the MCP server call."""
from __future__ import annotations

import threading
from typing import Callable

from App_Function_Libraries.options import parse as parse_option
from App_Function_Libraries.quarry._common import settings_or_current
from App_Function_Libraries.quarry.errors import BadArgument, QuarryError, one_line

def research_params(settings=None, *, follow_up_of: str | None = None, search_options: dict | None = None,
                    **options):
    """ResearchParams from the settings with `options` by their names in App_Function_Libraries/options.py
    (engines, pages_max, use_llm, report_format, report_language, date_range, budget_pages, ...) or their old
    names (pages, lang, length, no_llm, budget_tokens, ...); one left None takes its configured default.
    `search_options`: more of them in a dict. Checked once, by ResearchParams.from_settings: BadArgument names a
    wrong one. `follow_up_of`: a saved report (id or its start) this question follows up."""
    from App_Function_Libraries.Research.params import ResearchParams
    settings = settings_or_current(settings)
    params = ResearchParams.from_settings(settings, **{**(search_options or {}), **options})
    return _follow_up(follow_up_of, params, settings) if follow_up_of else params


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

    `params` is a ResearchParams, or built by research_params(settings, **options) (the options of
    App_Function_Libraries/options.py by name: engines, pages_max, use_llm, report_format, report_language,
    the search options, preset, follow_up_of, budget_*, ...). `plan` (a ResearchPlan, its dict, or
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
    rounds = parse_option("rounds", rounds) or 0
    params = params if params is not None else research_params(settings, **options)
    plan = read_plan(plan) if plan is not None else None
    cancel = cancel or threading.Event()
    store = _run_store(settings, save if durable is None else durable)
    try:
        result = execute(question, params, plan=plan, store=store, run_id=run_id, rounds=rounds,
                         on_progress=on_progress, cancel=cancel, on_report_delta=on_report_delta, services=services)
    except ValueError as exc:
        raise QuarryError(f"research failed: {one_line(exc)}") from exc
    return finish_run(result, rounds, cancel, save, settings, on_progress, store)


def finish_run(result, rounds: int, cancel: threading.Event, save: bool, settings, on_progress=None, store=None):
    """After the pipeline: dig deeper until `rounds` rounds are done (each committed to the run `store`, when
    durable; none when the run reached its budget), then save (when `save`)."""
    if rounds and result.budget_reached:  # digging deeper would spend past the budget
        result.errors.append(f"dig deeper: the {rounds} round(s) asked for were not done: the run reached its "
                             f"budget ({', '.join(result.budget_reached)})")
    elif rounds and not cancel.is_set() and not result.searched_nothing:
        from App_Function_Libraries.Research.durable import dig_rounds
        try:
            result = dig_rounds(result, rounds, store=store, on_progress=on_progress, cancel=cancel)
        except Exception as exc:  # noqa: BLE001 - the first report still stands
            result.errors.append(f"dig deeper failed: {one_line(exc)}")
    if save and not result.searched_nothing:  # no report to keep: the run says why (stage_failures)
        from App_Function_Libraries.quarry.history import save as save_in_history
        saved = save_in_history(result, settings)
        if not saved.ok:
            result.errors.append(saved.message)
    return result


def services(settings=None, *, use_llm: bool = True, role_llms: dict[str, str] | None = None):
    """The pipeline's services for one run (pass them to research): each role on its configured LLM, or on the
    LLM of another config section named in `role_llms` ({"extraction": "llm_final_answer"}), or on none
    (role_llms value None). The settings are not changed. BadArgument for a section the config lacks."""
    import dataclasses

    from App_Function_Libraries.config import ROLE_SECTION_PREFIX
    from App_Function_Libraries.LLM.registry import get_llm
    from App_Function_Libraries.Research.pipeline import Services
    settings = settings_or_current(settings)
    made = Services.from_settings(settings, use_llm=use_llm)
    for role, section in (role_llms or {}).items():
        if section is None:
            made.llms[role] = None
        elif use_llm:
            name = section[len(ROLE_SECTION_PREFIX):]
            if section != "llm" and name not in settings.roles:
                raise BadArgument(None, f"no LLM section [{section}] in the config")
            profile = settings.llm if section == "llm" else settings.llm_for(name)
            made.llms[role] = get_llm(role, dataclasses.replace(settings, roles={**settings.roles, role: profile}))
    return made


def round_lines(result) -> list[str]:
    """One line per dig-deeper round of `result`: what it searched and added."""
    from App_Function_Libraries.Research.dig_deeper import round_summary
    return [round_summary(record) for record in result.rounds]


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
