"""The Notes tab keeps working over a note whose stored times are not valid ones (written by an older Quarry,
which imported `created_at: 1e300`): the list, opening the note and "Export all"."""
import sqlite3
import zipfile

from App_Function_Libraries.DB.notes_store import get_notes_store
from App_Function_Libraries.Gradio_UI import notes_tab


class Select:
    def __init__(self, row):
        self.index = [row, 0]


def test_list_open_and_export_all_over_a_bad_stored_time(make_settings):
    make_settings({})
    store = get_notes_store()
    store.add_note("Fine", "ok")
    far = store.add_note("Far future", "imported long ago")
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE notes SET created_at = 1e300, updated_at = 9e999 WHERE id = ?", [far.id])
    conn.commit()
    conn.close()
    rows, ids = notes_tab.find_notes("", None, False)
    assert sorted(r[0] for r in rows) == ["Far future", "Fine"]
    assert rows[ids.index(far.id)][2] == "?"
    info = notes_tab.open_note(ids, "md", Select(ids.index(far.id)))[5]
    assert info.startswith("Created ? · updated ? · version 1")
    zipped = notes_tab.export_all(False)
    assert len([n for n in zipfile.ZipFile(zipped).namelist() if n.endswith(".md")]) == 2
