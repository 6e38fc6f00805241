"""The MCP tools for plans, unfinished runs and watchlists (the research tool itself, which runs a plan or
resumes a run, is in tools.py). Each calls the facade in a worker thread (tools.Tools.call)."""
from typing import Annotated, Any

from pydantic import Field

from App_Function_Libraries.quarry import plain as shapes


def register(server, settings, tools) -> None:
    from App_Function_Libraries import quarry

    @server.tool(description=(
        "The plan a research of this question would follow, without searching: question, queries (each with the "
        "engines and local sources it is searched on), include_sites, exclude_sites, date_range, budget (seconds, "
        "pages, llm_tokens; 0 = none). Edit it (remove, add or change queries, drop an engine) and pass it to "
        "research as `plan`."))
    async def research_plan(
            question: Annotated[str, Field(description="the question, in plain words")],
            engines: Annotated[list[str] | None, Field(description="search engines and local sources; default: "
                                                                   "the configured ones")] = None,
            no_llm: Annotated[bool, Field(description="no LLM: the queries are the question and its parts")] = False,
    ) -> dict[str, Any]:
        return await tools.call(lambda: quarry.runs.plan(question, engines=engines, no_llm=no_llm,
                                                         settings=settings).to_dict())

    @server.tool(description="Research runs that did not finish (interrupted: the process stopped; cancelled; "
                             "failed), newest first: id, question, status, last_stage. Resume one with research "
                             "and run_id.")
    async def runs_unfinished(limit: Annotated[int, Field(ge=1, le=200)] = 20) -> dict[str, Any]:
        return await tools.call(lambda: {"runs": [shapes.run_out(r) for r in
                                                  quarry.runs.unfinished(settings, limit=limit)]})

    @server.tool(description="Watch a saved research: re-run its plan every `every` (1d, 12h, 30m, 2w) and "
                             "report only what is new. Returns the watch (id, next_due, ...). Runs happen on "
                             "watch_run or `python app.py watch run` from the system's scheduler.")
    async def watch_add(id: Annotated[str, Field(description="the saved report's id")],  # noqa: A002
                        every: Annotated[str, Field(description="how often: 1d, 12h, 30m, 2w")] = "1d"
                        ) -> dict[str, Any]:
        def work():
            watch = quarry.watch.add(id, every, settings=settings)
            return shapes.watch_out(watch, [])
        return await tools.call(work)

    @server.tool(description="Every watch (id, question, every_seconds, next_due, plan) with its runs (run_id, "
                             "new_sources, changed_sources, notified); open a run with history_get.")
    async def watch_list() -> dict[str, Any]:
        return await tools.call(lambda: {"watches": [shapes.watch_out(w, r) for w, r in
                                                     quarry.watch.list(settings)]})

    @server.tool(description="Stop watching (the watch's runs stay in history).")
    async def watch_remove(watch_id: Annotated[str, Field(description="the watch id")]) -> dict[str, Any]:
        return await tools.call(lambda: {"removed": quarry.watch.remove(watch_id, settings=settings).id})

    @server.tool(description="Run one watch now (watch_id), or every watch that is due (no watch_id). Each "
                             "outcome: run_id, nothing_new, new_sources, changed_sources, findings (cited), "
                             "notified, report_markdown (it opens with 'New since <date>').")
    async def watch_run(watch_id: Annotated[str | None, Field(description="the watch id; none: those due")] = None
                        ) -> dict[str, Any]:
        def work():
            outcomes = ([quarry.watch.run(watch_id, settings)] if watch_id else quarry.watch.run_due(settings))
            return {"outcomes": [shapes.watch_outcome_out(o) for o in outcomes]}
        return await tools.call(work)
