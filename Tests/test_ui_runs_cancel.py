"""History → Resume has a Cancel like Web Search's: shown while the resumed run runs, it stops the run, which
stays listed to resume again (cancelled), and hidden once the run ends however it ends. The panel's callbacks
as Gradio calls them, on a run killed with SIGKILL in the test world (Tests/support/killed_run.py)."""
from __future__ import annotations

import time

from App_Function_Libraries.DB.run_store import get_run_store
from App_Function_Libraries.Gradio_UI import runs_panel
from Tests.support.killed_run import FAST_PAGES, HELD, config_values, held_web, start_and_kill
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in


def wait_until(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def shown(update) -> bool:
    return update["visible"]


def test_a_resumed_run_can_be_cancelled_and_resumed_again(world, make_settings, tmp_path):
    web = held_web(world)
    settings = make_settings(config_values(web, tmp_path / "quarry.db"))
    run_id, _ = start_and_kill(settings.path, tmp_path / "quarry.db", world, FAST_PAGES)
    asked = {path: len(world.requests_to(path)) for path in HELD}
    for path in HELD:  # the resumed run waits on these pages until it is cancelled
        world.fault(path, hang=True)
    try:
        updates = runs_panel.resume(run_id)
        worker, _progress, cancel = next(updates)
        assert worker and shown(cancel)  # Cancel shows while the run runs
        wait_until(lambda: all(len(world.requests_to(p)) > asked[p] for p in HELD))
        started = time.monotonic()
        runs_panel.stop(worker)
        rest = list(updates)
        assert time.monotonic() - started < 10  # the held pages are let go at once, not at their time-out
    finally:
        world.clear_faults()
    worker, outcome, cancel = rest[-1]
    assert worker is None and not shown(cancel) and outcome.startswith(f"Cancelled run {run_id[:8]}")
    assert get_run_store(settings).get_run(run_id).status == "cancelled"
    listed = dict((value, label) for label, value in runs_panel.unfinished_choices())
    assert "· cancelled after " in listed[run_id]  # listed to resume again

    *_, (worker, outcome, cancel) = runs_panel.resume(run_id)  # a cancelled run resumes like an interrupted one
    assert worker is None and not shown(cancel) and outcome.startswith(f"Resumed run {run_id[:8]}")
    assert get_run_store(settings).get_run(run_id).status == "done"
    assert run_id not in dict((v, k) for k, v in runs_panel.unfinished_choices())


def test_cancel_with_nothing_running_says_so(monkeypatch):
    told = []
    monkeypatch.setattr(runs_panel.gr, "Info", told.append)
    runs_panel.stop("no-such-run")
    assert told == ["Nothing is running."]
