"""Notes tab callbacks against a real notes database in tmp_path."""
import gradio as gr
import pytest

from App_Function_Libraries.DB.notes_store import get_notes_store
from App_Function_Libraries.Gradio_UI import notes_tab


class Select:
    def __init__(self, row):
        self.index = [row, 0]


@pytest.fixture
def notes(make_settings):
    make_settings({})
    store = get_notes_store()
    store.add_note("Bee dances", "The waggle dance gives direction and distance.", "bees, biology")
    store.add_note("Sourdough", "A starter of flour and water.", "bread")
    return store


def test_search_and_keyword_filter(notes):
    rows, ids = notes_tab.find_notes("waggle", None, False)
    assert [r[0] for r in rows] == ["Bee dances"] and "**waggle**" in rows[0][3]
    rows, _ = notes_tab.find_notes("", "BREAD", False)
    assert [r[0] for r in rows] == ["Sourdough"]
    rows, _ = notes_tab.find_notes("waggle", "bread", False)
    assert rows == []
    assert notes_tab.keyword_choices()[0] == notes_tab.ALL_KEYWORDS
    assert set(notes_tab.keyword_choices()[1:]) == {"bees", "biology", "bread"}


def test_open_edit_delete_restore(notes):
    _, ids = notes_tab.find_notes("", None, False)
    opened = notes_tab.open_note(ids, "md", Select(ids.index(notes.list_notes()[0].id)))
    title, keywords, content, preview, state, info, download = opened
    assert state["version"] == 1 and preview == notes_tab.preview_html(content) == f"<p>{content}</p>\n"
    saved = notes_tab.save_note(state, title + " (edited)", keywords, content + "\n\nMore.", "md")
    assert saved[0].endswith("(edited)") and saved[4]["version"] == 2
    with open(saved[6].value["path"], encoding="utf-8") as f:
        assert "More." in f.read()
    notes_tab.delete_note(saved[4], "md")
    assert notes_tab.find_notes("edited", None, False)[0] == []
    rows, trash_ids = notes_tab.find_notes("edited", None, True)
    assert len(rows) == 1
    restored = notes_tab.restore_note({"id": trash_ids[0], "version": None}, "md")
    assert restored[0].endswith("(edited)")


def test_stale_edit_is_refused_with_a_message(notes):
    note = notes.list_notes()[0]
    notes.update_note(note.id, note.version, content="changed elsewhere")
    with pytest.warns(UserWarning, match="changed elsewhere since you opened it"):
        result = notes_tab.save_note({"id": note.id, "version": note.version}, note.title, "", "mine", "md")
    assert result == gr.skip()
    assert notes.get_note(note.id).content == "changed elsewhere"


def test_export_all_then_import_elsewhere(notes, make_settings, tmp_path):
    zipped = notes_tab.export_all(False)
    assert zipped.endswith(".zip")
    (tmp_path / "other").mkdir()
    make_settings({"databases": {"notes_db": str(tmp_path / "other" / "n.db")}})
    assert notes_tab.find_notes("", None, False)[0] == []
    summary = notes_tab.import_files([zipped])
    assert "2 added" in summary
    assert {r[0] for r in notes_tab.find_notes("", None, False)[0]} == {"Bee dances", "Sourdough"}


def test_matches_are_bold_and_the_notes_own_markdown_shows_as_typed(notes):
    from markdown_it import MarkdownIt
    notes.add_note("Markup", "Honey bees **dance** to tell where _flowers_ are [1](x).", "")
    rows, _ = notes_tab.find_notes("dance", None, False)
    match = rows[[r[0] for r in rows].index("Markup")][3]
    assert match == r"Honey bees \*\***dance**\*\* to tell where \_flowers\_ are \[1\]\(x\)\."
    html = MarkdownIt().render(match)
    assert "**<strong>dance</strong>**" in html and "_flowers_" in html and "****" not in html


def test_search_leaves_out_minus_words(notes):
    notes.add_note("Wasps", "Wasps make no honey, yet they dance too.", "")
    rows, _ = notes_tab.find_notes("dance -honey", None, False)
    assert [r[0] for r in rows] == ["Bee dances"]
    rows, _ = notes_tab.find_notes("-dance", None, False)
    assert [r[0] for r in rows] == ["Sourdough"]


def test_deleting_a_note_in_the_trash_says_so(notes, capsys):
    note = notes.list_notes()[0]
    notes.delete_note(note.id)
    trashed = notes.get_note(note.id)
    result = notes_tab.delete_note({"id": note.id, "version": trashed.version}, "md")
    assert capsys.readouterr().out.strip() == "This note is already in the trash (press Restore to bring it back)."
    assert result == gr.skip()
    assert notes.get_note(note.id).deleted and notes.get_note(note.id).version == trashed.version


def test_a_database_file_that_is_not_sqlite_is_a_short_warning(make_settings, tmp_path):
    from App_Function_Libraries.Gradio_UI import history_tab
    bad = tmp_path / "b.db"
    bad.write_bytes(b"junk\n")
    make_settings({"databases": {"notes_db": str(bad), "research_db": str(bad)}})
    with pytest.warns(UserWarning, match=r"b\.db is not a Quarry database \(file is not a database\): move it "
                                         r"aside or point \[databases\] notes_db elsewhere$"):
        assert notes_tab.refresh_list("", None, False) == gr.skip()
    with pytest.warns(UserWarning, match=r"not a Quarry database .* research_db elsewhere$"):
        assert history_tab.list_history("") == gr.skip()
    assert bad.read_bytes() == b"junk\n"


def test_other_sqlite_file_errors_are_short_too():
    import sqlite3
    from App_Function_Libraries.Gradio_UI.ui_common import short_message
    assert short_message(sqlite3.DatabaseError("database disk image is malformed")) == (
        "a database file could not be used (database disk image is malformed); see the terminal for which one")


def test_import_messages_show_what_the_file_says_as_text(notes, tmp_path):
    """Skipped lines quote the file (a zip member's name, a bad value): they went to gr.Markdown as raw HTML."""
    import re
    import zipfile
    path = tmp_path / "<b>x<i>.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("<img src=//ev.il/a>.json", "not json")
        archive.writestr("v.md", "---\ntitle: \"T\"\nversion: '<img src=//ev.il/b>'\n---\nbody")
        archive.writestr("`tick`.json", "[")
    text = notes_tab.import_files([str(path)])
    assert "2 skipped" not in text and "3 skipped" in text, text
    assert not re.search(r"(?<!\\)[<>`]", text), text  # every <, > and backtick escaped for Markdown
    assert "\\<img src=//ev.il/b\\>" in text and "\\<b\\>x\\<i\\>.zip" in text


def test_search_open_and_add_go_through_the_python_facade(notes, monkeypatch):
    """The tab calls quarry.notes like the CLI, MCP tools and HTTP API do, so the front doors cannot drift."""
    from App_Function_Libraries import quarry
    calls = []

    def spy(name):
        real = getattr(quarry.notes, name)

        def call(*args, **kwargs):
            calls.append(name)
            return real(*args, **kwargs)
        monkeypatch.setattr(quarry.notes, name, call)
    for name in ("search", "get", "add"):
        spy(name)
    rows, ids = notes_tab.find_notes("waggle", None, False)
    opened = notes_tab.open_note(ids, "md", Select(0))
    created = notes_tab.save_note(dict(notes_tab.NO_NOTE), "Hives", "bees", "Hives hold combs.", "md")
    assert calls == ["search", "get", "add"]
    assert rows[0][0] == opened[0] == "Bee dances" and created[0] == "Hives"
    with pytest.warns(UserWarning, match="a note needs a title"):  # the store checks it
        assert notes_tab.save_note(dict(notes_tab.NO_NOTE), " ", "", "text", "md") == gr.skip()
