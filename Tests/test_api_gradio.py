"""The UI server's HTTP API through gradio_client against a running `python app.py`: the named endpoints are
exactly the public ones (UI plumbing hidden), research on the test world (extractive, valid [n], saved,
exported and its sources kept), notes_add then notes_search, a failure as the CLI's one line."""
from __future__ import annotations

import re

import pytest
from gradio_client import Client

from App_Function_Libraries.Gradio_UI.api_endpoints import PUBLIC
from Tests.support.app_process import start_app, stop_app
from Tests.support.mcp_world import QUESTION, start_world


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    world, config = start_world(tmp_path_factory.mktemp("api"), demo_wiki=False)
    proc, url, _ = start_app(["--config", str(config)], timeout=120)
    yield Client(url, verbose=False)
    stop_app(proc)
    world.stop()


def test_only_the_named_endpoints_are_offered(client):
    named = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert set(named) == {f"/{name}" for name in PUBLIC}
    research = [p["parameter_name"] for p in named["/research"]["parameters"]]
    assert research[:2] == ["question", "engines"] and {"pages_max", "report_language", "date_range"} <= set(research)


def test_research_then_export_through_the_api(client):
    data = client.predict(question=QUESTION, engines="searxng", no_llm=True, api_name="/research")
    assert data["mode"] == "extractive" and data["id"]
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", data["report_markdown"])}
    assert numbers and numbers <= {s["n"] for s in data["sources"]}
    assert data["citations"] and all(c["quote"] for c in data["citations"])
    bib = client.predict(report_id=data["id"][:8], format="bib", api_name="/export")
    assert "@misc" in bib or "@online" in bib
    with pytest.raises(Exception, match="pdf is a binary file: export it with python app.py history export"):
        client.predict(report_id=data["id"][:8], format="pdf", api_name="/export")
    kept = client.predict(report_id=data["id"][:8], api_name="/keep_sources")
    assert kept["added"] and kept["summary"].startswith(f"Kept sources: {len(kept['added'])} added to the document "
                                                        "library")  # a page read at two addresses is kept once


def test_notes_add_then_search_and_a_failure(client):
    added = client.predict(title="Dance floor", content="Bees waggle on the comb.", keywords="bees",
                           api_name="/notes_add")
    found = client.predict(query="comb waggle", api_name="/notes_search")
    assert [n["id"] for n in found["notes"]] == [added["id"]]
    with pytest.raises(Exception, match="no saved report with id 'nothing-here'"):
        client.predict(report_id="nothing-here", format="md", api_name="/export")


def test_an_endpoint_whose_name_a_ui_handler_took_stops_start_up():
    """A UI handler named like an endpoint takes its API name (the endpoint becomes name_1): refused at start."""
    import gradio as gr

    from App_Function_Libraries.Gradio_UI.api_endpoints import PUBLIC, hide_plumbing
    with gr.Blocks() as app:
        button = gr.Button()
        for name in PUBLIC:
            button.click(lambda: None, api_name=name)
    hide_plumbing(app)  # every public name present: fine (control)
    with gr.Blocks() as broken:
        gr.Button().click(lambda: None, api_name="research_1")
    with pytest.raises(RuntimeError, match="API endpoints not found under their names: .*research"):
        hide_plumbing(broken)


def test_plan_then_run_it_then_watch_through_the_api(client):
    plan = client.predict(question=QUESTION, engines="searxng", no_llm=True, api_name="/research_plan")
    assert plan["queries"] == [{"query": QUESTION, "engines": ["searxng"]}]
    plan["queries"].append({"query": "waggle dance direction", "engines": ["searxng"]})
    plan["budget"]["pages"] = 1
    import json
    data = client.predict(plan=json.dumps(plan), no_llm=True, api_name="/research")
    assert data["id"] and "## Left undone" in data["report_markdown"]
    watch = client.predict(report_id=data["id"][:8], every="1d", api_name="/watch_add")
    ran = client.predict(watch_id=watch["id"], api_name="/watch_run")
    assert ran["outcomes"][0]["nothing_new"]
    listed = client.predict(api_name="/watch_list")["watches"]
    assert [r["run_id"] for r in listed[0]["runs"]] == [data["id"], ran["outcomes"][0]["run_id"]]
    assert client.predict(api_name="/runs_unfinished") == {"runs": []}
    with pytest.raises(Exception, match="has finished"):
        client.predict(run_id=data["id"], api_name="/research")
    assert client.predict(watch_id=watch["id"], api_name="/watch_remove") == {"removed": watch["id"]}
