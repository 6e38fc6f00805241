"""Watchlists: re-run a saved research on a schedule and report only what is new.

    w = quarry.watch.add("3fa2", every="1d")       # a WatchRecord; seeded with what the report read
    quarry.watch.list()                            # [(WatchRecord, [WatchRun, ...]), ...]
    quarry.watch.run_due()                         # run the watches that are due (cron / systemd timer)
    quarry.watch.run("9c1e")                       # run one now; a WatchOutcome
    quarry.watch.remove("9c1e")
"""
from __future__ import annotations

from App_Function_Libraries.quarry._common import settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import BadArgument, one_line


def _stores(settings):
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.DB.run_store import get_run_store
    return get_research_store(settings), get_run_store(settings)


def add(report_id: str, every="1d", settings=None):
    """Watch a saved research: re-run its plan every `every` (1d, 12h, 30m, 2w or seconds)."""
    from App_Function_Libraries.DB.connection import StoreError
    from App_Function_Libraries.Research.plan import plan_from
    from App_Function_Libraries.Research.params import ResearchParams
    from App_Function_Libraries.Research.watch import parse_every, seen_of
    settings = settings_or_current(settings)
    try:
        seconds = parse_every(every) if isinstance(every, str) else float(every)
    except ValueError as exc:
        raise BadArgument("every", one_line(exc).removeprefix(f"--every {every!r} ").removeprefix("--every ")) from exc
    research, runs = _stores(settings)
    try:
        result = research.load_report(research.resolve_id(text_argument("id", report_id)))
    except StoreError as exc:
        raise BadArgument("id", one_line(exc)) from exc
    params = ResearchParams.from_dict(result.params)
    plan = params.plan or plan_from(result.question, result.sub_queries, params).to_dict()
    watch = runs.add_watch(result.id, result.question, plan, params.to_dict(), seconds)
    runs.record_watch_run(watch.id, result.id, seen_of(result.sources, _page_texts(research, result.sources)), 0, 0,
                          False, ran_at=result.created_at, schedule=False)
    return runs.get_watch(watch.id)


def _page_texts(research, sources) -> dict:
    """url -> {"text": the page as the report read it}, from the page cache where it still holds that page."""
    texts = {}
    for source in sources:
        try:
            page = research.get_page(source.url, float("inf")) if source.fetched else None
        except Exception:  # noqa: BLE001 - without it the watch remembers the report's passages instead
            page = None
        if page is not None and page.content_hash == source.content_hash:
            texts[source.url] = {"text": page.text}
    return texts


def list(settings=None):  # noqa: A001 - quarry.watch.list(), as quarry.history.list()
    """Every watch with its runs (the watched report first)."""
    _, runs = _stores(settings_or_current(settings))
    return [(w, runs.watch_runs(w.id)) for w in runs.list_watches()]


def remove(watch_id: str, settings=None):
    from App_Function_Libraries.DB.connection import StoreError
    _, runs = _stores(settings_or_current(settings))
    try:
        return runs.remove_watch(text_argument("watch_id", watch_id))
    except StoreError as exc:
        raise BadArgument("watch_id", one_line(exc)) from exc


def run(watch_id: str, settings=None, *, services=None, on_progress=None, cancel=None):
    """Run one watch now (due or not); a WatchOutcome."""
    from App_Function_Libraries.DB.connection import StoreError
    from App_Function_Libraries.Research.watch import run_watch
    settings = settings_or_current(settings)
    _, runs = _stores(settings)
    try:
        watch = runs.get_watch(text_argument("watch_id", watch_id))
    except StoreError as exc:
        raise BadArgument("watch_id", one_line(exc)) from exc
    return run_watch(watch, settings, services=services, on_progress=on_progress, cancel=cancel)


def run_due(settings=None, *, services=None, on_progress=None, cancel=None):
    """Run every watch that is due, one after another; their WatchOutcomes (none due: [])."""
    from App_Function_Libraries.Research.watch import run_watch
    settings = settings_or_current(settings)
    _, runs = _stores(settings)
    out = []
    for watch in runs.due_watches():
        if cancel is not None and cancel.is_set():
            break
        out.append(run_watch(watch, settings, services=services, on_progress=on_progress, cancel=cancel))
    return out
