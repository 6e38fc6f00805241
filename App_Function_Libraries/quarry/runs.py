"""Plans and runs: the plan a research would follow (nothing searched), the runs that did not finish
(interrupted, cancelled, failed) and resuming one from its last completed stage; and what follows a finished
report: re-run it on the sources as ticked, dig deeper, research a follow-up question.

    plan = quarry.runs.plan("How do bees find food?", engines="searxng")      # a ResearchPlan
    result = quarry.research(plan.question, plan=plan)                         # run it (edited or not)
    quarry.runs.unfinished()                                                   # RunRecords, newest first
    quarry.runs.resume("3fa2")                                                 # continue, then saved
    quarry.runs.dig_deeper(result, rounds=2), quarry.runs.rerun(result)        # new results (not saved)
"""
from __future__ import annotations

import threading
from typing import Callable

from App_Function_Libraries.quarry._common import count_argument, settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import BadArgument, QuarryError, one_line
from App_Function_Libraries.quarry.research import finish_run, read_plan, research_params


def plan(question: str, params=None, *, settings=None, services=None, **options):
    """The ResearchPlan a research of `question` would follow: stage 1 (sub-queries) only, nothing searched.
    `params` or research_params(**options) as for quarry.research."""
    from App_Function_Libraries.Research.plan import make_plan
    settings = settings_or_current(settings)
    params = params if params is not None else research_params(settings, **options)
    try:
        return make_plan(question, params, services)  # it checks the question
    except ValueError as exc:
        raise QuarryError(f"plan failed: {one_line(exc)}") from exc


def unfinished(settings=None, limit: int = 50):
    """The runs that did not finish (interrupted, cancelled, failed, still running), newest first."""
    from App_Function_Libraries.DB.run_store import get_run_store
    return get_run_store(settings_or_current(settings)).list_runs(unfinished=True, limit=limit)


def get(run_id: str, settings=None):
    """A run (RunRecord) by id or its start; BadArgument when there is none."""
    from App_Function_Libraries.DB.connection import StoreError
    from App_Function_Libraries.DB.run_store import get_run_store
    store = get_run_store(settings_or_current(settings))
    try:
        return store.get_run(store.resolve_run_id(text_argument("run_id", run_id)))
    except StoreError as exc:
        raise BadArgument(None, one_line(exc)) from exc


def resume(run_id: str, *, rounds: int = 0, save: bool = True, on_progress: Callable | None = None,
           cancel: threading.Event | None = None, on_report_delta: Callable[[str], None] | None = None,
           settings=None, services=None):
    """Continue an interrupted, cancelled or failed run from its last completed stage or dig-deeper round
    (nothing it has searched or read is done again), then the dig-deeper rounds it was asked for (or `rounds`
    in all, when given); the finished ResearchResult, saved under the run's id (with `save`)."""
    from App_Function_Libraries.DB.run_store import RESUMABLE, get_run_store
    from App_Function_Libraries.Research.durable import execute, rounds_asked
    settings = settings_or_current(settings)
    count_argument("rounds", rounds, 0, 5)
    record = get(run_id, settings)
    if record.status not in RESUMABLE:
        why = "has finished" if record.status == "done" else "is still running (in another process)"
        raise BadArgument(None, f"run {record.id[:8]} {why}; only interrupted, cancelled or failed runs resume")
    cancel = cancel or threading.Event()
    if record.watch_id:  # a watched run: resumed as one (New since, linked, notified)
        return _resume_watched(record, settings, services, on_progress, cancel)
    store = get_run_store(settings)
    try:
        result = execute(record.question, None, resume=record, store=store, on_progress=on_progress, cancel=cancel,
                         on_report_delta=on_report_delta, services=services)
    except ValueError as exc:
        raise QuarryError(f"resume failed: {one_line(exc)}") from exc
    return finish_run(result, rounds or rounds_asked(record), cancel, save, settings, on_progress, store)


def _resume_watched(record, settings, services, on_progress, cancel):
    from App_Function_Libraries.DB.connection import StoreError
    from App_Function_Libraries.DB.run_store import get_run_store
    from App_Function_Libraries.quarry import history
    from App_Function_Libraries.Research.watch import run_watch
    try:
        watch = get_run_store(settings).get_watch(record.watch_id)
    except StoreError as exc:
        raise BadArgument(None, f"run {record.id[:8]} belongs to a watch that was removed") from exc
    outcome = run_watch(watch, settings, services=services, on_progress=on_progress, cancel=cancel, resume=record)
    if not outcome.run_id:
        raise QuarryError(f"resume failed: {outcome.problem}")
    return history.get(outcome.run_id, settings)


def facts_markdown(report_id: str, settings=None) -> str:
    """The plan a saved report's run followed and the watches it belongs to (with their runs), as Markdown
    ("" when it has neither)."""
    import time as _time

    from App_Function_Libraries.DB.run_store import get_run_store
    from App_Function_Libraries.quarry import history
    from App_Function_Libraries.Research.plan import plan_markdown
    settings = settings_or_current(settings)
    result = history.get(report_id, settings)
    parts = [plan_markdown((result.params or {}).get("plan") or {})]
    for watch, runs in get_run_store(settings).watches_of_report(result.id):
        lines = [f"## Watch {watch.id[:8]} (every {watch.every_seconds / 3600:g} h; python app.py watch list)", ""]
        lines += [f"- {_time.strftime('%Y-%m-%d %H:%M', _time.localtime(r.ran_at))}  run {r.run_id[:8]}: "
                  f"{r.new_sources} new, {r.changed_sources} changed" + ("  (this report)" if r.run_id == result.id
                                                                         else "") for r in runs]
        parts.append("\n".join(lines))
    return "\n\n".join(p for p in parts if p)


def params_of(result):
    """The ResearchParams a result ran with (params saved by an older version load too)."""
    from App_Function_Libraries.Research.params import ResearchParams
    return ResearchParams.from_dict(result.params)


def follow_up(previous, params=None):
    """ResearchParams for a follow-up question of the result `previous`: its options (or `params`), plus what it
    searched and answered, for the sub-queries to build on."""
    from App_Function_Libraries.Research.follow_ups import follow_up_params
    return follow_up_params(previous, params)


def rerun(result, params=None, *, on_progress: Callable | None = None, cancel: threading.Event | None = None,
          on_report_delta: Callable[[str], None] | None = None, services=None):
    """Fetch, read, rank and write again on `result`'s sources as ticked (Source.user_override), nothing
    searched again; a new ResearchResult (not saved). `params`: default, the result's own."""
    from App_Function_Libraries.Research.pipeline import rerun_from_fetch
    try:
        return rerun_from_fetch(result, params if params is not None else params_of(result), on_progress, cancel,
                                on_report_delta=on_report_delta, services=services)
    except ValueError as exc:
        raise QuarryError(one_line(exc)) from exc


def dig_deeper(result, rounds: int = 1, params=None, *, on_progress: Callable | None = None,
               cancel: threading.Event | None = None, on_report_delta: Callable[[str], None] | None = None,
               services=None):
    """Up to `rounds` more rounds on `result`, aimed at what its report lacks (its own options and engines);
    a new ResearchResult (not saved), `result` left as it was."""
    from App_Function_Libraries.Research.dig_deeper import dig_deeper as dig
    try:
        return dig(result, rounds, params if params is not None else params_of(result), on_progress, cancel,
                   on_report_delta=on_report_delta, services=services)
    except ValueError as exc:
        raise QuarryError(one_line(exc)) from exc


__all__ = ["dig_deeper", "facts_markdown", "follow_up", "get", "params_of", "plan", "read_plan", "rerun", "resume",
           "unfinished"]
