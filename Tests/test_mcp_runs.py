"""The MCP tools for plans, durable runs and watchlists, over stdio on the test world (extractive): research_plan
returns a plan; research runs an edited plan (what is searched is the plan's) under a page budget; watch_add,
watch_run (nothing new on an unchanged world), watch_list; research with the run_id of a finished run is refused."""
from __future__ import annotations

import asyncio
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from Tests.support.app_process import ROOT
from Tests.support.mcp_world import QUESTION, write_config
from Tests.support.mini_web import MiniWeb
from Tests.support.testworld import TestWorld


async def scenario(client: Client, world: TestWorld) -> None:
    async with client:
        got = await client.call_tool("research_plan", {"question": QUESTION, "no_llm": True, "engines": ["searxng"]})
        assert not got.is_error, got.content
        plan = got.structured_content
        assert plan["queries"] == [{"query": QUESTION, "engines": ["searxng"]}] and not world.requests_to("/searxng")
        plan["queries"] = [{"query": "waggle dance direction", "engines": ["searxng"]}]
        ran = await client.call_tool("research", {"plan": plan, "no_llm": True, "budget_pages": 1})
        assert not ran.is_error, ran.content
        data = ran.structured_content
        assert [r.arg("q") for r in world.requests_to("/searxng/search")] == ["waggle dance direction"]
        assert "## Left undone" in data["report_markdown"] and "budget of 1 pages read (1 read)" in \
            data["report_markdown"]

        unfinished = await client.call_tool("runs_unfinished", {})
        assert unfinished.structured_content == {"runs": []}
        again = await client.call_tool("research", {"run_id": data["id"][:8]})
        assert again.is_error and "has finished" in again.content[0].text

        added = await client.call_tool("watch_add", {"report_id": data["id"][:8], "every": "12h"})
        assert not added.is_error, added.content
        watch_id = added.structured_content["id"]
        assert added.structured_content["every_seconds"] == 43200
        ran = await client.call_tool("watch_run", {"watch_id": watch_id})
        outcome = ran.structured_content["outcomes"][0]
        assert outcome["nothing_new"] and outcome["report_markdown"].startswith("Nothing new since ")
        listed = (await client.call_tool("watch_list", {})).structured_content["watches"]
        assert [w["id"] for w in listed] == [watch_id]
        assert [r["run_id"] for r in listed[0]["runs"]] == [data["id"], outcome["run_id"]]
        removed = await client.call_tool("watch_remove", {"watch_id": watch_id[:8]})
        assert removed.structured_content == {"removed": watch_id}


def test_plans_runs_and_watches_over_mcp(tmp_path):
    world = TestWorld().start()
    try:
        web = MiniWeb(world, include_faults=False).install()
        config = write_config(tmp_path, web)
        client = Client(StdioServerParameters(command=sys.executable, args=["app.py", "--config", str(config), "mcp"],
                                              cwd=str(ROOT)))
        asyncio.run(scenario(client, world))
    finally:
        world.stop()
