"""The MCP tools: each calls the facade (App_Function_Libraries.quarry) in a worker thread and answers plain
JSON (see shapes.py). A facade failure is a tool error carrying the CLI's one-line message; the pipeline's
stage events go out as progress notifications; a cancelled call stops its research run."""
import sys
import threading
from typing import Annotated, Any, Literal

import anyio
from mcp_types import CallToolResult, TextContent
from mcp.server.mcpserver import Context
from pydantic import Field

from App_Function_Libraries.quarry import plain as shapes

ReportFormat = Literal["full", "short", "bullets", "table"]
SafeSearch = Literal["off", "moderate", "strict"]
SEARCH_ARGUMENTS = {"site_blacklist": "exclude_sites"}  # a search option's name -> its argument's name here


class Tools:
    """The tool functions, bound to the settings the server started with."""

    def __init__(self, settings) -> None:
        self.settings = settings

    async def call(self, work, *, cancel: threading.Event | None = None):
        """work() in a worker thread; a QuarryError is a tool error carrying exactly its line (scrubbed); a
        cancelled call sets `cancel` (the research pipeline stops at its next check) and does not wait."""
        from App_Function_Libraries.quarry import QuarryError
        try:
            return shapes.safe(await anyio.to_thread.run_sync(work, abandon_on_cancel=True), self.settings)
        except anyio.get_cancelled_exc_class():
            if cancel is not None:
                cancel.set()
            raise
        except QuarryError as exc:
            return self.error(str(exc))
        except Exception as exc:  # noqa: BLE001 - one line, never a crash of the server
            return self.error(f"{type(exc).__name__}: {exc}")

    def error(self, message: str) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=shapes.safe_message(message, self.settings))],
                              is_error=True)


def progress_bridge(ctx, cancel: threading.Event):
    """An on_progress for the pipeline (called in its threads) that sends MCP progress notifications:
    progress counts finished stages plus the current stage's fraction, out of the number of stages. Stages
    overlap (rank and extract run while pages arrive), and progress must only increase: an event that would
    not move it forward is not sent."""
    from App_Function_Libraries.Research.pipeline import STAGES
    stages, lock, last = list(STAGES), threading.Lock(), [-1.0]

    def on_progress(event) -> None:
        if cancel.is_set() or event.stage == "done":
            return
        at = stages.index(event.stage) if event.stage in stages else len(stages) - 1
        value = at + (event.done / event.total if event.total else 0.0)
        message = f"{event.stage}: {event.done}/{event.total}" + (f" ({event.message})" if event.message else "")
        with lock:  # sent under the lock too: two threads' notifications cannot overtake each other
            if value <= last[0]:
                return
            last[0] = value
            try:
                anyio.from_thread.run(ctx.report_progress, value, len(stages), message)
            except Exception:  # noqa: BLE001 - the client went away or the call ended: progress is best effort
                pass
    return on_progress


def research_params(quarry, settings, **options):
    """quarry.research_params; a wrong search option is named as this tool's argument (exclude_sites)."""
    try:
        return quarry.research_params(settings, **options)
    except quarry.BadArgument as exc:
        if exc.argument not in SEARCH_ARGUMENTS:
            raise
        raise quarry.BadArgument(SEARCH_ARGUMENTS[exc.argument], exc.reason) from exc


def register(server, settings) -> None:
    """Add every Quarry tool to the MCPServer `server`."""
    from App_Function_Libraries import quarry
    from App_Function_Libraries.MCP import run_tools
    tools = Tools(settings)
    run_tools.register(server, settings, tools)

    @server.tool(description=(
        "Research a question on the web: search engines, read the best pages, and write a report whose every "
        "[n] cites a numbered source, each citation checked against a quote from that source. Takes minutes; "
        "sends progress notifications and stops when the call is cancelled. Returns report_markdown, sources "
        "(n, title, url, kind), citations (n, sentence, quote), errors, and the id it was saved under (use "
        "history_get, notes_add with from_report). no_llm=true writes an extractive brief without any LLM. "
        "plan: run this plan (from research_plan, edited or not). run_id: resume that interrupted or cancelled "
        "run (see runs_unfinished) from its last completed stage. budget_*: stop reading pages at the budget; "
        "the report says what was left undone."))
    async def research(
            ctx: Context,
            question: Annotated[str, Field(description="the question, in plain words (not needed with plan or "
                                                       "run_id)")] = "",
            engines: Annotated[list[str] | None, Field(description="search engines, e.g. [\"duckduckgo\"]; "
                                                                   "default: the configured one")] = None,
            pages: Annotated[int | None, Field(ge=1, le=100, description="most pages to read")] = None,
            no_llm: Annotated[bool, Field(description="extractive mode: no LLM calls")] = False,
            report_format: Annotated[ReportFormat | None, Field(description="report format")] = None,
            tone: Annotated[str | None, Field(description="e.g. neutral, academic, plain-language")] = None,
            lang: Annotated[str | None, Field(description="report language, an ISO code like de")] = None,
            length: Annotated[int | None, Field(description="rough report length in words (50-10000)")] = None,
            rounds: Annotated[int, Field(ge=0, le=5, description="dig deeper this many times")] = 0,
            follow_up_of: Annotated[str | None, Field(description="id of a saved report this follows up")] = None,
            preset: Annotated[str | None, Field(description="a saved report preset (the report writer's "
                                                            "instructions) by name; default: the built-in")] = None,
            include_sites: Annotated[list[str] | None, Field(description="keep web results to these domains, "
                                                                         "e.g. [\"nature.com\"]")] = None,
            exclude_sites: Annotated[list[str] | None, Field(description="domains to leave out")] = None,
            date_range: Annotated[str | None, Field(description="day, week, month, year or YYYY-MM-DD..YYYY-MM-DD "
                                                                "(either end may be left out)")] = None,
            country: Annotated[str | None, Field(description="two-letter country code the results are for, "
                                                             "e.g. US")] = None,
            search_lang: Annotated[str | None, Field(description="language of the searches, e.g. en (lang is the "
                                                                 "report's)")] = None,
            safesearch: Annotated[SafeSearch | None, Field(description="filter adult results")] = None,
            plan: Annotated[dict[str, Any] | None, Field(description="a plan from research_plan, edited or not: "
                                                                     "run it instead of making one")] = None,
            run_id: Annotated[str | None, Field(description="resume this unfinished run (its id or start)")] = None,
            budget_seconds: Annotated[float | None, Field(ge=0, description="stop reading pages after this "
                                                                            "many seconds (0: no limit)")] = None,
            budget_pages: Annotated[int | None, Field(ge=0, le=100, description="read at most this many pages")] = None,
            budget_tokens: Annotated[int | None, Field(ge=0, description="stop reading pages once the LLM has "
                                                                         "spent this many tokens")] = None,
    ) -> dict[str, Any]:
        cancel = threading.Event()
        on_progress = progress_bridge(ctx, cancel)
        options = {"include_sites": include_sites, "site_blacklist": exclude_sites, "date_range": date_range,
                   "country": country, "search_lang": search_lang, "safesearch": safesearch}

        def work():
            try:
                if run_id:
                    result = quarry.runs.resume(run_id, rounds=rounds, on_progress=on_progress, cancel=cancel,
                                                settings=settings)
                    return shapes.research_out(result, saved=True)
                params = research_params(quarry, settings, engines=engines, pages=pages, no_llm=no_llm,
                                         report_format=report_format, tone=tone, lang=lang, length=length,
                                         preset=preset, follow_up_of=follow_up_of, search_options=options,
                                         budget_seconds=budget_seconds, budget_pages=budget_pages,
                                         budget_tokens=budget_tokens)
                chosen = quarry.runs.read_plan(plan) if plan is not None else None
                result = quarry.research(chosen.question if chosen else question, params, plan=chosen,
                                         rounds=rounds, on_progress=on_progress, cancel=cancel, settings=settings)
            finally:
                if cancel.is_set():
                    print("quarry mcp: research cancelled; the run stopped", file=sys.stderr, flush=True)
            if result.searched_nothing:  # no report, nothing saved: an error saying why, as the CLI exits 1
                raise quarry.nothing_searched(result)
            return shapes.research_out(result, saved=not any(e.startswith("could not save") for e in result.errors))
        return await tools.call(work, cancel=cancel)

    @server.tool(description=(
        "Search the web with one or more engines; results merged by rank fusion. Returns numbered results "
        "(title, url, snippet, engines, date) and each failing engine's error. Quick; reads no page."))
    async def web_search(
            query: Annotated[str, Field(description="what to search for")],
            engines: Annotated[list[str] | None, Field(description="engines, default: the configured one")] = None,
            count: Annotated[int | None, Field(ge=1, le=100, description="results per engine")] = None,
            country: Annotated[str | None, Field(description="two-letter country code, e.g. US")] = None,
            lang: Annotated[str | None, Field(description="language of the query, e.g. en")] = None,
            date_range: Annotated[str | None, Field(description="day, week, month, year or A..B dates")] = None,
            exclude_sites: Annotated[list[str] | None, Field(description="domains to leave out")] = None,
    ) -> dict[str, Any]:
        cancel = threading.Event()
        return await tools.call(lambda: shapes.search_out(quarry.search(
            query, engines, count=count, country=country, search_lang=lang, date_range=date_range,
            site_blacklist=exclude_sites, settings=settings, cancel=cancel)), cancel=cancel)

    @server.tool(description="Passages of the local Wikipedia index nearest to a question (title, url, text, "
                             "score), best first. Use wiki_ask for a cited answer.")
    async def wiki_search(question: Annotated[str, Field(description="the question or keywords")],
                          top_k: Annotated[int, Field(ge=1, le=100, description="passages to return")] = 10
                          ) -> dict[str, Any]:
        return await tools.call(lambda: {"passages": shapes.wiki_hits_out(
            quarry.wiki.search(question, top_k, settings=settings))})

    @server.tool(description="Answer a question from the local Wikipedia index, citing articles as [n]. Says "
                             "plainly when the index holds no passage that answers it (mode none).")
    async def wiki_ask(question: Annotated[str, Field(description="the question")]) -> dict[str, Any]:
        return await tools.call(lambda: shapes.answer_out(quarry.wiki.ask(question, settings=settings)))

    @server.tool(description="Chunks of your indexed documents (python app.py docs add) that best match a query: "
                             "file#page or chunk, text, score.")
    async def docs_search(query: Annotated[str, Field(description="words or a question")],
                          k: Annotated[int, Field(ge=1, le=100, description="chunks to return")] = 10
                          ) -> dict[str, Any]:
        return await tools.call(lambda: {"chunks": shapes.docs_hits_out(
            quarry.docs.search(query, k, settings=settings))})

    @server.tool(description="Answer a question from your indexed documents, citing file#page as [n].")
    async def docs_ask(question: Annotated[str, Field(description="the question")],
                       no_llm: Annotated[bool, Field(description="extractive answer, no LLM")] = False
                       ) -> dict[str, Any]:
        return await tools.call(lambda: shapes.answer_out(
            quarry.docs.ask(question, use_llm=not no_llm, settings=settings)))

    @server.tool(description="Full-text search of your notes (words, \"a phrase\", OR, -word). Returns id, title "
                             "and a snippet; read a whole note with notes_get.")
    async def notes_search(query: Annotated[str, Field(description="the search")],
                           limit: Annotated[int, Field(ge=1, le=100)] = 20) -> dict[str, Any]:
        return await tools.call(lambda: {"notes": shapes.note_hits_out(
            quarry.notes.search(query, limit, settings=settings))})

    @server.tool(description="One note in full (markdown content, keywords, version) by its id or its start.")
    async def notes_get(id: Annotated[str, Field(description="the note id (its first characters do)")]  # noqa: A002
                        ) -> dict[str, Any]:
        return await tools.call(lambda: shapes.note_out(quarry.notes.get(id, settings=settings)))

    @server.tool(description="Save a note: a title and markdown content, or from_report (the id of a saved "
                             "research report, e.g. research's id) to keep that report with its sources.")
    async def notes_add(title: Annotated[str | None, Field(description="the title (from_report: default the "
                                                                        "question)")] = None,
                        content: Annotated[str | None, Field(description="markdown content")] = None,
                        keywords: Annotated[list[str] | None, Field(description="keywords")] = None,
                        from_report: Annotated[str | None, Field(description="a saved report's id")] = None,
                        ) -> dict[str, Any]:
        return await tools.call(lambda: shapes.note_out(quarry.notes.add(
            title, content, keywords, from_report=from_report, settings=settings), content=False))

    @server.tool(description="Past research runs, newest first (id, question, time, counts); `query` keeps "
                             "those whose question or report contains it.")
    async def history_list(query: Annotated[str | None, Field(description="text to look for")] = None,
                           limit: Annotated[int, Field(ge=1, le=200)] = 20) -> dict[str, Any]:
        return await tools.call(lambda: {"reports": shapes.history_out(
            quarry.history.list(limit, query=query, settings=settings))})

    @server.tool(description="A saved research report by id (or its start): report, numbered sources, citations.")
    async def history_get(id: Annotated[str, Field(description="the report id")]  # noqa: A002
                          ) -> dict[str, Any]:
        return await tools.call(lambda: shapes.research_out(quarry.history.get(id, settings=settings), True))

    @server.tool(description="Keep a saved research report's sources: its read web pages and papers become "
                             "documents in your library (searchable with docs_search and docs_ask, offline); a "
                             "page kept before is not added again. Returns summary, added, kept_before, not_kept.")
    async def keep_sources(id: Annotated[str, Field(description="the report id")]  # noqa: A002
                           ) -> dict[str, Any]:
        return await tools.call(lambda: shapes.keep_out(quarry.history.keep_sources(id, settings=settings)))
