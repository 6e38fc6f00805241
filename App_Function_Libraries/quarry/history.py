"""Past research runs: save, list, read, delete, export (the formats of DB/export.py), ask about one (answered from
its own sources), keep their sources in the document library."""
from __future__ import annotations

from dataclasses import dataclass

from App_Function_Libraries.quarry._common import count_argument, settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import BadArgument, QuarryError, one_line
from App_Function_Libraries.quarry.notes import stored


@dataclass(frozen=True)
class Saved:
    """What saving a research result did: ok and its id, or not ok and the one line saying why."""
    ok: bool
    id: str | None = None
    message: str = ""


@dataclass(frozen=True)
class Asked:
    """A question asked about a report: the report, the exchange (its question and answer record, whose sources
    are numbered 1..k, each keeping the report's number), and whether the exchange was saved with the report
    (not when the report is not in History)."""
    result: object
    exchange: object
    saved: bool

    def text(self) -> str:
        """The exchange as plain text: the answer, then the sources it cites (with the report's numbers)."""
        from App_Function_Libraries.Research.report_chat import exchange_text
        return exchange_text(self.exchange)


def _store(settings=None):
    from App_Function_Libraries.DB.research_store import get_research_store
    return get_research_store(settings_or_current(settings))


def list(limit: int = 30, offset: int = 0, query: str | None = None, settings=None):  # noqa: A001 - history.list
    """ReportSummaries, newest first; `query` keeps those whose question or report contains it."""
    limit = count_argument("limit", limit, 1, 1000) or 30
    offset = count_argument("offset", offset, 0) or 0
    return stored(lambda: _store(settings).list_reports(limit=limit, offset=offset, query=query))


def get(report_id: str, settings=None):
    """The saved ResearchResult whose id is or starts with `report_id`."""
    report_id = text_argument("id", report_id)

    def work():
        store = _store(settings)
        return store.load_report(store.resolve_id(report_id))
    return stored(work)


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


def save(result, settings=None) -> Saved:
    """Store a research result in History (replacing an earlier save of it; a durable run is marked done)."""
    try:
        return Saved(True, save_result(result, settings))
    except QuarryError as exc:
        return Saved(False, None, one_line(exc))


def delete(report_id: str, settings=None) -> str:
    """Delete a saved report (its id or the start of it) with its questions; its full id."""
    report_id = text_argument("id", report_id)

    def work():
        store = _store(settings)
        full_id = store.resolve_id(report_id)
        store.delete_report(full_id)
        return full_id
    return stored(work)


def exchanges(report_id: str, settings=None):
    """The questions asked about a saved report (ReportExchanges, oldest first); [] when it has none."""
    return stored(lambda: _store(settings).list_exchanges(report_id))


def ask(report, question: str, settings=None) -> Asked:
    """Ask about a report (a saved one's id or the start of it, or a ResearchResult in hand), answered from its
    own sources with its numbering; the exchange is saved with the report when the report is in History."""
    from App_Function_Libraries.DB.connection import NotFoundError
    from App_Function_Libraries.Research.report_chat import ask_and_save, ask_report, services_for
    settings = settings_or_current(settings)
    result = get(report, settings) if isinstance(report, str) else report
    try:
        try:
            return Asked(result, ask_and_save(result, question, settings), True)
        except NotFoundError:  # not in History (saving it failed): answered, not saved
            return Asked(result, ask_report(result, question, services_for(result, settings)), False)
    except ValueError as exc:  # no question
        raise BadArgument(None, one_line(exc)) from exc


def export_format(fmt: str) -> str:
    """The export format's short name (md, pdf, csl, …; aliases such as "markdown" or "word" too)."""
    from App_Function_Libraries.DB.export import ExportFormatError, check_format
    try:
        return check_format(fmt)
    except ExportFormatError as exc:
        raise BadArgument(None, one_line(exc)) from exc


def export_result(result, fmt: str = "md", citation_style: str | None = None, exchanges=None) -> str | bytes:
    """A research result in hand (a ResearchResult or its dict, saved or not) in format `fmt`, as export()."""
    from App_Function_Libraries.DB.export import ExportFormatError, export_report
    try:
        return export_report(result, fmt, citation_style=citation_style, exchanges=exchanges)
    except ExportFormatError as exc:
        raise BadArgument(None, one_line(exc)) from exc


def export(report_id: str, fmt: str = "md", settings=None, citation_style: str | None = None) -> str | bytes:
    """A saved report in format `fmt` (md, json, html, bib, ris, csl, txt as text; pdf, docx as bytes), its
    sources listed in `citation_style` (numbered, apa, chicago; None: the report's own, else the configured),
    followed by the questions asked about it (Ask about this report) when there are any."""
    from App_Function_Libraries.DB.export import ExportFormatError, export_report
    result = get(report_id, settings)
    exchanges = stored(lambda: _store(settings).list_exchanges(result.id))
    try:
        return export_report(result, fmt, citation_style=citation_style, exchanges=exchanges)
    except ExportFormatError as exc:
        raise BadArgument(None, one_line(exc)) from exc
    except ValueError as exc:
        raise QuarryError(one_line(exc)) from exc


def keep_sources(report_id: str, settings=None):
    """Add the saved report's read web pages and papers to the document library (whole page texts from the
    page cache), each once; the KeepReport (its summary() is the line to show)."""
    settings = settings_or_current(settings)
    return keep_result(get(report_id, settings), settings)


def keep_result(result, settings=None):
    """keep_sources for a ResearchResult in hand (saved or not)."""
    from App_Function_Libraries.quarry.docs import library_errors
    from App_Function_Libraries.Research.keep_sources import keep_sources as keep
    settings = settings_or_current(settings)
    page_cache = stored(lambda: _store(settings))
    with library_errors(settings):
        try:
            return keep(result, settings, page_cache=page_cache)
        except OSError as exc:  # the kept_sources_dir folder cannot be made or written
            raise QuarryError(f"could not keep the sources: {one_line(exc)}") from exc
