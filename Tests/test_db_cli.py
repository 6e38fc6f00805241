"""`python app.py notes ...` and `python app.py history ...` end to end."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.DB.connection import close_thread_connections
from App_Function_Libraries.DB.research_store import get_research_store
from Tests.test_db_research import sample_result

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cli(make_settings, capsys):
    settings = make_settings()

    def run(*args: str, config: Path = settings.path) -> tuple[int, str, str]:
        code = main(["--config", str(config), *args])
        out, err = capsys.readouterr()
        return code, out, err

    run.settings = settings
    yield run
    close_thread_connections()


def note_ids(cli) -> dict[str, str]:
    code, out, _ = cli("notes", "list", "--json")
    assert code == 0
    return {n["title"]: n["id"] for n in json.loads(out)}


def test_notes_round_trip(cli, tmp_path):
    assert cli("notes", "add", "--title", "Bees", "--content", "Honey bees dance.", "--keywords", "bio,Insects")[0] == 0
    assert cli("notes", "add", "--title", "Ants", "--content", "Ants follow trails.")[0] == 0
    ids = note_ids(cli)
    code, out, _ = cli("notes", "search", "danc")
    assert code == 0 and ids["Bees"][:8] in out and "Honey bees dance." in out
    assert ids["Ants"][:8] not in out
    code, out, _ = cli("notes", "list", "--keyword", "INSECTS")
    assert ids["Bees"][:8] in out and ids["Ants"][:8] not in out

    assert cli("notes", "edit", ids["Bees"][:8], "--content", "Honey bees waggle.")[0] == 0
    code, _, err = cli("notes", "edit", ids["Bees"][:8], "--content", "stale", "--expected-version", "1")
    assert code == 1 and "nothing was changed" in err
    code, out, _ = cli("notes", "show", ids["Bees"][:8], "--format", "json")
    shown = json.loads(out)
    assert shown["content"] == "Honey bees waggle." and shown["version"] == 2

    assert cli("notes", "delete", ids["Ants"])[0] == 0
    assert cli("notes", "delete", ids["Ants"][:8])[1:] == ("", (
        f"note {ids['Ants'][:8]} is already in the trash (python app.py notes restore {ids['Ants'][:8]} brings it "
        f"back; notes delete {ids['Ants'][:8]} --permanent erases it)\n"))
    assert "Ants" not in note_ids(cli)
    assert "Ants" in cli("notes", "list", "--deleted")[1]
    assert cli("notes", "restore", ids["Ants"][:8])[0] == 0

    assert cli("notes", "export", str(tmp_path / "out"))[1].startswith("exported 2 notes")
    other = tmp_path / "other.txt"
    other.write_text(f"[databases]\nnotes_db = {tmp_path / 'other.db'}\nresearch_db = {tmp_path / 'other.db'}\n")
    code, out, _ = cli("notes", "import", str(tmp_path / "out"), config=other)
    assert code == 0 and "2 added" in out
    code, out, _ = cli("notes", "list", "--json", config=other)
    imported = {n["id"]: n for n in json.loads(out)}
    code, out, _ = cli("notes", "list", "--json")
    assert imported == {n["id"]: n for n in json.loads(out)}


def test_search_shows_the_notes_markdown_once_and_leaves_out_minus_words(cli, monkeypatch):
    from App_Function_Libraries.DB.snippets import BOLD, NORMAL
    cli("notes", "add", "--title", "Bees", "--content", "Honey bees **dance** to tell where _flowers_ are.")
    cli("notes", "add", "--title", "Wasps", "--content", "Wasps dance but make no wax.")
    code, out, _ = cli("notes", "search", "dance -wax")
    assert code == 0 and out.splitlines()[1].strip() == "Honey bees **dance** to tell where _flowers_ are."
    assert "Wasps" not in out
    assert "Bees" in cli("notes", "search", "--", "-wax")[1]
    hit = json.loads(cli("notes", "search", "dance -wax", "--json")[1])[0]
    assert hit["snippet"] == "Honey bees **dance** to tell where _flowers_ are." and hit["matches"] == [[13, 18]]
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    out = cli("notes", "search", "dance -wax")[1]
    assert f"Honey bees **{BOLD}dance{NORMAL}** to tell" in out


def test_notes_errors_are_one_line(cli):
    code, _, err = cli("notes", "show", "nope")
    assert code == 1 and err.strip() == "error: no note with id 'nope'"
    code, _, err = cli("notes", "add", "--title", "  ", "--content", "x")
    assert code == 1 and "title" in err
    code, _, err = cli("notes", "add", "--title", "only a title")
    assert code == 2 and "--content" in err
    code, _, err = cli("notes", "import", "/no/such/path")
    assert code == 1 and "no such file" in err


def test_history_list_show_and_save_as_note(cli, tmp_path):
    result = sample_result()
    get_research_store(cli.settings).save_research(result)
    code, out, _ = cli("history")
    assert code == 0 and result.id[:8] in out and "3 results" in out and result.question in out
    code, out, _ = cli("history", "show", result.id[:8])
    assert out.startswith(f"# {result.question}") and "1. [Waggle dance](https://bees.example/dance)" in out
    code, out, _ = cli("history", "show", result.id[:8], "--format", "html", "-o", str(tmp_path / "r.html"))
    assert code == 0 and "<h2>Sources</h2>" in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert cli("history", "--search", "nothing like this")[1].startswith("no saved searches match")
    code, out, _ = cli("history", "note", result.id[:8], "--keywords", "bees")
    assert code == 0 and "saved as note" in out
    code, out, _ = cli("notes", "search", "waggle")
    assert result.question in out
    assert cli("history", "delete", result.id[:8])[0] == 0
    assert cli("history", "show", result.id[:8])[0] == 1


def test_history_list_options_given_before_or_after_list(cli, capsys, monkeypatch):
    """`history --json list` is `history list --json` (argparse wrote list's own defaults over it), and the
    top-level help names every history action."""
    result = sample_result()
    get_research_store(cli.settings).save_research(result)
    for args in (("history", "--json", "list"), ("history", "list", "--json"), ("history", "--json")):
        code, out, _ = cli(*args)
        assert code == 0 and [r["id"] for r in json.loads(out)] == [result.id], args
    assert cli("history", "--search", "nothing like this", "list")[1].startswith("no saved searches match")
    assert cli("history", "list")[1].count(result.id[:8]) == 1  # a control: not JSON without --json
    monkeypatch.setenv("COLUMNS", "400")  # the help line unwrapped
    with pytest.raises(SystemExit):
        main(["--help"])
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("history"))
    assert all(word in line for word in ("list", "show", "export", "note", "ask", "keep", "delete")), line


def test_app_entry_point_runs_the_commands(make_settings):
    settings = make_settings()
    base = [sys.executable, str(ROOT / "app.py"), "--config", str(settings.path)]
    added = subprocess.run(base + ["notes", "add", "--title", "Via app.py", "--content", "-", "--keywords", "cli"],
                           input="from standard input\n", capture_output=True, text=True, timeout=60)
    assert added.returncode == 0, added.stderr
    shown = subprocess.run(base + ["notes", "search", "standard"], capture_output=True, text=True, timeout=60)
    assert "Via app.py" in shown.stdout
