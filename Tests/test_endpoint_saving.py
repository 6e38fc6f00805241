"""The research endpoint (MCP and HTTP API alike) reports saving as data: `saved` is whether History has the
run (its `id`; None when it is not), read from quarry.history.save, not guessed from the wording of an error
line."""
from __future__ import annotations

import sqlite3

from App_Function_Libraries import quarry
from App_Function_Libraries.quarry import endpoints
from Tests.support.mini_web import MiniWeb, research_config

QUESTION = "How do honey bees communicate the location of food?"


def research(world, make_settings):
    settings = make_settings(research_config(MiniWeb(world, include_faults=False).install()))
    return settings, endpoints.research(settings, QUESTION, engines="searxng", no_llm=True)


def test_a_research_that_is_saved_says_so_and_history_has_it(world, make_settings):
    settings, data = research(world, make_settings)
    assert data["id"]
    assert quarry.history.get(data["id"], settings=settings).report_markdown == data["report_markdown"]


def test_a_research_whose_save_fails_says_not_saved_and_keeps_its_report(world, make_settings, monkeypatch):
    from App_Function_Libraries.DB.research_store import ResearchStore

    def full_disk(self, result):
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(ResearchStore, "save_research", full_disk)
    _, data = research(world, make_settings)
    assert data["id"] is None and data["report_markdown"]
    assert "could not save the result: database or disk is full" in data["errors"]
