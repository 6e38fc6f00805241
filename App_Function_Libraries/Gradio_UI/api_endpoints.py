"""The UI server's HTTP API: stable, named Gradio endpoints (gr.api) for the actions that make sense as a call.
Each calls the facade (App_Function_Libraries.quarry) and answers the same plain JSON as the MCP tools
(quarry/plain.py); a failure is a gr.Error carrying the CLI's one-line message. Every other event of the UI is
plumbing and hidden from the API (see hide_plumbing). Docs/api.md shows how to call them with gradio_client."""
from __future__ import annotations

from typing import Any

import gradio as gr

PUBLIC = ("research", "web_search", "wiki_ask", "docs_ask", "notes_search", "notes_add", "export", "keep_sources")


def _call(work, settings_fn):
    from App_Function_Libraries.quarry import QuarryError
    from App_Function_Libraries.quarry.plain import safe, safe_message
    settings = settings_fn()
    try:
        return safe(work(settings), settings)
    except QuarryError as exc:
        raise gr.Error(safe_message(str(exc), settings)) from None


def _names(text: str) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def register(settings_fn) -> None:
    """Add the named endpoints to the Blocks being built; `settings_fn()` gives the current settings."""
    from App_Function_Libraries import quarry
    from App_Function_Libraries.quarry import plain

    def research(question: str, engines: str = "", pages: int = 0, no_llm: bool = False, report_format: str = "",
                 tone: str = "", lang: str = "", length: int = 0) -> dict[str, Any]:
        """Research a question on the web; the cited report, numbered sources, citations, errors, saved id."""
        def work(settings):
            result = quarry.research(question, settings=settings, engines=_names(engines), pages=pages or None,
                                     no_llm=no_llm, report_format=report_format or None, tone=tone or None,
                                     lang=lang or None, length=length or None)
            if result.searched_nothing:  # no report, nothing saved: the CLI's line as the error
                raise quarry.nothing_searched(result)
            return plain.research_out(result, saved=not any(e.startswith("could not save") for e in result.errors))
        return _call(work, settings_fn)

    def web_search(query: str, engines: str = "", count: int = 0) -> dict[str, Any]:
        """Search the web with one or more engines (comma-separated); merged, numbered results."""
        return _call(lambda s: plain.search_out(quarry.search(query, _names(engines), count=count or None,
                                                              settings=s)), settings_fn)

    def wiki_ask(question: str) -> dict[str, Any]:
        """A cited answer from the local Wikipedia index."""
        return _call(lambda s: plain.answer_out(quarry.wiki.ask(question, settings=s)), settings_fn)

    def docs_ask(question: str, no_llm: bool = False) -> dict[str, Any]:
        """A cited answer from your indexed documents."""
        return _call(lambda s: plain.answer_out(quarry.docs.ask(question, use_llm=not no_llm, settings=s)),
                     settings_fn)

    def notes_search(query: str, limit: int = 20) -> dict[str, Any]:
        """Full-text search of your notes: id, title, snippet."""
        return _call(lambda s: {"notes": plain.note_hits_out(quarry.notes.search(query, limit, settings=s))},
                     settings_fn)

    def notes_add(title: str = "", content: str = "", keywords: str = "", from_report: str = "") -> dict[str, Any]:
        """Save a note: title and content, or from_report (a saved report's id)."""
        return _call(lambda s: plain.note_out(quarry.notes.add(title or None, content or None, _names(keywords),
                                                               from_report=from_report or None, settings=s),
                                              content=False), settings_fn)

    def export(report_id: str, format: str = "md") -> str:  # noqa: A002 - the API's argument name
        """A saved report as text: md, json, html, bib, ris, csl, txt (pdf and docx: python app.py history export)."""
        def text(s):
            if format in ("pdf", "docx"):
                raise quarry.BadArgument("format", f"{format} is a binary file: export it with python app.py "
                                                   f"history export ID --format {format} -o FILE")
            return quarry.export(report_id, format, settings=s)
        return _call(text, settings_fn)

    def keep_sources(report_id: str) -> dict[str, Any]:
        """Add a saved report's read pages and papers to the document library, each once."""
        return _call(lambda s: plain.keep_out(quarry.history.keep_sources(report_id, settings=s)), settings_fn)

    for fn in (research, web_search, wiki_ask, docs_ask, notes_search, notes_add, export, keep_sources):
        gr.api(fn, api_name=fn.__name__)


def hide_plumbing(app: gr.Blocks) -> None:
    """Every event that is not one of the PUBLIC endpoints: off the API page and out of reach of API clients
    (the page's own events still run)."""
    names = [fn.api_name for fn in app.fns.values()]
    missing = sorted(set(PUBLIC) - set(names))
    if missing:  # a UI handler named like an endpoint takes its name, and the endpoint becomes name_1
        raise RuntimeError(f"API endpoints not found under their names: {', '.join(missing)}")
    for fn in app.fns.values():
        if fn.api_name not in PUBLIC:
            fn.api_visibility = "private"
