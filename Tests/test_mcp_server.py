"""`python app.py mcp` driven by the official `mcp` client, over stdio and over streamable HTTP: the tool list,
notes_add then notes_search, wiki_ask on the demo index, research on the test world (extractive, valid [n],
progress notifications) and keep_sources of it, a wrong argument type (one-line error, the server answers the next call), a cancelled
research (the run stops and is saved as cancelled; the server goes on)."""
from __future__ import annotations

import asyncio
import re
import sys

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from Tests.support.app_process import ROOT
from Tests.support.mcp_world import QUESTION, start_mcp_http, start_world

TOOLS = {"research", "web_search", "wiki_search", "wiki_ask", "docs_search", "docs_ask", "notes_search",
         "notes_get", "notes_add", "history_list", "history_get", "keep_sources", "research_plan", "runs_unfinished",
         "watch_add", "watch_list", "watch_remove", "watch_run", "export"}


@pytest.fixture(scope="module")
def world_config(tmp_path_factory):
    world, path = start_world(tmp_path_factory.mktemp("mcp"))
    yield path
    world.stop()


@pytest.fixture(scope="module")
def http_url(world_config):
    proc, url = start_mcp_http(world_config)
    yield url
    proc.terminate()
    proc.wait(10)


def stdio(config) -> Client:
    return Client(StdioServerParameters(command=sys.executable, args=["app.py", "--config", str(config), "mcp"],
                                        cwd=str(ROOT)))


async def tools_notes_wiki(client: Client, tag: str) -> None:
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == TOOLS
    assert listed["research"].input_schema["properties"]["pages"]["anyOf"][0]["type"] == "integer"
    research_arguments = listed["research"].input_schema["properties"]
    for name in ("preset", "include_sites", "exclude_sites", "date_range", "country", "search_lang", "safesearch"):
        assert len(research_arguments[name]["description"]) > 10, name
    assert all(len(t.description or "") > 40 for t in listed.values())
    added = await client.call_tool("notes_add", {"title": f"Bee dances {tag}", "content": "The waggle dance "
                                                 f"points to flowers {tag}.", "keywords": ["bees"]})
    assert not added.is_error, added.content
    found = await client.call_tool("notes_search", {"query": f"waggle {tag}"})
    notes = found.structured_content["notes"]
    assert [n["id"] for n in notes] == [added.structured_content["id"]]
    got = await client.call_tool("notes_get", {"note_id": notes[0]["id"][:8]})
    assert got.structured_content["content"].endswith(f"{tag}.")
    wiki = await client.call_tool("wiki_ask", {"question": "Who first reached the summit of Mount Everest?"})
    assert not wiki.is_error, wiki.content
    answer = wiki.structured_content
    assert answer["sources"][0]["title"] == "Mount Everest" and "Tenzing Norgay" in answer["answer_markdown"]
    assert answer["sources"][0]["url"] == "demo-encyclopedia:Mount_Everest"  # written by the team: no link


async def research_and_errors(client: Client) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    result = await client.call_tool("research", {"question": QUESTION, "no_llm": True, "engines": ["searxng"],
                                                 "date_range": "year"}, progress_callback=on_progress)
    assert not result.is_error, result.content
    data = result.structured_content
    assert data["mode"] == "extractive" and data["id"]
    assert data["search_options"] == {"date_range": "year"}  # the option the run's searches were built with
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", data["report_markdown"])}
    assert numbers and numbers <= {s["n"] for s in data["sources"]}
    assert all(s["url"].startswith("http") and s["kind"] == "web" for s in data["sources"])
    assert data["citations"] and all(c["quote"] for c in data["citations"])
    assert any(m and m.startswith("search:") for _, _, m in progress)
    values = [done for done, _, _ in progress]
    assert values == sorted(set(values)) and values[-1] <= progress[-1][1]  # only ever increasing
    saved = await client.call_tool("history_get", {"id": data["id"][:8]})  # its old name still works
    assert saved.structured_content["report_markdown"] == data["report_markdown"]
    kept = await client.call_tool("keep_sources", {"report_id": data["id"][:8]})
    assert not kept.is_error, kept.content
    kept = kept.structured_content  # the second transport's run reads the same pages: kept before
    assert kept["added"] or kept["kept_before"]
    assert kept["summary"].startswith(f"Kept sources: {len(kept['added'])} added to the document library")

    wrong = await client.call_tool("research", {"question": QUESTION, "pages": "many"})
    assert wrong.is_error and wrong.content[0].text.startswith("research: bad argument pages:")
    assert "\n" not in wrong.content[0].text
    for arguments, message in (({"date_range": "fortnight"}, "date_range 'fortnight' is not understood: use day"),
                               ({"exclude_sites": ["a b"]}, "site_blacklist entry 'a b' is not a domain"),
                               ({"safesearch": "none"}, "research: bad argument safesearch:")):
        wrong = await client.call_tool("research", {"question": QUESTION, **arguments})
        assert wrong.is_error and wrong.content[0].text.startswith(message), wrong.content
    missing = await client.call_tool("history_get", {"report_id": "no-such-report"})
    assert missing.is_error and missing.content[0].text == "no saved report with id 'no-such-report'"
    assert not (await client.call_tool("history_list", {})).is_error  # still answering


async def cancelled_research(client: Client, question: str) -> None:
    started = anyio.Event()

    async def on_progress(done, total, message):
        started.set()

    async with anyio.create_task_group() as group:
        async def call():
            await client.call_tool("research", {"question": question, "no_llm": True},
                                   progress_callback=on_progress)
        group.start_soon(call)
        with anyio.fail_after(60):
            await started.wait()
        group.cancel_scope.cancel()  # the client sends notifications/cancelled
    # the run stops at its next stage and is saved with what it had, marked cancelled
    with anyio.fail_after(60):
        while True:
            listed = (await client.call_tool("history_list", {"query": question})).structured_content["reports"]
            if listed:
                break
            await anyio.sleep(0.2)
    saved = (await client.call_tool("history_get", {"report_id": listed[0]["id"]})).structured_content
    assert any(e.startswith("cancelled during") for e in saved["errors"])
    assert not (await client.call_tool("notes_search", {"query": "waggle"})).is_error


async def whole_scenario(client: Client, tag: str) -> None:
    async with client:
        await tools_notes_wiki(client, tag)
        await research_and_errors(client)
        await cancelled_research(client, f"Why do honey bees dance ({tag})?")


def test_over_stdio(world_config):
    asyncio.run(whole_scenario(stdio(world_config), "stdio"))


def test_over_streamable_http(http_url):
    asyncio.run(whole_scenario(Client(http_url), "http"))
