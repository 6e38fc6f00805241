"""`python app.py research` on the test world, with and without an LLM."""
from __future__ import annotations

import json
import re

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.DB.research_store import get_research_store
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.openai_server import ScriptedLLM
from Tests.support.research_llm import script_research
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"


def test_research_json_with_an_llm(world, make_settings, capsys):
    web = MiniWeb(world, timeout_delay=5).install()
    script_research(ScriptedLLM(default="?"), ("bee", "honey", "waggle")).install(world)
    settings = make_settings(research_config(web, world.url("/v1")))
    code = main(["--config", str(settings.path), "research", QUESTION, "--engine", "searxng", "--json"])
    out = capsys.readouterr()
    assert code == 0
    data = json.loads(out.out)
    assert data["mode"] == "llm" and data["citations"] and data["question"] == QUESTION
    assert re.search(r"search: 3/3 \(\d+ results\)", out.err) and "verify: 1/1" in out.err  # progress on stderr
    assert out.err.count("relevance:") == 1
    saved = re.search(r"saved as (\S+)", out.err).group(1)
    assert get_research_store(settings).load_report(saved).report_markdown == data["report_markdown"]


def test_research_markdown_without_an_llm(world, make_settings, capsys):
    web = MiniWeb(world, timeout_delay=5).install()
    settings = make_settings(research_config(web))
    code = main(["--config", str(settings.path), "research", QUESTION, "--no-llm", "--md", "--no-save"])
    out = capsys.readouterr()
    assert code == 0
    assert out.out.startswith(f"# {QUESTION}") and "Extractive brief" in out.out
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", out.out.split("## Sources")[0])}
    listed = {int(n) for n in re.findall(r"^\[(\d+)\] ", out.out, re.MULTILINE)}
    assert numbers and numbers <= listed
    assert "HTTP 429" in out.out  # selected sources that were not used are listed with why
    assert "saved as" not in out.err


def test_research_rejects_bad_arguments(make_settings, capsys):
    settings = make_settings()
    assert main(["--config", str(settings.path), "research", "bees", "--engine", "altavista"]) == 2
    assert "unknown engine altavista" in capsys.readouterr().err
    assert main(["--config", str(settings.path), "research", "   "]) == 1
    assert "the question is empty" in capsys.readouterr().err
