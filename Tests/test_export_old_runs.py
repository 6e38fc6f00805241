"""Runs an older Quarry saved (Tests/data/old_saved_runs.json) load from the research store and export exactly as
they did: every format and citation style, from the store and from the dict as imported. The expected texts
(Tests/data/old_saved_exports.json) were written by the exporter before the page record and the exports were
reworked (issue 24); the Markdown and text ones since gained only the Evidence labels and the sources list's
pointers to them (issue 22). `python -m Tests.support.old_runs DIR` writes the same files for a `diff -r`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from Tests.support.old_runs import DATA, exports

EXPECTED = json.loads((DATA.parent / "old_saved_exports.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, str]:
    return exports(tmp_path_factory.mktemp("old_runs"))


def test_every_export_of_an_old_saved_run_is_unchanged(exported):
    assert sorted(exported) == sorted(EXPECTED)
    changed = [name for name in EXPECTED if exported[name] != EXPECTED[name]]
    assert changed == []


def test_the_json_export_of_an_old_saved_run_reads_back_as_the_stored_run(tmp_path):
    from App_Function_Libraries.DB.export import export_report
    from App_Function_Libraries.DB.research_store import ResearchStore
    from App_Function_Libraries.records import ResearchResult
    from Tests.support.old_runs import old_runs
    store = ResearchStore(tmp_path / "r.db", secrets=())
    for data in old_runs().values():
        store.save_research(data)
        loaded = store.load_report(data["id"])
        assert ResearchResult.from_dict(json.loads(export_report(loaded, "json", secrets=()))) == loaded


def test_the_expected_exports_tell_the_numbered_and_the_selected_sources_apart():
    """Control: the old run that cites nothing lists the selected sources it read, as read but not cited (issue
    22: not "Recipes", ticked in but never read), the one that cites lists its numbered sources only."""
    uncited = EXPECTED["uncited-stored-numbered.md"]
    assert "Starter guide" in uncited.split("Read but not cited")[1]
    assert "Recipes" not in uncited and "files.example.net" not in uncited
    cited = EXPECTED["cited-stored-numbered.md"]
    assert "Forum thread" in cited and "Mirror of the first page" not in cited and "Shop" not in cited
