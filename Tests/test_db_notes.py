"""The notes store: create/edit/delete/restore, optimistic locking, keywords, full-text search, concurrency."""
from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from App_Function_Libraries.DB.connection import NotFoundError, StoreError, close_thread_connections, open_database
from App_Function_Libraries.DB.notes_store import AlreadyInTrashError, NoteInputError, NotesStore, StaleEditError


@pytest.fixture
def store(tmp_path):
    yield NotesStore(tmp_path / "notes.db")
    close_thread_connections()


def test_add_and_get_keeps_everything(store):
    note = store.add_note("Bees", "Honey bees **dance**.\r\nSecond line  ", ["Biology", "insects"],
                          report_id="r-1", report={"question": "How do bees talk?", "sources": []})
    back = store.get_note(note.id)
    assert back.to_dict() == note.to_dict()
    assert back.version == 1 and back.created_at == back.updated_at and not back.deleted
    assert len(note.id) == 36


def test_keywords_are_case_insensitive_and_unique(store):
    a = store.add_note("A", "x", ["Straße", "Bees", "bees", " BEES ", ""])
    b = store.add_note("B", "y", "STRASSE, birds")
    assert a.keywords == ["Straße", "Bees"]
    assert store.get_note(b.id).keywords == ["birds", "Straße"]  # folded to the spelling first seen
    assert [n.id for n in store.list_notes(keyword="strasse")] == [b.id, a.id]
    assert dict(store.list_keywords()) == {"Straße": 2, "Bees": 1, "birds": 1}
    rows = open_database(store.path).execute("SELECT count(*) FROM keywords").fetchone()[0]
    assert rows == 3


def test_edit_bumps_version_and_a_stale_edit_is_refused(store):
    note = store.add_note("Title", "first")
    edited = store.update_note(note.id, 1, content="second", keywords=["k"])
    assert (edited.version, edited.content, edited.keywords) == (2, "second", ["k"])
    assert edited.updated_at > note.updated_at and edited.created_at == note.created_at
    with pytest.raises(StaleEditError, match="version 2.*nothing was changed"):
        store.update_note(note.id, 1, content="stale overwrite")
    assert store.get_note(note.id).content == "second"
    assert store.search_notes("stale") == []


def test_bad_input_is_refused_with_a_message_and_nothing_written(store):
    with pytest.raises(NoteInputError, match="title"):
        store.add_note("   ", "content")
    with pytest.raises(NoteInputError, match="not valid text"):
        store.add_note("ok", "half a pair \ud800")
    with pytest.raises(NoteInputError, match="keyword"):
        store.add_note("ok", "x", ["k" * 101])
    note = store.add_note("ok", "x")
    with pytest.raises(NoteInputError):
        store.update_note(note.id, 1, title="")
    assert store.count_notes() == 1 and store.get_note(note.id).version == 1
    with pytest.raises(NotFoundError):
        store.update_note("no-such-id", 1, content="x")


def test_soft_delete_and_restore(store):
    note = store.add_note("Gone soon", "searchable words")
    store.delete_note(note.id)
    assert store.list_notes() == [] and store.search_notes("searchable") == []
    assert [n.id for n in store.list_notes(deleted=True)] == [note.id]
    trashed = store.get_note(note.id)
    with pytest.raises(AlreadyInTrashError, match=f"note {note.id[:8]} is already in the trash"):
        store.delete_note(note.id)
    assert store.get_note(note.id) == trashed  # nothing changed: same version, same time of deletion
    with pytest.raises(StoreError, match="restore"):
        store.update_note(note.id, 2, content="x")
    restored = store.restore_note(note.id)
    assert restored.version == 3 and not restored.deleted and restored.deleted_at is None
    assert [h.note.id for h in store.search_notes("searchable")] == [note.id]
    with pytest.raises(StoreError, match="not deleted"):
        store.restore_note(note.id)


def test_permanent_delete_clears_index_and_orphan_keywords(store):
    note = store.add_note("Ephemeral", "unique-word", ["lonely"])
    keep = store.add_note("Keeper", "other text", ["shared"])
    store.delete_note(note.id, permanent=True)
    with pytest.raises(NotFoundError):
        store.get_note(note.id)
    assert store.search_notes("unique") == []
    assert store.list_keywords() == [("shared", 1)]
    store.check_index()
    assert store.get_note(keep.id).title == "Keeper"


def test_delete_with_a_stale_version_is_refused(store):
    note = store.add_note("T", "c")
    store.update_note(note.id, 1, content="d")
    with pytest.raises(StaleEditError):
        store.delete_note(note.id, expected_version=1)
    assert not store.get_note(note.id).deleted


def test_search_ranks_titles_prefixes_and_phrases(store):
    a = store.add_note("Quantum computing", "Qubits and gates.")
    b = store.add_note("Cooking", "A quantum of salt in the café.")
    c = store.add_note("Gardening", "Nothing relevant here.")
    assert [h.note.id for h in store.search_notes("quantum")] == [a.id, b.id]
    assert [h.note.id for h in store.search_notes("quant")] == [a.id, b.id]  # prefix
    assert [h.note.id for h in store.search_notes("cafe")] == [b.id]  # diacritics folded
    assert [h.note.id for h in store.search_notes('"of salt"')] == [b.id]
    assert [h.note.id for h in store.search_notes("qubits OR nothing")] == [a.id, c.id] or \
        {h.note.id for h in store.search_notes("qubits OR nothing")} == {a.id, c.id}
    assert [h.note.id for h in store.search_notes("quantum NOT salt")] == [a.id]
    hit = store.search_notes("salt")[0]
    assert "\x02salt\x03" in hit.snippet  # marks no note text holds (see snippets.py)
    assert "[salt]" in store.search_notes("salt", mark=("[", "]"))[0].snippet


def test_index_follows_every_change(store):
    notes = [store.add_note(f"Note {i}", f"alpha{i} common") for i in range(20)]
    for note in notes[:10]:
        store.update_note(note.id, 1, title=f"Renamed {note.id[:4]}", content="beta common")
    for note in notes[10:15]:
        store.delete_note(note.id, permanent=True)
    store.check_index()
    assert store.search_notes("alpha0") == []
    assert len(store.search_notes("beta", limit=100)) == 10
    assert len(store.search_notes("common", limit=100)) == 15
    assert len(store.search_notes("alpha", limit=100)) == 5


def test_resolve_short_ids(store):
    note = store.add_note("T", "c", note_id="abcdef12-0000-0000-0000-000000000000")
    store.add_note("U", "c", note_id="abcdff12-0000-0000-0000-000000000000")
    assert store.resolve_id("abcde") == note.id
    with pytest.raises(NotFoundError, match="several"):
        store.resolve_id("abcd")
    with pytest.raises(NotFoundError):
        store.resolve_id("zzz")
    with pytest.raises(StoreError, match="already exists"):
        store.add_note("dup", "c", note_id=note.id)


@pytest.fixture
def memory_disk_store(tmp_path):
    """A store on /dev/shm where there is one: the locking is the same, but each commit's fsync (6 ms on a
    shared CI disk, 1,600 of them here) is not what this test is about."""
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() else tmp_path
    yield NotesStore(folder / "notes.db")
    close_thread_connections()
    if folder != tmp_path:
        shutil.rmtree(folder, ignore_errors=True)


def test_eight_threads_writing_200_notes_each(memory_disk_store):
    """8 x 200 notes with keywords written at once: all 1,600 stored and found, no 'database is locked'."""
    store = memory_disk_store
    errors: list[BaseException] = []

    def writer(t: int) -> None:
        try:
            for i in range(200):
                store.add_note(f"thread {t} note {i}", f"marker t{t}n{i} body text", [f"kw{i % 5}", f"Thread{t}"])
        except BaseException as exc:  # noqa: BLE001 - any error fails the test below
            errors.append(exc)
        finally:
            close_thread_connections()

    store.count_notes()  # the schema exists before the race starts, as in the app
    threads = [threading.Thread(target=writer, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert store.count_notes() == 1600
    for t in range(8):
        for i in range(200):
            hits = store.search_notes(f'"t{t}n{i}"')
            assert [h.note.title for h in hits] == [f"thread {t} note {i}"]
    assert dict(store.list_keywords())["kw0"] == 8 * 40
    assert len(store.list_notes(keyword="thread3", limit=1000)) == 200
    store.check_index()
    assert open_database(store.path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
