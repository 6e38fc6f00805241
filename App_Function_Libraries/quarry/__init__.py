"""Quarry's Python API: the one place the front doors (CLI, UI and its HTTP API, MCP server) call features.

    from App_Function_Libraries import quarry

    result = quarry.research("How do honey bees find food?", engines="searxng", no_llm=True)
    result.report_markdown, result.cited_sources(), result.citations, result.id   # saved under result.id
    quarry.search("waggle dance", engines=["duckduckgo", "brave"], count=5).results
    quarry.wiki.search("Everest first ascent"), quarry.wiki.ask("Who first climbed Everest?")
    quarry.docs.search("invoice total"), quarry.docs.ask("What did the March invoice total?")
    quarry.notes.search("bees"), quarry.notes.get("3fa2"), quarry.notes.add("Title", "text", "bees,biology")
    quarry.notes.add(from_report=result.id)
    quarry.history.list(), quarry.history.get("3fa2"), quarry.export("3fa2", "bib")
    quarry.history.keep_sources("3fa2").summary()   # its read pages and papers into the document library
    quarry.runs.plan("How do bees find food?"), quarry.runs.resume("3fa2")   # plans, durable runs
    quarry.watch.add("3fa2", every="1d"), quarry.watch.run_due()              # watchlists
    quarry.history.save(result).ok, quarry.history.ask("3fa2", "Which source says so?").exchange
    quarry.runs.dig_deeper(result, rounds=1), quarry.runs.rerun(result)       # after a report
    quarry.docs.add(["~/papers"]), quarry.wiki.build(demo=True), quarry.extract.pages(["page.html"])
    quarry.check.local_verdicts(), quarry.engines.health(), quarry.models.load_embedder()
    quarry.render.markdown_to_html(text)      # how every door shows a result (safe HTML, snippets, times)

Settings come from the current config (App_Function_Libraries.config.get_settings) unless `settings=` is
given. Failures leave as QuarryError (one line, the same the CLI prints); a wrong argument as BadArgument,
which names it. Importing this package does no work: every function imports what it needs when called.
"""
from __future__ import annotations

from App_Function_Libraries.quarry import docs, history, notes, presets, runs, watch, web, wiki
from App_Function_Libraries.quarry.errors import BadArgument, QuarryError
from App_Function_Libraries.quarry import check, engines, extract, models, render  # noqa: I001 - the doors' others
from App_Function_Libraries.quarry.history import export
from App_Function_Libraries.quarry.history import save_result
from App_Function_Libraries.quarry.research import nothing_searched, research, research_params, round_lines
from App_Function_Libraries.quarry.research import services as research_services
from App_Function_Libraries.quarry.web import search

__all__ = ["BadArgument", "QuarryError", "docs", "export", "history", "nothing_searched", "notes", "presets",
           "research", "research_params", "research_services", "round_lines", "runs", "save_result", "search",
           "watch", "web", "wiki"]
