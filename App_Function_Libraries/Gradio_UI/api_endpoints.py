"""The UI server's HTTP API: stable, named Gradio endpoints (gr.api) for the actions that make sense as a call.
Each calls the facade (App_Function_Libraries.quarry) and answers the same plain JSON as the MCP tools
(quarry/plain.py); a failure is a gr.Error carrying the CLI's one-line message. Every other event of the UI is
plumbing and hidden from the API (see hide_plumbing). Docs/api.md shows how to call them with gradio_client."""
from __future__ import annotations

from typing import Any

import gradio as gr

PUBLIC = ("research", "web_search", "wiki_ask", "docs_ask", "notes_search", "notes_add", "export", "keep_sources",
          "research_plan", "runs_unfinished", "watch_add", "watch_list", "watch_remove", "watch_run")


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

    def research(question: str = "", engines: str = "", pages: int = 0, no_llm: bool = False,
                 report_format: str = "", tone: str = "", lang: str = "", length: int = 0, plan: str = "",
                 run_id: str = "", budget_seconds: float = 0, budget_pages: int = 0,
                 budget_tokens: int = 0) -> dict[str, Any]:
        """Research a question on the web; the cited report, numbered sources, citations, errors, saved id.
        plan: a plan (JSON from research_plan, edited or not) to run; run_id: resume that unfinished run;
        budget_*: stop reading pages at the budget (0: the configured one)."""
        def work(settings):
            if run_id:
                return plain.research_out(quarry.runs.resume(run_id, settings=settings), saved=True)
            chosen = quarry.runs.read_plan(plan) if plan else None
            result = quarry.research(chosen.question if chosen else question, plan=chosen, settings=settings,
                                     engines=_names(engines), pages=pages or None, no_llm=no_llm,
                                     report_format=report_format or None, tone=tone or None, lang=lang or None,
                                     length=length or None, budget_seconds=budget_seconds or None,
                                     budget_pages=budget_pages or None, budget_tokens=budget_tokens or None)
            if result.searched_nothing:  # no report, nothing saved: the CLI's line as the error
                raise quarry.nothing_searched(result)
            return plain.research_out(result, saved=not any(e.startswith("could not save") for e in result.errors))
        return _call(work, settings_fn)

    def research_plan(question: str, engines: str = "", no_llm: bool = False) -> dict[str, Any]:
        """The plan a research would follow (queries and their engines, sites, dates, budget); nothing searched."""
        return _call(lambda s: quarry.runs.plan(question, engines=_names(engines) or None, no_llm=no_llm,
                                                settings=s).to_dict(), settings_fn)

    def runs_unfinished(limit: int = 20) -> dict[str, Any]:
        """Runs that did not finish (interrupted, cancelled, failed): resume one with research(run_id=...)."""
        return _call(lambda s: {"runs": [plain.run_out(r) for r in quarry.runs.unfinished(s, limit=limit)]},
                     settings_fn)

    def watch_add(report_id: str, every: str = "1d") -> dict[str, Any]:
        """Watch a saved research: re-run its plan every `every` (1d, 12h, 30m, 2w), reporting what is new."""
        return _call(lambda s: plain.watch_out(quarry.watch.add(report_id, every, settings=s), []), settings_fn)

    def watch_list() -> dict[str, Any]:
        """Every watch with its runs."""
        return _call(lambda s: {"watches": [plain.watch_out(w, r) for w, r in quarry.watch.list(s)]}, settings_fn)

    def watch_remove(watch_id: str) -> dict[str, Any]:
        """Stop watching (its runs stay in history)."""
        return _call(lambda s: {"removed": quarry.watch.remove(watch_id, settings=s).id}, settings_fn)

    def watch_run(watch_id: str = "") -> dict[str, Any]:
        """Run one watch now, or (no watch_id) every watch that is due; what each found new."""
        def work(settings):
            outcomes = [quarry.watch.run(watch_id, settings)] if watch_id else quarry.watch.run_due(settings)
            return {"outcomes": [plain.watch_outcome_out(o) for o in outcomes]}
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

    for fn in (research, web_search, wiki_ask, docs_ask, notes_search, notes_add, export, keep_sources,
               research_plan, runs_unfinished, watch_add, watch_list, watch_remove, watch_run):
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
