"""Notes imports from hostile or broken files: each bad file or note is listed and skipped, the rest imported,
memory stays bounded, links out of a folder are not followed, and nothing that imports can break reading."""
from __future__ import annotations

import json
import math
import sqlite3
import struct
import time
import tracemalloc
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from App_Function_Libraries.DB import import_sources
from App_Function_Libraries.DB.connection import close_thread_connections
from App_Function_Libraries.DB.export import FORMATS, export_note
from App_Function_Libraries.DB.notes_io import export_notes, import_notes
from App_Function_Libraries.DB.notes_store import NotesStore

GOOD = {"title": "Good note", "content": "Bees dance."}


@pytest.fixture
def store(tmp_path):
    yield NotesStore(tmp_path / "notes.db")
    close_thread_connections()


def titles(store: NotesStore) -> list[str]:
    return sorted(n.title for n in store.all_notes(include_deleted=True))


def notes_json(*items: str) -> str:
    """A JSON export holding these notes (each given as JSON text, so it can hold NaN or 1e999)."""
    return '{"notes": [' + ", ".join(items) + "]}"


def bad_note(**fields: str) -> str:
    return "{" + ", ".join(f'"{k}": {v}' for k, v in {"title": '"Bad note"', "content": '"x"', **fields}.items()) + "}"


def a_folder(tmp_path, **files: str):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.md").write_text("# Good markdown\n\nfine", encoding="utf-8")
    for name, text in files.items():
        (folder / name.replace("_", ".")).write_text(text, encoding="utf-8")
    return folder


# ---------------------------------------------------------------- each hostile input: listed, the rest imported

def test_json_nested_too_deeply_for_the_parser(tmp_path, store):
    folder = a_folder(tmp_path, deep_json="[" * 100_000 + "]" * 100_000)
    summary = import_notes(store, folder)
    assert titles(store) == ["Good markdown"]
    assert summary.errors == ["deep.json: the file is JSON nested too deeply to read"]


def test_a_deeply_nested_note_in_a_list_skips_only_that_note(tmp_path, store):
    deep = "[" * 500 + "]" * 500
    folder = a_folder(tmp_path, list_json=notes_json(json.dumps(GOOD), bad_note(extra=deep)),
                      front_md='---\ntitle: "Deep front matter"\nkeywords: ' + deep + "\n---\nbody")
    summary = import_notes(store, folder)
    assert titles(store) == ["Good markdown", "Good note"]
    assert sorted(summary.errors) == ["front.md: the front matter value of 'keywords' is JSON nested more than 64 "
                                      "levels deep", "list.json: item 2: the note is JSON nested more than 64 "
                                                     "levels deep"]


def test_version_1e999(tmp_path, store):
    summary = import_notes(store, a_folder(tmp_path, n_json=notes_json(json.dumps(GOOD), bad_note(version="1e999"))))
    assert titles(store) == ["Good markdown", "Good note"]
    assert summary.errors == ["n.json: item 2: version inf is not a whole number from 1 to 2^53"]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e300", "1e999", "-1", "253402300800",
                                   '"nan"', '"1e300"', '"not a date"', "[1]", "true"])
def test_a_timestamp_that_is_not_a_time(tmp_path, store, value):
    summary = import_notes(store, a_folder(tmp_path, n_json=notes_json(json.dumps(GOOD), bad_note(created_at=value),
                                                                       bad_note(updated_at=value))))
    assert titles(store) == ["Good markdown", "Good note"]
    assert summary.errors == [f"n.json: item {i}: {key} {shown} is not a time between the years 1970 and 9999"
                              for i, key, shown in ((2, "created_at", _shown(value)),
                                                    (3, "updated_at", _shown(value)))]


def _shown(json_value: str) -> str:
    return repr(json.loads(json_value))


def test_a_timestamp_in_markdown_front_matter(tmp_path, store):
    folder = a_folder(tmp_path, far_md='---\ntitle: "Far"\ncreated_at: 1e300\n---\nbody',
                      nan_md='---\ntitle: "NaN"\nupdated_at: NaN\n---\nbody',
                      ok_md='---\ntitle: "Year 9999"\ncreated_at: 253402300799\n---\nbody')
    summary = import_notes(store, folder)
    assert titles(store) == ["Good markdown", "Year 9999"]
    assert summary.errors == ["far.md: created_at 1e+300 is not a time between the years 1970 and 9999",
                              "nan.md: updated_at nan is not a time between the years 1970 and 9999"]


def test_other_values_that_cannot_be_stored(tmp_path, store):
    items = [bad_note(id=json.dumps("a\x1b[2Jb")), bad_note(id='{"a": 1}'), bad_note(report_id="[1]"),
             bad_note(keywords="5"), bad_note(keywords="[[1]]"), bad_note(report="[1]"), bad_note(title="7"),
             bad_note(content="null"), bad_note(version="2.5"), bad_note(version="0"), '"just text"',
             json.dumps({**GOOD, "title": "Kept", "id": "kept-1", "keywords": "a, b", "version": "3",
                         "created_at": "1714128000"})]
    summary = import_notes(store, a_folder(tmp_path, n_json=notes_json(*items)))
    assert titles(store) == ["Good markdown", "Kept"]
    kept = next(n for n in store.all_notes() if n.title == "Kept")
    assert (kept.keywords, kept.version, kept.created_at) == (["a", "b"], 3, 1714128000.0)
    assert [e.split(":")[1].strip() for e in summary.errors] == [f"item {i}" for i in range(1, 12)]


def test_zip_member_with_a_bad_crc(tmp_path, store):
    path = tmp_path / "notes.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("notes/a.md", "# First\n\nfine")
        archive.writestr("notes/bad.md", "# Damaged\n\n" + "x" * 100)
        archive.writestr("notes/z.md", "# Last\n\nfine")
    data = bytearray(path.read_bytes())
    data[data.find(b"x" * 100) + 50] = ord("y")
    path.write_bytes(bytes(data))
    summary = import_notes(store, path)
    assert titles(store) == ["First", "Last"]
    assert summary.errors == ["notes/bad.md: cannot be read from the zip (Bad CRC-32 for file 'notes/bad.md')"]


def liar_zip(path, real_bytes: int) -> None:
    """A good member and one that declares 1 KiB but inflates to `real_bytes` (both headers patched)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("notes/good.md", "# Good\n\nfine")
        with archive.open("notes/liar.md", "w") as member:
            for _ in range(real_bytes // (1 << 20)):
                member.write(b"a" * (1 << 20))
    data = bytearray(path.read_bytes())
    for signature, size_at, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        start = data.find(signature)
        while start >= 0:
            if data[start + name_at:start + name_at + 13] == b"notes/liar.md":
                data[start + size_at:start + size_at + 4] = struct.pack("<I", 1024)
            start = data.find(signature, start + 4)
    path.write_bytes(bytes(data))


def test_zip_member_lying_about_its_size_is_never_held_whole(tmp_path, store):
    path = tmp_path / "liar.zip"
    liar_zip(path, 64 << 20)
    assert path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        summary = import_notes(store, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert titles(store) == ["Good"]
    assert len(summary.errors) == 1 and summary.errors[0].startswith("notes/liar.md: cannot be read from the zip")
    assert peak < 16 << 20, f"import held {peak >> 20} MiB at once"  # was > 64 MiB: the member read whole


def test_size_cap_counts_the_bytes_really_read(tmp_path, store, monkeypatch):
    monkeypatch.setattr(import_sources, "MAX_IMPORT_FILE_BYTES", 1000)
    folder = a_folder(tmp_path, big_md="# Big\n\n" + "x" * 2000)
    assert import_notes(store, folder).errors == ["big.md: larger than 1000 bytes; not imported"]
    assert titles(store) == ["Good markdown"]
    single = import_notes(store, folder / "big.md")  # a single file too (it had no cap)
    assert single.errors == ["big.md: larger than 1000 bytes; not imported"] and titles(store) == ["Good markdown"]
    with zipfile.ZipFile(tmp_path / "n.zip", "w") as archive:
        archive.writestr("big.md", "# Big\n\n" + "x" * 2000)
        archive.writestr("small.md", "# Small\n\nfine")
    assert import_notes(store, tmp_path / "n.zip").errors == ["big.md: larger than 1000 bytes; not imported"]
    assert titles(store) == ["Good markdown", "Small"]


@pytest.mark.timeout(120)
def test_a_long_heading_line_imports_at_once(tmp_path, store):
    """The heading was found by a regex with nested quantifiers: '# a' + 1500 spaces + 'x' took 4 s, 2.5 KB 28 s,
    and Ctrl-C could not stop it. 100 KB must import at once (bound generous for a loaded machine)."""
    folder = a_folder(tmp_path, hostile_md="# a" + " " * 100_000 + "x", closed_md="#  Closed  heading ##  \r\nbody",
                      later_md="intro\n## Sub\n# Later title\n")
    started = time.monotonic()
    summary = import_notes(store, folder)
    assert time.monotonic() - started < 2
    assert summary.errors == []
    assert titles(store) == sorted(["a" + " " * 100_000 + "x", "Closed  heading", "Good markdown", "Later title"])


def test_a_report_file_named_by_many_notes_is_read_for_one(tmp_path, store):
    """Every note of a zip could name the same report file: an 8 KB zip became a 110 MB database (20 notes x
    5 MB). The first note naming it gets it; the others are listed and skipped."""
    path = tmp_path / "same-report.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("big.report.json", json.dumps({"question": "q", "pad": "x" * 500_000}))
        for i in range(20):
            archive.writestr(f"n{i:02}.md", f'---\ntitle: "Note {i}"\nreport_file: "big.report.json"\n---\nbody')
    assert path.stat().st_size < 8_000
    summary = import_notes(store, path)
    assert titles(store) == ["Note 0"] and store.all_notes()[0].report["question"] == "q"
    assert summary.errors == [f"n{i:02}.md: its report file big.report.json is already the report of n00.md"
                              for i in range(1, 20)]
    close_thread_connections()
    assert (tmp_path / "notes.db").stat().st_size < 2_000_000  # was 10 MB


def test_an_import_reads_at_most_its_total_cap(tmp_path, store, monkeypatch):
    monkeypatch.setattr(import_sources, "MAX_IMPORT_FILE_BYTES", 1000)
    monkeypatch.setattr(import_sources, "MAX_IMPORT_TOTAL_BYTES", 2500)
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(5):
        (folder / f"n{i}.md").write_text(f"# Note {i}\n\n" + "x" * 800, encoding="utf-8")
    summary = import_notes(store, folder)
    assert titles(store) == ["Note 0", "Note 1", "Note 2"]  # 3 x 810 bytes: the third one crosses 2500
    over = "over the 2500 bytes one import may read in all; not imported (import it on its own)"
    assert summary.errors == [f"n3.md: {over}", f"n4.md: {over}"]
    with zipfile.ZipFile(tmp_path / "n.zip", "w") as archive:  # a zip: the same, and a small file still fits
        for i in range(3):
            archive.writestr(f"z{i}.md", f"# Zip {i}\n\n" + "x" * 900)
        archive.writestr("z3.md", "# Small\n\nfine")
    summary = import_notes(store, tmp_path / "n.zip")
    assert summary.errors == [f"z2.md: {over}"]
    assert titles(store) == ["Note 0", "Note 1", "Note 2", "Small", "Zip 0", "Zip 1"]


def test_folder_import_does_not_follow_links_out_of_the_folder(tmp_path, store):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nfrom outside the folder", encoding="utf-8")
    folder = a_folder(tmp_path)
    (folder / "link.md").symlink_to(outside / "secret.md")
    (folder / "linked-folder").symlink_to(outside, target_is_directory=True)
    (folder / "inner.md").symlink_to(folder / "good.md")  # inside, but a link all the same
    summary = import_notes(store, folder)
    assert titles(store) == ["Good markdown"]
    assert sorted(summary.errors) == ["inner.md: a symbolic link; not followed",
                                      "link.md: a symbolic link; not followed",
                                      "linked-folder: a link to a folder; not followed"]


def test_a_file_swapped_for_a_link_after_listing_is_not_read(tmp_path, store):
    outside = tmp_path / "secret.md"
    outside.write_text("# Secret\n\nfrom outside", encoding="utf-8")
    folder = a_folder(tmp_path)
    source = import_sources.FolderSource(folder)
    (folder / "good.md").unlink()
    (folder / "good.md").symlink_to(outside)
    with pytest.raises(import_sources.UnreadableFileError):
        source.read("good.md")


# ---------------------------------------------------------------- reading never breaks

def test_reading_survives_bad_times_already_in_the_database(tmp_path, store):
    """Values an older Quarry let in: every read and export still works (the bad time shown as '?')."""
    ok = store.add_note("Fine", "c")
    far = store.add_note("Far future", "c", ["k"])
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE notes SET created_at = 1e300, updated_at = 9e999 WHERE id = ?", [far.id])
    conn.commit()
    conn.close()
    assert {n.title for n in store.list_notes()} == {"Fine", "Far future"}
    for fmt in FORMATS:
        assert export_note(store.get_note(far.id), fmt, secrets=[]) or fmt == "ris"  # RIS of no sources: empty
    assert export_notes(store, tmp_path / "out.zip", secrets=[]) == 2
    fresh = NotesStore(tmp_path / "fresh.db")
    summary = import_notes(fresh, tmp_path / "out.zip")  # the bad times are written as null: it imports
    assert summary.errors == [] and titles(fresh) == ["Far future", "Fine"]
    assert fresh.get_note(ok.id).created_at == ok.created_at
    assert math.isfinite(fresh.get_note(far.id).updated_at)


_SCALAR = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(max_size=8))
_JSON = st.recursive(_SCALAR, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(["n", "title", "url", "quote", "verdict", "user_override",
                                                        "models", "created_at", "x"]), inner, max_size=4),
                     max_leaves=12)
_SOURCE = st.dictionaries(st.sampled_from(["n", "title", "url", "verdict", "user_override", "date_published"]),
                          _JSON | st.sampled_from([1, 2, "http://[", "https://ok.example/"]), max_size=5)
_REPORT = st.fixed_dictionaries({"question": _JSON, "report_markdown": st.text(max_size=20) | _JSON},
                                optional={"sources": st.lists(_SOURCE, max_size=3) | _JSON,
                                          "citations": st.lists(_SOURCE, max_size=2) | _JSON,
                                          "errors": _JSON, "llm_usage": _JSON, "created_at": _JSON, "id": _JSON})
_NOTE = st.fixed_dictionaries({"title": st.text(min_size=1, max_size=6), "content": st.text(max_size=12)},
                              optional={"report": _REPORT | _JSON, "keywords": _JSON, "id": _JSON,
                                        "created_at": _JSON, "updated_at": _JSON, "version": _JSON,
                                        "deleted": _JSON, "deleted_at": _JSON, "report_id": _JSON})


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(items=st.lists(_NOTE | _REPORT, min_size=1, max_size=3))
def test_whatever_imports_can_be_read(tmp_path_factory, items):
    """Import anything; every note that got in lists, shows in every format and exports without an error."""
    folder = tmp_path_factory.mktemp("any")
    (folder / "in.json").write_text(json.dumps(items), encoding="utf-8")
    store = NotesStore(folder / "n.db")
    try:
        summary = import_notes(store, folder / "in.json")
        notes = store.all_notes(include_deleted=True)
        assert len(notes) + len(summary.errors) >= len(items)
        store.list_notes()
        store.list_notes(deleted=True)
        store.list_keywords()
        for note in notes:
            for fmt in FORMATS:
                export_note(note, fmt, secrets=["sekrit"])
        export_notes(store, folder / "out.zip", include_deleted=True, secrets=["sekrit"])
        again = NotesStore(folder / "again.db")
        assert import_notes(again, folder / "out.zip").errors == []
    finally:
        close_thread_connections()
