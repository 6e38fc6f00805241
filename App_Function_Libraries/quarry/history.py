"""Past research runs: list, read, export (the formats of DB/export.py), keep their sources in the document
library."""
from __future__ import annotations

from App_Function_Libraries.quarry._common import count_argument, settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import BadArgument, QuarryError, one_line
from App_Function_Libraries.quarry.notes import stored


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
