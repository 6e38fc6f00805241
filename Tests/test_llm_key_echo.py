"""An API key that an LLM server quotes back in its error text reaches no research output (JSON, notes,
sources' reasons), no stored run and no `check` verdict: provider error text is cleared of the key where it
is made."""
from __future__ import annotations

import json

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.DB.research_store import get_research_store
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.openai_server import ScriptedLLM
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"
KEY = "sk-proj-" + "Qz7xW2vK9pL4" * 4  # a realistic key: long, letters and digits


@pytest.mark.parametrize("status", [500, 400])
def test_a_key_the_server_echoes_reaches_no_output_or_stored_run(world, make_settings, capsys, status):
    web = MiniWeb(world, include_faults=False).install()
    ScriptedLLM(echo_key=status).install(world)
    settings = make_settings(research_config(web, world.url("/v1"), llm={"api_key": KEY}))
    code = main(["--config", str(settings.path), "research", QUESTION, "--engine", "searxng", "--json"])
    out = capsys.readouterr()
    assert code == 0
    data = json.loads(out.out)
    saved = get_research_store(settings).load_report(data["id"])
    assert KEY.encode() not in open(settings.databases.research_db, "rb").read()
    assert KEY not in json.dumps(saved.to_dict())
    assert KEY not in out.out and KEY not in out.err
    assert KEY[:20] not in out.out + out.err  # nor a part of it cut short
    assert data["mode"] == "extractive"
    assert any("[redacted]" in e for e in data["errors"])  # the server's text is kept, less the key

    code = main(["--config", str(settings.path), "check", "--json"])
    out = capsys.readouterr()
    checks = json.loads(out.out)["checks"]
    llm_checks = [c for c in checks if c["name"].startswith("llm ")]
    assert KEY not in out.out and KEY[:20] not in out.out
    assert llm_checks and all(c["ok"] is False and "[redacted]" in c["message"] for c in llm_checks)


def test_scrubbing_keeps_words_after_token_and_removes_credential_like_values():
    from App_Function_Libraries.LLM.base import scrub_key
    assert scrub_key("invalid token provided", "") == "invalid token provided"
    assert scrub_key("Bearer authentication failed", "") == "Bearer authentication failed"
    out = scrub_key("sent Authorization: Bearer sk-abc123def456ghi7 and token a1b2c3d4e5f6g7", "")
    assert "sk-abc123def456ghi7" not in out and "a1b2c3d4e5f6g7" not in out
