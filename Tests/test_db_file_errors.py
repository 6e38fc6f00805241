"""A database file that is not SQLite, or is damaged, is named in one line with what to do, never a traceback;
the file itself is left exactly as it was (nothing the user saved is lost)."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.CLI.notes_command import guarded
from App_Function_Libraries.DB.connection import close_thread_connections, forget_schema_checks
from App_Function_Libraries.DB.file_errors import UnusableDatabaseError, file_error_code
from App_Function_Libraries.DB.notes_store import NotesStore
from App_Function_Libraries.DB.research_store import ResearchStore
from App_Function_Libraries.Documents import library as docs_library
from App_Function_Libraries.Wikipedia import index as wiki_index

ROOT = Path(__file__).resolve().parent.parent
PAGE = 4096


def junk_file(path: Path) -> Path:
    path.write_bytes(b"junk\n")
    return path


def damaged_notes_db(path: Path) -> Path:
    """A real notes database whose pages after the schema are overwritten: it opens, its data cannot be read."""
    store = NotesStore(path)
    for i in range(30):
        store.add_note(f"note {i}", "bees honey dance " * 300)
    close_thread_connections()
    forget_schema_checks()
    data = bytearray(path.read_bytes())
    for start in range(3 * PAGE, len(data), PAGE):
        data[start:start + PAGE] = bytes((start // PAGE + k) % 251 for k in range(PAGE))
    path.write_bytes(bytes(data))
    return path


@pytest.fixture(autouse=True)
def fresh_connections():
    yield
    close_thread_connections()
    forget_schema_checks()


def test_a_file_that_is_not_sqlite_is_named_with_the_fix(tmp_path):
    bad = junk_file(tmp_path / "b.db")
    with pytest.raises(UnusableDatabaseError) as notes_error:
        NotesStore(bad).list_notes()
    assert str(notes_error.value) == (f"{bad} is not a Quarry database (file is not a database): move it aside or "
                                      f"point [databases] notes_db elsewhere")
    with pytest.raises(UnusableDatabaseError, match=r"not a Quarry database .* \[databases\] research_db"):
        ResearchStore(bad).list_reports()
    assert isinstance(notes_error.value, sqlite3.DatabaseError)  # callers catching sqlite3 errors still do
    assert bad.read_bytes() == b"junk\n" and sorted(p.name for p in tmp_path.iterdir()) == ["b.db"]


def test_a_damaged_database_is_named_and_left_as_it_is(tmp_path):
    bad = damaged_notes_db(tmp_path / "d.db")
    before = bad.read_bytes()
    store = NotesStore(bad)
    with pytest.raises(UnusableDatabaseError, match=r"is damaged \(database disk image is malformed\): move it aside"):
        store.list_notes()
    with pytest.raises(UnusableDatabaseError, match="is damaged"):
        store.search_notes("bees")
    close_thread_connections()
    assert bad.read_bytes() == before


def test_errors_about_a_statement_are_not_blamed_on_the_file():
    assert file_error_code(sqlite3.OperationalError("no such table: x")) is None
    assert file_error_code(sqlite3.DatabaseError("file is not a database")) == 26
    assert file_error_code(ValueError("file is not a database")) is None


@pytest.mark.parametrize("command", [["notes", "list"], ["notes", "search", "bees"], ["history"],
                                     ["notes", "add", "--title", "T", "--content", "c"]])
def test_cli_says_one_line_and_fails(tmp_path, capsys, command):
    bad = junk_file(tmp_path / "b.db")
    config = tmp_path / "config.txt"
    config.write_text(f"[databases]\nresearch_db = {bad}\nnotes_db = {bad}\n", encoding="utf-8")
    assert main(["--config", str(config), *command]) == 1
    out, err = capsys.readouterr()
    setting = "research_db" if command[0] == "history" else "notes_db"
    assert err == (f"error: {bad} is not a Quarry database (file is not a database): move it aside or point "
                   f"[databases] {setting} elsewhere\n")
    assert bad.read_bytes() == b"junk\n"


def test_app_py_prints_no_traceback(tmp_path):
    bad = junk_file(tmp_path / "b.db")
    config = tmp_path / "config.txt"
    config.write_text(f"[databases]\nresearch_db = {bad}\nnotes_db = {bad}\n", encoding="utf-8")
    run = subprocess.run([sys.executable, str(ROOT / "app.py"), "--config", str(config), "notes", "list"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines() == [f"error: {bad} is not a Quarry database (file is not a database): "
                                               f"move it aside or point [databases] notes_db elsewhere"]


def test_cli_guard_turns_any_other_sqlite_error_into_one_line(capsys):
    @guarded
    def failing(args):
        raise sqlite3.DatabaseError("vtable constructor failed: notes_fts")
    assert failing(None) == 1
    assert capsys.readouterr().err == "error: the database could not be used (vtable constructor failed: notes_fts)\n"


class Damaged:
    """Stands for a library or index whose file is damaged past its first pages: every call fails."""
    def __getattr__(self, name):
        def call(*args, **kwargs):
            raise sqlite3.DatabaseError(MESSAGES[name])
        return call


MESSAGES = {"list": "database disk image is malformed", "close": "database disk image is malformed",
            "search": "vtable constructor failed: passages_fts"}


def test_docs_command_names_a_damaged_index(make_settings, capsys, monkeypatch):
    settings = make_settings()
    monkeypatch.setattr(docs_library, "DocumentLibrary", lambda settings=None: Damaged())
    assert main(["--config", str(settings.path), "docs", "list"]) == 1
    index = settings.resolve_path(settings.documents.index_dir) / "documents.sqlite3"
    assert capsys.readouterr().err == (f"docs: {index} is damaged (database disk image is malformed): move it aside "
                                       f"or point [documents] index_dir elsewhere (sqlite3's .recover command may "
                                       f"rescue its contents)\n")


def test_docs_command_on_a_junk_index_file(make_settings, capsys):
    settings = make_settings()
    folder = settings.resolve_path(settings.documents.index_dir)
    folder.mkdir(parents=True)
    junk_file(folder / "documents.sqlite3")
    assert main(["--config", str(settings.path), "docs", "list"]) == 1
    assert capsys.readouterr().err.strip() == f"docs: cannot open the documents index in {folder}: file is not a database"


@pytest.mark.parametrize("action", ["search", "ask"])
def test_wiki_command_names_the_index_to_rebuild(make_settings, capsys, monkeypatch, action):
    settings = make_settings()
    monkeypatch.setattr(wiki_index, "get_wiki_index", lambda settings=None: Damaged())
    assert main(["--config", str(settings.path), "wiki", action, "bees"]) == 1
    folder = settings.resolve_path(settings.wikipedia.index_dir)
    assert capsys.readouterr().err == (f"wiki: the index in {folder} cannot be read (vtable constructor failed: "
                                       f"passages_fts); rebuild it with: python app.py wiki build --force --demo "
                                       f"(or --input PATH)\n")
