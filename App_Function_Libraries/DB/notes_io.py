"""Notes in and out: a report saved as a note, the note file format, bulk export to a folder or a zip, and
import from those (or from JSON exports and plain Markdown files).

A note file is Markdown with a front matter block whose values are JSON (so also valid YAML), followed by the
content exactly as stored:

    ---
    id: "6f1c…"
    title: "Bees and dances"
    keywords: ["bees", "biology"]
    created_at: 1714128000.123456
    updated_at: 1714131600.5
    version: 2
    ---
    The content…

A note that came from a research run also gets `<same name>.report.json` beside it, holding the run (question,
sources, citations, ...), named by `report_file` in the front matter. Export then import loses nothing:
same ids, titles, contents, keywords, timestamps and versions.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Iterator

from App_Function_Libraries.DB.connection import StoreError
from App_Function_Libraries.DB.export import report_body_markdown
from App_Function_Libraries.DB.file_errors import UnusableDatabaseError
from App_Function_Libraries.DB.import_sources import (MAX_IMPORT_FILE_BYTES, NOTE_SUFFIXES, ImportSource,  # noqa: F401
                                                      UnreadableFileError, open_source, wanted)
from App_Function_Libraries.DB.note_checks import NoteFileError, check_depth, incoming_note, load_json
from App_Function_Libraries.DB.note_format import markdown_to_note, note_to_markdown
from App_Function_Libraries.DB.notes_store import Note, NotesStore, StaleEditError
from App_Function_Libraries.DB.redact import configured_secrets, scrub, scrub_result_dict

REPORT_SUFFIX = ".report.json"
ZIP_FOLDER = "notes"


# ---------------------------------------------------------------- a report saved as a note

def save_report_as_note(store: NotesStore, result: Any, title: str | None = None,
                        keywords: Iterable[str] | str | None = None, secrets: Iterable[str] | None = None) -> Note:
    """A note holding a research run: the report with its numbered sources as content, and the whole run
    (question, sources, citations, ...) kept as its report snapshot."""
    data = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    data = scrub_result_dict(data, tuple(configured_secrets() if secrets is None else secrets))
    title = title if title and title.strip() else (" ".join(str(data.get("question") or "").split()) or "Report")
    return store.add_note(title, report_body_markdown(data), keywords, report_id=data.get("id"), report=data)


# ---------------------------------------------------------------- bulk export

def export_notes(store: NotesStore, destination: str | Path, include_deleted: bool = False,
                 secrets: Iterable[str] | None = None) -> int:
    """Write every note to a folder, or to a zip when `destination` ends in .zip. Returns how many."""
    destination = Path(destination)
    files = list(_note_files(store.all_notes(include_deleted), tuple(configured_secrets() if secrets is None
                                                                      else secrets)))
    if destination.suffix.lower() == ".zip":
        destination.parent.mkdir(parents=True, exist_ok=True)
        partial = destination.with_name(destination.name + ".partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in files:
                archive.writestr(f"{ZIP_FOLDER}/{name}", text.encode("utf-8"))
        os.replace(partial, destination)
    else:
        if destination.exists() and not destination.is_dir():
            raise StoreError(f"{destination} is a file; give a folder or a .zip path")
        destination.mkdir(parents=True, exist_ok=True)
        for name, text in files:
            (destination / name).write_bytes(text.encode("utf-8"))
    return sum(1 for name, _ in files if not name.endswith(REPORT_SUFFIX))


def _note_files(notes: list[Note], secrets: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    taken: set[str] = set()
    for note in notes:
        data = note.to_dict()
        report = data.pop("report")
        data = scrub(data, secrets)
        stem = _file_stem(note, taken)
        report_file = stem + REPORT_SUFFIX if report is not None else None
        yield stem + ".md", note_to_markdown(data, report_file)
        if report_file:
            yield report_file, json.dumps(scrub_result_dict(report, secrets), indent=2, ensure_ascii=False)


def _file_stem(note: Note, taken: set[str]) -> str:
    words = re.sub(r"[^\w-]+", "-", note.title, flags=re.UNICODE).strip("-_")[:50] or "note"
    short = re.sub(r"[^\w-]+", "", note.id[:8], flags=re.ASCII)  # an imported id is any text: no / or ..
    stem = f"{words}-{short}"
    i = 2
    while stem.lower() in taken:
        stem, i = f"{words}-{short}-{i}", i + 1
    taken.add(stem.lower())
    return stem


# ---------------------------------------------------------------- import

@dataclass
class ImportSummary:
    added: int = 0
    updated: int = 0  # an older copy of the same note was here: replaced by the newer one
    unchanged: int = 0  # the same note was already here
    kept_newer: int = 0  # the note here is newer than the file: kept, the file's version put in the trash
    copies: int = 0  # both changed separately: the file's version added as a new note beside it
    errors: list[str] = field(default_factory=list)  # "file: why" or "file: item N: why", each skipped

    def line(self) -> str:
        parts = [f"{self.added} added", f"{self.updated} updated", f"{self.unchanged} unchanged"]
        if self.updated:
            parts.append(f"{self.updated} former versions put in the trash")
        if self.kept_newer:
            parts.append(f"{self.kept_newer} older versions put in the trash (newer ones here)")
        if self.copies:
            parts.append(f"{self.copies} imported as copies (changed on both sides)")
        if self.errors:
            parts.append(f"{len(self.errors)} skipped (files or notes that cannot be read)")
        return ", ".join(parts)


# what one bad file or note can raise while it is read and checked; each is listed and skipped
_BAD_INPUT = (StoreError, ValueError, TypeError, ArithmeticError, RecursionError, sqlite3.IntegrityError)


def import_notes(store: NotesStore, path: str | Path) -> ImportSummary:
    """Import notes from a folder, a zip, a note file (.md) or a JSON export (a note, a list of notes, or a
    research report). Each file, and each note of a JSON list, is imported on its own: one that cannot be read
    or holds values that cannot be stored (a time outside 1970..9999, a version that is not a whole number,
    JSON nested too deeply, ...) is listed in the summary and skipped, and the others are imported. Nothing
    already stored is lost."""
    path = Path(path)
    if not path.exists():
        raise StoreError(f"{path}: no such file or folder")
    if not path.is_dir() and not path.is_file():
        raise StoreError(f"{path}: not a folder, a .zip, or a .md/.markdown/.json file")
    if path.is_file() and not zipfile.is_zipfile(path) and not wanted(path.name):
        raise StoreError(f"{path}: not a folder, a .zip, or a .md/.markdown/.json file")
    summary = ImportSummary()
    with open_source(path) as source:
        summary.errors += [f"{name}: {why}" for name, why in source.problems]
        reports_used: dict[str, str] = {}  # report file -> the note file that named it
        for name in sorted(source.names):
            if not name.endswith(REPORT_SUFFIX):
                _import_file(store, source, name, summary, reports_used)
    return summary


def _import_file(store: NotesStore, source: ImportSource, name: str, summary: ImportSummary,
                 reports_used: dict[str, str]) -> None:
    try:
        items = _notes_in_file(name, source, reports_used)
    except UnusableDatabaseError:
        raise
    except _BAD_INPUT as exc:
        summary.errors.append(f"{name}: {_one_line(exc)}")
        return
    for label, fields in items:
        try:
            if isinstance(fields, Exception):
                raise fields
            _import_one(store, fields, summary)
        except UnusableDatabaseError:
            raise
        except _BAD_INPUT as exc:
            summary.errors.append(f"{name}: {label + ': ' if label else ''}{_one_line(exc)}")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    return text[:300] + ("…" if len(text) > 300 else "") or type(exc).__name__


def _notes_in_file(name: str, source: ImportSource,
                   reports_used: dict[str, str]) -> list[tuple[str, dict[str, Any] | Exception]]:
    """(label, fields) of each note in the file: label is "" for a file holding one note, "item N" in a list;
    fields is the exception that says why when that item is not a note. A report file is read for the first
    note naming it only: a later one naming it too is refused (an export never does that; a hostile zip
    would have one big report stored once per note)."""
    raw, mtime = source.read(name)
    text = raw.decode("utf-8")
    del raw
    if name.lower().endswith(".json"):
        return _notes_in_json(load_json(text, "the file", max_depth=None))
    fields, report_file = markdown_to_note(text, PurePosixPath(name).stem, mtime)
    if report_file:
        sidecar = str(PurePosixPath(name).parent / report_file).removeprefix("./")
        if sidecar not in source.names:
            raise NoteFileError(f"its report file {report_file} is missing")
        if sidecar in reports_used:
            raise NoteFileError(f"its report file {report_file} is already the report of {reports_used[sidecar]}")
        reports_used[sidecar] = name
        try:
            fields["report"] = load_json(source.read(sidecar)[0].decode("utf-8"), f"its report file {report_file}")
        except UnreadableFileError as exc:
            raise NoteFileError(f"its report file {report_file} {exc}") from None
    return [("", fields)]


def _notes_in_json(data: Any) -> list[tuple[str, dict[str, Any] | Exception]]:
    if isinstance(data, dict) and isinstance(data.get("notes"), list):
        data = data["notes"]
    if not isinstance(data, list):
        return [("", _note_in_json(data))]
    return [(f"item {i}", _note_in_json(item)) for i, item in enumerate(data, 1)]


def _note_in_json(item: Any) -> dict[str, Any] | Exception:
    if not isinstance(item, dict):
        return NoteFileError("not a note (a JSON object with title and content)")
    try:
        check_depth(item, "the note")
    except NoteFileError as exc:
        return exc
    if "content" in item and "title" in item:
        return item
    if "question" in item and "report_markdown" in item:  # a research report exported as JSON
        try:
            return {"title": " ".join(str(item["question"]).split()) or "Report",
                    "content": report_body_markdown(item), "report_id": item.get("id"), "report": item,
                    "created_at": item.get("created_at"), "updated_at": item.get("created_at")}
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            return NoteFileError(f"a research report that cannot be read ({type(exc).__name__}: {exc})")
    return NoteFileError("a JSON object without title and content (nor a research report)")


def _import_one(store: NotesStore, fields: dict[str, Any], summary: ImportSummary) -> None:
    """Add one incoming note. Nothing is ever overwritten without a copy of it kept:
    - a note with its id is not here: added with that id;
    - the very same note (title, content, keywords, timestamps) is already here: nothing to do;
    - the file holds a later version of the note here: the note is updated, its former state kept in the trash;
    - the file holds an earlier version: the note here stays, the file's version goes to the trash;
    - both changed separately: the file's version is added beside it as a new note."""
    incoming = incoming_note(fields)
    existing = _existing(store, incoming.id)
    if existing is None:
        if store.find_same(incoming) is not None:
            summary.unchanged += 1
        else:
            _add_copy(store, incoming, keep_id=bool(incoming.id))
            summary.added += 1
    elif store.find_same(incoming) is not None:
        summary.unchanged += 1
    elif incoming.version > existing.version and incoming.updated_at >= existing.updated_at:
        try:
            store.replace_note(incoming, expected_version=existing.version)
            _add_copy(store, existing, keep_id=False, trashed=True)
            summary.updated += 1
        except StaleEditError:  # edited here during the import: keep both
            _add_copy(store, incoming, keep_id=False)
            summary.copies += 1
    elif incoming.version < existing.version and incoming.updated_at <= existing.updated_at:
        _add_copy(store, incoming, keep_id=False, trashed=True)
        summary.kept_newer += 1
    else:
        _add_copy(store, incoming, keep_id=False)
        summary.copies += 1


def _existing(store: NotesStore, note_id: str) -> Note | None:
    if not note_id:
        return None
    try:
        return store.get_note(note_id)
    except LookupError:
        return None


def _add_copy(store: NotesStore, note: Note, keep_id: bool, trashed: bool = False) -> None:
    deleted = note.deleted or trashed
    store.add_note(note.title, note.content, note.keywords, report_id=note.report_id, report=note.report,
                   note_id=note.id if keep_id else None, created_at=note.created_at, updated_at=note.updated_at,
                   version=note.version if keep_id else 1, deleted=deleted,
                   deleted_at=(note.deleted_at if note.deleted else None) or (time.time() if deleted else None))
