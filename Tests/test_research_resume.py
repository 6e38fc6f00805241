"""Durable runs: a research killed with SIGKILL while it reads pages shows in History as interrupted, and
resumed it writes the same report as a run that was never interrupted, without searching again or fetching again
any page it had read (requests counted at the test world). A cancelled run resumes the same way."""
from __future__ import annotations

import json
import threading

from App_Function_Libraries import quarry
from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.DB.run_store import get_run_store
from Tests.support.killed_run import ARGS, FAST_PAGES, HELD, QUESTION, config_values, held_web, start_and_kill
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in


def page_requests(world, url: str) -> int:
    path = url.split(str(world.port), 1)[1]
    return len(world.requests_to(path))


def test_a_killed_run_resumes_to_the_same_report_without_fetching_again(world, make_settings, capsys, tmp_path):
    web = held_web(world)
    fast = FAST_PAGES
    settings = make_settings(config_values(web, tmp_path / "killed.db"))
    run_id, kept = start_and_kill(settings.path, tmp_path / "killed.db", world, fast)
    assert run_id and len(kept) >= fast
    searches = len(world.requests_to("/searxng/search"))

    assert main(["--config", str(settings.path), "history"]) == 0
    listed = capsys.readouterr().out
    assert f"{run_id[:8]}" in listed and "interrupted" in listed and "after relevance" in listed

    assert main(["--config", str(settings.path), "research", "--resume", run_id[:8], "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["id"] == run_id and resumed["question"] == QUESTION
    assert len(world.requests_to("/searxng/search")) == searches  # not searched again
    assert all(page_requests(world, url) == 1 for url in kept)  # no page read before the kill fetched again
    assert get_run_store(settings).get_run(run_id).status == "done"
    assert quarry.history.get(run_id[:8]).report_markdown == resumed["report_markdown"]

    whole = make_settings(config_values(web, tmp_path / "whole.db"))
    assert main(["--config", str(whole.path), "research", *ARGS]) == 0
    uninterrupted = json.loads(capsys.readouterr().out)
    assert resumed["report_markdown"] == uninterrupted["report_markdown"]
    assert [(s["url"], s["n"]) for s in resumed["sources"]] == [(s["url"], s["n"]) for s in uninterrupted["sources"]]


def test_a_resumed_run_fetches_again_what_it_had_not_kept(world, make_settings, capsys, tmp_path):
    """Control: the pages a run had not kept (the ones held back when it was killed) are fetched on resume, so
    the count above can tell a kept page from one fetched again."""
    web = held_web(world)
    fast = FAST_PAGES
    settings = make_settings(config_values(web, tmp_path / "killed.db"))
    run_id, kept = start_and_kill(settings.path, tmp_path / "killed.db", world, fast)
    assert main(["--config", str(settings.path), "research", "--resume", run_id[:8], "--json"]) == 0
    capsys.readouterr()
    assert [len(world.requests_to(path)) for path in HELD] == [2, 2]


def test_a_cancelled_run_resumes(world, make_settings, tmp_path):
    web = held_web(world)
    settings = make_settings(config_values(web, tmp_path / "quarry.db"))
    cancel = threading.Event()

    def cancel_when_held(event):
        if event.stage == "fetch" and all(world.requests_to(p) for p in HELD):
            cancel.set()
    first = quarry.research(QUESTION, no_llm=True, use_cache=False, cancel=cancel, on_progress=cancel_when_held,
                            settings=settings)
    assert any(e.startswith("cancelled") for e in first.errors)
    assert get_run_store(settings).get_run(first.id).status == "cancelled"
    with_runs = [r.id for r in quarry.runs.unfinished(settings)]
    assert first.id in with_runs
    again = quarry.runs.resume(first.id[:8], settings=settings)
    assert again.id == first.id and again.report_markdown and not any(e.startswith("cancelled") for e in again.errors)
    assert get_run_store(settings).get_run(first.id).status == "done"
    try:
        quarry.runs.resume(first.id, settings=settings)
    except quarry.BadArgument as exc:
        assert "has finished" in str(exc)
    else:
        raise AssertionError("a finished run resumed")
